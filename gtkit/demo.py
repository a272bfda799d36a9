"""The main job on a built-in default: synthesize, degrade, check, draw and score a creditor matrix.

`gtkit demo --out out/demo` writes a two-document dataset (the clean synthetic
bundle and its fax re-capture), checks both, draws page 1 of each with its ground
truth, scores the truth against itself, and scores a simulated extraction system
(some records dropped, some cells misread, citations jittered) against both.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gtkit.check import check_path
from gtkit.degrade.pipeline import degrade
from gtkit.errors import GtkitError
from gtkit.files.write import write_bytes_atomic, write_json_atomic
from gtkit.format.bundle import read_bundle
from gtkit.format.writer import write_dataset
from gtkit.pipelines import CHECKS
from gtkit.rng import generator
from gtkit.schema import compile_schema, record_arrays
from gtkit.scoring.report import ScoreReport
from gtkit.scoring.run import score_path
from gtkit.synth.pipeline import synth
from gtkit.views.page_png import render_evidence_png
from gtkit.workers import DEFAULT_WORKERS, Pool


@dataclass
class DemoResult:
    out: Path
    bundles: list[str]
    pages: int
    self_score: ScoreReport
    system_score: ScoreReport


def simulate_system(expected: dict[str, Any], evidence: dict[str, list[dict[str, Any]]], schema: dict[str, Any],
                    rng: np.random.Generator, *, drop: float = 0.02, misread: float = 0.03,
                    jitter: float = 0.002) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]:
    """A plausible extraction system's output: records dropped, string cells misread, boxes jittered.

    Citations follow each surviving record to its new position, so grounding is scored fairly.
    """
    predicted = copy.deepcopy(expected)
    citations: dict[str, list[dict[str, Any]]] = {}
    arrays = {ptr: node for ptr, node in record_arrays(compile_schema(schema)) if "*" not in ptr}
    for ptr, _ in arrays.items():
        key = ptr.lstrip("/")
        rows = predicted.get(key) or []
        kept = [i for i in range(len(rows)) if rng.random() >= drop]
        predicted[key] = []
        for new_i, old_i in enumerate(kept):
            row = rows[old_i]
            for name, value in list(row.items()):
                if isinstance(value, str) and value and rng.random() < misread:
                    row[name] = value[:-1] if len(value) > 1 else value + "?"
                for cite in evidence.get(f"{ptr}/{old_i}/{name}", []):
                    box = cite.get("box")
                    if box is not None:
                        box = [float(np.clip(v + rng.normal(0, jitter), 0, 1)) for v in box]
                    citations.setdefault(f"{ptr}/{new_i}/{name}", []).append({"page": cite["page"], "box": box})
            predicted[key].append(row)
    for path, cites in evidence.items():
        if path.count("/") == 1:
            citations[path] = cites
    return predicted, citations


def _evidence_of(folder: Path) -> dict[str, list[dict[str, Any]]]:
    gt = read_bundle(folder).gt
    return {f.path: [{"page": e.page, "box": list(e.box) if e.box else None} for e in f.readings[0].evidence[:1]]
            for f in gt.fields if f.readings[0].evidence}


def run_demo(out: Path, *, family: str = "creditor_matrix", records: int = 600, recipe: str = "fax", seed: int = 7,
             force: bool = False, workers: int = DEFAULT_WORKERS) -> DemoResult:
    out = Path(out)
    with Pool(workers) as pool, write_dataset(out, force=force) as dataset:
        stage = dataset.stage
        made = synth(family, out=stage / "clean", seed=seed, records=records, pool=pool)
        degrade(stage / "clean", stage / recipe, recipe=recipe, seed=seed, pool=pool)
        bundles = [read_bundle(stage / "clean"), read_bundle(stage / recipe)]
        for b in bundles:
            dataset.adopt(b.path.name)
        dataset.write_index()
        _, problems = check_path(stage, CHECKS, pool=pool)
        if problems:
            raise GtkitError(f"demo bundles failed their checks: {problems[0]}", out)
        for b in bundles:
            write_bytes_atomic(stage / f"{b.path.name}-page1.png", render_evidence_png(b, 1, dpi=100), force=True)
        (stage / "self").mkdir()
        (stage / "system").mkdir()
        for b in bundles:
            write_json_atomic(stage / "self" / f"{b.doc_id}.json", b.gt.expected)
            write_json_atomic(stage / "self" / f"{b.doc_id}.citations.json", _evidence_of(b.path))
            sys_rng = generator(seed, "demo", "simulated-system")
            pred, cites = simulate_system(b.gt.expected, _evidence_of(b.path), b.schema, sys_rng)
            write_json_atomic(stage / "system" / f"{b.doc_id}.json", pred)
            write_json_atomic(stage / "system" / f"{b.doc_id}.citations.json", cites)
        self_score = score_path(stage, stage / "self", by="perception", pool=pool)
        system_score = score_path(stage, stage / "system", by="perception", pool=pool)
        scores = {"self": self_score.to_dict(), "simulated_system": system_score.to_dict()}
        write_bytes_atomic(stage / "scores.json", (json.dumps(scores, indent=1) + "\n").encode(), force=True)
    return DemoResult(out=out, bundles=[b.doc_id for b in bundles], pages=made[0].pages,
                      self_score=self_score, system_score=system_score)
