"""`gtkit adjudicate`: a person's decisions taken back into a consensus dataset.

decisions.jsonl, one JSON object per line, naming a cell by `id` (as in queue.jsonl,
`<doc>#<JSON Pointer>`) or by `doc` and `path`:

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
(seq, who, when, doc, path, action, before, after); `when` comes from the line, or
is the current time only with --now, so the same inputs give the same bytes.
All decisions are checked before anything is written, and the dataset is replaced
as a whole (staged with hard links), so a bad line leaves it untouched.
"""

from __future__ import annotations

import copy
import datetime as dt
import os
import shutil
from pathlib import Path
from typing import Any

from gtkit.consensus.layout import AUDIT_NAME, DRAW_NAME, QUEUE_NAME, jsonl
from gtkit.consensus.votes import type_problem
from gtkit.errors import GtkitError
from gtkit.format import GT_NAME, Envelope, parse_ground_truth, read_bundle, read_index, write_dataset
from gtkit.fileio import read_jsonl as read_jsonl_lines
from gtkit.schema import Node, compile_schema, iter_leaves, split_pointer

ACTIONS = ("accept", "edit", "null", "box", "reject")


def read_jsonl(path: Path, *, missing_ok: bool = False) -> list[dict[str, Any]]:
    """The objects of a JSON Lines file, each remembering its line number under `_line`."""
    return [{**item, "_line": n} for n, item in read_jsonl_lines(path, missing_ok=missing_ok)]


def node_at(root: Node, pointer: str) -> Node | None:
    node: Node | None = root
    for tok in split_pointer(pointer):
        if node is None:
            return None
        if node.kind == "object":
            node = node.props.get(tok)
        elif node.kind == "records":
            node = node.item
        else:
            return None
    return node


def _set(doc: Any, pointer: str, value: Any) -> None:
    tokens = split_pointer(pointer)
    cur = doc
    for t in tokens[:-1]:
        cur = cur[int(t)] if isinstance(cur, list) else cur[t]
    last = tokens[-1]
    if isinstance(cur, list):
        cur[int(last)] = value
    else:
        cur[last] = value


def _get(doc: Any, pointer: str) -> Any:
    cur = doc
    for t in split_pointer(pointer):
        cur = cur[int(t)] if isinstance(cur, list) else cur.get(t)
    return cur


def _evidence(d: dict[str, Any], where: str, pages: int) -> list[dict[str, Any]] | None:
    raw = d.get("evidence", d.get("box"))
    if raw is None:
        return None
    items = raw if isinstance(raw, list) else [raw]
    out = []
    for e in items:
        if not isinstance(e, dict) or not isinstance(e.get("page"), int) or not 1 <= e["page"] <= pages:
            raise GtkitError(f"{where}: a box is {{\"page\": 1..{pages}, \"box\": [x0, y0, x1, y1]}}")
        box = e.get("box")
        if box is not None and not (isinstance(box, list) and len(box) == 4 and all(0 <= v <= 1 for v in box)
                                    and box[0] < box[2] and box[1] < box[3]):
            raise GtkitError(f"{where}: box must be normalized [x0, y0, x1, y1] with x0 < x1, y0 < y1")
        out.append({"page": e["page"], **({"box": [float(v) for v in box]} if box is not None else {})})
    return out


