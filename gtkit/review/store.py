"""The dataset's decisions.jsonl as the review server keeps it: one line appended per decision, at once.

Each new line is parsed by the model of its action (`gtkit.consensus.decisions`) and checked against
the dataset by adjudication's own `Session` (an unknown cell, a cell decided twice, a value of the
wrong type, a page beyond the document, an `expected` the schema refuses), exactly as
`gtkit adjudicate` will check it; only then is it appended, flushed and fsynced, so a browser closed
or a server killed loses nothing that was acknowledged. A line that cannot be written whole (a full
disk) is cut off again (`gtkit.files.write.append_line`): the file always ends on a complete line.

The file is the server's alone while it runs: the size, modification time and SHA-256 of what it
last saw are kept, and a file changed under it (another editor, a second server, a symbolic link put
in its place) is refused rather than appended to. It must be a regular file of the dataset's own: a
symbolic link or a file with other hard links is refused at start, and it is never opened through a
link (O_NOFOLLOW), so neither a decision nor "apply now" can reach a file outside the dataset.

The dataset is checked the same way: a decision on a document whose gt.json changed since the server read it,
or whose `supersedes` (the value the page showed) is not the cell's value on disk, is refused rather than
written, so the page never replaces a value the reviewer did not see. "Apply now" empties the file in the
revised dataset it swaps in: the decisions are applied and out of the file in one rename, or neither.
"""

from __future__ import annotations

import hashlib
import json
import stat
import threading
from pathlib import Path
from typing import Any

from gtkit.consensus.adjudicate import Session, adjudicate
from gtkit.consensus.decisions import Decision, parse_decision, read_decisions
from gtkit.errors import DiskFull, GtkitError, disk_full
from gtkit.files.read import file_version
from gtkit.files.write import AppendFailed, append_line
from gtkit.format.writer import GT_NAME
from gtkit.scoring.normalize import value_key

DECISIONS_NAME = "decisions.jsonl"

Fingerprint = tuple[int, int, str] | None


class ChangedUnderUs(GtkitError):
    """The decisions file changed since the server last read or wrote it, or a document of the dataset since the
    server (or the page) read it."""


class ApplyFailed(GtkitError):
    """Apply now could not write the dataset (a full disk, an I/O error): nothing was applied and the decisions
    file is as it was; `disk_full` says whether freeing space is the fix."""

    def __init__(self, why: str, path: str | Path | None, disk_full: bool):
        fix = "free some space and apply again" if disk_full else "apply again once that is fixed"
        super().__init__(f"apply now: {why}; decisions.jsonl keeps every decision: {fix}", path)
        self.disk_full = disk_full


def fingerprint(path: Path) -> Fingerprint:
    """(size, mtime in ns, SHA-256) of a file, or None when it does not exist; a symbolic link or anything
    else that is not a regular file is not followed nor read (its fingerprint is never a file's)."""
    try:
        st = path.lstat()
        if not stat.S_ISREG(st.st_mode):
            return st.st_size, st.st_mtime_ns, f"not a regular file (mode {st.st_mode:o})"
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    return st.st_size, st.st_mtime_ns, hashlib.sha256(data).hexdigest()


def require_own_file(path: Path) -> None:
    """Refuse a decisions file the server must not write: a symbolic link (its target may be anywhere), anything
    but a regular file, or a file with other hard links (appending to it, or emptying it on apply now, would
    change a file outside the dataset too). A missing file is fine: the server creates it."""
    try:
        st = path.lstat()
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise GtkitError("is a symbolic link: the review writes only a regular file inside the dataset; "
                         "put the file itself there", path)
    if not stat.S_ISREG(st.st_mode):
        raise GtkitError("is not a regular file: the review writes only a regular file inside the dataset", path)
    if st.st_nlink > 1:
        raise GtkitError(f"has {st.st_nlink - 1} other hard link(s): writing it would change them too; "
                         "put a copy of its own there", path)


