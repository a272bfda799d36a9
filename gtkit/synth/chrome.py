"""Page chrome (running header, caption, footer, rules) and the page's geometry (margin box, body band).

A chrome template's `{field}` placeholders print document-level values, cited on every page they
appear on; `{page}` and `{pages}` print the page number and count.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gtkit.errors import GtkitError
from gtkit.schema import escape_token
from gtkit.synth.plan import ASCENT, Item, PagePlan, Run
from gtkit.synth.text import PLACEHOLDER, Wrapper, leaf_text

if TYPE_CHECKING:
    from gtkit.synth.family import Family


def template_segments(template: str, context: dict[str, Any], family: Family, page: int, pages: int, where: str):
    """A chrome template as [(pointer or None, text)]: placeholders stand alone between spaces."""
    segments: list[tuple[str | None, str]] = []
    literal: list[str] = []
    for tok in template.split():
        m = PLACEHOLDER.match(tok)
        if m is None:
            if "{" in tok or "}" in tok:
                raise GtkitError(f"{where}: a placeholder must stand alone between spaces, got {tok!r}")
            literal.append(tok)
            continue
        name = m.group(1)
        if name == "page":
            literal.append(str(page + 1))
            continue
        if name == "pages":
            literal.append(str(pages))
            continue
        if literal:
            segments.append((None, " ".join(literal)))
            literal = []
        if name not in family.schema.get("properties", {}) or name == family.records_field:
            raise GtkitError(f"{where}: placeholder {{{name}}} is not a document-level field of the schema")
        text = leaf_text(family, name, context.get(name))
        if text is not None:
            segments.append(("/" + escape_token(name), text))
    if literal:
        segments.append((None, " ".join(literal)))
    return segments


def lay_chrome(family: Family, context: dict[str, Any], fonts: dict[str, str], page: int, pages: int,
            content: tuple[float, float, float, float], pp: PagePlan) -> None:
    left, _, right, _ = content
    for i, spec in enumerate(family.required_layout.chrome):
        assert spec.leading is not None  # filled in by ChromeLine's validation
        font, size, leading, top = fonts[spec.font], spec.size, spec.leading, spec.top
        baseline = top + (leading - size) / 2 + ASCENT * size
        w = Wrapper(font, size)
        for align in ("left", "center", "right"):
            template = getattr(spec, align)
            if not template:
                continue
            segs = template_segments(template, context, family, page, pages, f"layout.toml chrome {i + 1}")
            if not segs:
                continue
            widths = [w.m(t) for _, t in segs]
            total = sum(widths) + w.m.space * (len(segs) - 1)
            if total > right - left:
                raise GtkitError(f"chrome line {i + 1} is {total:.0f} pt wide, the page has {right - left:.0f} pt")
            x = left if align == "left" else right - total if align == "right" else (left + right - total) / 2
            for (ptr, text), wd in zip(segs, widths):
                pp.chrome_runs.append(Run(x, baseline, font, size, text))
                pp.chrome_items.append(Item(ptr, text, None, (x, top, x + wd, top + leading), page))
                x += wd + w.m.space
    for rule in family.required_layout.rule:
        pp.rules.append((left, rule.y, right, rule.y, rule.width))


def geometry(family: Family) -> tuple[tuple[float, float, float, float], tuple[float, float, float, float]]:
    width, height = family.page_size
    ml, mt, mr, mb = family.required_layout.page.margins
    content = (ml, mt, width - mr, height - mb)
    body = family.required_layout.body
    top = mt if body.top is None else body.top
    body_box = (ml, top, width - mr, height - mb if body.bottom is None else body.bottom)
    if not (content[1] <= body_box[1] < body_box[3] <= content[3]):
        raise GtkitError("layout.toml [body] top/bottom must lie inside the page margins")
    return content, body_box

