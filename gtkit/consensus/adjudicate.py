"""`gtkit adjudicate`: a person's decisions taken back into a consensus dataset, or into any other dataset or bundle.

decisions.jsonl (see `decisions` for every action and its keys), one decision per line:

    {"id": "inv-1#/total", "action": "accept", "system": "qwen", "who": "ana", "when": "2026-11-29T10:00:00Z"}
    {"doc": "inv-1", "path": "/po_number", "action": "edit", "value": "PO-1234", "box": {"page": 1, "box": [..]}}
    {"id": "inv-1#/notes", "action": "null"}
    {"id": "inv-1#/vendor", "action": "box", "box": {"page": 2, "box": [0.1, 0.2, 0.3, 0.25]}}
    {"id": "inv-1#/vendor", "action": "box", "accept_box": true}
    {"id": "inv-1#/lines/+0", "action": "accept", "system": "gpt-a"}     an extra record, added
    {"id": "inv-1#/lines/+1", "action": "reject"}                        an extra record, dropped

`accept` takes a candidate (a system's vote, or `candidate: k`, default the proposal)
and makes the cell `adjudicated`; `edit`, `null` and box decisions make it `human`
(`trust` in the line overrides). Every change appends one line to `audit.jsonl`
(seq, who, when, doc, path, action, note, before, after); `when` comes from the line, or
is the current time only with --now, so the same inputs give the same bytes.
A decision is settled once, wherever it was made. A queue item whose cell is already `human` or
`adjudicated` in its bundle (decided at the top level of a `gtkit build` dataset that holds this consensus
output, say) is not open: `gtkit review` does not list it and the next adjudication drops it from
queue.jsonl. A decision that would change the value or the trust of a `human` cell is refused unless it
names the value it replaces (`"supersedes": <value>`) or `force` is given (a new box on the same value is
no such change); a `supersedes` that is not the cell's current value is refused even so. Where a bundle's
`provenance.parameters.corrections` names a cell, a later decision on it is recorded there too, so the
log's last record of a cell always says its value.
Every line is parsed by its action's model, then every decision is checked against the
dataset, before anything is written; the dataset is replaced as a whole (staged with hard
links), so a bad line leaves it untouched.

On a dataset or bundle that is not a consensus output (synth, degrade, imported: no queue.jsonl) the same
decisions correct any cell: `edit`, `null`, a drawn `box`, or `accept` of an alternate reading make it
`human`; `accept` of the first reading without a box confirms it and changes nothing. Each decision is
recorded in the bundle's `provenance.parameters.corrections` (`gtkit.corrections`) instead of audit.jsonl.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gtkit.consensus.decisions import Accept, BoxDecision, BoxRef, Decision, Edit, Reject, WithEvidence, read_decisions
from gtkit.consensus.filenames import AUDIT_NAME, DRAW_NAME, QUEUE_NAME, jsonl
from gtkit.consensus.pointers import delete_at, get_at, node_at, optional_key, set_at
from gtkit.consensus.votes import type_problem
from gtkit.corrections import CORRECTIONS, correction_record, recorded
from gtkit.errors import GtkitError
from gtkit.files.read import Version, file_version, read_jsonl
from gtkit.files.write import write_bytes_atomic
from gtkit.format.bundle import Bundle, is_dataset, read_bundle, read_index
from gtkit.format.models import DatasetEntry
from gtkit.format.writer import GT_NAME, Envelope, evidence_entry, field_entry, write_bundle_output, write_dataset
from gtkit.schema import Node, compile_schema, iter_leaves, nullable, validation_errors
from gtkit.scoring.normalize import value_key


def adjudicate(dataset: Path, decisions_path: Path, *, who: str | None = None, now: bool = False,
               force: bool = False, empty_decisions: bool = False) -> tuple[int, int | None]:
    """Apply every decision; returns (decisions applied, items left in the queue, or None for a dataset that is
    not a consensus output). `force` lets a decision change a `human` cell without naming the value it
    replaces. With `empty_decisions` (the decisions file lies in the dataset's folder, as `gtkit review`'s
    does) the revised dataset holds the file emptied: the decisions and their leaving the file are one rename,
    so a failure never leaves them applied and still in the file."""
    dataset = Path(dataset)
    require_reviewable(dataset)
    decisions = read_decisions(decisions_path)   # every line typed before anything is looked up
    stamp = dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z") if now else None
    session = Session(dataset, Path(decisions_path), who, stamp, force, empty_decisions)
    for lineno, d in decisions:
        session.apply(lineno, d)
    session.validate()
    fields = {doc_id: session.fields_in_order(doc_id) for doc_id, doc in session.docs.items() if doc.changed}
    return session.write(fields)


def is_consensus_output(dataset: Path) -> bool:
    return (Path(dataset) / QUEUE_NAME).is_file()


def require_reviewable(dataset: Path) -> None:
    """A consensus output, a dataset or a bundle; anything else is one GtkitError."""
    dataset = Path(dataset)
    if not (is_consensus_output(dataset) or is_dataset(dataset) or (dataset / GT_NAME).is_file()):
        raise GtkitError(f"not a consensus output, a dataset or a bundle (no {QUEUE_NAME}, dataset.jsonl or "
                         f"{GT_NAME})", dataset)


DECIDED = ("human", "adjudicated")   # the trust of a cell a person decided


def decided_elsewhere(queue: list[dict[str, Any]], folders: dict[str, Path]) -> set[str]:
    """The ids of the queue items (contested cells) whose cell is already `human` or `adjudicated` in its bundle
    (`folders`: doc id -> bundle folder): decided somewhere else than this queue, so settled, not open."""
    by_doc: dict[str, list[dict[str, Any]]] = {}
    for q in queue:
        if q.get("kind") == "cell" and q.get("doc") in folders:
            by_doc.setdefault(q["doc"], []).append(q)
    out: set[str] = set()
    for doc, items in by_doc.items():
        bundle = read_bundle(folders[doc], verify=False, raw_fields=True, records=True)
        decided = {e.path for e in bundle.field_entries() if e.trust in DECIDED}
        out.update(q["id"] for q in items if q.get("path") in decided)
    return out


def bundle_entries(dataset: Path) -> dict[str, DatasetEntry]:
    """doc id -> index entry of a dataset's bundles, or of the one bundle a bundle folder is (path ".")."""
    if is_dataset(dataset):
        return {e.doc_id: e for e in read_index(dataset)}
    b = read_bundle(dataset)
    return {b.doc_id: DatasetEntry(doc_id=b.doc_id, path=".")}


