"""What every reader of a text file a user hands gtkit shares: its encoding and how deep its JSON may nest.

- **Encoding.** UTF-8; a byte-order mark at the start (as some editors on Windows write) is accepted and
  dropped, in JSON, JSON Lines, TOML and CSV alike (`ENCODING`, `decode_text`).
- **Depth.** A JSON value (or a TOML table) may nest objects and arrays `MAX_JSON_DEPTH` levels deep: enough
  for any task (schemas nest at most 64 objects and arrays, see `gtkit.schema`) and for the 255 levels a
  reading's value may take inside gt.json, and little enough that everything in gtkit that walks a value
  does it within Python's stack. Deeper is refused in one line naming the file (`parse_json`,
  `check_depth`), never a RecursionError, whatever the depth.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gtkit.errors import GtkitError

ENCODING = "utf-8-sig"
"""UTF-8, a byte-order mark at the start accepted and dropped."""

MAX_JSON_DEPTH = 300
"""The deepest nesting of objects and arrays (tables and arrays in TOML) gtkit reads: `[]` is 1, `[[1]]` 2."""

TOO_DEEP = f"nests objects and arrays more than {MAX_JSON_DEPTH} levels deep (gtkit reads at most {MAX_JSON_DEPTH})"


def decode_text(raw: bytes, path: Path | str) -> str:
    """The text of a file's bytes (`ENCODING`); anything else is one line naming the file and the byte."""
    try:
        return raw.decode(ENCODING)
    except UnicodeDecodeError as e:
        raise GtkitError(f"not UTF-8 text ({e.reason} at byte {e.start})", path) from None


def json_depth(value: Any, stop: int | None = None) -> int:
    """How deeply objects and arrays nest in a JSON value (0 for a scalar), level by level, without recursion;
    with `stop`, the walk ends as soon as the depth is known to pass it (the answer is then `stop + 1`)."""
    depth, level = 0, [value]
    while True:
        level = [v for v in level if v.__class__ is dict or v.__class__ is list]
        if not level or (stop is not None and depth > stop):
            return depth
        depth += 1
        below: list[Any] = []
        for v in level:
            below += v.values() if v.__class__ is dict else v
        level = below


def check_depth(value: Any, path: Path | str, where: str = "") -> Any:
    """`value`, or one line naming the file (and `where` in it, such as "line 3: ") when it nests too deep."""
    if json_depth(value, MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
        raise GtkitError(f"{where}{TOO_DEEP}", path)
    return value


def parse_json(text: str | bytes, path: Path | str, where: str = "") -> Any:
    """`json.loads(text)`, refusing a value that nests deeper than `MAX_JSON_DEPTH` in one line (a far deeper one
    the parser gives up on itself); a `json.JSONDecodeError` is the caller's to word."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise GtkitError(f"{where}{TOO_DEEP}", path) from None
    return check_depth(value, path, where)
