"""Differential test: gtkit's scores agree with ExtractBench's reference scorer.

A seeded batch of random cases (`tests/diffcases.py`) is scored by gtkit and by ExtractBench's
`compute_unified_evidence_metrics` (through `scripts/extractbench_bridge.py`, run by a Python 3.12
venv with `llama-extract-bench==1.0.0`: `make extractbench` builds `.venv-eb312`; another interpreter
can be named by GTKIT_EXTRACTBENCH_PYTHON). Value precision, recall and F1, page F1 and word F1 must
agree to 1e-9. The cases stay off the shapes where gtkit deliberately differs, each listed in
docs/scoring.md; `scripts/diff_extractbench.py` runs a large batch and measures those differences.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from diffcases import BRIDGE, DEFAULT_EB_PYTHON, DELIBERATE, ROOT, disagreements, gtkit_scores, make_case, run_bridge

N_CASES = 300
SEED = 20_260_601


@pytest.fixture(scope="module")
def eb_python() -> Path:
    python = Path(os.environ.get("GTKIT_EXTRACTBENCH_PYTHON") or DEFAULT_EB_PYTHON)
    if not python.exists():
        pytest.skip(f"no ExtractBench interpreter at {python}: `make extractbench` builds one "
                    "(a Python 3.12 venv with llama-extract-bench==1.0.0), or set GTKIT_EXTRACTBENCH_PYTHON")
    if not BRIDGE.exists():
        pytest.skip(f"the bridge {BRIDGE} is not beside these tests (an installed-wheel run)")
    return python


def test_gtkit_agrees_with_extractbench_on_a_seeded_batch(eb_python):
    cases = [make_case(SEED + k) for k in range(N_CASES)]
    ours = [gtkit_scores(c) for c in cases]
    theirs = run_bridge(eb_python, cases)
    assert [t["id"] for t in theirs] == [c["id"] for c in cases]
    bad = {c["id"]: d for c, g, t in zip(cases, ours, theirs) if (d := disagreements(g, t))}
    assert not bad, "gtkit and ExtractBench disagree (seed: differences):\n" + "\n".join(
        f"  {seed}: {'; '.join(d)}" for seed, d in list(bad.items())[:10])
    # the batch is not trivial: partial credit on values and on grounding, and exact-0.5 IoU boxes
    assert sum(0 < g["value"]["f1"] < 1 for g in ours) > N_CASES // 2
    assert sum(g["word"] is not None and 0 < g["word"]["f1"] < 1 for g in ours) > N_CASES // 3
    assert sum(g["value"]["precision"] != g["value"]["recall"] for g in ours) > N_CASES // 5


def test_the_batch_would_catch_a_difference(eb_python):
    """A deliberate difference drawn on purpose shows up: the comparison is not vacuous."""
    cases = [make_case(SEED + k, include=["bool_number", "extra_root_key"]) for k in range(60)]
    theirs = run_bridge(eb_python, cases)
    assert any(disagreements(gtkit_scores(c), t) for c, t in zip(cases, theirs))


def test_cases_are_a_pure_function_of_the_seed():
    assert make_case(7) == make_case(7)
    assert make_case(7) != make_case(8)


@pytest.mark.skipif(not (ROOT / "docs").is_dir(), reason="docs/ is not beside the tests (testing an installed wheel)")
def test_every_deliberate_difference_is_documented():
    text = (ROOT / "docs" / "scoring.md").read_text(encoding="utf-8")
    section = text[text.index("## Where gtkit differs from ExtractBench"):]
    missing = [name for name in DELIBERATE if not re.search(rf"`{name}`", section)]
    assert not missing, f"docs/scoring.md does not list: {', '.join(missing)}"
