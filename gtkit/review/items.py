"""The items a person reviews in a consensus output, read once at start: every queue.jsonl line (a contested
cell or an extra-record vote) but those already decided elsewhere (`decided_elsewhere`), then every draw.jsonl
line (an agreed value waiting for its box), and with `every_cell` every other cell of every document (to
correct any cell). In any other dataset or bundle (synth, degrade, imported) the items are every cell of
every document.

An item keeps its source line as is; what the page shows of it (candidates and their boxes) is read
from the document's gt.json when the item is opened (`detail`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gtkit.consensus.adjudicate import decided_elsewhere, is_consensus_output
from gtkit.consensus.filenames import DRAW_NAME, QUEUE_NAME
from gtkit.errors import GtkitError
from gtkit.files.read import read_jsonl
from gtkit.format.bundle import read_bundle
from gtkit.schema import Node, split_pointer


@dataclass(frozen=True)
class Item:
    id: str             # <doc>#<JSON Pointer>: how a decision names it
    kind: str           # cell | extra_record | draw | truth (a settled cell, with every_cell)
    doc: str
    path: str
    field: str          # the pointer with * for record indexes
    cause: str | None   # None for a box to draw and a settled cell
    source: dict[str, Any]

    def summary(self) -> list[Any]:
        """The compact row the page list holds: id, kind, doc, field, cause."""
        return [self.id, self.kind, self.doc, self.field, self.cause]


def load_items(dataset: Path, root: Node, folders: dict[str, Path], *, every_cell: bool = False) -> list[Item]:
    """Every queue item, then every box to draw, then (with `every_cell`) every other cell of every document
    (`folders`: doc id -> bundle folder); in a dataset that is not a consensus output, every cell."""
    items: list[Item] = []
    if is_consensus_output(dataset):
        queue = [q for _, q in _lines(dataset / QUEUE_NAME)]
        settled = decided_elsewhere(queue, folders)   # decided at another level: not open
        items = [Item(q["id"], q["kind"], q["doc"], q["path"], q["field"], q["cause"], q) for q in queue
                 if q["id"] not in settled]
        for _, x in _lines(dataset / DRAW_NAME, missing_ok=True):
            items.append(Item(f"{x['doc']}#{x['path']}", "draw", x["doc"], x["path"], field_of(root, x["path"]),
                              None, x))
    if every_cell:
        seen = {it.id for it in items}
        for doc, folder in folders.items():
            for f in read_bundle(folder).field_dicts():
                if f"{doc}#{f['path']}" not in seen:
                    items.append(Item(f"{doc}#{f['path']}", "truth", doc, f["path"], field_of(root, f["path"]), None,
                                      {"doc": doc, "path": f["path"], "tier": None}))
    return items


def _lines(path: Path, missing_ok: bool = False) -> list[tuple[int, dict[str, Any]]]:
    lines = read_jsonl(path, missing_ok=missing_ok)
    for lineno, x in lines:
        missing = [k for k in ("doc", "path") if not isinstance(x.get(k), str)]
        if path.name == QUEUE_NAME:
            missing += [k for k in ("id", "kind", "field") if not isinstance(x.get(k), str)]
        if missing:
            raise GtkitError(f"line {lineno}: no {missing[0]!r} (not written by gtkit consensus?)", path)
    return lines


def field_of(root: Node, pointer: str) -> str:
    """The field across documents of a pointer into `expected`: record indexes become `*`."""
    node: Node | None = root
    out = []
    for tok in split_pointer(pointer):
        if node is not None and node.kind == "records":
            out.append("*")
            node = node.item
            continue
        out.append(tok.replace("~", "~0").replace("/", "~1"))
        node = node.props.get(tok) if node is not None and node.kind == "object" else None
    return "/" + "/".join(out) if out else ""
