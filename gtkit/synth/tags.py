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

Measured tags a family declares but the document does not show are dropped.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from gtkit.format import length_tag

MEASURED_STRUCTURE = ("S2", "S3", "S4")
MEASURED_TASK = ("T1.b",)
MEASURED_GROUNDING = ("G3", "G4")
ROWS_S4 = 1000
_RECORD = re.compile(r"^(/[^/]+/\d+)(/.*)$")
_NESTED = re.compile(r"^/[^/]+/\d+/.*/\d+/")
_INNERMOST = re.compile(r"^(.*/\d+)/[^/]+$")  # the innermost record holding a leaf


def header_apart(fields: list[dict[str, Any]]) -> bool:
    """S2 (module docstring): a box cited by values of several records lies on another page than one of
    those records' own values, or at their left on the same line."""
    cited: dict[tuple[int, tuple[float, ...]], list[str]] = defaultdict(list)
    for f in fields:
        for ev in f["readings"][0]["evidence"]:
            if ev.get("box") is not None:
                cited[(ev["page"], tuple(ev["box"]))].append(f["path"])
    headers: dict[tuple[int, tuple[float, ...]], set[str]] = {}
    for key, paths in cited.items():
        if len(paths) > 1:
            records = {m.group(1) for m in map(_INNERMOST.match, paths) if m}
            if len(records) > 1:
                headers[key] = records
    if not headers:
        return False
    own: dict[str, list[tuple[int, tuple[float, ...]]]] = defaultdict(list)  # record -> its own values' boxes
    for key, paths in cited.items():
        if key not in headers:
            for m in map(_INNERMOST.match, paths):
                if m:
                    own[m.group(1)].append(key)
    for (page, (hx0, hy0, hx1, hy1)), records in headers.items():
        for record in records:
            boxes = own.get(record, [])
            if boxes and all(p != page for p, _ in boxes):
                return True
            if any(p == page and hx1 <= b[0] and hy0 < b[3] and b[1] < hy1 for p, b in boxes):
                return True
    return False


def measured_tags(declared: dict[str, Any], records_field: str, records: int, fields: list[dict[str, Any]],
                  pages: int) -> dict[str, Any]:
    """The document's tags: `declared` (family.toml's) with the measured ones recomputed (module docstring)."""
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
    return {"task": sorted(task), "perception": list(declared.get("perception", [])), "structure": sorted(structure),
            "length": length_tag(pages), "domain": declared.get("domain"), "grounding": sorted(grounding)}
