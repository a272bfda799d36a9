"""The text a layout prints: a value's display text, its JSON Pointer, and lines wrapped by measurement.

The same font metrics (`fonts.Measure`) measure and draw every string, so a line measured
to fit is the line drawn.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from gtkit.errors import GtkitError
from gtkit.schema import escape_token
from gtkit.synth.fonts import Measure, register

if TYPE_CHECKING:
    from gtkit.synth.family import Family
    from gtkit.synth.layout_toml import Layout

PLACEHOLDER = re.compile(r"^\{([A-Za-z_][A-Za-z0-9_]*)\}$")


def register_fonts(layout: Layout) -> dict[str, str]:
    return {key: register(name) for key, name in layout.fonts.items()}


def leaf_text(family: Family, field_name: str, value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise GtkitError(f"field {field_name!r} is a boolean: checkbox rendering is not available in synth yet")
    if isinstance(value, (list, dict)):
        raise GtkitError(f"field {field_name!r} holds a {type(value).__name__}: synth layouts print scalars only")
    text = " ".join(family.display(field_name, value).split())
    return text or None


class Wrapper:
    """Wraps owned segments into lines of runs, measuring with one font."""

    def __init__(self, font: str, size: float):
        self.font, self.size = font, size
        self.m = Measure(font, size)

    def lines(self, segments: list[tuple[str | None, str]], width: float) -> list[list[tuple[str | None, str, float]]]:
        """[(owner, text)] -> lines of (owner, run text, x offset)."""
        m = self.m
        if len(segments) == 1 and m(segments[0][1]) <= width:
            return [[(segments[0][0], segments[0][1], 0.0)]]
        tokens: list[tuple[str, str | None]] = []
        for owner, text in segments:
            for tok in text.split():
                if m(tok) <= width:
                    tokens.append((tok, owner))
                    continue
                piece = ""
                for ch in tok:  # a token wider than the line is broken between characters
                    if piece and m(piece + ch) > width:
                        tokens.append((piece, owner))
                        piece = ""
                    piece += ch
                tokens.append((piece, owner))
        space = m.space
        out: list[list[tuple[str | None, str, float]]] = []
        line: list[tuple[str | None, list[str], float]] = []  # owner, tokens, x offset
        used = 0.0
        for tok, owner in tokens:
            w = m(tok)
            if line and used + space + w > width:
                out.append([(o, " ".join(t), x) for o, t, x in line])
                line, used = [], 0.0
            if not line:
                line.append((owner, [tok], 0.0))
                used = w
            elif line[-1][0] == owner:
                line[-1][1].append(tok)
                used += space + w
            else:
                line.append((owner, [tok], used + space))
                used += space + w
        if line:
            out.append([(o, " ".join(t), x) for o, t, x in line])
        return out


def record_pointer(family: Family, index: int, name: str) -> str:
    return f"/{escape_token(family.records_field)}/{index}/{escape_token(name)}"
