"""Renderer `template`: a family's jinja2 HTML template rendered by weasyprint, values located by measurement.

A family with `renderer = "template"` ships a jinja2 HTML file and CSS (family.toml `[template]`);
shared pieces (templates/base.css: the fonts of templates/fonts as @font-face, page chrome,
checkbox style) live in the top-level templates/ folder, which is on the loader's path.

The template draws every value through two functions, so that each value element carries an id
made from its JSON Pointer:

- `v(pointer)`: the value's text (the family's display format) in `<span class="gtv" id=...>`;
  a null draws nothing; `v(pointer, also=[...])` draws it once for several values that print the
  same text and are all read there (a pivot's column header, printed once, names the candidate of
  every cell under it, however many pages down): each pointer of `also` gets the element's evidence;
- `box(pointer)`: a boolean as a checkbox `<span class="gtcb">` (checked: `gtcb on`, a filled
  mark drawn by CSS, no text); a null draws nothing, or "N/A" (`null_checkbox = "na"`).

`doc` is the expected object (each top-level field is also a variable of its own) for the
template's own logic; `ptr(*tokens)` joins a JSON Pointer. jinja2 runs with autoescape and
StrictUndefined. Every non-null leaf must be drawn exactly once: a value drawn twice or never
is an error naming the record and field, before any PDF is written.

weasyprint lays out the pages (CSS paged media: repeated table headers, break-inside, margin
boxes). Its URL fetcher refuses everything but local files under the family folder and
templates/ (fonts only from templates/fonts). SOURCE_DATE_EPOCH is fixed while rendering, so the
same records give the same bytes. The PDF's info dictionary is the family's (family.toml `[pdf]`,
`gtkit.synth.pdfinfo`): set as weasyprint finishes the file, its own producer replaced when the family
names one; the title also is the HTML's `title`. templates/base.css declares the fonts under their
PostScript names (`LiberationSans`, `LiberationMono`), which weasyprint embeds them as.

Each value element's page and box (`Rendered.anchors`) are where the read-back
(`gtkit.synth.template_readback`) looks for it in the PDF written.
"""

from __future__ import annotations

import contextlib
import os
import re
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from gtkit.errors import GtkitError
from gtkit.paths import FONTS_DIR, TEMPLATES_DIR
from gtkit.schema import compile_schema, iter_leaves, join_pointer, resolve_pointer, split_pointer
from gtkit.synth.family import Family
from gtkit.synth.pdfinfo import DocInfo

PX = 0.75  # points per CSS px
ID_PREFIX = "gt"
FONT_SUFFIXES = (".ttf", ".otf", ".woff", ".woff2")
SOURCE_DATE_EPOCH = "315532800"  # 1980-01-01, the earliest date a zip or font timestamp holds


@dataclass
class Mark:
    """One value element the template drew."""

    pointer: str
    kind: str  # "text" or "checkbox"
    text: str  # the printed text ("" for a checkbox)
    checked: bool = False
    also: tuple[str, ...] = ()  # other values read at this element (same text): they share its evidence


@dataclass
class Rendered:
    pdf: bytes
    marks: dict[str, Mark]  # element id -> mark
    anchors: list[dict[str, tuple[float, float, float, float]]]  # per page: element id -> box in points
    page_sizes: list[tuple[float, float]]
    font_families: frozenset[str] = frozenset()  # PostScript names of the @font-face families' regular faces


def element_id(pointer: str) -> str:
    return ID_PREFIX + pointer.replace("%", "%25").replace(" ", "%20")


def describe_pointer(pointer: str) -> str:
    parts = split_pointer(pointer)
    if len(parts) >= 3 and parts[1].isdigit():
        nested = "/".join(parts[2:])
        return f"record {parts[1]} field {nested}"
    return f"field {'/'.join(parts)}"