@dataclass
class _Document:
    """A bundle being revised: its expected object and field entries (JSON objects) by pointer."""

    bundle: Bundle
    expected: Any
    fields: dict[str, dict[str, Any]]
    root: Node
    version: Version   # of the gt.json it was read from (`file_version`, taken before)
    changed: bool = False
    lines: dict[str, int] = field(default_factory=dict)  # decided pointer -> the decisions.jsonl line

    @classmethod
    def read(cls, folder: Path) -> _Document:
        version = file_version(folder / GT_NAME)
        b = read_bundle(folder)
        return cls(bundle=b, expected=copy.deepcopy(b.gt.expected), root=compile_schema(b.schema),
                   fields={f["path"]: f for f in b.field_dicts()}, version=version)


@dataclass
class Session:
    """Decisions checked and applied in memory, one at a time, against a consensus dataset (`gtkit review`
    checks each decision with it before appending the line); `write` replaces the dataset."""

    dataset: Path
    decisions_path: Path
    who: str | None
    stamp: str | None
    force: bool = False   # a decision may change a `human` cell without naming the value it replaces
    empty_decisions: bool = False   # `write` leaves the decisions file (in the dataset's folder) empty
    entries: dict[str, DatasetEntry] = field(init=False)
    queue: list[dict[str, Any]] = field(init=False)   # the open items (see `decided_elsewhere`)
    docs: dict[str, _Document] = field(default_factory=dict)
    settled: set[str] = field(default_factory=set)   # cell ids decided
    boxed: set[str] = field(default_factory=set)     # cell ids given a box (they leave draw.jsonl)
    audit: list[dict[str, Any]] = field(default_factory=list)      # the lines added

    def __post_init__(self) -> None:
        self.consensus = is_consensus_output(self.dataset)
        self.entries = bundle_entries(self.dataset)
        queue = [item for _, item in read_jsonl(self.dataset / QUEUE_NAME)] if self.consensus else []
        self.queue_by_id = {q["id"]: q for q in queue}   # the votes of every item, open or not
        folders = {doc_id: self.dataset / e.path for doc_id, e in self.entries.items()}
        settled = decided_elsewhere(queue, folders) if self.consensus else set()
        self.queue = [q for q in queue if q["id"] not in settled]
        self.old_audit = [item for _, item in read_jsonl(self.dataset / AUDIT_NAME, missing_ok=True)] \
            if self.consensus else []

    def fail(self, line: int, message: str) -> GtkitError:
        return GtkitError(f"line {line}: {message}", self.decisions_path)

    def apply(self, n: int, d: Decision) -> None:
        """Check one decision against the dataset and apply it in memory, with its audit line."""
        cid = d.cell_id
        doc_id, path = cid.split("#", 1)
        if doc_id not in self.entries:
            raise self.fail(n, f"unknown cell {cid} (no document {doc_id!r})")
        if cid in self.settled:
            raise self.fail(n, f"cell {cid} is decided twice")
        person = d.who if "who" in d.model_fields_set else self.who
        if not person:
            raise self.fail(n, 'no "who" (give one in the line or pass --who)')
        doc = self.document(doc_id)
        q = self.queue_by_id.get(cid)
        if q is not None and q["kind"] in ("extra_record", "withheld_record"):
            if d.names_earlier:
                raise self.fail(n, f'{cid}: "supersedes" names the value a decision replaces; a record has none')
            before, after = self.extra_record(n, doc, q, d)
        else:
            entry = doc.fields.get(path)
            if entry is None:
                raise self.fail(n, f"unknown cell {cid}")
            before = copy.deepcopy(entry)
            value = before["readings"][0]["value"]
            if d.names_earlier and value_key(d.supersedes) != value_key(value):
                raise self.fail(n, f'{cid}: "supersedes" says {d.supersedes!r}, but the cell\'s value is {value!r}')
            self.cell(n, doc, cid, entry, q, d)
            after = copy.deepcopy(entry)
            changed = (value_key(after["readings"][0]["value"]), after["trust"]) != (value_key(value), "human")
            if before["trust"] == "human" and changed and not (d.names_earlier or self.force):
                raise self.fail(n, f"{cid} was decided by a person (value {value!r}, trust 'human'): to replace "
                                   f'it, name that value with "supersedes": {json.dumps(value)}, or pass --force')
        doc.changed = True
        doc.lines[path] = n
        self.settled.add(cid)
        self.audit.append({"seq": len(self.old_audit) + len(self.audit) + 1, "who": person,
                           "when": d.when if "when" in d.model_fields_set else self.stamp, "doc": doc_id,
                           "path": path, "action": d.action, "note": d.note, "before": before, "after": after})

    def document(self, doc_id: str) -> _Document:
        """A document of the dataset as this session has it (read when first asked for)."""
        if doc_id not in self.docs:
            self.docs[doc_id] = _Document.read(self.dataset / self.entries[doc_id].path)
        return self.docs[doc_id]

    def cell(self, n: int, doc: _Document, cid: str, entry: dict[str, Any], q: dict[str, Any] | None,
             d: Decision) -> None:
        """A decision on a cell: its readings and trust change in place, `expected` with them."""
        if isinstance(d, Reject):
            raise self.fail(n, "reject is for extra records; use null to clear a cell")
        if not self.consensus:
            if d.trust not in (None, "human"):
                raise self.fail(n, f"a correction makes a cell 'human', not {d.trust!r}")
            if isinstance(d, BoxDecision) and d.accept_box:
                raise self.fail(n, f"{cid}: accept_box is for a consensus output; confirm a cell with accept")
            if isinstance(d, Accept) and not d.candidate and d.system is None and d.given_evidence() is None \
                    and entry["trust"] != "pending":
                return   # a confirmation: the value, its evidence and its trust stay as they are
        if isinstance(d, BoxDecision):
            if entry["trust"] == "pending":
                raise self.fail(n, f"{cid} is still contested: settle its value first")
            if d.accept_box and not entry["readings"][0]["evidence"]:
                raise self.fail(n, f"{cid} has no proposed box to accept")
            if d.accept_box:  # a person looked at the proposed box and accepted it
                for ev in entry["readings"][0]["evidence"]:
                    ev["verified"] = ev.get("box") is not None
            else:  # BoxDecision's validator: without accept_box, the line gives a box
                entry["readings"][0]["evidence"] = self.evidence(n, d.given_evidence() or [], doc)
            entry["trust"] = d.trust or "human"
            self.boxed.add(cid)
            return
        if isinstance(d, Accept):
            value, evidence = self.candidate(n, entry, q, d)
            trust = "adjudicated" if self.consensus or entry["trust"] == "pending" else "human"
        else:
            value, evidence, trust = (d.value if isinstance(d, Edit) else None), [], "human"
        assert isinstance(d, WithEvidence)
        if (refs := d.given_evidence()) is not None:
            evidence = self.evidence(n, refs, doc)
            self.boxed.add(cid)
        path = cid.split("#", 1)[1]
        if isinstance(value, str) and not value.strip():
            raise self.fail(n, f"{cid}: an empty value is not a value (use null where the page is blank)")
        node = node_at(doc.root, path)
        if node is not None and (problem := type_problem(value, node)):
            raise self.fail(n, f"{cid}: {problem}")
        entry["readings"] = [{"value": value, "evidence": evidence if value is not None else []}]
        entry["trust"] = d.trust or trust
        if value is None and node is not None and not nullable(node) and optional_key(doc.root, path):
            delete_at(doc.expected, path)   # a blank the schema does not let be null: the key is left out
        else:
            set_at(doc.expected, path, value)

    def evidence(self, n: int, refs: list[BoxRef], doc: _Document) -> list[dict[str, Any]]:
        """The evidence a line gives, its pages within the document."""
        pages = doc.bundle.gt.document.pages
        out = []
        for ref in refs:
            if ref.page > pages:
                raise self.fail(n, f"page {ref.page} is beyond the document's {pages} page(s)")
            out.append(evidence_entry(ref.page, list(ref.box) if ref.box is not None else None,
                                      verified=ref.box is not None))  # a box a person drew
        return out

    def candidate(self, n: int, entry: dict[str, Any], q: dict[str, Any] | None, d: Accept) -> tuple[Any, list]:
        """The value (and its evidence) an accept takes: a system's vote, or a reading by index."""
        readings = entry["readings"]
        if self.consensus and q is None and entry["trust"] in ("human", "adjudicated"):
            raise self.fail(n, f"{d.cell_id} is already decided (by an earlier decision, see audit.jsonl or the "
                               "bundle's provenance.parameters.corrections); use edit, null or box to change it again")
        if d.system is not None:
            votes = {v["system"]: v for v in (q or {}).get("votes", [])}
            v = votes.get(d.system)
            if v is None:
                raise self.fail(n, f"system {d.system!r} has no vote on this cell")
            if v.get("failure"):
                raise self.fail(n, f"{d.system}'s vote is a failure (wrong type), not a candidate")
            return next(((r["value"], r["evidence"]) for r in readings if r["value"] == v["value"]), (v["value"], []))
        k = d.candidate or 0
        if k >= len(readings):
            raise self.fail(n, f"candidate must be 0..{len(readings) - 1}")
        return readings[k]["value"], readings[k]["evidence"]

    def extra_record(self, n: int, doc: _Document, q: dict[str, Any], d: Decision) -> tuple[Any, Any]:
        """A decision on a vote for an extra record: the row appended to its array (its cells typed), or dropped."""
        if isinstance(d, Reject):
            return {"row": None}, {"row": None, "rejected": True}
        if isinstance(d, Accept):
            votes = {v["system"]: v for v in q["votes"] if v["present"]}
            system = d.system or (sorted(votes)[0] if votes else None)
            if system not in votes:
                raise self.fail(n, f"system {system!r} did not give this record")
            row = votes[system]["row"]
        elif isinstance(d, Edit):
            row = d.value
            if not isinstance(row, dict):
                raise self.fail(n, "the value of an extra record is an object")
        else:
            raise self.fail(n, "an extra record is accepted (system or value) or rejected")
        array_ptr = q["path"].rsplit("/", 1)[0]
        arr = get_at(doc.expected, array_ptr) if array_ptr else doc.expected
        if arr is None:
            set_at(doc.expected, array_ptr, [])
            arr = get_at(doc.expected, array_ptr)
        node = node_at(doc.root, array_ptr)
        assert node is not None and node.item is not None
        prefix = f"{array_ptr}/{len(arr)}"
        given = row if isinstance(row, dict) else {}
        # a blank the schema does not let be null is left out, as consensus does
        clean = {name: given.get(name) for name, sub in node.item.props.items()
                 if given.get(name) is not None or nullable(sub)}
        arr.append(clean)
        trust = d.trust or ("adjudicated" if isinstance(d, Accept) else "human")
        for pointer, leaf, value in iter_leaves(node.item, clean, prefix):
            if (problem := type_problem(value, leaf)):
                raise self.fail(n, f"{pointer}: {problem}")
            doc.fields[pointer] = field_entry(pointer, [{"value": value, "evidence": []}], list(leaf.leniencies), trust)
        return {"row": None}, {"row": clean, "path": prefix}

    def validate(self, only: str | None = None) -> None:
        """Every revised document's `expected` (or only document `only`'s) against its schema before anything is
        written: a decision that leaves it invalid (a null where the schema forbids one, a value of the wrong
        type) is refused, naming the decision's line."""
        for doc_id, doc in self.docs.items():
            if not doc.changed or (only is not None and doc_id != only):
                continue
            for pointer, message in validation_errors(doc.bundle.schema, doc.expected):
                related = [n for path, n in doc.lines.items()
                           if path == pointer or pointer.startswith(path + "/") or path.startswith(pointer + "/")]
                line = min(related) if related else min(doc.lines.values())
                raise self.fail(line, f"{doc_id}#{pointer or '/'}: the schema refuses the decided value ({message})")

    def fields_in_order(self, doc_id: str) -> list[dict[str, Any]]:
        """A revised document's field entries in the order of its leaves."""
        doc = self.docs[doc_id]
        out = []
        for pointer, _, _ in iter_leaves(doc.root, doc.expected):
            if pointer not in doc.fields:
                raise GtkitError(f"{doc_id}: no field entry for {pointer} after the decisions")
            out.append(doc.fields[pointer])
        return out

    def write(self, fields: dict[str, list[dict[str, Any]]]) -> tuple[int, int | None]:
        """The revised dataset (a hard-linked copy whose rewritten files replace their links), swapped in."""
        if not self.consensus:
            return self.write_corrections(fields)
        left = [q for q in self.queue if q["id"] not in self.settled]
        draw = [x for _, x in read_jsonl(self.dataset / DRAW_NAME, missing_ok=True)
                if f"{x['doc']}#{x['path']}" not in self.boxed]
        with write_dataset(self.dataset, force=True) as revised:
            shutil.copytree(self.dataset, revised.stage, copy_function=os.link, dirs_exist_ok=True)
            for doc_id, entry in self.entries.items():
                if doc_id not in fields:
                    revised.adopt(entry.path, entry)
                    continue
                revised.bundle(doc_id, entry.path).write(self.envelope(doc_id), fields[doc_id])
            revised.write_file(QUEUE_NAME, jsonl(left))
            revised.write_file(DRAW_NAME, jsonl(draw))
            revised.write_file(AUDIT_NAME, jsonl(self.old_audit + self.audit))
            self.emptied(revised.stage)
        return len(self.audit), len(left)

    def emptied(self, stage: Path) -> None:
        """With `empty_decisions`, the decisions file of the staged copy of the dataset (a hard link to the file
        until now) replaced by an empty one: it is swapped in with the decisions applied."""
        if self.empty_decisions:
            write_bytes_atomic(stage / self.decisions_path.relative_to(self.dataset), b"", force=True)

    def envelope(self, doc_id: str) -> Envelope:
        """A revised document's envelope, its decisions appended to `provenance.parameters.corrections`: every
        one for a dataset that is not a consensus output; in a consensus output, those on a cell the log
        already names (corrected at the top level of a build dataset), so that its last record says the
        cell's final value."""
        doc = self.docs[doc_id]
        envelope = Envelope.of(doc.bundle.gt, doc.bundle.schema)
        envelope.expected = doc.expected
        params = dict(envelope.provenance.get("parameters") or {})
        earlier = recorded(params)
        logged = {r.get("path") for r in earlier if isinstance(r, dict)}
        new = [correction_record(a["path"], a["action"], a["who"], a["when"], a["note"],
                                 a["before"]["readings"][0]["value"], a["after"]["readings"][0]["value"])
               for a in self.audit if a["doc"] == doc_id and (not self.consensus or a["path"] in logged)]
        if new:
            params[CORRECTIONS] = earlier + new
            envelope.provenance["parameters"] = params
        return envelope

    def write_corrections(self, fields: dict[str, list[dict[str, Any]]]) -> tuple[int, None]:
        """A dataset or bundle that is not a consensus output, revised the same way (a hard-linked copy, the
        corrected bundles rewritten by the bundle writer) and swapped in as a whole; nothing decided, nothing
        written."""
        if not fields:
            return 0, None
        if not is_dataset(self.dataset):
            (doc_id,) = fields
            with write_bundle_output(self.dataset, force=True) as bundle:
                shutil.copytree(self.dataset, bundle.folder, copy_function=os.link, dirs_exist_ok=True)
                bundle.write(self.envelope(doc_id), fields[doc_id])
                self.emptied(bundle.folder)
            return len(self.audit), None
        with write_dataset(self.dataset, force=True) as revised:
            shutil.copytree(self.dataset, revised.stage, copy_function=os.link, dirs_exist_ok=True)
            for doc_id, entry in self.entries.items():
                if doc_id in fields:
                    revised.bundle(doc_id, entry.path).write(self.envelope(doc_id), fields[doc_id])
                else:
                    revised.adopt(entry.path, entry)
            self.emptied(revised.stage)
        return len(self.audit), None
