"""Writing a file so that nobody sees half of it: a temporary file beside the target renamed over it (or
linked to a new name, which never replaces what appeared meanwhile), and whole lines appended to a log or
nothing."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from gtkit.errors import GtkitError


def current_umask() -> int:
    """The process's umask (reading it means setting it, so it is set back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def new_temp_file(folder: Path, name: str) -> tuple[int, str]:
    """A temporary file beside `name` in `folder`, with the permissions a plain open() would give it
    (mkstemp alone makes it private, and the rename would carry that to the output)."""
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
    os.fchmod(fd, 0o666 & ~current_umask())
    return fd, tmp


def dumps_json(obj: Any, *, indent: int | None = 1) -> bytes:
    """Canonical JSON bytes: sorted keys are NOT used (field order is meaningful), UTF-8, trailing newline."""
    return (json.dumps(obj, ensure_ascii=False, indent=indent, allow_nan=False) + "\n").encode("utf-8")


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
