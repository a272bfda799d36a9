"""Read-back of a template family's PDF: every value element found where weasyprint drew it, and checked.

Each value element's page and box come from weasyprint's `page.anchors` (`Rendered.anchors` of
`gtkit.synth.template`, CSS px, 0.75 pt each); the words of the written PDF (`gtkit.pdf.page_words`, the
pages walked by `gtkit.pdf.PageWalk` as in the reportlab read-back) whose centre lies inside that box are
the value's words. Checks, all on the PDF: the words spell the value exactly; no word claimed by two values
or sticking out of its element or off the page; no two words overlapping; every checkbox's drawn state
(ink inside the box, measured on a rendering of the region) equals its value and no text is inside it;
every page without /Rotate; every font embedded and from templates/fonts.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pymupdf

from gtkit.paths import FONTS_DIR
from gtkit.pdf import PageWalk, PageWords, centred_in, each_page, open_document
from gtkit.synth.readback import (
    OVERLAP_TOL,
    TOL,
    Located,
    SynthProblem,
    overlapping_pairs,
)
from gtkit.synth.template import Mark, Rendered, describe_pointer

INK_CHECKED = 0.25  # share of dark pixels inside a checkbox that reads as checked
INK_EMPTY = 0.02  # at most this share reads as unchecked; between the two is an error


# the names the shipped fonts were embedded under before they took their PostScript names (bundles written
# then are read with them)
EARLIER_FAMILIES = frozenset({"Gtkit-Sans", "Gtkit-Mono"})


@lru_cache(maxsize=1)
def shipped_font_names() -> frozenset[str]:
    """PostScript names of the fonts under templates/fonts (what an embedded font must be)."""
    from fontTools.ttLib import TTFont  # type: ignore[import-untyped]  # fontTools ships no py.typed marker

    names = set()
    for path in FONTS_DIR.iterdir():
        if path.suffix.lower() in (".ttf", ".otf"):
            with TTFont(str(path), lazy=True) as f:
                names.add(str(f["name"].getDebugName(6)))
    return frozenset(names)


def checkbox_ink(page: pymupdf.Page, rect: tuple[float, float, float, float]) -> float:
    """Share of dark pixels inside a checkbox (its border excluded), from a rendering of the region."""
    x0, y0, x1, y1 = rect
    w, h = x1 - x0, y1 - y0
    inner = pymupdf.Rect(x0 + w * 0.3, y0 + h * 0.3, x1 - w * 0.3, y1 - h * 0.3)
    pix = page.get_pixmap(matrix=pymupdf.Matrix(6, 6), clip=inner, colorspace=pymupdf.csGRAY, alpha=False)
    a = np.frombuffer(pix.samples, dtype=np.uint8)
    return float((a < 128).mean()) if a.size else 0.0


def locate_template(rendered: Rendered, pdf: bytes | str | Path) -> Located:
    """Find every mark of `rendered` in `pdf` (the file written, or the bundle's) and run the checks."""
    with open_document(pdf) as doc:
        return _locate(rendered, doc)


def _locate(rendered: Rendered, doc: pymupdf.Document) -> Located:
    walk = PageWalk(0, "the template rendered")
    n_pages = doc.page_count
    out = Located(pages=n_pages, page_sizes=walk.page_sizes)
    problems = out.problems
    wrong = walk.page_count_problem(n_pages, len(rendered.anchors))
    if wrong:
        problems.append(SynthProblem("", wrong))
        return out
    found: set[str] = set()
    for p, words in walk(each_page(doc)):
        _locate_page(rendered, doc[p], p, words, found, out)
    out.words = walk.words
    if walk.problem:
        problems.append(SynthProblem("", walk.problem))
    for eid, mark in rendered.marks.items():
        if eid not in found:
            what = f"{describe_pointer(mark.pointer)} ({mark.text or mark.checked!r})"
            problems.append(SynthProblem(mark.pointer, f"{what} has no place in the PDF (hidden or not laid out)"))
            if len(problems) > 50:
                break
    allowed = shipped_font_names()
    families = rendered.font_families | EARLIER_FAMILIES

    def foreign(name: str) -> str | None:
        base = name.split("+", 1)[-1]
        if base not in allowed and not any(base == f or base.startswith(f + "-") for f in families):
            return "is not one of templates/fonts (a system font was used)"
        return None

    problems.extend(SynthProblem("", message) for message in walk.font_problems(foreign))
    return out


def _locate_page(rendered: Rendered, page: pymupdf.Page, p: int, words: PageWords, found: set[str],
                 out: Located) -> None:
    """Find the marks anchored on page `p` (0-based) among its words, top to bottom, adding their evidence and
    problems to `out` (`found`: the marks found so far); then no word off the page, no two words overlapping."""
    pw, ph = words.size
    texts, coords = words.texts, words.coords
    problems = out.problems
    norm = words.evidence_boxes().tolist()
    owner = np.full(len(texts), -1, dtype=np.int64)
    for k, (eid, rect) in enumerate(sorted(rendered.anchors[p].items(), key=lambda kv: (kv[1][1], kv[1][0]))):
        mark = rendered.marks[eid]
        pointer = mark.pointer
        if eid in found:
            problems.append(SynthProblem(pointer, f"page {p + 1}: {describe_pointer(pointer)} is drawn on more than "
                                         "one page (split)"))
            continue
        found.add(eid)
        x0, y0, x1, y1 = rect
        if x0 < -TOL or y0 < -TOL or x1 > pw + TOL or y1 > ph + TOL or x1 <= x0 or y1 <= y0:
            problems.append(SynthProblem(pointer, f"page {p + 1}: {describe_pointer(pointer)} is drawn outside the "
                                         f"page ({[round(v, 1) for v in rect]})"))
            continue
        inside = centred_in(coords, rect)
        taken = inside[owner[inside] >= 0]
        if len(taken):
            problems.append(SynthProblem(pointer, f"page {p + 1}: word {texts[taken[0]]!r} of "
                                         f"{describe_pointer(pointer)} is also inside another value's element"))
        owner[inside] = k
        ev = _mark_evidence(page, p, mark, rect, inside, words, norm, problems)
        if ev is not None:
            out.evidence.setdefault(pointer, []).append(ev)
            for other in mark.also:
                out.evidence.setdefault(other, []).append(dict(ev))
    if len(texts):
        off = (coords[:, 0] < -TOL) | (coords[:, 1] < -TOL) | (coords[:, 2] > pw + TOL) | (coords[:, 3] > ph + TOL)
        for w in np.nonzero(off)[0][:5]:
            problems.append(SynthProblem("", f"page {p + 1}: word {texts[w]!r} is off the page"))
        for a, b in overlapping_pairs(coords, OVERLAP_TOL)[:10]:
            problems.append(SynthProblem("", f"page {p + 1}: word {texts[a]!r} overlaps word {texts[b]!r}"))


def _mark_evidence(page: pymupdf.Page, p: int, mark: Mark, rect: tuple[float, float, float, float],
                   inside: np.ndarray, words: PageWords, norm: list[list[float]],
                   problems: list[SynthProblem]) -> dict[str, Any] | None:
    """The evidence of `mark`, drawn in `rect` on page `p` over the words `inside` (their centres inside it), or
    None with its problem: a checkbox holds no text and shows its value's ink; a text's words spell it exactly
    and none sticks out of `rect`."""
    pointer, what = mark.pointer, describe_pointer(mark.pointer)
    texts, coords = words.texts, words.coords
    x0, y0, x1, y1 = rect
    if mark.kind == "checkbox":
        if len(inside):
            problems.append(SynthProblem(pointer,
                                         f"page {p + 1}: text {texts[inside[0]]!r} inside the checkbox of {what}"))
            return None
        ink = checkbox_ink(page, rect)
        drawn = True if ink >= INK_CHECKED else False if ink <= INK_EMPTY else None
        if drawn is None or drawn != mark.checked:
            state = "unclear" if drawn is None else ("checked" if drawn else "unchecked")
            problems.append(SynthProblem(pointer, f"page {p + 1}: the checkbox of {what} is drawn {state} "
                                         f"(ink {ink:.2f}), its value is {mark.checked}"))
            return None
        pw, ph = words.size
        nbox = [round(x0 / pw, 6), round(y0 / ph, 6), round(x1 / pw, 6), round(y1 / ph, 6)]
        return {"page": p + 1, "box": nbox, "words": None, "quad": None, "quote": None, "verified": True}
    got = "".join(texts[i] for i in inside)
    if got != "".join(mark.text.split()):
        shown = " ".join(texts[i] for i in inside)
        problems.append(SynthProblem(pointer, f"page {p + 1}: {what} ({mark.text!r}) not found where drawn, "
                                     f"found {shown!r}"))
        return None
    wc = coords[inside]
    clipped = ((wc[:, 0] < x0 - TOL) | (wc[:, 2] > x1 + TOL) | (wc[:, 1] < y0 - TOL) | (wc[:, 3] > y1 + TOL))
    if clipped.any():
        w = inside[np.nonzero(clipped)[0][0]]
        problems.append(SynthProblem(pointer, f"page {p + 1}: word {texts[w]!r} of {what} sticks out of its element "
                                     f"({[round(v, 1) for v in coords[w]]} outside {[round(v, 1) for v in rect]})"))
        return None
    wl = [norm[i] for i in inside]
    box = [min(w[0] for w in wl), min(w[1] for w in wl), max(w[2] for w in wl), max(w[3] for w in wl)]
    return {"page": p + 1, "box": box, "words": wl, "quad": None, "quote": " ".join(texts[i] for i in inside),
            "verified": True}
