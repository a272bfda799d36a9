"""The dataset card: `CARD.md` and its PNG figures, a description of what a dataset covers.

Tables (pandas) and figures (matplotlib, Agg, no pyplot state) of:

- documents, pages, records and cells per family and split;
- the distribution of pages and of records per document (log scale);
- the coverage of tags on the axes of the ExtractBench taxonomy (task challenge, structure, perception,
  length, domain, grounding): the share of documents and of pages carrying each tag, as the paper's
  coverage figures draw it, and the task x structure x perception combinations;
- the scan recipes applied (degrade), per family;
- the trust of the cells: how many are constructed, agreed, adjudicated, human or pending.

The same dataset gives the same bytes: figures are drawn with matplotlib's own DejaVu fonts, a fixed
hash salt and no metadata in the PNG (no software version, no date).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gtkit.dataset.inventory import SPLITS, TRUST_LEVELS, DocSummary, summaries
from gtkit.errors import GtkitError
from gtkit.files.outputs import check_output, staged_dir, write_output_file
from gtkit.files.write import write_bytes_atomic

CARD_NAME = "CARD.md"
FIGURES_DIR = "card"
MARKER = "<!-- written by gtkit card -->"
AXES = ("task", "structure", "perception", "length", "domain", "grounding")
FIGURE_AXES = ("task", "structure", "perception", "length", "domain")


@dataclass
class Card:
    """The card's text and figures (name -> PNG bytes), before anything is written."""

    markdown: str
    figures: dict[str, bytes]


# --- tables ------------------------------------------------------------------------------------------------------


def frame(docs: list[DocSummary]) -> Any:
    """One row per document."""
    import pandas as pd  # type: ignore[import-untyped]  # pandas has no type hints; pandas-stubs is no dependency

    return pd.DataFrame([{
        "doc_id": d.doc_id, "family": d.family, "pipeline": d.pipeline, "recipe": d.recipe, "split": d.split,
        "pages": d.pages, "records": d.records, "cells": d.cells,
        **{f"trust_{t}": d.trust.get(t, 0) for t in TRUST_LEVELS},
    } for d in docs])


def _split_order(values: Any) -> list[str]:
    known = [s for s in SPLITS if s in set(values)]
    return known + sorted(set(values) - set(SPLITS))


def family_split_table(df: Any) -> Any:
    """Documents, pages, records and cells per (family, split), splits in length order."""
    import pandas as pd

    out = (df.groupby(["family", "split"], sort=False)
           .agg(docs=("doc_id", "size"), pages=("pages", "sum"), records=("records", "sum"), cells=("cells", "sum"))
           .reset_index())
    out["split"] = pd.Categorical(out["split"], categories=_split_order(out["split"]), ordered=True)
    return out.sort_values(["family", "split"]).reset_index(drop=True)


def size_table(df: Any) -> Any:
    """Pages, records and cells per document: min, median, max."""
    import pandas as pd

    rows = []
    for col in ("pages", "records", "cells"):
        s = df[col]
        rows.append({"per document": col, "min": int(s.min()), "median": float(s.median()), "max": int(s.max()),
                     "total": int(s.sum())})
    return pd.DataFrame(rows)


def tag_values(d: DocSummary, axis: str) -> list[str]:
    """A document's tags on an axis; task tags count once per challenge (the part before the dot)."""
    value = getattr(d.tags, axis)
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if axis == "task":
        return sorted({t.split(".")[0] for t in value})
    return sorted(set(value))


