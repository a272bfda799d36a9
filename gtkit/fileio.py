"""Atomic file writes and careful JSON reads.

Every write goes to a temporary file in the destination folder and is renamed over
the target, so a reader never sees half a file. Whole bundles are staged in a
temporary sibling folder and renamed into place the same way.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from gtkit.errors import GtkitError
from gtkit.textfile import ENCODING, TOO_DEEP, check_depth, parse_json


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def new_temp_file(folder: Path, name: str) -> tuple[int, str]:
    """A temporary file beside `name` in `folder`, with the permissions a plain open() would give it
    (mkstemp alone makes it private, and the rename would carry that to the output)."""
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
    os.fchmod(fd, 0o666 & ~_umask())
    return fd, tmp


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


def dumps_json(obj: Any, *, indent: int | None = 1) -> bytes:
    """Canonical JSON bytes: sorted keys are NOT used (field order is meaningful), UTF-8, trailing newline."""
    return (json.dumps(obj, ensure_ascii=False, indent=indent, allow_nan=False) + "\n").encode("utf-8")


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


def write_bytes_atomic(path: Path, data: bytes, *, force: bool = False) -> None:
    """Write `data` to `path` via a temp file and rename; refuse to replace an existing file unless `force`."""
    path = Path(path)
    if path.exists() and not force:
        raise GtkitError("already exists (use --force to overwrite)", path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = new_temp_file(path.parent, path.name)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_json_atomic(path: Path, obj: Any, *, force: bool = False, indent: int | None = 1) -> None:
    write_bytes_atomic(path, dumps_json(obj, indent=indent), force=force)


def _within(inner: Path, outer: Path) -> bool:
    return inner == outer or outer in inner.parents


def check_output(target: Path, *, force: bool, inputs: Iterable[Path | None] = (),
                 replaceable: Callable[[Path], bool] | None = None) -> None:
    """Refuse an output that could destroy something: one line, nothing touched.

    The output may not be, contain or lie inside any of the command's `inputs`, nor be the current
    folder or one that holds it. An existing output is replaced only with `force`, and only when
    `replaceable(target)` says gtkit itself made it (a bundle or dataset folder, a file of the kind
    the verb writes); without a predicate nothing existing is replaced.
    """
    target = Path(target)
    resolved = target.resolve()
    if _within(Path.cwd().resolve(), resolved):
        raise GtkitError("refusing to write over the current folder or a folder that holds it", target)
    for item in inputs:
        if item is None:
            continue
        source = Path(item).resolve()
        if _within(resolved, source) or _within(source, resolved):
            raise GtkitError(f"the output must not be, contain or lie inside the input {item}", target)
    if not (target.exists() or target.is_symlink()):
        return
    if not force:
        raise GtkitError("already exists (use --force to replace it)", target)
    if target.is_symlink() or replaceable is None or not replaceable(target):
        raise GtkitError("exists and is not an output gtkit wrote: --force replaces only gtkit's own outputs", target)


@contextlib.contextmanager
def staged_dir(target: Path, *, force: bool = False,
               replaceable: Callable[[Path], bool] | None = None) -> Iterator[Path]:
    """Yield a fresh temporary folder next to `target`; on success it replaces `target` atomically.

    If the body raises, the staging folder is removed and `target` is untouched, so a
    failed run never leaves half an output behind.
    """
    target = Path(target)
    check_output(target, force=force, replaceable=replaceable)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial"))
    except OSError as e:
        raise GtkitError(f"cannot create the output here ({e.strerror})", target) from None
    os.chmod(stage, 0o777 & ~_umask())
    try:
        yield stage
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old-{os.getpid()}")
        os.replace(target, old)
    os.replace(stage, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True) if old.is_dir() else old.unlink()


def canonical_sha256(obj: Any) -> str:
    """Hash of a JSON value independent of its formatting: sorted keys, no whitespace, UTF-8."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return sha256_bytes(text.encode("utf-8"))


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
        lines = Path(path).read_text(encoding=ENCODING).splitlines()
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
