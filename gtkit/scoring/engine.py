"""Unified value F1 and grounding F1 (docs/scoring.md, the paper's Appendix B).

Expected and predicted outputs are flattened into cells, one per scalar leaf of the
schema and per sub-field of each aligned record. A missing key equals an explicit
null, so every scalar counts in both precision and recall; missing records count
against recall only and extra records against precision only; null and `[]` give
no cells. Cells compare by `gtkit.scoring.normalize` (dates to ISO, whitespace collapsed,
everything else exact) with OR-acceptance over the readings and the field's
declared leniencies. Records pair by `gtkit.scoring.pairing`. Pending cells (contested,
not yet adjudicated) are left out entirely.

Grounding is scored on truth cells that carry a verified box (constructed by synth or degrade, drawn or
accepted by a person); a cell whose boxes only a system cited counts for value F1 alone. A cell is word-grounded when
its value is accepted and one of its predicted citations lies on an evidence page
with IoU >= 0.5 against that page's evidence box; page-grounded when the value is
accepted and a citation names an evidence page. Recall's denominator is the
box-bearing truth cells; precision's is the predicted cells, aligned to such a
truth cell, that carry at least one citation. Counts nest per document: word-
grounded <= page-grounded <= correct values.

This module scores one document against its truth (`gtkit.scoring.truth`); `gtkit.scoring.run` scores a
prediction folder against a bundle or a dataset.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from gtkit.format.bundle import Bundle
from gtkit.format.models import Tags
from gtkit.geometry import iou
from gtkit.schema import Node, compile_schema, escape_token, guess_node, iter_leaves
from gtkit.scoring.explain import IOU_THRESHOLD, grounding, how_matched
from gtkit.scoring.normalize import cell_keys, keys_match
from gtkit.scoring.pairing import DEFAULT_MEMORY_BUDGET, align_rows
from gtkit.scoring.predictions import MISSING, mark_bad_citations
from gtkit.scoring.truth import Truth, TruthCell


@dataclass
class Counts:
    """A numerator and the two denominators of one P/R/F1."""

    correct: int = 0
    n_pred: int = 0
    n_truth: int = 0

    @property
    def precision(self) -> float:
        return self.correct / self.n_pred if self.n_pred else (1.0 if self.n_truth == 0 else 0.0)

    @property
    def recall(self) -> float:
        return self.correct / self.n_truth if self.n_truth else (1.0 if self.n_pred == 0 else 0.0)

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_dict(self) -> dict[str, float | int]:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1,
                "correct": self.correct, "n_pred": self.n_pred, "n_truth": self.n_truth}


@dataclass
class DocumentScore:
    doc_id: str
    value: Counts
    page: Counts | None  # None: the truth has no boxes, so no grounding score
    word: Counts | None
    prediction: str = "ok"  # or why it could not be used: missing, not JSON, not an object, citations invalid
    approximate: bool = False
    tags: Tags = field(default_factory=Tags)
    bad_citations: int = 0  # citations that could ground nothing (page beyond the document, box invalid)
    detail: str | None = None  # the reason a prediction could not be used, naming its file
    parent: str | None = None  # a degraded document's parent doc id, and the recipe (for the paired measurement)
    recipe: str | None = None
    # with explain: one line per cell (`_DocumentScorer.note`, see `gtkit.explain`)
    cells: list[dict[str, Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "doc_id": self.doc_id,
            "prediction": self.prediction,
            **({"detail": self.detail} if self.detail else {}),
            "bad_citations": self.bad_citations,
            "approximate": self.approximate,
            "value": self.value.to_dict(),
            "page": self.page.to_dict() if self.page else None,
            "word": self.word.to_dict() if self.word else None,
        }


class _KeyMemo:
    """Cell keys of string values computed once per distinct (string, leniencies): long lists repeat values."""

    def __init__(self) -> None:
        self.memo: dict[tuple[Any, ...], Hashable] = {}

    def cell(self, values: tuple[Any, ...] | list[Any], lens: tuple[str, ...]) -> Hashable:
        if len(values) == 1 and values[0].__class__ is str:
            memo_key = (values[0], lens)
            key = self.memo.get(memo_key)
            if key is None:
                key = self.memo[memo_key] = cell_keys(values, lens)
            return key
        return cell_keys(values, lens)

    def pred(self, value: Any, column_lens: list[tuple[str, ...]]) -> Hashable:
        if len(column_lens) == 1:
            return self.cell((value,), column_lens[0])
        return _pred_keys(value, column_lens)


def _pred_keys(value: Any, column_lens: list[tuple[str, ...]]) -> Hashable:
    """A predicted cell's keys under every leniency set its column's truth cells declare."""
    if len(column_lens) == 1:
        return cell_keys([value], column_lens[0])
    keys: set = set()
    for lens in column_lens:
        k = cell_keys([value], lens)
        keys.update(k if isinstance(k, frozenset) else (k,))
    return frozenset(keys)


def _scalar_columns(node: Node, prefix: tuple[str, ...] = ()) -> tuple[list, list]:
    """(scalar leaf columns, nested record columns) of a record node, as token paths with nodes."""
    scalars, records = [], []
    for name, sub in node.props.items():
        path = (*prefix, name)
        if sub.kind == "object" and sub.props:
            s, r = _scalar_columns(sub, path)
            scalars += s
            records += r
        elif sub.kind == "records":
            records.append((path, sub))
        else:
            scalars.append((path, sub))
    return scalars, records


def _free_form_record(truth: list[Any], pred: list[Any]) -> Node:
    """A record node for an array whose items the schema does not describe: the union of the keys
    either side uses, each typed by the first non-null value (a key a record lacks is a null there)."""
    records = [r for r in (*truth, *pred) if isinstance(r, dict)]
    keys = dict.fromkeys(k for r in records for k in r)
    sample = {k: next((r[k] for r in records if r.get(k) is not None), None) for k in keys}
    return Node("object", {}, props={k: guess_node(v) for k, v in sample.items()})


def _get(value: Any, tokens: tuple[str, ...]) -> Any:
    for t in tokens:
        if not isinstance(value, dict):
            return None
        value = value.get(t)
    return value


def _ptr(prefix: str, tokens: Iterable[str | int]) -> str:
    return prefix + "".join("/" + escape_token(t) for t in tokens)


_CellTruth = tuple[tuple[str, ...], TruthCell | None, bool]
"""A truth record's cell in one column: (leniencies, truth cell, pending)."""


