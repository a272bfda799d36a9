"""What the static HTML views (`gtkit score --html`, `gtkit show --html`) share: the jinja2 templates, the
folder written atomically with its marker, and page pictures drawn in the worker pool.

A view is a folder that opens from `file://` with no server and nothing fetched from elsewhere: HTML pages
with relative links, the stylesheet inlined in each page, pictures as PNG files beside them, no script.
Its marker file, `gtkit-html.json`, says gtkit wrote it, so `--force` may replace it (and nothing else).
The bytes are a function of the inputs and options alone (no clock, no host, no absolute path).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from gtkit.errors import GtkitError
from gtkit.files.outputs import check_output, staged_dir
from gtkit.files.write import dumps_json
from gtkit.paths import TEMPLATES_DIR
from gtkit.views.page_png import Mark, render_marks_png
from gtkit.workers import Pool

MARKER = "gtkit-html.json"
HTML_TEMPLATES = TEMPLATES_DIR / "html"
VALUE_CHARS = 160  # a value longer than this is cut in the tables (the page pictures show the rest)


def is_html_view(path: Path) -> bool:
    """A folder a `--html` option wrote (it holds gtkit's marker): what `--force` may replace."""
    marker = Path(path) / MARKER
    try:
        return Path(path).is_dir() and json.loads(marker.read_bytes()).get("generator") == "gtkit"
    except (OSError, ValueError, AttributeError, RecursionError):
        return False


@functools.cache
def environment() -> Any:
    """The jinja2 environment over the shipped templates (autoescaped, undefined names an error)."""
    import jinja2
    import markupsafe

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(HTML_TEMPLATES)), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    # shipped with gtkit: trusted
    env.globals["css"] = markupsafe.Markup((HTML_TEMPLATES / "view.css").read_text(encoding="utf-8"))
    env.filters["pct"] = pct
    env.filters["value"] = show_value
    env.filters["pointer"] = lambda p: markupsafe.escape(p).replace("/", markupsafe.Markup("/<wbr>"))
    return env


def render(template: str, **context: Any) -> bytes:
    return environment().get_template(template).render(**context).encode("utf-8")


def pct(value: float | None) -> str:
    """A rate as a percentage with one decimal, '-' where there is none."""
    return "-" if value is None or math.isnan(value) else f"{100 * value:.1f}"


def show_value(value: Any) -> str:
    """A JSON value as JSON text (so null, "null" and 1 vs "1" stay apart), cut to `VALUE_CHARS`."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS - 1] + "…"


def box_style(box: Sequence[float]) -> str:
    """CSS placing an element over a page picture at a normalized box (percentages, rounded for stable bytes)."""
    x0, y0, x1, y1 = (min(max(float(v), 0.0), 1.0) for v in box)
    return (f"left:{100 * x0:.3f}%;top:{100 * y0:.3f}%;"
            f"width:{100 * max(x1 - x0, 0.0):.3f}%;height:{100 * max(y1 - y0, 0.0):.3f}%")


class PageJob(NamedTuple):
    """One page picture to draw: the PDF, the 1-based page, its marks, the resolution and the thumbnail's
    shrink (0: none)."""

    pdf: Path
    page: int
    marks: tuple[Mark, ...]
    dpi: int
    thumb_shrink: int = 0


def draw_page(job: PageJob) -> tuple[bytes, bytes | None]:
    """The page picture (and thumbnail) of one job; runs in a worker."""
    return render_marks_png(job.pdf, job.page, job.marks, dpi=job.dpi, thumb_shrink=job.thumb_shrink)


def draw_pages(jobs: Sequence[PageJob], pool: Pool) -> Iterator[tuple[bytes, bytes | None]]:
    """The pictures of `jobs`, in order, drawn in the pool's workers (inline with one worker)."""
    yield from pool.map(draw_page, jobs)


def write_view(out: Path, kind: str, files: Iterable[tuple[str, bytes]], *, force: bool,
               inputs: Iterable[Path]) -> None:
    """Write the view folder `out`: every (relative path, bytes) of `files` and the marker, staged beside it and
    renamed into place when complete; an existing view is replaced only with `force`, never an input."""
    out = Path(out)
    inputs = list(inputs)
    check_output(out, force=force, inputs=inputs, replaceable=is_html_view)
    with staged_dir(out, force=force, replaceable=is_html_view) as stage:
        for rel, data in files:
            path = stage / rel
            if stage.resolve() not in path.resolve().parents:
                raise GtkitError(f"refusing to write {rel!r} outside the view folder", out)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        (stage / MARKER).write_bytes(dumps_json({"generator": "gtkit", "view": kind}))
