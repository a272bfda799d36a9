"""Withholding what `expected` cannot hold, so that every bundle consensus writes passes `gtkit check`.

The walk leaves out the blanks the schema forbids where a key may be absent, and writes a required
blank's best non-null candidate when there is one (`walk`). What is left: required keys with no value
the schema allows (`DocResult.unwritable`), and anything else the validator of `gtkit check` refuses
in the document's `expected` (a constraint across cells: `minItems`, `uniqueItems`, `dependentRequired`,
`if`/`then`, ...). Each such problem withholds the innermost row of a record array that holds it: the
row leaves `expected`, its cells leave the field entries, the rows after it move up, and the row is
queued (`WithheldRecord`) with the problems that withheld it (by field: row indexes as `*`). A problem
outside every row withholds the whole document: it is not written, and the report says why. Rounds repeat
until `expected` validates (withholding a row can break its array's `minItems`).
"""

from __future__ import annotations

import bisect
from typing import Any

from gtkit.consensus.cells import DocResult, Problem, WithheldRecord
from gtkit.consensus.expected_check import schema_problems
from gtkit.schema import Node, errors_at, escape_token, split_pointer


def withhold_unwritable(r: DocResult, root: Node) -> None:
    """Withhold the rows (or the document) of `r` whose problems keep `expected` from validating."""
    problems = list(r.unwritable)
    r.unwritable = []
    while True:
        if not problems:
            if root.source is None or not schema_problems(root.source, root, r.expected):
                break
            problems = [Problem(p, m) for p, m in errors_at(root, r.expected)]
        rows: dict[str, list[Problem]] = {}
        for p in problems:
            row = enclosing_row(root, p.path)
            if row is None:
                _withhold_document(r, [q for q in problems if enclosing_row(root, q.path) is None])
                return
            rows.setdefault(row, []).append(Problem(field_of(root, p.path), p.problem, p.cause, p.fix))
        if not _withhold_rows(r, root, rows):   # nothing left to take out (cannot happen): never write it
            _withhold_document(r, problems)
            return
        problems = []
    _number_withheld(r)


def enclosing_row(root: Node, pointer: str) -> str | None:
    """The pointer of the innermost row of a record array holding `pointer` (None outside every row)."""
    node: Node | None = root
    prefix, row = "", None
    for tok in split_pointer(pointer):
        if node is None:
            break
        here = f"{prefix}/{escape_token(tok)}"
        if node.kind == "records":
            if not tok.isdigit():
                break
            row, node = here, node.item
        elif node.kind == "object":
            node = node.props.get(tok)
        else:
            break
        prefix = here
    return row


def field_of(root: Node, pointer: str) -> str:
    """A pointer's field: its row indexes as `*` (stable when rows are withheld)."""
    node: Node | None = root
    out = []
    for tok in split_pointer(pointer):
        records = node is not None and node.kind == "records"
        out.append("*" if records and tok.isdigit() else escape_token(tok))
        if node is not None:
            node = node.item if records else node.props.get(tok) if node.kind == "object" else None
    return "/" + "/".join(out) if out else ""


def _withhold_document(r: DocResult, problems: list[Problem]) -> None:
    r.withheld_document = problems
    r.withheld_cells += len(r.cells)
    r.cells, r.extras, r.withheld, r.rows = [], [], [], {}


def _withhold_rows(r: DocResult, root: Node, rows: dict[str, list[Problem]]) -> int:
    """Take the rows out of `expected`, queue them, and renumber every pointer after them; returns how many
    rows left `expected`."""
    removed: dict[str, list[int]] = {}
    for row in rows:
        array, _, index = row.rpartition("/")
        removed.setdefault(array, []).append(int(index))
    for idx in removed.values():
        idx.sort()
    new: dict[str, WithheldRecord] = {}
    for row, problems in rows.items():
        array, _, _ = row.rpartition("/")
        members = r.rows.get(row, {})
        new[row] = WithheldRecord(array=array, field=field_of(root, row), members=members,
                                  weight=sum(r.voters.weight[s] for s in members), reasons=list(problems))
    for w in [*r.withheld, *new.values()]:
        if renumber(w.array, removed) is None:   # inside a row withheld now: that row holds it, and its reasons
            outer = max((row for row in new if w.array.startswith(row + "/")), key=len)
            new[outer].reasons += [p for p in w.reasons if p not in new[outer].reasons]
    # deepest arrays first, highest index first: earlier deletions never move later ones
    deleted = 0
    for array in sorted(removed, key=lambda a: -a.count("/")):
        target = _get(r.expected, array)
        for i in reversed(removed[array]):
            if isinstance(target, list) and i < len(target):
                del target[i]
                deleted += 1
    kept = []
    for c in r.cells:
        p = renumber(c.pointer, removed)
        if p is None:
            r.withheld_cells += 1
        else:
            c.pointer = p
            kept.append(c)
    r.cells = kept
    extras = []
    for x in r.extras:
        p = renumber(x.pointer, removed)
        if p is not None:
            x.pointer = p
            extras.append(x)
    r.extras = extras
    withheld = []
    for w in [*r.withheld, *new.values()]:
        a = renumber(w.array, removed)
        if a is not None:
            w.array = a
            withheld.append(w)
    r.withheld = withheld
    r.rows = {p: m for p, m in ((renumber(k, removed), m) for k, m in r.rows.items()) if p is not None}
    return deleted


def renumber(pointer: str, removed: dict[str, list[int]]) -> str | None:
    """`pointer` once the rows `removed` (array pointer -> sorted row indexes, all in the old numbering) are
    gone: later rows move up; None when it lies in a removed row."""
    if pointer == "":
        return pointer
    old, out = "", []
    for tok in pointer[1:].split("/"):
        gone = removed.get(old)
        new = tok
        if gone and tok.isdigit():
            i = int(tok)
            k = bisect.bisect_left(gone, i)
            if k < len(gone) and gone[k] == i:
                return None
            new = str(i - k)
        old += "/" + tok
        out.append(new)
    return "/" + "/".join(out)


def _get(doc: Any, pointer: str) -> Any:
    cur = doc
    for tok in split_pointer(pointer):
        if isinstance(cur, list) and tok.isdigit() and int(tok) < len(cur):
            cur = cur[int(tok)]
        elif isinstance(cur, dict):
            cur = cur.get(tok)
        else:
            return None
    return cur


def _number_withheld(r: DocResult) -> None:
    """Each withheld row's queue pointer: `<array pointer>/-k`, k counting per array in document order."""
    counts: dict[str, int] = {}
    for w in r.withheld:
        w.pointer = f"{w.array}/-{counts.get(w.array, 0)}"
        counts[w.array] = counts.get(w.array, 0) + 1