class _Fetcher:
    """weasyprint's URL fetcher: local files under the allowed folders only, fonts only from
    templates/fonts; every refusal is remembered (weasyprint only warns) and fails the render."""

    def __init__(self, roots: list[Path]):
        from weasyprint.urls import URLFetcher, URLFetcherResponse  # type: ignore[import-untyped]  # no py.typed marker

        self.roots = [r.resolve() for r in roots]
        self.refused: list[str] = []
        outer = self

        class Fetcher(URLFetcher):
            def fetch(self, url, headers=None):
                path = outer.allowed(url)
                if path is None:
                    outer.refused.append(url)
                    raise ValueError(f"gtkit refuses to fetch {url!r}: templates load local files only")
                return URLFetcherResponse(url, body=path.read_bytes())

        self.fetcher = Fetcher()

    def allowed(self, url: str) -> Path | None:
        parsed = urlparse(url)
        if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
            return None
        path = Path(unquote(parsed.path)).resolve()
        if path.suffix.lower() in FONT_SUFFIXES:
            return path if path.is_file() and path.is_relative_to(FONTS_DIR.resolve()) else None
        if path.is_file() and any(path.is_relative_to(r) for r in self.roots):
            return path
        return None


@contextlib.contextmanager
def _fixed_epoch() -> Iterator[None]:
    old = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = SOURCE_DATE_EPOCH
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("SOURCE_DATE_EPOCH", None)
        else:
            os.environ["SOURCE_DATE_EPOCH"] = old


def _environment(family: Family):
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(family.folder), str(TEMPLATES_DIR)]),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def _template_line(exc: BaseException) -> tuple[str | None, int | None]:
    """The template file and line a jinja2 runtime error happened at (jinja2 rewrites the traceback
    so template frames carry the template's file name and line)."""
    where: tuple[str | None, int | None] = (None, None)
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename.endswith((".html", ".htm", ".j2", ".jinja")):
            where = (frame.filename, frame.lineno)
    return where


class _Drawer:
    """The functions a template draws values with; counts what it drew."""

    def __init__(self, family: Family, expected: dict[str, Any]):
        self.family = family
        self.expected = expected
        self.marks: dict[str, Mark] = {}
        self.problems: list[str] = []
        self.twice: set[str] = set()
        self.drawn: set[str] = set()  # every pointer drawn (an element's own and its `also`)

    def value(self, pointer: Any) -> Any:  # also the template's value(): the document's value there, not drawn
        if not isinstance(pointer, str) or not pointer.startswith("/"):
            raise GtkitError(f"v()/box() take a JSON Pointer such as '/claims/0/amount', got {pointer!r}")
        value = resolve_pointer(self.expected, pointer, default=KeyError)
        if value is KeyError:
            raise GtkitError(f"{pointer}: the template draws a value that is not in the document")
        return value

    def _claim(self, pointer: str, mark: Mark) -> str:
        eid = element_id(pointer)
        for p in (pointer, *mark.also):
            if p in self.drawn:
                self.twice.add(p)
            self.drawn.add(p)
        self.marks[eid] = mark
        return eid

    def _also(self, pointer: str, text: str, also: Any) -> tuple[str, ...]:
        """The pointers of `also` (values read at `pointer`'s element), each printing exactly `text`."""
        if isinstance(also, str) or not all(isinstance(a, str) for a in also):
            raise GtkitError(f"{pointer}: also= takes a list of JSON Pointers, got {also!r}")
        for other in also:
            value = self.value(other)
            shown = None if value is None or isinstance(value, (bool, list, dict)) else \
                " ".join(self.family.display(split_pointer(other)[-1], value).split())
            if shown != text:
                raise GtkitError(f"{other}: {describe_pointer(other)} ({value!r}) is read at the element of {pointer}, "
                                 f"which prints {text!r}")
        return tuple(also)

    def v(self, pointer: str, cls: str = "", also: Any = ()) -> Any:
        from markupsafe import Markup, escape

        value = self.value(pointer)
        if value is None:
            return Markup("")
        if isinstance(value, bool):
            raise GtkitError(f"{pointer}: {describe_pointer(pointer)} is a boolean: draw it with box(), never as text")
        if isinstance(value, (list, dict)):
            raise GtkitError(f"{pointer}: {describe_pointer(pointer)} holds a {type(value).__name__}: "
                             "v() draws scalars")
        name = split_pointer(pointer)[-1]
        text = " ".join(self.family.display(name, value).split())
        eid = self._claim(pointer, Mark(pointer, "text", text, also=self._also(pointer, text, also)))
        klass = f"gtv {cls}".strip()
        return Markup(f'<span class="{escape(klass)}" id="{escape(eid)}">{escape(text)}</span>')

    def box(self, pointer: str, cls: str = "") -> Any:
        from markupsafe import Markup, escape

        value = self.value(pointer)
        if value is None:
            assert self.family.template is not None
            if self.family.template.null_checkbox == "na":
                return Markup('<span class="gtna">N/A</span>')
            return Markup("")
        if not isinstance(value, bool):
            raise GtkitError(f"{pointer}: {describe_pointer(pointer)} is {value!r}, box() draws booleans")
        eid = self._claim(pointer, Mark(pointer, "checkbox", "", value))
        klass = f"gtcb{' on' if value else ''} {cls}".strip()
        return Markup(f'<span class="{escape(klass)}" id="{escape(eid)}"></span>')