def coverage_table(docs: list[DocSummary]) -> Any:
    """Per axis and tag: documents and pages carrying it, and their shares of the dataset."""
    import pandas as pd

    n_docs, n_pages = len(docs), sum(d.pages for d in docs)
    rows = []
    for axis in AXES:
        counts: dict[str, list[int]] = {}
        for d in docs:
            for tag in tag_values(d, axis):
                c = counts.setdefault(tag, [0, 0])
                c[0] += 1
                c[1] += d.pages
        for tag in sorted(counts):
            docs_n, pages_n = counts[tag]
            rows.append({"axis": axis, "tag": tag, "docs": docs_n, "doc share": docs_n / n_docs,
                         "pages": pages_n, "page share": pages_n / n_pages if n_pages else 0.0})
    return pd.DataFrame(rows, columns=["axis", "tag", "docs", "doc share", "pages", "page share"])


def combination_table(docs: list[DocSummary]) -> Any:
    """Documents per combination of task challenge x structure x perception tags ('-': none on that axis)."""
    import pandas as pd

    rows = [{"task": " ".join(tag_values(d, "task")) or "-", "structure": " ".join(tag_values(d, "structure")) or "-",
             "perception": " ".join(tag_values(d, "perception")) or "-", "pages": d.pages} for d in docs]
    df = pd.DataFrame(rows, columns=["task", "structure", "perception", "pages"])
    return (df.groupby(["task", "structure", "perception"]).agg(docs=("pages", "size"), pages=("pages", "sum"))
            .reset_index())


def recipe_table(df: Any) -> Any:
    """Documents per family and scan recipe ('clean': not degraded)."""
    out = df.pivot_table(index="family", columns="recipe", values="doc_id", aggfunc="count", fill_value=0)
    cols = (["clean"] if "clean" in out.columns else []) + sorted(c for c in out.columns if c != "clean")
    return out[cols].reset_index().rename_axis(None, axis=1)


def trust_table(df: Any) -> Any:
    """Cells per family and trust level, and the total."""
    cols = [f"trust_{t}" for t in TRUST_LEVELS]
    out = df.groupby("family")[cols].sum().reset_index()
    out.columns = ["family", *TRUST_LEVELS]
    total = {"family": "all", **{t: int(out[t].sum()) for t in TRUST_LEVELS}}
    import pandas as pd

    return pd.concat([out, pd.DataFrame([total])], ignore_index=True)


# --- markdown ----------------------------------------------------------------------------------------------------


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.1%}" if 0 <= value <= 1 and value != int(value) else f"{value:g}"
    return str(value).replace("|", "\\|")


