"""Atomic file writes and careful JSON reads.

Every write goes to a temporary file in the destination folder and is renamed over
the target, so a reader never sees half a file. Whole bundles are staged in a
temporary sibling folder and renamed into place the same way.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from gtkit.errors import DiskFull, GtkitError, disk_full
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
    """Write `data` to `path` via a temp file and rename; refuse to replace an existing file unless `force`.

    Without `force` the temp file is hard-linked to `path`, which fails if anything appeared there meanwhile,
    so a file made between the check and the write is never replaced."""
    path = Path(path)
    if path.exists() and not force:
        raise GtkitError("already exists (use --force to overwrite)", path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = new_temp_file(path.parent, path.name)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if force:
            os.replace(tmp, path)
        else:
            _link_new(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _link_new(tmp: str, path: Path) -> None:
    """Give the finished temp file `tmp` the name `path` only if nothing has that name yet."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise GtkitError("appeared while this command ran; left as it is (use --force to overwrite)", path) from None
    except OSError as e:
        if e.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
            raise
        os.replace(tmp, path)  # a file system without hard links: the check above is the only guard
    else:
        os.unlink(tmp)


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


def write_output_file(path: Path, data: bytes, *, force: bool, replaceable: Callable[[Path], bool] | None,
                      inputs: Iterable[Path | None] = ()) -> None:
    """A command's output file: claimed (`gtkit.claim`), checked (`check_output`) and written atomically; a
    file that appears between the check and the write is left as it is (`write_bytes_atomic` without force)."""
    from gtkit.claim import claim

    path = Path(path)
    with claim(path):
        existed = path.exists() or path.is_symlink()  # before the check: what it allowed to replace, if anything
        check_output(path, force=force, inputs=inputs, replaceable=replaceable)
        write_bytes_atomic(path, data, force=existed)


@contextlib.contextmanager
def staged_dir(target: Path, *, force: bool = False,
               replaceable: Callable[[Path], bool] | None = None) -> Iterator[Path]:
    """Yield a fresh temporary folder next to `target`; on success it replaces `target` atomically.

    The output is claimed for the whole run (`gtkit.claim`: a second command on it is refused, leftovers of dead
    runs are removed) and checked twice, at the start and again at commit, so an output that appeared or changed
    meanwhile is never replaced unless `force` and `replaceable` allow it. If the body raises, the staging folder
    is removed and `target` is untouched, so a failed run never leaves half an output behind; a disk that fills
    up is one line naming the output."""
    from gtkit.claim import claim

    target = Path(target)
    check_output(target, force=force, replaceable=replaceable)
    with claim(target):
        check_output(target, force=force, replaceable=replaceable)
        existed = target.exists() or target.is_symlink()
        try:
            stage = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial"))
        except OSError as e:
            raise GtkitError(f"cannot create the output here ({e.strerror})", target) from None
        try:
            os.chmod(stage, 0o777 & ~_umask())
            yield stage
            if not existed and (target.exists() or target.is_symlink()):  # made by something else meanwhile
                raise GtkitError("appeared while this command ran; left as it is, and nothing was written", target)
            check_output(target, force=force, replaceable=replaceable)  # what changed while the body ran
            _commit(stage, target)
        except BaseException as e:
            shutil.rmtree(stage, ignore_errors=True)
            if disk_full(e):
                raise DiskFull(f"cannot write the output: {e.strerror} (nothing was written)", target) from None
            raise


def _commit(stage: Path, target: Path) -> None:
    """Rename the finished `stage` to `target`, moving an output that `check_output` allowed to replace aside
    first. A new target is renamed to without replacing: the rename fails rather than replace a folder with
    anything in it (or a file) that appeared since the check."""
    if not (target.exists() or target.is_symlink()):
        try:
            os.rename(stage, target)
        except OSError as e:
            if e.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
                raise
            raise GtkitError("appeared while this command ran; left as it is, and nothing was written",
                             target) from None
        return
    old = target.with_name(f".{target.name}.old-{os.getpid()}")
    os.replace(target, old)
    os.replace(stage, target)
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


class AppendFailed(GtkitError):
    """A line could not be appended (the disk full, an I/O error): `errno` says why, and `cut_back` whether the
    file was cut back to the size it had (else it ends in part of the line)."""

    def __init__(self, message: str, path: str | Path | None = None, errno: int | None = None,
                 cut_back: bool = True):
        super().__init__(message, path)
        self.errno, self.cut_back = errno, cut_back

    def __reduce__(self):
        return type(self), (self.message, self.path, self.errno, self.cut_back)

    @property
    def disk_full(self) -> bool:
        """No space left, over a quota or over the file size limit (`gtkit.errors.DISK_FULL`): it may work again
        once space is freed."""
        from gtkit.errors import DISK_FULL

        return self.errno in DISK_FULL


def append_line(path: Path, line: bytes) -> None:
    """Append one line (`line` ends with a newline) to an append-only log, whole or not at all, durably.

    The file is created if need be, never opened through a symbolic link (O_NOFOLLOW) nor waited on
    (O_NONBLOCK: a FIFO put in its place is refused at once, not written to when a reader comes), and must be
    a regular file. The line is written (a short write is continued), fsynced, and so is the folder when
    the file is new. On any write error (ENOSPC, EDQUOT, EIO, EFBIG...) the file is cut back to the size
    it had, so it still ends on its last complete line, and `AppendFailed` is raised.
    """
    import errno
    import stat

    path = Path(path)
    created = not os.path.lexists(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                     0o666)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise GtkitError("is a symbolic link: refusing to write through it", path) from None
        if e.errno == errno.ENXIO:  # a FIFO (or a device) with nobody at the other end
            raise GtkitError("is not a regular file: refusing to append to it", path) from None
        raise AppendFailed(f"could not open it to append a line ({e.strerror}): nothing was written",
                           path, e.errno) from None
    try:
        start = os.fstat(fd)
        if not stat.S_ISREG(start.st_mode):
            raise GtkitError("is not a regular file: refusing to append to it", path)
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
            if created:  # the new file's name is durable too
                folder = os.open(path.parent, os.O_RDONLY)
                try:
                    os.fsync(folder)
                finally:
                    os.close(folder)
        except OSError as e:
            try:
                os.ftruncate(fd, start.st_size)
                os.fsync(fd)
            except OSError as cut:
                raise AppendFailed(f"could not append a line ({e.strerror}), nor cut the file back ({cut.strerror}):"
                                   " it ends in part of a line, remove that by hand", path, e.errno, False) from None
            raise AppendFailed(f"could not append a line ({e.strerror}): nothing of it was kept; "
                               "try again once that is fixed", path, e.errno) from None
    finally:
        os.close(fd)
