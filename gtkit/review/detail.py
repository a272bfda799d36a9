"""What the review page shows of one item: its votes, its candidates with their boxes, the pages to look at.

Boxes come from the document's gt.json: a pending cell's readings are its candidates in the queue's
order (plurality first), each with the citing system's evidence for it; an agreed cell has one
reading. Each system gets a colour, in the order of their names; a candidate's boxes are drawn in
the colour of the system that cited them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from gtkit.format.bundle import Bundle
from gtkit.review.items import Item

PALETTE = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22")


@dataclass(frozen=True)
class DocView:
    """The parts of a bundle the review page needs, read once per document."""

    pages: int
    sizes: list[list[float]]
    fields: dict[str, dict[str, Any]]   # field entries by pointer
    families: dict[str, str | None]     # system -> family (from the provenance)
    citing: str | None

    @classmethod
    def of(cls, b: Bundle) -> DocView:
        params = b.gt.provenance.parameters or {}
        systems = params.get("systems") or {}
        return cls(pages=b.gt.document.pages, sizes=[list(s) for s in b.gt.document.page_sizes],
                   fields={f["path"]: f for f in b.field_dicts()},
                   families={s: v.get("family") for s, v in systems.items() if isinstance(v, dict)},
                   citing=params.get("citing"))


def colours(systems: list[str]) -> dict[str, str]:
    return {s: PALETTE[k % len(PALETTE)] for k, s in enumerate(sorted(systems))}


def _boxes(evidence: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"page": e["page"], "box": e.get("box")} for e in evidence]


def detail(item: Item, view: DocView, decided: dict[str, Any] | None, types: list[str]) -> dict[str, Any]:
    """The item as the page shows it (JSON)."""
    q = item.source
    votes = q.get("votes", [])
    systems = sorted({*view.families, *(v["system"] for v in votes)})
    entry = view.fields.get(item.path)
    readings = entry["readings"] if entry is not None else []
    out: dict[str, Any] = {
        "id": item.id, "kind": item.kind, "doc": item.doc, "path": item.path, "field": item.field,
        "cause": item.cause, "tier": q.get("tier", "agreed"), "fix": q.get("fix"),
        "null_over_value": q.get("null_over_value", False), "row_presence_tie": q.get("row_presence_tie", False),
        "trust": entry["trust"] if entry is not None else None,
        "value": entry["readings"][0]["value"] if entry is not None else None,   # the cell's value now
        "pages": view.pages, "sizes": view.sizes, "cited": q.get("pages", []), "citing": view.citing,
        "colours": colours(systems), "families": {s: view.families.get(s) for s in systems},
        "votes": votes, "decided": decided, "types": types,
    }
    if item.kind == "cell":
        out["candidates"] = _cell_candidates(q, readings, view.citing)
    elif item.kind == "extra_record":
        out["candidates"] = [{"value": v["row"], "system": v["system"], "systems": [v["system"]],
                              "families": [v["family"]], "boxes": []} for v in votes if v.get("present")]
    else:  # a box to draw or a settled cell: its readings
        out["candidates"] = [{"value": r["value"], "systems": [], "families": [], "boxes": _boxes(r["evidence"]),
                              "source": view.citing} for r in readings]
    return out


def _cell_candidates(q: dict[str, Any], readings: list[dict[str, Any]], citing: str | None) -> list[dict[str, Any]]:
    """Each candidate with the systems behind it (those whose normalized vote is the candidate's) and its boxes."""
    votes = [v for v in q.get("votes", []) if not v.get("failure")]
    out = []
    for k, c in enumerate(q.get("candidates", [])):
        keys = {json_key(v["vote"]) for v in votes if v["value"] == c["value"]}
        behind = sorted(v["system"] for v in votes if json_key(v["vote"]) in keys)
        evidence = readings[k]["evidence"] if k < len(readings) and readings[k]["value"] == c["value"] else []
        out.append({"value": c["value"], "weight": c.get("weight"), "families": c.get("families", []),
                    "systems": behind, "boxes": _boxes(evidence), "source": citing})
    return out


def json_key(vote: Any) -> str:
    """A normalized vote as a hashable key."""
    return json.dumps(vote, sort_keys=True)