def adjudicate(dataset: Path, decisions_path: Path, *, who: str | None = None, now: bool = False) -> tuple[int, int]:
    """Apply every decision; returns (decisions applied, items left in the queue)."""
    dataset = Path(dataset)
    if not (dataset / QUEUE_NAME).is_file():
        raise GtkitError(f"not a consensus output ({QUEUE_NAME} is missing)", dataset)
    entries = {e.doc_id: e for e in read_index(dataset)}
    decisions = read_jsonl(decisions_path)
    queue = read_jsonl(dataset / QUEUE_NAME)
    queue_by_id = {q["id"]: q for q in queue}
    draw = read_jsonl(dataset / DRAW_NAME, missing_ok=True)
    audit = read_jsonl(dataset / AUDIT_NAME, missing_ok=True)
    bundles: dict[str, Any] = {}
    stamp = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z") if now else None
    settled: set[str] = set()
    boxed: set[str] = set()
    new_audit: list[dict[str, Any]] = []
    for d in decisions:
        n = d["_line"]
        where = f"{decisions_path}: line {n}"
        cid = d.get("id") or (f"{d.get('doc')}#{d.get('path')}" if "doc" in d and "path" in d else None)
        if not isinstance(cid, str) or "#" not in cid:
            raise GtkitError(f"line {n}: name the cell by \"id\" or by \"doc\" and \"path\"", decisions_path)
        doc_id, path = cid.split("#", 1)
        action = d.get("action")
        if action not in ACTIONS:
            raise GtkitError(f"line {n}: action must be one of {', '.join(ACTIONS)}, got {action!r}", decisions_path)
        if doc_id not in entries:
            raise GtkitError(f"line {n}: unknown cell {cid} (no document {doc_id!r})", decisions_path)
        if cid in settled:
            raise GtkitError(f"line {n}: cell {cid} is decided twice", decisions_path)
        person = d.get("who", who)
        if not isinstance(person, str) or not person:
            raise GtkitError(f"line {n}: no \"who\" (give one in the line or pass --who)", decisions_path)
        when = d.get("when", stamp)
        if doc_id not in bundles:
            b = read_bundle(dataset / entries[doc_id].path)
            bundles[doc_id] = {"bundle": b, "expected": copy.deepcopy(b.gt.expected),
                               "fields": {f.path: f.model_dump(mode="json") for f in b.gt.fields},
                               "root": compile_schema(b.schema), "changed": False}
        st = bundles[doc_id]
        pages = st["bundle"].gt.document.pages
        q = queue_by_id.get(cid)
        if q is not None and q["kind"] == "extra_record":
            before, after = _extra_record(st, q, d, action, n, decisions_path)
        else:
            entry = st["fields"].get(path)
            if entry is None:
                raise GtkitError(f"line {n}: unknown cell {cid}", decisions_path)
            before = copy.deepcopy(entry)
            node = node_at(st["root"], path)
            if action == "reject":
                raise GtkitError(f"line {n}: reject is for extra records; use null to clear a cell", decisions_path)
            if action == "box":
                if entry["trust"] == "pending":
                    raise GtkitError(f"line {n}: {cid} is still contested: settle its value first", decisions_path)
                if d.get("accept_box"):
                    if not entry["readings"][0]["evidence"]:
                        raise GtkitError(f"line {n}: {cid} has no proposed box to accept", decisions_path)
                else:
                    ev = _evidence(d, where, pages)
                    if ev is None:
                        raise GtkitError(f"line {n}: a box decision needs \"box\" or \"accept_box\": true", decisions_path)
                    entry["readings"][0]["evidence"] = ev
                entry["trust"] = d.get("trust", "human")
                boxed.add(cid)
            else:
                if action == "accept":
                    value, ev = _candidate(entry, q, d, n, decisions_path)
                    trust = "adjudicated"
                elif action == "edit":
                    if "value" not in d:
                        raise GtkitError(f"line {n}: edit needs a \"value\"", decisions_path)
                    value, ev, trust = d["value"], [], "human"
                else:
                    value, ev, trust = None, [], "human"
                given = _evidence(d, where, pages)
                if given is not None:
                    ev = given
                    boxed.add(cid)
                if node is not None and (problem := type_problem(value, node)):
                    raise GtkitError(f"line {n}: {cid}: {problem}", decisions_path)
                if value is None:
                    ev = []
                entry["readings"] = [{"value": value, "evidence": ev}]
                entry["trust"] = d.get("trust", trust)
                _set(st["expected"], path, value)
            after = copy.deepcopy(entry)
        st["changed"] = True
        settled.add(cid)
        new_audit.append({"seq": len(audit) + len(new_audit) + 1, "who": person, "when": when, "doc": doc_id,
                          "path": path, "action": action, "note": d.get("note"), "before": before, "after": after})
    # rebuild every touched gt.json before writing anything
    new_gts = {}
    for doc_id, st in bundles.items():
        if not st["changed"]:
            continue
        b = st["bundle"]
        fields = []
        for pointer, _, _ in iter_leaves(st["root"], st["expected"]):
            if pointer not in st["fields"]:
                raise GtkitError(f"{doc_id}: no field entry for {pointer} after the decisions")
            fields.append(st["fields"][pointer])
        data = b.gt.to_json_dict()
        data["expected"] = st["expected"]
        data["fields"] = fields
        new_gts[doc_id] = parse_ground_truth(data, b.path / GT_NAME)
    left = [q for q in queue if q["id"] not in settled]
    draw_left = [x for x in draw if f"{x['doc']}#{x['path']}" not in boxed]
    with write_dataset(dataset, force=True) as revised:  # a hard-linked copy; rewritten files replace their links
        shutil.copytree(dataset, revised.stage, copy_function=os.link, dirs_exist_ok=True)
        for doc_id, entry in entries.items():
            gt = new_gts.get(doc_id)
            if gt is None:
                revised.adopt(entry.path, entry)
            else:
                revised.bundle(doc_id, entry.path).write(Envelope.of(gt, bundles[doc_id]["bundle"].schema),
                                                         gt.model_dump(mode="json")["fields"])
        strip = [{k: v for k, v in x.items() if k != "_line"} for x in left]
        revised.write_file(QUEUE_NAME, jsonl(strip))
        revised.write_file(DRAW_NAME, jsonl([{k: v for k, v in x.items() if k != "_line"} for x in draw_left]))
        old = [{k: v for k, v in x.items() if k != "_line"} for x in audit]
        revised.write_file(AUDIT_NAME, jsonl(old + new_audit))
    return len(new_audit), len(left)


