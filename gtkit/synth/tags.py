"""A synthetic document's tags, measured from what was drawn rather than copied from family.toml.

family.toml gives the domain and the task challenge, and may declare layout facts of its own
(structure tags S1, S2, S5: merged headers, pivots, packed cells). The rest is measured from the
document's field entries:

- length: L1 up to 10 pages, L2 up to 50, L3 beyond;
- S3 (a table continuing across pages): the records of the list sit on more than one page;
- S4 (a table beyond a thousand rows): the list has more than 1,000 records;
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

from gtkit.format import length_tag

MEASURED_STRUCTURE = ("S3", "S4")
MEASURED_TASK = ("T1.b",)
MEASURED_GROUNDING = ("G3", "G4")
DRAWN = {"S1": "structure", "P1": "perception"}  # layout facts the reportlab renderers measure
ROWS_S4 = 1000
_RECORD = re.compile(r"^(/[^/]+/\d+)(/.*)$")
_NESTED = re.compile(r"^/[^/]+/\d+/.*/\d+/")


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
    structure += ["S3"] * (len(list_pages) > 1) + ["S4"] * (records > ROWS_S4)
    task = [t for t in declared.get("task", []) if t not in MEASURED_TASK]
    task += ["T1.b"] * any(len(p) > 1 for p in record_pages.values())
    grounding = [t for t in declared.get("grounding", []) if t not in MEASURED_GROUNDING]
    grounding += ["G3"] * nested + ["G4"] * checkbox
    perception = list(declared.get("perception", []))
    for tag, axis in DRAWN.items() if drawn is not None else ():
        kept = perception if axis == "perception" else structure
        if tag in kept:
            kept.remove(tag)
        if drawn.get(tag):
            kept.append(tag)
    return {"task": sorted(task), "perception": sorted(perception), "structure": sorted(structure),
            "length": length_tag(pages), "domain": declared.get("domain"), "grounding": sorted(grounding)}
