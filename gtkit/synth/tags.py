"""A synthetic document's tags, measured from what was drawn rather than copied from family.toml.

family.toml gives the domain and the task challenge, and may declare layout facts of its own
(structure tags S1, S5: merged headers, packed cells). The rest is measured from the document's
field entries:

- length: L1 up to 10 pages, L2 up to 50, L3 beyond;
- S3 (a table continuing across pages): the records of the list sit on more than one page;
- S4 (a table beyond a thousand rows): the list has more than 1,000 records;
- S2 (a pivot, or a header not on top of its data): a header keys the values of several records
  (one evidence box cited by values of two or more records, as a pivot's candidate header names the
  candidate of every precinct's figure), and for some record it is either on another page than the
  record's own values (the header printed once, pages away) or at the left of them on their line
  (a row header: records run across the columns);
- T1.b (cross-page continuation): at least one record has values on two pages;
- G4 (checkbox evidence): a boolean value was drawn (its evidence is a checkbox);
- G3 (nested-record evidence): a value of a record nested inside a record was drawn.

A document drawn by the reportlab renderers also has the layout facts measured (`drawn`):

- S1 (two-level header): a header row of groups spanning columns was drawn over the column titles;
- P1 (rotated page): a page of the PDF has /Rotate (its content runs sideways on the sheet).

Measured tags a family declares but the document does not show are dropped.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

import numpy as np

from gtkit.format.models import length_tag

MEASURED_STRUCTURE = ("S2", "S3", "S4")
MEASURED_TASK = ("T1.b",)
MEASURED_GROUNDING = ("G3", "G4")
DRAWN = {"S1": "structure", "P1": "perception"}  # layout facts the reportlab renderers measure
ROWS_S4 = 1000
_RECORD = re.compile(r"^(/[^/]+/\d+)(/.*)$")
_NESTED = re.compile(r"^/[^/]+/\d+/.*/\d+/")
_INNERMOST = re.compile(r"^(.*/\d+)/[^/]+$")  # the innermost record holding a leaf


def header_apart(fields: list[dict[str, Any]]) -> bool:
    """S2 (module docstring): a box cited by values of several records lies on another page than one of
    those records' own values, or at their left on the same line. Boxes cited more than once are found
    with one sort of every evidence box, so a long list without headers costs little."""
    paths: list[str] = []
    pages: list[int] = []
    boxes: list[list[float]] = []
    for f in fields:
        for ev in f["readings"][0]["evidence"]:
            if ev.get("box") is not None:
                paths.append(f["path"])
                pages.append(ev["page"])
                boxes.append(ev["box"])
    if len(paths) < 2:
        return False
    table = np.ascontiguousarray(np.column_stack([np.asarray(pages, dtype=float), np.asarray(boxes, dtype=float)]))
    _, where, counts = np.unique(table.view(np.dtype((np.void, table.itemsize * 5))).ravel(), return_inverse=True,
                                 return_counts=True)
    where = where.reshape(-1)
    shared = np.nonzero(counts[where] > 1)[0]
    if not len(shared):
        return False
    cited: dict[int, set[str]] = defaultdict(set)  # a box cited more than once -> the records citing it
    for i in shared:
        m = _INNERMOST.match(paths[i])
        if m:
            cited[int(where[i])].add(m.group(1))
    headers = {k: recs for k, recs in cited.items() if len(recs) > 1}
    keyed = set().union(*headers.values()) if headers else set()
    if not keyed:
        return False
    own: dict[str, list[list[float]]] = defaultdict(list)  # a keyed record -> its own values' pages and boxes
    for j, path in enumerate(paths):
        m = _INNERMOST.match(path)
        if m and m.group(1) in keyed and int(where[j]) not in headers:
            own[m.group(1)].append(table[j].tolist())
    first = {int(where[i]): int(i) for i in shared[::-1]}  # a box's first entry
    for k, records in headers.items():
        page, _, hy0, hx1, hy1 = table[first[k]].tolist()
        for record in records:
            mine = own.get(record, [])
            if mine and all(b[0] != page for b in mine):
                return True
            if any(b[0] == page and hx1 <= b[1] and hy0 < b[4] and b[2] < hy1 for b in mine):
                return True
    return False


def measured_tags(declared: dict[str, Any], records_field: str, records: int, fields: list[dict[str, Any]],
                  pages: int, drawn: dict[str, bool] | None = None) -> dict[str, Any]:
    """The document's tags: `declared` (family.toml's) with the measured ones recomputed (module docstring).
    `drawn` maps the layout facts of `DRAWN` to whether the document shows them (None: not measured, the
    declared ones are kept)."""
    record_pages: dict[str, set[int]] = defaultdict(set)
    checkbox = nested = False
    for f in fields:
        evidence = f["readings"][0]["evidence"]
        if not evidence:
            continue
        m = _RECORD.match(f["path"])
        if m and f["path"].startswith(f"/{records_field}/"):
            record_pages[m.group(1)].update(ev["page"] for ev in evidence)
        checkbox = checkbox or isinstance(f["readings"][0]["value"], bool)
        nested = nested or bool(_NESTED.match(f["path"]))
    list_pages = set().union(*record_pages.values()) if record_pages else set()
    structure = [t for t in declared.get("structure", []) if t not in MEASURED_STRUCTURE]
    structure += ["S2"] * header_apart(fields) + ["S3"] * (len(list_pages) > 1) + ["S4"] * (records > ROWS_S4)
    task = [t for t in declared.get("task", []) if t not in MEASURED_TASK]
    task += ["T1.b"] * any(len(p) > 1 for p in record_pages.values())
    grounding = [t for t in declared.get("grounding", []) if t not in MEASURED_GROUNDING]
    grounding += ["G3"] * nested + ["G4"] * checkbox
    perception = list(declared.get("perception", []))
    if drawn is not None:
        for tag, axis in DRAWN.items():
            kept = perception if axis == "perception" else structure
            if tag in kept:
                kept.remove(tag)
            if drawn.get(tag):
                kept.append(tag)
    return {"task": sorted(task), "perception": sorted(perception), "structure": sorted(structure),
            "length": length_tag(pages), "domain": declared.get("domain"), "grounding": sorted(grounding)}