def _page_css(family: Family) -> str:
    w, h = family.page_size
    return f"@page {{ size: {w:.4f}pt {h:.4f}pt; }}"


def render_html(family: Family, expected: dict[str, Any]) -> tuple[str, _Drawer]:
    """The template's HTML for `expected`, and what it drew; raises on template errors and on values
    drawn twice or never."""
    import jinja2

    assert family.template is not None
    html_name = family.template.html
    env = _environment(family)
    drawer = _Drawer(family, expected)
    env.globals.update(v=drawer.v, box=drawer.box, ptr=lambda *t: "".join(join_pointer("", x) for x in t),
                       value=drawer.value)
    try:
        template = env.get_template(html_name)
        context = {**{k: val for k, val in expected.items()}, "doc": expected,
                   "title": family.info(expected).title or "",
                   "family": family.name, "page_css": _page_css(family),
                   "options": dict(family.template.options)}
        html = template.render(**context)
    except jinja2.TemplateNotFound as e:
        raise GtkitError(f"template {e.name!r} not found (looked in {family.folder} and {TEMPLATES_DIR})") from None
    except jinja2.TemplateSyntaxError as e:
        raise GtkitError(f"line {e.lineno}: template syntax error: {e.message}", e.filename or html_name) from None
    except GtkitError as e:
        file, line = _template_line(e)
        raise GtkitError(f"line {line}: {e.message}" if line else e.message,
                         file or family.folder / html_name) from None
    except jinja2.UndefinedError as e:
        file, line = _template_line(e)
        raise GtkitError(f"line {line}: undefined variable: {e.message}", file or family.folder / html_name) from None
    except Exception as e:
        file, line = _template_line(e)
        raise GtkitError(f"line {line}: {type(e).__name__}: {e}", file or family.folder / html_name) from None
    template_file = family.folder / html_name
    for pointer in sorted(drawer.twice):
        raise GtkitError(f"{pointer}: {describe_pointer(pointer)} is drawn more than once by the template",
                         template_file)
    drawn = drawer.drawn
    for pointer, _node, value in iter_leaves(compile_schema(family.schema), expected):
        if value is not None and pointer not in drawn:
            raise GtkitError(f"{pointer}: {describe_pointer(pointer)} ({value!r}) is never drawn by the template",
                             template_file)
    return html, drawer


def _finisher(info: DocInfo, fonts: dict[bytes, tuple[bytes, str]]) -> Any:
    """weasyprint's `finisher`: the info dictionary is `info`'s (every other key weasyprint wrote dropped),
    and each font embedded under its file's PostScript name (`fonts`: @font-face family as weasyprint spells
    it in a font name -> (PostScript name, family name) of its regular face), never the CSS family's."""
    import pydyf  # type: ignore[import-untyped]  # weasyprint's PDF writer, no py.typed marker

    def rename(name: bytes) -> bytes:
        prefix, _, base = name.partition(b"+")
        for family, (postscript, _) in fonts.items():
            if base == family or base.startswith(family + b"-"):
                rest = base[len(family):].replace(b"-Oblique", b"-Italic")
                return prefix + b"+" + postscript + rest
        return name

    def finish(_document: Any, pdf: Any) -> None:
        producer = pdf.info.get("Producer")
        pdf.info.clear()
        pairs = (("Title", info.title), ("Author", info.author), ("Subject", info.subject), ("Creator", info.creator),
                 ("CreationDate", info.created), ("ModDate", info.created))
        pdf.info.update({k: pydyf.String(v) for k, v in pairs if v})
        pdf.info["Producer"] = pydyf.String(info.producer) if info.producer else producer
        families = {f.decode(): family for f, (_, family) in fonts.items()}
        for obj in pdf.objects:
            if isinstance(obj, pydyf.Dictionary):
                for key in ("BaseFont", "FontName"):
                    if isinstance(obj.get(key), bytes):
                        obj[key] = rename(obj[key])
                if isinstance(obj.get("FontFamily"), pydyf.String):
                    spelled = str(obj["FontFamily"].string).replace(" ", "-")
                    obj["FontFamily"] = pydyf.String(families.get(spelled, obj["FontFamily"].string))
    return finish