def _candidate(entry: dict[str, Any], q: dict[str, Any] | None, d: dict[str, Any], n: int,
               path: Path) -> tuple[Any, list[dict[str, Any]]]:
    readings = entry["readings"]
    if "system" in d:
        votes = {v["system"]: v for v in (q or {}).get("votes", [])}
        v = votes.get(d["system"])
        if v is None:
            raise GtkitError(f"line {n}: system {d['system']!r} has no vote on this cell", path)
        if v.get("failure"):
            raise GtkitError(f"line {n}: {d['system']}'s vote is a failure (wrong type), not a candidate", path)
        for r in readings:
            if r["value"] == v["value"]:
                return r["value"], r["evidence"]
        return v["value"], []
    k = d.get("candidate", 0)
    if not isinstance(k, int) or not 0 <= k < len(readings):
        raise GtkitError(f"line {n}: candidate must be 0..{len(readings) - 1}", path)
    return readings[k]["value"], readings[k]["evidence"]


def _extra_record(st: dict[str, Any], q: dict[str, Any], d: dict[str, Any], action: str, n: int,
                  path: Path) -> tuple[Any, Any]:
    if action == "reject":
        return {"row": None}, {"row": None, "rejected": True}
    if action not in ("accept", "edit"):
        raise GtkitError(f"line {n}: an extra record is accepted (system or value) or rejected", path)
    if action == "accept":
        votes = {v["system"]: v for v in q["votes"] if v["present"]}
        system = d.get("system") or (sorted(votes)[0] if votes else None)
        if system not in votes:
            raise GtkitError(f"line {n}: system {system!r} did not give this record", path)
        row = votes[system]["row"]
    else:
        row = d.get("value")
        if not isinstance(row, dict):
            raise GtkitError(f"line {n}: the value of an extra record is an object", path)
    array_ptr = q["path"].rsplit("/", 1)[0]
    arr = _get(st["expected"], array_ptr) if array_ptr else st["expected"]
    if arr is None:
        _set(st["expected"], array_ptr, [])
        arr = _get(st["expected"], array_ptr)
    node = node_at(st["root"], array_ptr)
    assert node is not None and node.item is not None
    prefix = f"{array_ptr}/{len(arr)}"
    clean: dict[str, Any] = {}
    for name, sub in node.item.props.items():
        clean[name] = row.get(name) if isinstance(row, dict) else None
    arr.append(clean)
    trust = d.get("trust", "adjudicated" if action == "accept" else "human")
    for pointer, leaf, value in iter_leaves(node.item, clean, prefix):
        if (problem := type_problem(value, leaf)):
            raise GtkitError(f"line {n}: {pointer}: {problem}", path)
        st["fields"][pointer] = {"path": pointer, "readings": [{"value": value, "evidence": []}],
                                 "leniencies": list(leaf.leniencies), "trust": trust}
    return {"row": None}, {"row": clean, "path": prefix}
