"""`gtkit score --explain OUT.jsonl`: one line per cell of every document, saying why it scored as it did.

Each line: `doc`, `truth` (the truth cell's JSON Pointer, null for an extra predicted record), `pred` (the
predicted cell's pointer, null for a missing record or prediction), `readings` (the truth's accepted
values), `predicted`, `outcome`, `matched` and `grounding`:

- outcome: `correct`, `wrong`, `missing_record` (a truth record no predicted record was paired with),
  `extra_record` (a predicted record paired with none), `pending` (a contested truth cell, left out of
  every count), `no_prediction` (the document's prediction is missing or unusable: every cell is a miss);
- matched (for `correct`): `exact`, `alternate N` (the N-th reading, 1-based), or `leniency NAME`;
- grounding: null where the cell is not scored for grounding (the truth has no verified box there); else
  `cited` (whether the predicted cell has citations), `page` (a citation names an evidence page),
  `iou` (the best IoU of a cited box with an evidence box on its page) and `word` (IoU >= 0.5 on a right
  value). A citation flagged `bad` (page beyond the document, invalid box) grounds nothing.

Non-finite numbers (NaN, Infinity) are written as strings, so every line is valid JSON.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gtkit.errors import GtkitError
from gtkit.files.outputs import check_output, write_output_file
from gtkit.files.read import read_jsonl
from gtkit.geometry import iou
from gtkit.scoring.normalize import cell_keys, keys_match, value_key

IOU_THRESHOLD = 0.5  # word grounding: a cited box at least this IoU with an evidence box (engine and explain)


def how_matched(readings: tuple[Any, ...] | list[Any], predicted: Any, leniencies: tuple[str, ...]) -> str | None:
    """Which reading (exactly) or which declared leniency accepts `predicted`; None when nothing does."""
    key = value_key(predicted)
    for k, reading in enumerate(readings):
        if value_key(reading) == key:
            return "exact" if k == 0 else f"alternate {k + 1}"
    for lens in leniencies:
        if keys_match(cell_keys(tuple(readings), (lens,)), cell_keys((predicted,), (lens,))):
            return f"leniency {lens}"
    return None


def grounding(boxes: Iterable[tuple[int, Any]], pages: frozenset[int], cites: list[dict[str, Any]] | None,
              correct: bool) -> dict[str, Any]:
    """The grounding outcome of one scored cell: its verified evidence (`boxes`, `pages`) against its citations."""
    good = [c for c in cites or () if not c.get("bad")]
    best = max((iou(c["box"], b) for c in good if c.get("box") is not None for p, b in boxes if p == c["page"]),
               default=None)
    return {
        "cited": bool(cites),
        "page": correct and any(c["page"] in pages for c in good),
        "iou": None if best is None else round(best, 4),
        "word": correct and best is not None and best >= IOU_THRESHOLD,
    }


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, list):
        return [_finite(v) for v in value]
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


def explain_lines(documents: Iterable[Any]) -> bytes:
    """The JSON Lines of every document's explained cells (documents scored with `explain`)."""
    out = []
    for d in documents:
        for cell in d.cells or ():
            out.append(json.dumps(_finite({"doc": d.doc_id, **cell}), ensure_ascii=False, allow_nan=False))
    return ("\n".join(out) + "\n" if out else "").encode("utf-8")


def is_explain_file(path: Path) -> bool:
    """A file `--explain` wrote (JSON Lines whose objects carry an `outcome`): what `--force` may replace."""
    if path.suffix != ".jsonl" or not path.is_file():
        return False
    try:
        return all("outcome" in item for _, item in read_jsonl(path))
    except GtkitError:
        return False


def write_explain(path: Path, lines: bytes, *, force: bool, inputs: Iterable[Path]) -> None:
    """Write `explain_lines` to `path` (atomically; `force` replaces an earlier explain file, never an input)."""
    inputs = list(inputs)
    check_output(Path(path), force=force, inputs=inputs, replaceable=is_explain_file)
    write_output_file(Path(path), lines, force=force, inputs=inputs, replaceable=is_explain_file)
