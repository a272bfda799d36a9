"""The review of one consensus output, or of any dataset or bundle (every cell, to confirm or correct): its
items, the decisions so far, and turning a click into a decision line.

Everything a request needs is read once at start (the queue, the drawing list, the dataset index,
the decisions file) or once per document and kept (a few bundles, the page images), so a long queue
costs no more per request than a short one.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, StrictBool, StrictInt, StrictStr, ValidationError

from gtkit.consensus.adjudicate import bundle_entries, is_consensus_output, require_reviewable
from gtkit.consensus.decisions import Action, Boxes
from gtkit.consensus.pointers import node_at
from gtkit.errors import GtkitError
from gtkit.files.read import Version, file_version, read_json
from gtkit.format.bundle import is_dataset, read_bundle, safe_child
from gtkit.format.writer import GT_NAME, INDEX_NAME
from gtkit.review.detail import DocView, detail
from gtkit.review.items import Item, load_items
from gtkit.review.pages import PageImages
from gtkit.review.store import DecisionFile
from gtkit.schema import compile_schema
from gtkit.typed import Strict, non_finite, validation_message

NOTE_MAX = 2000   # characters of a decision's note


class Sent(Strict):
    """What the page may send with a decision (the server adds the item's id, who and when), each key typed
    strictly (an item or a candidate is an integer, never a boolean or a string), any other key refused. The
    line is then checked in full by the decision models and adjudication's session (`DecisionFile.append`)."""

    item: Annotated[StrictInt, Field(ge=0)]
    action: Action
    candidate: Annotated[StrictInt, Field(ge=0)] | None = None
    system: StrictStr | None = None
    value: Any = None
    text: StrictStr | None = None
    box: Boxes | None = None
    accept_box: StrictBool | None = None
    note: Annotated[StrictStr, Field(max_length=NOTE_MAX)] | None = None
    supersedes: Any = None   # the value of a `human` cell the page showed (checked against the cell's value now)


class Review:
    """One consensus output (or any dataset or bundle) under review: its items, its decisions file, its
    documents and page images."""

    def __init__(self, dataset: Path, who: str, *, every_cell: bool = False):
        self.dataset = Path(dataset)
        self.who = who
        require_reviewable(self.dataset)
        self.consensus = is_consensus_output(self.dataset)
        self.every_cell = every_cell or not self.consensus   # any other dataset: every cell is an item
        self.images = PageImages()
        self._lock = threading.Lock()
        self._read()
        self.decisions = DecisionFile(self.dataset, who)

    def _read(self) -> None:
        """The dataset's documents, schema and items (again after the dataset was replaced by "apply now")."""
        entries = list(bundle_entries(self.dataset).values())
        self.folders = {e.doc_id: safe_child(self.dataset, e.path, where=self.dataset / INDEX_NAME)
                        if is_dataset(self.dataset) else self.dataset for e in entries}
        schema = read_json(self.folders[entries[0].doc_id] / "schema.json") if entries else {}
        self.root = compile_schema(schema)
        self.items = load_items(self.dataset, self.root, self.folders, every_cell=self.every_cell)
        self._views: OrderedDict[str, tuple[Version, DocView]] = OrderedDict()   # doc -> (gt.json's version, view)

    def apply(self) -> dict[str, Any]:
        """Apply the decisions file to the dataset (`gtkit adjudicate`), empty it, and read the new queue."""
        n, left = self.decisions.apply()
        with self._lock:
            self._read()
        return {"applied": n, "queue": left}

    def state(self) -> dict[str, Any]:
        """The list the page keeps: every item's summary and whether it is decided."""
        decided = self.decisions.decided
        return {"items": [it.summary() for it in self.items], "decided": [it.id in decided for it in self.items],
                "outcomes": [self.outcome(it.id) for it in self.items],
                "mode": "consensus" if self.consensus else "any",
                "who": self.who, "file": str(self.decisions.path)}

    def outcome(self, cell_id: str) -> str | None:
        """How a cell was decided: `confirmed` (accepted as it is, no box), `corrected`, or None (not yet)."""
        d = self.decisions.line_of(cell_id)
        if not d:
            return None
        plain = d.get("action") == "accept" and not d.get("candidate") and "system" not in d \
            and d.get("box") is None and d.get("evidence") is None
        return "confirmed" if plain else "corrected"

    def view(self, doc: str) -> DocView:
        """A document's bundle as the page needs it (the last few kept, each while its gt.json is unchanged: a
        document rewritten meanwhile is read again, so the page shows what a decision will be checked against)."""
        version = file_version(self.folders[doc] / GT_NAME)
        with self._lock:
            if doc in self._views and self._views[doc][0] == version:
                self._views.move_to_end(doc)
                return self._views[doc][1]
        v = DocView.of(read_bundle(self.folders[doc]))
        with self._lock:
            self._views[doc] = (version, v)
            if len(self._views) > 16:
                self._views.popitem(last=False)
        return v

    def item(self, i: int) -> Item:
        if not 0 <= i < len(self.items):
            raise GtkitError(f"no item {i} (the review has {len(self.items)})")
        return self.items[i]

    def detail(self, i: int) -> dict[str, Any]:
        it = self.item(i)
        line = self.decisions.decided.get(it.id)
        decided = {"line": line, **self.decisions.line_of(it.id)} if line is not None else None
        node = node_at(self.root, it.path) if it.kind != "extra_record" else None
        types = node.schema.get("type") if node is not None else None
        types = [types] if isinstance(types, str) else list(types or [])
        return {"i": i, **detail(it, self.view(it.doc), decided, types)}

    def page_png(self, doc: str, page: int) -> bytes:
        if doc not in self.folders:
            raise KeyError(doc)
        return self.images.png(self.folders[doc] / "document.pdf", page)

    def decide(self, sent: Any) -> dict[str, Any]:
        """Turn what the page sent (a JSON value, see `Sent`) into a decisions.jsonl line, check it and append
        it; the new counts."""
        try:
            Sent.model_validate(sent)
        except ValidationError as e:
            raise GtkitError(f"the decision: {validation_message(e)}") from None
        it = self.item(sent["item"])
        line: dict[str, Any] = {"id": it.id}
        line.update({k: v for k, v in sent.items() if k not in ("item", "text")})
        if "text" in sent:  # a value typed in the page: read by the field's type
            line["value"] = self.typed_value(it, sent["text"])
        if (bad := non_finite(line)) is not None:  # sent as JSON, typed, or inside a record
            raise GtkitError(f"the decision: {bad[0]}: {bad[1]} is not a JSON number")
        line["who"] = self.who
        line["when"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        n = self.decisions.append(line)
        return {"line": n, "left": len(self.items) - sum(1 for x in self.items if x.id in self.decisions.decided),
                "outcome": self.outcome(it.id)}

    def typed_value(self, it: Item, text: Any) -> Any:
        """A value typed as text, read as the field's JSON type: a record (JSON) for an extra record, a number
        or a boolean when the field takes one and the text reads as one, else the text."""
        if not isinstance(text, str):
            raise GtkitError("the typed value must be text")
        if it.kind == "extra_record":
            try:
                return json.loads(text)
            except json.JSONDecodeError as e:
                raise GtkitError(f"the record is not JSON ({e.msg})") from None
        node = node_at(self.root, it.path)
        types = node.schema.get("type") if node is not None else None
        types = {types} if isinstance(types, str) else set(types or [])
        stripped = text.strip()
        if types & {"number", "integer", "boolean"} and "string" not in types:
            try:
                value = json.loads(stripped)
            except json.JSONDecodeError:
                return text
            if (isinstance(value, bool) and "boolean" in types) or (
                    isinstance(value, (int, float)) and not isinstance(value, bool) and types & {"number", "integer"}):
                return value
        return text
