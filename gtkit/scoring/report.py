"""What a scoring run reports: means over documents, slices by tag, the clean/degraded pairs.

Per document, value and grounding are micro P/R/F1 (`gtkit.scoring.engine`); overall, per slice and per pair
group they are unweighted means over documents (grounding over the documents that have a grounding
score). Slice axes:

    task        challenge (T1, T2, ...): a document tagged T1.c and T1.e counts once, under T1
    task.sub    sub-tag (T1.c, T1.e, ...): a document counts under each of its sub-tags
    perception, structure, grounding    each tag the document carries
    length, domain                      the one value it carries

`--by a,b` crosses two axes: a document counts under every (a, b) pair of its keys. `table()` gives
the overall row and the slices as a pandas DataFrame; the CLI renders it.

`pairs()` is the paper's paired measurement of capture degradation: every degraded document in the
run is matched to its parent (`provenance.parent`) when the parent was scored in the same run, and
value and grounding F1 are reported for both and their difference, per recipe and overall.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gtkit.errors import GtkitError
from gtkit.format.models import Tags

if TYPE_CHECKING:
    import pandas  # type: ignore[import-untyped]  # pandas-stubs is not a dependency

    from gtkit.scoring.engine import DocumentScore

SLICE_AXES = ("task", "task.sub", "perception", "structure", "length", "domain", "grounding")
METRICS = ("value_precision", "value_recall", "value_f1", "page_f1", "word_f1")
NONE = "(none)"


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarize(docs: list[DocumentScore]) -> dict[str, Any]:
    """Unweighted means over documents (grounding over the documents that have a grounding score)."""
    return {
        "docs": len(docs),
        "value_precision": _mean([d.value.precision for d in docs]),
        "value_recall": _mean([d.value.recall for d in docs]),
        "value_f1": _mean([d.value.f1 for d in docs]),
        "page_f1": _mean([d.page.f1 for d in docs if d.page is not None]),
        "word_f1": _mean([d.word.f1 for d in docs if d.word is not None]),
        "approximate_docs": sum(d.approximate for d in docs),
    }


def parse_axes(by: str | None) -> tuple[str, ...]:
    """`--by`: one axis, or two different ones joined by a comma; each from `SLICE_AXES`."""
    if not by:
        return ()
    axes = tuple(a.strip() for a in by.split(","))
    unknown = [a for a in axes if a not in SLICE_AXES]
    if unknown or len(axes) > 2:
        raise GtkitError(f"--by takes one axis or two joined by a comma (axes: {', '.join(SLICE_AXES)}), got {by!r}")
    if len(set(axes)) < len(axes):
        raise GtkitError(f"--by names {axes[0]!r} twice: give two different axes")
    return axes


def slice_keys(tags: Tags, axis: str) -> list[str]:
    """The slices a document belongs to on one axis (see the module docstring)."""
    if axis == "task":
        return sorted({t.split(".")[0] for t in tags.task}) or [NONE]
    if axis == "task.sub":
        return sorted(set(tags.task)) or [NONE]
    if axis in ("perception", "structure", "grounding"):
        return sorted(set(getattr(tags, axis))) or [NONE]
    if axis in ("length", "domain"):
        return [getattr(tags, axis) or NONE]
    raise GtkitError(f"unknown slice axis {axis!r} (choose from {', '.join(SLICE_AXES)})")


def _groups(docs: list[DocumentScore], axes: tuple[str, ...]) -> dict[tuple[str, ...], list[DocumentScore]]:
    groups: dict[tuple[str, ...], list[DocumentScore]] = defaultdict(list)
    for d in docs:
        keys: list[tuple[str, ...]] = [()]
        for axis in axes:
            keys = [(*k, v) for k in keys for v in slice_keys(d.tags, axis)]
        for k in keys:
            groups[k].append(d)
    return dict(sorted(groups.items()))


@dataclass
class ScoreReport:
    documents: list[DocumentScore]
    by: str | None = None
    unknown: list[str] = field(default_factory=list)  # prediction files that name no document of the truth

    def overall(self) -> dict[str, Any]:
        return summarize(self.documents)

    def slices(self) -> dict[str, dict[str, Any]]:
        """Slice name ("T1", or "T1 x L2" for two axes) -> its summary."""
        axes = parse_axes(self.by)
        if not axes:
            return {}
        return {" x ".join(k): summarize(v) for k, v in _groups(self.documents, axes).items()}

    def table(self) -> pandas.DataFrame:
        """The overall row, then one row per slice: a column per axis, `docs`, and the five metrics."""
        import pandas

        axes = parse_axes(self.by)
        rows = [{**{a: "(all)" for a in axes}, **_row(self.overall())}]
        if axes:
            rows += [{**dict(zip(axes, k)), **_row(summarize(v))} for k, v in _groups(self.documents, axes).items()]
        return pandas.DataFrame(rows, columns=[*axes, "docs", *METRICS])

    def pairs(self) -> dict[str, Any]:
        """Each degraded document beside its parent (both scored in this run): F1s of both and their difference,
        per recipe and overall; degraded documents whose parent was not scored are listed apart."""
        by_id = {d.doc_id: d for d in self.documents}
        matched: dict[str, list[tuple[DocumentScore, DocumentScore]]] = defaultdict(list)
        orphans = []
        for d in self.documents:
            if d.parent is None:
                continue
            if d.parent in by_id:
                matched[d.recipe or NONE].append((by_id[d.parent], d))
            else:
                orphans.append(d.doc_id)
        groups = {"(all)": [p for ps in matched.values() for p in ps], **dict(sorted(matched.items()))}
        return {
            "groups": {name: _paired(ps) for name, ps in groups.items() if ps},
            "documents": [{"clean": c.doc_id, "degraded": g.doc_id, "recipe": g.recipe,
                           **{f"{m}_clean": _metric(c, m) for m in ("value_f1", "page_f1", "word_f1")},
                           **{f"{m}_degraded": _metric(g, m) for m in ("value_f1", "page_f1", "word_f1")}}
                          for ps in matched.values() for c, g in ps],
            "without_parent": orphans,
        }

    def to_dict(self, *, pairs: bool = False) -> dict[str, Any]:
        out = {
            "overall": self.overall(),
            "by": self.by,
            "slices": self.slices(),
            "unusable_predictions": {d.doc_id: d.prediction for d in self.documents if d.prediction != "ok"},
            "unknown_predictions": self.unknown,
            "bad_citations": sum(d.bad_citations for d in self.documents),
            "documents": [d.to_dict() for d in self.documents],
        }
        if pairs:
            out["pairs"] = self.pairs()
        return out


def _row(summary: dict[str, Any]) -> dict[str, Any]:
    return {"docs": summary["docs"], **{m: summary[m] for m in METRICS}}


def _metric(d: DocumentScore, name: str) -> float | None:
    counts = {"value_f1": d.value, "page_f1": d.page, "word_f1": d.word}[name]
    return None if counts is None else counts.f1


def _paired(pairs: list[tuple[DocumentScore, DocumentScore]]) -> dict[str, Any]:
    """Means over the pairs of each F1 clean and degraded, and degraded minus clean (over pairs that have both)."""
    out: dict[str, Any] = {"pairs": len(pairs)}
    for m in ("value_f1", "page_f1", "word_f1"):
        metrics = [(_metric(c, m), _metric(g, m)) for c, g in pairs]
        both = [(a, b) for a, b in metrics if a is not None and b is not None]
        out[f"{m}_clean"] = _mean([a for a, _ in both])
        out[f"{m}_degraded"] = _mean([b for _, b in both])
        out[f"{m}_delta"] = _mean([b - a for a, b in both])
    return out
