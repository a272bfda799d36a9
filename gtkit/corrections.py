"""A person's corrections of a bundle that is not a consensus output, as its provenance records them.

`gtkit adjudicate` on a synth, degrade or imported dataset rewrites each corrected cell (its value in
`expected` and in its field entry, trust `human`, a drawn box as verified evidence) and appends one record per
decision to `provenance.parameters.corrections`:

    {"path": "/creditors/3/name", "action": "edit", "who": "ana", "when": "2026-11-30T15:02:19Z",
     "note": null, "before": "BILLY WHITE", "after": "BILLY WHITE JR"}

`before` is the cell's value before the decision (null when it was null or absent), `after` its value after.
A pipeline's check (synth re-reads the PDF) takes a `human` cell as the person's word and checks every other
cell as before: `original_expected` gives back the `expected` the pipeline wrote, so the check can re-plan
and re-read the document from it; a record of a cell that is not `human` must leave its value as it was (a
confirmation), or it is a problem.

Whatever made the bundle, the log's last record of a cell must say the cell's value (`log_problems`, run by
`gtkit check`): a cell decided again without its record would otherwise keep a log that says an older value.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from gtkit.schema import split_pointer
from gtkit.scoring.normalize import value_key

CORRECTIONS = "corrections"
HUMAN = "human"


def correction_record(path: str, action: str, who: str | None, when: str | None, note: str | None,
                      before: Any, after: Any) -> dict[str, Any]:
    """One record of `provenance.parameters.corrections`, in its key order."""
    return {"path": path, "action": action, "who": who, "when": when, "note": note, "before": before, "after": after}


def recorded(parameters: dict[str, Any] | None) -> list[Any]:
    """The correction records of a bundle's `provenance.parameters` (an empty list when there are none)."""
    value = (parameters or {}).get(CORRECTIONS)
    return value if isinstance(value, list) else []


def log_problems(parameters: dict[str, Any] | None, values: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(JSON Pointer into gt.json, message) for every cell whose last correction record does not say its value
    (`values`: field path -> the cell's value). Records that are not well formed, and records of a path that
    is no cell, are left to `original_expected`."""
    records = recorded(parameters)
    last: dict[str, int] = {}
    for i, rec in enumerate(records):
        if isinstance(rec, dict) and isinstance(rec.get("path"), str) and "after" in rec:
            last[rec["path"]] = i
    problems = []
    for path, i in last.items():
        if path in values and value_key(records[i]["after"]) != value_key(values[path]):
            problems.append((f"/provenance/parameters/{CORRECTIONS}/{i}/after",
                             f"the last correction of {path} says {records[i]['after']!r}, but its value is "
                             f"{values[path]!r}"))
    return problems


def original_expected(expected: Any, parameters: dict[str, Any] | None,
                      trust: Mapping[str, str]) -> tuple[Any, list[tuple[str, str]]]:
    """(`expected` as the pipeline wrote it, problems as (JSON Pointer into gt.json, message)).

    Every recorded correction of a `human` cell (`trust`: field path -> trust) is undone, latest first, so
    the earliest `before` wins; a record of any other cell must leave the value as it was. Where nothing is
    undone, `expected` itself comes back (not a copy): the caller reads it, never changes it."""
    original = expected
    problems: list[tuple[str, str]] = []
    records = recorded(parameters)
    if CORRECTIONS in (parameters or {}) and not isinstance((parameters or {})[CORRECTIONS], list):
        return original, [(f"/provenance/parameters/{CORRECTIONS}", "must be a list of correction records")]
    for i in range(len(records) - 1, -1, -1):
        rec, at = records[i], f"/provenance/parameters/{CORRECTIONS}/{i}"
        if not (isinstance(rec, dict) and isinstance(rec.get("path"), str) and "before" in rec and "after" in rec):
            problems.append((at, 'a correction record has "path", "before" and "after"'))
            continue
        path = rec["path"]
        if path not in trust:
            problems.append((at + "/path", f"{path} is not a cell of this bundle"))
        elif trust[path] != HUMAN:
            if value_key(rec["before"]) != value_key(rec["after"]):
                problems.append((at, f"corrects {path}, whose trust is {trust[path]!r}, not 'human'"))
        else:
            if original is expected:
                original = copy.deepcopy(expected)
            if not _restore(original, path, rec["before"]):
                problems.append((at + "/path", f"{path} is not a place in expected"))
    return original, problems


def _restore(doc: Any, pointer: str, value: Any) -> bool:
    """Put `value` back at `pointer` (a null whose key is absent stays absent); False when the pointer has no
    parent in `doc`."""
    tokens = split_pointer(pointer)
    if not tokens:
        return False
    cur = doc
    try:
        for t in tokens[:-1]:
            cur = cur[int(t)] if isinstance(cur, list) else cur[t]
        last = tokens[-1]
        if isinstance(cur, list):
            cur[int(last)] = value
        elif isinstance(cur, dict):
            if value is not None or last in cur:
                cur[last] = value
        else:
            return False
    except (KeyError, IndexError, ValueError, TypeError):
        return False
    return True
