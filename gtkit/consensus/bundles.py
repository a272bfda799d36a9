"""Building one document's outputs from its consensus: the bundle's envelope and field entries (handed to
the bundle writer), its adjudication queue items and its boxes to draw.

Agreed cells (`unanimous`, `all_null`, and under `--promote majority` a clear `majority`) get trust
`agreed`, their one reading the consensus value; an agreed non-null value without a kept box goes to the
drawing list. The others get trust `pending`, their readings the candidate values (plurality first, so `expected`
holds the plurality value), and a queue item with every vote. Each extra record is a queue item.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from gtkit.consensus.cells import SPLIT, Cell, DocResult, ExtraRecord, WithheldRecord
from gtkit.consensus.evidence import CitedEvidence
from gtkit.consensus.inputs import schema_version
from gtkit.consensus.model import Consensus
from gtkit.consensus.votes import INVALID, key_json
from gtkit.files.read import sha256_file
from gtkit.format.models import LENIENCIES
from gtkit.format.writer import Envelope, field_entry
from gtkit.pdf import DocumentWords


@dataclass
class DocumentOutputs:
    envelope: Envelope
    fields: list[dict[str, Any]]   # field entries, in the format's key order
    queue: list[dict[str, Any]]
    draw: list[dict[str, Any]]


def build_document(c: Consensus, r: DocResult, *, family: str | None = None) -> DocumentOutputs:
    """The document's envelope, field entries, queue items and boxes to draw."""
    words = DocumentWords(c.inputs.docs[r.doc_id])
    try:
        evidence = CitedEvidence(c.citing, c.citations.get(r.doc_id, {}).get(c.citing, {}) if c.citing else {},
                                 c.infos[r.doc_id].pages, words)
        out = DocumentOutputs(envelope(c, r, family), [], [], [])
        for cell in r.cells:
            if cell.pending:
                out.fields.append(_pending_entry(cell, evidence))
                out.queue.append(_cell_item(r, cell, evidence))
            else:
                entry = _agreed_entry(cell, evidence)
                out.fields.append(entry)
                evidence_list = entry["readings"][0]["evidence"]
                if cell.value is not None and not any(e["box"] is not None for e in evidence_list):
                    out.draw.append({"doc": r.doc_id, "path": cell.pointer, "value": cell.value,
                                     "pages": sorted({e["page"] for e in evidence_list})})
        records: list[ExtraRecord | WithheldRecord] = [*r.extras, *r.withheld]
        out.queue += [_record_item(r, x, evidence) for x in records]
        return out
    finally:
        words.close()


def envelope(c: Consensus, r: DocResult, family: str | None) -> Envelope:
    """What gt.json says besides the field entries: the systems that ran, the citing system and the runs' hashes."""
    voters = r.voters
    parameters = {
        "systems": {s: {"family": voters.family[s], "cites": c.systems.systems[s].cites} for s in voters.systems},
        "citing": c.citing,
        "promote": c.promote,
        "runs_sha256": {s: sha256_file(p) for s, p in sorted(c.inputs.runs[r.doc_id].items())},
    }
    return Envelope(
        doc_id=r.doc_id, page_sizes=c.infos[r.doc_id].sizes, schema=c.schema, expected=r.expected,
        provenance={"pipeline": "consensus", "family": family, "seed": None, "recipe": None, "parent": None,
                    "parameters": parameters},
        schema_version=schema_version(c.schema))


def _leniencies(cell: Cell) -> list[str]:
    return [x for x in cell.node.leniencies if x in LENIENCIES]


def _agreed_entry(cell: Cell, evidence: CitedEvidence) -> dict[str, Any]:
    readings = [{"value": cell.value, "evidence": evidence.for_reading(cell, cell.top, cell.value)}]
    return field_entry(cell.pointer, readings, _leniencies(cell), "agreed")


def _pending_entry(cell: Cell, evidence: CitedEvidence) -> dict[str, Any]:
    readings = [{"value": raw, "evidence": evidence.for_reading(cell, k, raw)} for k, raw in cell.candidates]
    return field_entry(cell.pointer, readings, _leniencies(cell), "pending")


def _cell_item(r: DocResult, cell: Cell, evidence: CitedEvidence) -> dict[str, Any]:
    """The queue item of a contested cell: its tier, cause, every vote and every candidate."""
    family = r.voters.family
    families: dict[tuple, set[str]] = defaultdict(set)
    for s, k in cell.keys.items():
        families[k].add(family[s])
    return {
        "id": f"{r.doc_id}#{cell.pointer}", "kind": "cell", "doc": r.doc_id, "path": cell.pointer,
        "field": cell.field, "tier": cell.tier, "null_over_value": cell.null_over_value,
        "row_presence_tie": cell.forced,
        "cause": cell.cause, "fix": cell.fix, "proposed": cell.value,
        "blank_required": cell.blank_required,
        "votes": [{"system": s, "family": family[s], "vote": key_json(k), "value": cell.votes[s][0],
                   "failure": k == INVALID} for s, k in cell.keys.items()],
        "candidates": [{"value": raw, "weight": round(cell.weights.get(k, 0.0), 4), "families": sorted(families[k])}
                       for k, raw in cell.candidates],
        "pages": evidence.cited_pages(cell),
    }


def _record_item(r: DocResult, x: ExtraRecord | WithheldRecord, evidence: CitedEvidence) -> dict[str, Any]:
    """The queue item of a record the systems disagree on: an extra record (a vote on whether it exists) or a
    row `expected` cannot hold (with `reasons`); which systems have the row, and the row each gave."""
    voters = r.voters
    cited = x.members.get(evidence.citing) if evidence.citing is not None else None
    withheld = isinstance(x, WithheldRecord)
    reasons = {"reasons": [p.to_json() for p in x.reasons]} if isinstance(x, WithheldRecord) else {}
    return {
        "id": f"{r.doc_id}#{x.pointer}", "kind": "withheld_record" if withheld else "extra_record", "doc": r.doc_id,
        "path": x.pointer, "field": x.field, "tier": SPLIT, "null_over_value": False, "cause": x.cause, "fix": x.fix,
        "weight": round(x.weight, 4), **reasons,
        "votes": [{"system": s, "family": voters.family[s], "present": s in x.members,
                   "row": x.members[s][0] if s in x.members else None} for s in voters.systems],
        "pages": evidence.pages_under(cited[1]) if cited is not None else [],
    }