def markdown_table(df: Any, shares: tuple[str, ...] = ()) -> str:
    """A pandas table as a GitHub markdown table (columns named in `shares` printed as percentages)."""
    head = "| " + " | ".join(map(str, df.columns)) + " |"
    from pandas.api.types import is_numeric_dtype  # type: ignore[import-untyped]  # as pandas above

    rule = "|" + "|".join("---:" if is_numeric_dtype(df[c]) else "---" for c in df.columns) + "|"
    lines = [head, rule]
    for row in df.itertuples(index=False):
        cells = [f"{v:.1%}" if c in shares else _cell(v) for c, v in zip(df.columns, row)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# --- figures -----------------------------------------------------------------------------------------------------

RC = {"svg.hashsalt": "gtkit", "font.family": "DejaVu Sans", "font.size": 9, "figure.dpi": 100,
      "savefig.dpi": 100, "axes.spines.top": False, "axes.spines.right": False}


def _matplotlib() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise GtkitError("the dataset card draws its figures with matplotlib, which is not installed: "
                         "pip install 'gtkit[card]'") from None
    return matplotlib


def _png(draw: Callable[[Any], None], size: tuple[float, float]) -> bytes:
    """A figure drawn by `draw(figure)`, as PNG bytes without metadata (same data, same bytes)."""
    matplotlib = _matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with matplotlib.rc_context(RC):
        fig = Figure(figsize=size, layout="constrained")
        FigureCanvasAgg(fig)
        draw(fig)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def families_figure(table: Any) -> bytes:
    """Documents and pages per family, stacked by split."""
    families = sorted(set(table["family"]))
    splits = [str(s) for s in table["split"].cat.categories]

    def draw(fig: Any) -> None:
        axes = fig.subplots(1, 2)
        for ax, measure in zip(axes, ("docs", "pages")):
            left = [0] * len(families)
            for split in splits:
                part = table[table["split"] == split].set_index("family")[measure]
                vals = [int(part.get(f, 0)) for f in families]
                ax.barh(families, vals, left=left, label=split)
                left = [a + b for a, b in zip(left, vals)]
            ax.set_title(f"{measure} per family")
            ax.invert_yaxis()
        axes[1].legend(title="split", loc="lower right")

    return _png(draw, (8, 1.2 + 0.35 * len(families)))


def _log_bins(values: list[int]) -> Any:
    import numpy as np

    top = max(max(values), 1)
    return np.geomspace(1, top * 1.05 + 1, num=min(30, max(5, len(values))))


def sizes_figure(df: Any) -> bytes:
    """Histograms of pages and of records per document, on log axes."""

    from matplotlib.ticker import LogLocator, NullFormatter, StrMethodFormatter

    def draw(fig: Any) -> None:
        axes = fig.subplots(1, 2)
        for ax, col in zip(axes, ("pages", "records")):
            values = [max(int(v), 1) for v in df[col]]
            ax.hist(values, bins=_log_bins(values), color="#4c72b0")
            ax.set_xscale("log")
            ax.xaxis.set_major_locator(LogLocator(base=10))
            ax.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xlabel(f"{col} per document (log scale; 0 drawn as 1)")
            ax.set_ylabel("documents")

    return _png(draw, (8, 3))


def coverage_figure(table: Any, n_docs: int) -> bytes:
    """One panel per tag axis: the share of documents carrying each tag, its count beside the bar."""

    def draw(fig: Any) -> None:
        axes = fig.subplots(1, len(FIGURE_AXES))
        for ax, axis in zip(axes, FIGURE_AXES):
            part = table[table["axis"] == axis]
            tags, shares, counts = list(part["tag"]), list(part["doc share"]), list(part["docs"])
            ax.barh(tags or ["(none)"], shares or [0.0], color="#55a868")
            for y, (share, count) in enumerate(zip(shares, counts)):
                ax.text(share, y, f" {count}", va="center", fontsize=8)
            ax.set_xlim(0, 1.3)
            ax.set_title(axis)
            ax.invert_yaxis()
            ax.set_xlabel("share of documents")
        fig.suptitle(f"tag coverage ({n_docs} documents)")

    return _png(draw, (11, 3))


def trust_figure(table: Any) -> bytes:
    """Cells per trust level, per family, stacked."""
    part = table[table["family"] != "all"]
    families = list(part["family"])
    colors = {"constructed": "#4c72b0", "agreed": "#55a868", "adjudicated": "#8172b2", "human": "#ccb974",
              "pending": "#c44e52"}

    def draw(fig: Any) -> None:
        ax = fig.subplots()
        left = [0] * len(families)
        for level in TRUST_LEVELS:
            vals = [int(v) for v in part[level]]
            ax.barh(families, vals, left=left, label=level, color=colors[level])
            left = [a + b for a, b in zip(left, vals)]
        ax.invert_yaxis()
        ax.set_xlabel("cells (field entries)")
        ax.set_title("trust of cells per family")
        ax.legend(loc="lower right", fontsize=7)

    return _png(draw, (7, 1.2 + 0.35 * len(families)))


# --- the card ----------------------------------------------------------------------------------------------------


def build_card(dataset: Path) -> Card:
    """The card of a dataset (or of one bundle), in memory."""
    _matplotlib()
    docs = summaries(Path(dataset))
    df = frame(docs)
    fam = family_split_table(df)
    cov = coverage_table(docs)
    trust = trust_table(df)
    figures = {
        "families.png": families_figure(fam),
        "sizes.png": sizes_figure(df),
        "tags.png": coverage_figure(cov, len(docs)),
        "trust.png": trust_figure(trust),
    }
    total = trust[trust["family"] == "all"].iloc[0]
    n_cells = int(df["cells"].sum())
    settled = n_cells - int(total["pending"])
    fig = f"{FIGURES_DIR}/"
    text = "\n\n".join([
        f"{MARKER}\n# Dataset card: {Path(dataset).resolve().name}",
        f"{len(docs)} documents, {int(df['pages'].sum())} pages, {int(df['records'].sum())} records, "
        f"{n_cells} cells ({settled} settled, {int(total['pending'])} pending), "
        f"{df['family'].nunique()} families, pipelines: {', '.join(sorted(set(df['pipeline'])))}.",
        "## Documents and pages per family and split\n\nSplits are the dataset's own (its index's `split`), "
        "else ExtractBench's by length: short up to 10 pages, medium 11 to 50, long above 50.",
        markdown_table(fam), f"![documents and pages per family]({fig}families.png)",
        "## Size of documents\n\nRecords are the items of every list of records in the expected answer; "
        "cells are the field entries of `gt.json`.",
        markdown_table(size_table(df)), f"![pages and records per document]({fig}sizes.png)",
        "## Coverage of tags\n\nThe share of documents (and of pages) carrying each tag; a document counts once "
        "per task challenge (`T1`, `T2`, `T3`) whatever its sub-tags. Tags overlap across axes.",
        markdown_table(cov, shares=("doc share", "page share")), f"![tag coverage]({fig}tags.png)",
        "### Task x structure x perception\n\nDocuments per combination of tags ('-': none on that axis).",
        markdown_table(combination_table(docs)),
        "## Scan recipes applied\n\nDocuments per family and recipe (`clean`: not re-captured by degrade).",
        markdown_table(recipe_table(df)),
        "## Trust of cells\n\nField entries per trust level: `constructed` (exact by construction: synth, "
        "degrade), `agreed` (independent model families agree), `adjudicated` (a decision picked a candidate), "
        "`human` (entered or confirmed by a person), `pending` (contested, left out of scoring).",
        markdown_table(trust), f"![trust of cells]({fig}trust.png)",
    ]) + "\n"
    return Card(markdown=text, figures=figures)


def is_card(path: Path) -> bool:
    """A CARD.md gtkit wrote (what `--force` may replace)."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(len(MARKER)) == MARKER
    except (OSError, UnicodeDecodeError):
        return False


def _is_card_folder(path: Path) -> bool:
    return path.is_dir() and (not any(path.iterdir()) or is_card(path / CARD_NAME))


def write_card(dataset: Path, out: Path | None = None, *, force: bool = False) -> Path:
    """Write CARD.md and its figures (in `card/`) into the dataset, or into the folder `out`; returns CARD.md.

    In the dataset, an existing card is replaced only with `force` and only if gtkit wrote it; the figures
    are written first and CARD.md last, each atomically. A separate `out` folder is staged and renamed into
    place as a whole (never inside the dataset)."""
    dataset = Path(dataset)
    if out is None:
        target = dataset / CARD_NAME
        if not dataset.is_dir():
            raise GtkitError("not a dataset folder", dataset)
        card = build_card(dataset)
        check_output(target, force=force, replaceable=is_card)
        for name, png in card.figures.items():
            write_bytes_atomic(dataset / FIGURES_DIR / name, png, force=True)
        write_output_file(target, card.markdown.encode("utf-8"), force=force, replaceable=is_card)
        return target
    check_output(Path(out), force=force, inputs=[dataset], replaceable=_is_card_folder)
    card = build_card(dataset)
    with staged_dir(Path(out), force=force, replaceable=_is_card_folder) as stage:
        for name, png in card.figures.items():
            write_bytes_atomic(stage / FIGURES_DIR / name, png, force=True)
        write_bytes_atomic(stage / CARD_NAME, card.markdown.encode("utf-8"), force=True)
    return Path(out) / CARD_NAME