class _DocumentScorer:
    def __init__(self, truth: Truth, citations: dict[str, list[dict[str, Any]]], memory_budget: int):
        self.fields = truth.cells
        self.truth_rows_cache = truth.rows_cache
        self.citations = citations
        self.memory_budget = memory_budget
        self.value, self.page, self.word = Counts(), Counts(), Counts()
        self.approximate = False
        self.trace: list[dict[str, Any]] | None = None  # with explain: one line per cell

    def note(self, outcome: str, t_ptr: str | None, p_ptr: str | None, readings: Any, predicted: Any,
             lens: tuple[str, ...] = (), entry: TruthCell | None = None) -> None:
        """One explained cell (only with explain; see `gtkit.scoring.explain`)."""
        assert self.trace is not None
        correct = outcome == "correct"
        scored = entry is not None and bool(entry.boxes) and outcome in ("correct", "wrong")
        self.trace.append({
            "truth": t_ptr, "pred": p_ptr, "readings": list(readings) if readings is not None else None,
            "predicted": predicted, "outcome": outcome,
            "matched": how_matched(readings, predicted, lens) if correct else None,
            "grounding": grounding(entry.boxes, entry.pages, self.citations.get(p_ptr or ""), correct)
            if scored and entry is not None else None,
        })

    # --- truth cells ---------------------------------------------------------------
    def _truth(self, node: Node, pointer: str,
               value: Any) -> tuple[tuple[Any, ...], tuple[str, ...], TruthCell | None]:
        entry = self.fields.get(pointer)
        if entry is None:
            return (value,), tuple(node.leniencies), None
        lens = tuple(sorted({*entry.leniencies, *node.leniencies})) if node.leniencies or entry.leniencies else ()
        return entry.values, lens, entry

    def _pending(self, pointer: str) -> bool:
        entry = self.fields.get(pointer)
        return entry is not None and entry.pending

    # --- scoring -------------------------------------------------------------------
    def cell(self, entry: TruthCell | None, correct: bool, pred_pointer: str) -> None:
        self.value.correct += correct
        self.value.n_pred += 1
        self.value.n_truth += 1
        if entry is None or not entry.boxes:
            return
        self.word.n_truth += 1
        self.page.n_truth += 1
        cites = self.citations.get(pred_pointer)
        if not cites:
            return
        self.page.n_pred += 1
        boxed = any(c.get("box") is not None for c in cites)
        self.word.n_pred += boxed  # a page-only citation claims a page, not a box
        if not correct:
            return
        if any(c.get("page") in entry.pages for c in cites):  # a page beyond the document is in no entry.pages
            self.page.correct += 1
            if boxed and any(
                c.get("box") is not None and not c.get("bad") and p == c.get("page")
                and iou(c["box"], b) >= IOU_THRESHOLD
                for c in cites for p, b in entry.boxes
            ):
                self.word.correct += 1

    def truth_only(self, node: Node, value: Any, pointer: str, outcome: str = "missing_record") -> None:
        """Cells of an expected record with no predicted partner: recall denominators only."""
        for leaf_ptr, _, leaf_value in iter_leaves(node, value, pointer):
            if self.trace is not None:
                entry = self.fields.get(leaf_ptr)
                self.note("pending" if self._pending(leaf_ptr) else outcome, leaf_ptr, None,
                          entry.values if entry else (leaf_value,), None)
            if self._pending(leaf_ptr):
                continue
            self.value.n_truth += 1
            entry = self.fields.get(leaf_ptr)
            if entry is not None and entry.boxes:
                self.word.n_truth += 1
                self.page.n_truth += 1

    def pred_only(self, node: Node, value: Any, pointer: str = "") -> None:
        """Cells of an extra predicted record: precision denominator only."""
        leaves = list(iter_leaves(node, value if isinstance(value, dict) else {}, pointer))
        self.value.n_pred += len(leaves)
        if self.trace is not None:
            for leaf_ptr, _, leaf_value in leaves:
                self.note("extra_record", None, leaf_ptr, None, leaf_value)

    def walk(self, node: Node, truth: Any, pred: Any, t_ptr: str, p_ptr: str) -> None:
        if node.kind == "object":
            t = truth if isinstance(truth, dict) else {}
            p = pred if isinstance(pred, dict) else {}
            items: Iterable[tuple[str, Node]]
            if node.props:
                items = node.props.items()
            else:  # free-form object: score what either side has
                keys = list(dict.fromkeys([*t, *p]))
                items = [(k, guess_node(t[k] if t.get(k) is not None else p.get(k))) for k in keys]
            for name, sub in items:
                tok = "/" + escape_token(name)
                self.walk(sub, t.get(name), p.get(name), t_ptr + tok, p_ptr + tok)
        elif node.kind == "records":
            self.records(node, truth if isinstance(truth, list) else [], pred if isinstance(pred, list) else [],
                         t_ptr, p_ptr)
        else:
            if self._pending(t_ptr):
                if self.trace is not None:
                    self.note("pending", t_ptr, p_ptr, self.fields[t_ptr].values, pred)
                return
            readings, lens, entry = self._truth(node, t_ptr, truth)
            correct = keys_match(cell_keys(readings, lens), cell_keys([pred], lens))
            self.cell(entry, correct, p_ptr)
            if self.trace is not None:
                self.note("correct" if correct else "wrong", t_ptr, p_ptr, readings, pred, lens, entry)

    def _truth_rows(self, scalars: list, suffixes: list[str], truth: list[Any], t_ptr: str,
                    keys: _KeyMemo) -> tuple[list[list[_CellTruth]], list[list[Hashable]]]:
        """Per truth record and column: (leniencies, truth cell, pending), and the columns' cell keys."""
        truth_cells: list[list[_CellTruth]] = []
        truth_cols: list[list[Hashable]] = [[] for _ in scalars]
        # `_truth` for every cell, inlined: a long list has hundreds of thousands of them
        columns = [(tokens, tuple(col_node.leniencies), suffix, col)
                   for (tokens, col_node), suffix, col in zip(scalars, suffixes, truth_cols)]
        fields_get, cell_key = self.fields.get, keys.cell
        for i, record in enumerate(truth):
            prefix = f"{t_ptr}/{i}"
            row = []
            for tokens, node_lens, suffix, col in columns:
                entry = fields_get(prefix + suffix)
                if entry is None:
                    readings, lens, pending = (_get(record, tokens),), node_lens, False
                else:
                    readings, pending = entry.values, entry.pending
                    lens = tuple(sorted({*entry.leniencies, *node_lens})) if node_lens or entry.leniencies else ()
                row.append((lens, entry, pending))
                col.append(("pending",) if pending else cell_key(readings, lens))
            truth_cells.append(row)
        return truth_cells, truth_cols

    def records(self, node: Node, truth: list[Any], pred: list[Any], t_ptr: str, p_ptr: str) -> None:
        assert node.item is not None
        item = node.item if node.item.props else _free_form_record(truth, pred)
        scalars, nested = _scalar_columns(item)
        suffixes = ["".join("/" + escape_token(t) for t in tokens) for tokens, _ in scalars]
        keys = _KeyMemo()
        if node.item.props:  # the truth side depends on the truth alone: computed once per Truth
            cached = self.truth_rows_cache.get(t_ptr)
            if cached is None:
                cached = self.truth_rows_cache[t_ptr] = self._truth_rows(scalars, suffixes, truth, t_ptr, keys)
            truth_cells, truth_cols = cached
        else:
            truth_cells, truth_cols = self._truth_rows(scalars, suffixes, truth, t_ptr, keys)
        pred_cols = []
        for c, (tokens, _) in enumerate(scalars):
            column_lens = sorted({row[c][0] for row in truth_cells}) or [()]
            pred_cols.append([keys.pred(_get(r, tokens), column_lens) for r in pred])
        alignment = align_rows(truth_cols, pred_cols, len(truth), len(pred), memory_budget=self.memory_budget)
        pairs = alignment.pairs
        self.approximate |= alignment.approximate
        matched_t, matched_p = set(), set()
        for i, j in pairs:
            matched_t.add(i)
            matched_p.add(j)
            for c in range(len(scalars)):
                lens, entry, pending = truth_cells[i][c]
                correct = False if pending else keys_match(truth_cols[c][i], pred_cols[c][j])
                if not pending:
                    pred_pointer = f"{p_ptr}/{j}{suffixes[c]}" if self.citations else ""
                    self.cell(entry, correct, pred_pointer)
                if self.trace is not None:
                    tokens = scalars[c][0]
                    self.note("pending" if pending else "correct" if correct else "wrong", f"{t_ptr}/{i}{suffixes[c]}",
                              f"{p_ptr}/{j}{suffixes[c]}", entry.values if entry else (_get(truth[i], tokens),),
                              _get(pred[j], tokens), lens, entry)
            for tokens, sub in nested:
                self.walk(sub, _get(truth[i], tokens), _get(pred[j], tokens), _ptr(t_ptr, (i, *tokens)),
                          _ptr(p_ptr, (j, *tokens)))
        for i, record in enumerate(truth):
            if i not in matched_t:
                self.truth_only(item, record, f"{t_ptr}/{i}")
        for j, record in enumerate(pred):
            if j not in matched_p:
                self.pred_only(item, record, f"{p_ptr}/{j}")