class DecisionFile:
    """DATASET/decisions.jsonl: the cells decided so far, and the one way to add a decision."""

    def __init__(self, dataset: Path, who: str):
        self.dataset = Path(dataset)
        self.path = self.dataset / DECISIONS_NAME
        self.who = who
        self.lock = threading.Lock()
        self._load()

    def _load(self) -> None:
        """Replay the file through a fresh adjudication session (a bad line is the file's error, at start)."""
        self.session = Session(self.dataset, self.path, self.who, None)
        self.decided: dict[str, int] = {}   # cell id -> its line in the file
        self.content: dict[str, dict[str, Any]] = {}   # cell id -> the decision
        self.lines = 0
        require_own_file(self.path)
        if self.path.is_file():
            data = self.path.read_bytes()
            if data and not data.endswith(b"\n"):
                raise GtkitError("the last line has no newline (was the file edited by hand?): "
                                 "end it with one before reviewing", self.path)
            self.lines = data.count(b"\n")
            for lineno, d in read_decisions(self.path):
                self.session.apply(lineno, d)
                self.decided[d.cell_id] = lineno
                self.content[d.cell_id] = d.model_dump(mode="json", exclude_unset=True)
            self.session.validate()
        self.mark = fingerprint(self.path)

    def line_of(self, cell_id: str) -> dict[str, Any]:
        """The decision taken on a cell (empty when none)."""
        return self.content.get(cell_id, {})

    def _unchanged(self) -> None:
        if fingerprint(self.path) != self.mark:
            raise ChangedUnderUs("changed by someone else since the review server last wrote it; nothing was "
                                 "written: restart gtkit review to read it again", self.path)

    def _as_shown(self, d: Decision) -> None:
        """Refuse (ChangedUnderUs) a decision taken on a dataset that is no longer the one on disk: its document's
        gt.json changed since the session read it (another gtkit adjudicate), or the value its `supersedes` names
        (the value the page showed) is not the cell's value now. What else is wrong the session says."""
        doc_id, path = d.cell_id.split("#", 1)
        if doc_id not in self.session.entries or d.cell_id in self.session.settled:
            return
        gt = self.dataset / self.session.entries[doc_id].path / GT_NAME
        held = self.session.docs.get(doc_id)
        if held is not None and held.version != file_version(gt):
            raise ChangedUnderUs("changed since the review server read it (by another gtkit adjudicate?): nothing "
                                 "was written; restart gtkit review to read it again", gt)
        entry = self.session.document(doc_id).fields.get(path) if d.names_earlier else None
        if entry is not None:
            value = entry["readings"][0]["value"]
            if value_key(value) != value_key(d.supersedes):
                raise ChangedUnderUs(f"{d.cell_id} is {value!r} now, not {d.supersedes!r} as the page showed it: it "
                                     "changed since; nothing was written: reload the page to see it", gt)

    def apply(self) -> tuple[int, int | None]:
        """`gtkit adjudicate` with this file, the dataset replaced as a whole with the file emptied in it: the
        decisions and their leaving the file are one rename, so a failure (`ApplyFailed`) changes neither and
        no decision is ever applied and still in the file. (decisions applied, items left in the queue)"""
        with self.lock:
            self._unchanged()
            if not self.decided:
                raise GtkitError("no decision to apply yet", self.path)
            try:
                n, left = adjudicate(self.dataset, self.path, who=self.who, empty_decisions=True)
            except DiskFull as e:
                raise ApplyFailed(e.message, e.path, disk_full=True) from None
            except OSError as e:
                raise ApplyFailed(f"cannot write the dataset: {e.strerror or e} (nothing was written)", self.dataset,
                                  disk_full=disk_full(e)) from None
            self._load()
            return n, left

    def append(self, line: dict[str, Any]) -> int:
        """Check one decision against the dataset and append it (flushed, fsynced); its line number."""
        with self.lock:
            self._unchanged()
            n = self.lines + 1
            d = parse_decision(line, self.path, n)
            self._as_shown(d)
            try:
                self.session.apply(n, d)
                self.session.validate(only=d.cell_id.split("#", 1)[0])
            except GtkitError:
                self._load()  # the session may hold half of the refused decision: replay the file as it is
                raise
            try:
                append_line(self.path, json.dumps(line, ensure_ascii=True).encode("utf-8") + b"\n")
            except AppendFailed as e:
                if e.cut_back:  # the file is as it was (its modification time aside): the session forgets the line
                    self._load()
                raise
            self.lines = n
            self.decided[d.cell_id] = n
            self.content[d.cell_id] = line
            self.mark = fingerprint(self.path)
            return n
