"""A command's output, from the check at its start to the commit at its end.

`check_output` refuses an output that could destroy something (an input, the current folder, anything gtkit did
not write); `staged_dir` and `write_output_file` write a folder or a file in a staging place and commit it only
if the output is still as it was checked.

One command per output: a lock beside the output for the length of a run, and the leftovers of runs that died.

`claim(target)` takes an exclusive `flock` on `.<name>.lock` beside `target`. The kernel releases a flock when
the process holding it ends, however it ends (`kill -9` included), so a lock is never stale: a lock file whose
lock can be taken belonged to a run that died, and is taken over (and named). A second command on the same target
is refused in one line naming the first (its pid and command line, which the holder writes into the lock file).

While it holds the lock, a command removes what dead runs left beside its target: staging folders
`.<name>.<random>.partial`, temporary files `.<name>.<random>.tmp`, and an old output moved aside for replacement,
`.<name>.old-<pid>`, which is put back instead when the run died between moving it aside and renaming the new
output in (so the target is missing). Each is named in a note (`gtkit.errors.note`).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import shlex
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from gtkit.errors import DiskFull, GtkitError, disk_full, note
from gtkit.files.write import current_umask, write_bytes_atomic

LOCK_SUFFIX = ".lock"


def lock_path(target: Path) -> Path:
    """The lock file of `target`: a hidden sibling, `.<name>.lock`."""
    return target.parent / f".{target.name}{LOCK_SUFFIX}"


def _holder() -> str:
    """Who holds a lock: this process's pid and command line (as typed, shortened)."""
    argv = [Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "python", *sys.argv[1:]]
    if argv[0] in ("__main__.py", "-m"):
        argv[0] = "gtkit"
    command = shlex.join(argv)
    return f"pid {os.getpid()}: {command[:200]}"


def _read_holder(fd: int) -> str:
    data = os.pread(fd, 512, 0).decode("utf-8", "replace").strip()
    return data or "a process that has not yet said which"


def _acquire(lock: Path, target: Path) -> int:
    """An open descriptor holding the exclusive lock on `lock`; refuses when another live process holds it."""
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as e:
            raise GtkitError(f"cannot lock the output ({e.strerror}: {lock.name})", target) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise GtkitError(f"another gtkit command is writing this output ({holder}); "
                             "wait for it to finish or choose another output", target) from None
        # The previous holder unlinks the file as it lets go: if it did so between our open and our flock, the
        # lock we hold is on a file nobody else will see, so start again on the one now at that name.
        try:
            st = os.stat(lock, follow_symlinks=False)
            same = (st.st_dev, st.st_ino) == (os.fstat(fd).st_dev, os.fstat(fd).st_ino)
        except FileNotFoundError:
            same = False
        if not same:
            os.close(fd)
            continue
        if os.fstat(fd).st_size:
            note(f"took over the lock of a run that ended without releasing it ({_read_holder(fd)})", target)
        os.ftruncate(fd, 0)
        os.pwrite(fd, (_holder() + "\n").encode("utf-8"), 0)
        return fd


def _leftover_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"\.{re.escape(name)}\.(?:[a-z0-9_]{{8}}\.(?:partial|tmp)|old-\d+)")


def remove_leftovers(target: Path) -> list[str]:
    """Remove (or, for an old output whose replacement never arrived, put back) what dead runs left beside
    `target`; returns the names handled. Call it only while holding `target`'s lock."""
    pattern = _leftover_pattern(target.name)
    try:
        names = sorted(p for p in os.listdir(target.parent) if pattern.fullmatch(p))
    except FileNotFoundError:
        return []
    for name in names:
        path = target.parent / name
        if ".old-" in name and not (target.exists() or target.is_symlink()):
            os.replace(path, target)
            note(f"put back {name}, the output a run moved aside and died before replacing", target)
        elif path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
            note(f"removed {name}, left by a run that did not finish", target)
        else:
            path.unlink(missing_ok=True)
            note(f"removed {name}, left by a run that did not finish", target)
    return names


@contextlib.contextmanager
def claim(target: Path) -> Iterator[None]:
    """Hold `target` for this command: exclusive lock, leftovers of dead runs removed; released on any exit."""
    target = Path(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise GtkitError(f"cannot create the output here ({e.strerror})", target) from None
    lock = lock_path(target)
    fd = _acquire(lock, target)
    try:
        remove_leftovers(target)
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(lock)
        os.close(fd)


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
    """A command's output file: claimed (`claim`), checked (`check_output`) and written atomically; a
    file that appears between the check and the write is left as it is (`write_bytes_atomic` without force)."""
    path = Path(path)
    with claim(path):
        existed = path.exists() or path.is_symlink()  # before the check: what it allowed to replace, if anything
        check_output(path, force=force, inputs=inputs, replaceable=replaceable)
        write_bytes_atomic(path, data, force=existed)


@contextlib.contextmanager
def staged_dir(target: Path, *, force: bool = False,
               replaceable: Callable[[Path], bool] | None = None) -> Iterator[Path]:
    """Yield a fresh temporary folder next to `target`; on success it replaces `target` atomically.

    The output is claimed for the whole run (`claim`: a second command on it is refused, leftovers of dead
    runs are removed) and checked twice, at the start and again at commit, so an output that appeared or changed
    meanwhile is never replaced unless `force` and `replaceable` allow it. If the body raises, the staging folder
    is removed and `target` is untouched, so a failed run never leaves half an output behind; a disk that fills
    up is one line naming the output."""
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
            os.chmod(stage, 0o777 & ~current_umask())
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