def score_truth(
    truth: Truth,
    predicted: Any,
    citations: dict[str, list[dict[str, Any]]] | None = None,
    *,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    explain: bool = False,
) -> DocumentScore:
    """Score one predicted object (and its citations) against one document's truth. Citations that can ground
    nothing (`predictions.bad_citation`) are flagged and counted, and stay claims. With `explain`, the score
    carries one line per cell (`gtkit.scoring.explain`)."""
    bad = mark_bad_citations(citations, truth.pages) if citations else 0
    scorer = _DocumentScorer(truth, citations or {}, memory_budget)
    scorer.trace = [] if explain else None
    scorer.walk(compile_schema(truth.schema), truth.expected, predicted, "", "")
    grounded = truth.has_boxes
    return DocumentScore(
        doc_id=truth.doc_id,
        value=scorer.value,
        page=scorer.page if grounded else None,
        word=scorer.word if grounded else None,
        approximate=scorer.approximate,
        tags=truth.tags, parent=truth.parent, recipe=truth.recipe,
        bad_citations=bad,
        cells=scorer.trace,
    )


def score_prediction(
    bundle: Bundle,
    predicted: Any,
    citations: dict[str, list[dict[str, Any]]] | None = None,
    *,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
) -> DocumentScore:
    """Score one predicted object (and its citations) against one bundle's ground truth."""
    return score_truth(Truth.from_gt(bundle.gt, bundle.schema), predicted, citations, memory_budget=memory_budget)


def missing_prediction(truth: Truth | Bundle, reason: str = MISSING, detail: str | None = None, *,
                       explain: bool = False) -> DocumentScore:
    """A document without a usable prediction scores zero: every truth cell is a miss, nothing is predicted."""
    if isinstance(truth, Bundle):
        truth = Truth.from_gt(truth.gt, truth.schema)
    scorer = _DocumentScorer(truth, {}, DEFAULT_MEMORY_BUDGET)
    scorer.trace = [] if explain else None
    scorer.truth_only(compile_schema(truth.schema), truth.expected, "", "no_prediction")
    grounded = truth.has_boxes
    return DocumentScore(
        doc_id=truth.doc_id,
        value=Counts(0, 0, max(scorer.value.n_truth, 1)),
        page=Counts(0, 0, scorer.page.n_truth) if grounded else None,
        word=Counts(0, 0, scorer.word.n_truth) if grounded else None,
        prediction=reason,
        tags=truth.tags, parent=truth.parent, recipe=truth.recipe,
        detail=detail,
        cells=scorer.trace,
    )
