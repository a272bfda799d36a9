"""The fonts synth draws with: TTF files shipped under templates/fonts/, never system fonts.

Every font is registered with reportlab under a gtkit-specific name, and the same
reportlab metrics (`stringWidth`) measure text for layout and draw it, so a line
measured to fit is the line that is drawn.
"""

from __future__ import annotations

from functools import cache

from reportlab.pdfbase import pdfmetrics  # type: ignore[import-untyped]  # types-reportlab is not a dependency
from reportlab.pdfbase.ttfonts import TTFont  # type: ignore[import-untyped]  # as above

from gtkit.errors import GtkitError
from gtkit.paths import FONTS_DIR


@cache
def register(file_name: str) -> str:
    """Register `templates/fonts/<file_name>` with reportlab once; return the name to draw with."""
    path = FONTS_DIR / file_name
    if not path.is_file():
        raise GtkitError("font file not found (fonts ship under templates/fonts/)", path)
    name = "gtkit-" + path.stem
    pdfmetrics.registerFont(TTFont(name, str(path)))
    return name


class Measure:
    """Text widths in points for one (font, size), cached per string (values repeat a lot)."""

    __slots__ = ("_cache", "font", "size", "space")

    def __init__(self, font: str, size: float):
        self.font = font
        self.size = size
        self._cache: dict[str, float] = {}
        self.space = pdfmetrics.stringWidth(" ", font, size)

    def __call__(self, text: str) -> float:
        w = self._cache.get(text)
        if w is None:
            w = pdfmetrics.stringWidth(text, self.font, self.size)
            if len(self._cache) < 200_000:
                self._cache[text] = w
        return w

