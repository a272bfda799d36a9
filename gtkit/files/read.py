"""Reading what a user hands gtkit: the text of a file (its encoding, how deep its JSON may nest) and JSON,
JSON Lines and TOML read carefully (every failure one `GtkitError` naming the file); file hashes.

- **Encoding.** UTF-8; a byte-order mark at the start (as some editors on Windows write) is accepted and
  dropped, in JSON, JSON Lines, TOML and CSV alike (`ENCODING`, `decode_text`).
- **Depth.** A JSON value (or a TOML table) may nest objects and arrays `MAX_JSON_DEPTH` levels deep: enough
  for any task (schemas nest at most 64 objects and arrays, see `gtkit.schema`) and for the 255 levels a
  reading's value may take inside gt.json, and little enough that everything in gtkit that walks a value
  does it within Python's stack. Deeper is refused in one line naming the file (`parse_json`,
  `check_depth`), never a RecursionError, whatever the depth.
"""

from __future__ import annotations

import hashlib
import json
import os
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


Version = tuple[int, int, int, int] | None


def file_version(path: Path) -> Version:
    """(device, inode, size, modification time in ns) of a file, None when there is none: it changes whenever the
    file is rewritten (in place, or replaced by a new file as gtkit writes), at the cost of one stat."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    except FileNotFoundError:
        raise GtkitError("file not found", path) from None
    return h.hexdigest()


def canonical_sha256(obj: Any) -> str:
    """Hash of a JSON value independent of its formatting: sorted keys, no whitespace, UTF-8."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return sha256_bytes(text.encode("utf-8"))


def read_json_bytes(path: Path) -> bytes:
    """The bytes of a JSON file; a missing file or a folder is a one-line GtkitError naming it."""
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise GtkitError("file not found", path) from None
    except IsADirectoryError:
        raise GtkitError("is a folder, expected a JSON file", path) from None


def read_json(path: Path) -> Any:
    """Parse a JSON file, turning every failure into a one-line GtkitError naming the file."""
    raw = read_json_bytes(path)
    try:
        return parse_json(raw, path)
    except UnicodeDecodeError as e:
        raise GtkitError(f"not UTF-8 text ({e.reason} at byte {e.start})", path) from None
    except json.JSONDecodeError as e:
        raise GtkitError(f"malformed JSON: {e.msg} at line {e.lineno} column {e.colno}", path) from None


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file (families, recipes, systems), every failure a one-line GtkitError naming the file."""
    import tomllib

    try:
        return check_depth(tomllib.loads(Path(path).read_text(encoding=ENCODING)), path)
    except RecursionError:
        raise GtkitError(TOO_DEEP, path) from None
    except FileNotFoundError:
        raise GtkitError("file not found", path) from None
    except UnicodeDecodeError:
        raise GtkitError("not UTF-8 text", path) from None
    except tomllib.TOMLDecodeError as e:
        raise GtkitError(f"malformed TOML: {e}", path) from None


def read_jsonl(path: Path, *, missing_ok: bool = False) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line of a JSON Lines file; each line must be an object."""
    try:
        lines = Path(path).read_text(encoding=ENCODING).split("\n")  # not splitlines(): U+2028 may sit in a value
    except FileNotFoundError:
        if missing_ok:
            return []
        raise GtkitError("file not found", path) from None
    except UnicodeDecodeError:
        raise GtkitError("not UTF-8 text", path) from None
    out = []
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = parse_json(line, path, f"line {lineno}: ")
        except json.JSONDecodeError as e:
            raise GtkitError(f"line {lineno}: malformed JSON: {e.msg}", path) from None
        if not isinstance(item, dict):
            raise GtkitError(f"line {lineno}: expected a JSON object", path)
        out.append((lineno, item))
    return out
