"""`import gtkit` is the library's front door: cheap to import, each verb the pipeline's own function."""

from __future__ import annotations

import subprocess
import sys

import pytest

import gtkit


def test_importing_gtkit_loads_no_pipeline() -> None:
    code = ("import sys, gtkit; heavy = [m for m in sys.modules if m.startswith(('gtkit.', 'fitz', 'pymupdf', "
            "'reportlab', 'weasyprint', 'cv2', 'pandas', 'scipy'))]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize(("name", "module", "attribute"), [
    ("synthesize", "gtkit.synth.pipeline", "synth"), ("degrade_bundle", "gtkit.degrade.pipeline", "degrade"),
    ("run_consensus", "gtkit.consensus.run", "run_consensus"), ("score_path", "gtkit.scoring.run", "score_path"),
    ("check_path", "gtkit.pipelines", "check_all"), ("read_bundle", "gtkit.format.bundle", "read_bundle")])
def test_each_verb_is_the_function_that_does_the_work(name: str, module: str, attribute: str) -> None:
    import importlib

    assert getattr(gtkit, name) is getattr(importlib.import_module(module), attribute)
    assert name in gtkit.__all__ and name in dir(gtkit)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        gtkit.nothing  # noqa: B018 - the attribute access is what is tested


def test_the_front_door_makes_and_checks_a_bundle(tmp_path) -> None:  # type: ignore[no-untyped-def]
    gtkit.synthesize("creditor_matrix", out=tmp_path / "cm", records=12, seed=2)
    assert gtkit.check_path(tmp_path / "cm") == (1, [])
    assert gtkit.read_bundle(tmp_path / "cm").gt.doc_id == "creditor_matrix-s2"