def _font_faces(css: str) -> dict[bytes, tuple[bytes, str]]:
    """@font-face family (spaces as dashes, as weasyprint names fonts) -> (PostScript name, family name) of
    the face of normal weight and style (else the first), read from its file under templates/fonts."""
    from fontTools.ttLib import TTFont  # type: ignore[import-untyped]  # fontTools ships no py.typed marker

    faces: dict[str, list[tuple[bool, str]]] = {}
    for block in re.findall(r"@font-face\s*\{([^}]*)\}", css):
        named = re.search(r"font-family\s*:\s*[\"']?([^;\"'}]+)", block)
        src = re.search(r"url\(\s*[\"']?([^\"')]+)", block)
        if named and src:
            plain = not re.search(r"font-(weight|style)\s*:\s*(?!normal|400)", block)
            faces.setdefault(named.group(1).strip(), []).append((plain, Path(unquote(src.group(1))).name))
    out = {}
    for family, files in faces.items():
        path = FONTS_DIR / max(files, key=lambda f: f[0])[1]
        if path.is_file():
            with TTFont(str(path), lazy=True) as f:
                out[family.replace(" ", "-").encode()] = (str(f["name"].getDebugName(6)).encode(),
                                                           str(f["name"].getDebugName(1)))
    return out


def render_template(family: Family, expected: dict[str, Any], *, measure: bool = True) -> Rendered:
    """Render the family's template for `expected` into PDF bytes, with each value element's page and box."""
    import weasyprint  # type: ignore[import-untyped]  # weasyprint ships no py.typed marker
    from weasyprint.text.fonts import FontConfiguration  # type: ignore[import-untyped]  # as above

    assert family.template is not None
    html, drawer = render_html(family, expected)
    fetch = _Fetcher([family.folder, TEMPLATES_DIR])
    fonts = FontConfiguration()
    stylesheets = []
    css_text = ""
    for css_name in family.template.css:
        css_path = family.folder / css_name
        if not css_path.is_file():
            css_path = TEMPLATES_DIR / css_name
        if not css_path.is_file():
            raise GtkitError(f"stylesheet {css_name!r} not found (looked in {family.folder} and {TEMPLATES_DIR})")
        css_text += css_path.read_text(encoding="utf-8")
        stylesheets.append(weasyprint.CSS(filename=str(css_path), url_fetcher=fetch.fetcher, font_config=fonts))
    stylesheets.append(weasyprint.CSS(string=_page_css(family)))
    faces = _font_faces(css_text)
    with _fixed_epoch():
        doc = weasyprint.HTML(string=html, base_url=str(family.folder / family.template.html),
                              url_fetcher=fetch.fetcher).render(stylesheets=stylesheets, font_config=fonts)
        if fetch.refused:
            raise GtkitError(f"the template refers to {fetch.refused[0]!r}: a template may load local files only "
                             "(fonts from templates/fonts)", family.folder / family.template.html)
        pdf = doc.write_pdf(finisher=_finisher(family.info(expected), faces))
    anchors = []
    sizes = []
    for page in doc.pages:
        sizes.append((page.width * PX, page.height * PX))
        if measure:
            anchors.append({k: (a[0] * PX, a[1] * PX, a[2] * PX, a[3] * PX) for k, a in page.anchors.items()
                            if k in drawer.marks})
    return Rendered(pdf=pdf, marks=drawer.marks, anchors=anchors, page_sizes=sizes,
                    font_families=frozenset(ps.decode() for ps, _ in faces.values()))

