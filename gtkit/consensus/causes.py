"""Causes: why a contested cell is contested, and which kind of schema fix would settle it.

Per cell (`classify_document`): two non-null candidates that differ only in format (a number, a
date read either way, the same letters and digits: `gtkit.scoring.normalize.loose_keys`) or that are each
other's day/month swap, or one containing the other (scope), need a format requirement; a dissenting
value that is a sibling field's value needs a do-not-confuse note; candidates all printed in the
document need a location hint. Failing those: a dissent backed by two families or more is an alias
question; one family against an otherwise agreeing majority is a model failure; anything else is
unresolvable.

Per field (`field_ambiguity`): a field that splits across many documents is schema ambiguity in all
of them.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable

from gtkit.consensus.cells import (
    ALIAS,
    DO_NOT_CONFUSE,
    FORMAT,
    LOCATION,
    MAJORITY,
    MODEL_FAILURE,
    SCHEMA_AMBIGUITY,
    UNRESOLVABLE,
    Cell,
    DocResult,
)
from gtkit.consensus.votes import INVALID, NULL, Voters
from gtkit.scoring.normalize import collapse_ws, is_day_month_ambiguous, iso_date, loose_keys

RECORD_FIELD_SHARE = 0.3   # a record field splitting in this share of its cells is schema ambiguity


def classify_document(result: DocResult, doc_text: Callable[[], str]) -> None:
    """Cause and fix kind of every contested cell of a document (`doc_text`: its text, casefolded, on demand)."""
    contested = [c for c in result.cells if c.contested]
    if not contested:
        return
    parents = {c.pointer.rsplit("/", 1)[0] for c in contested}
    by_parent: dict[str, set[tuple]] = defaultdict(set)
    for c in result.cells:
        if c.top[0] == "s":
            parent = c.pointer.rsplit("/", 1)[0]
            if parent in parents:
                by_parent[parent].add(c.top)
    for c in contested:
        siblings = by_parent.get(c.pointer.rsplit("/", 1)[0], set()) - {c.top}
        classify(c, result.voters, siblings, doc_text)


def classify(cell: Cell, voters: Voters, siblings: set[tuple], doc_text: Callable[[], str]) -> None:
    """Cause (and fix kind) of a contested cell; `siblings` are the top values of the fields beside it. A blank
    the schema forbids at a required key keeps its cause (`walk`: schema ambiguity, make nullable)."""
    if not cell.contested or cell.blank_required:
        return
    fams: dict[tuple, set[str]] = defaultdict(set)
    for s, k in cell.keys.items():
        fams[k].add(voters.family[s])
    nonnull = [k for k in fams if k not in (NULL, INVALID)]
    dissent = [k for k in fams if k != cell.top]
    fix = _schema_fix(cell, nonnull, dissent, siblings, doc_text) if len(nonnull) >= 2 else None
    if fix is not None:
        cell.cause, cell.fix = SCHEMA_AMBIGUITY, fix
    elif any(len(fams[k]) >= 2 for k in dissent if k != INVALID):
        cell.cause, cell.fix = SCHEMA_AMBIGUITY, ALIAS
    elif cell.tier == MAJORITY and all(len(fams[k]) <= 1 for k in dissent):
        cell.cause, cell.fix = MODEL_FAILURE, None
    else:
        cell.cause, cell.fix = UNRESOLVABLE, None


def _schema_fix(cell: Cell, nonnull: list[tuple], dissent: list[tuple], siblings: set[tuple],
                doc_text: Callable[[], str]) -> str | None:
    """The fix kind when the candidate values themselves show a schema ambiguity, else None."""
    texts = [collapse_ws(raw).casefold() for k, raw in cell.candidates if k in nonnull and isinstance(raw, str)]
    if _format_only(cell, nonnull) or _day_month_swap(cell) or _scope(texts):
        return FORMAT
    if any(k in siblings for k in dissent if k[0] == "s" and len(str(k[1])) >= 4):
        return DO_NOT_CONFUSE
    if len(texts) >= 2 and all(len(t) >= 3 for t in texts) and "*" not in cell.field:
        # which occurrence: every candidate is printed somewhere (not for record fields, whose
        # values recur across rows)
        text = doc_text()
        if text and all(t in text for t in texts):
            return LOCATION
    return None


def _format_only(cell: Cell, nonnull: list[tuple]) -> bool:
    """Two candidates whose votes share a format-free form."""
    forms: list[set[tuple]] = []
    for k in nonnull:
        mine: set[tuple] = set()
        for s, sk in cell.keys.items():
            if sk == k:
                mine |= loose_keys(cell.votes[s][0])
        forms.append(mine)
    return any(forms[i] & forms[j] for i in range(len(forms)) for j in range(i + 1, len(forms)))


def _day_month_swap(cell: Cell) -> bool:
    """Two candidate dates that are each other's day/month swap (or a raw vote that reads both ways)."""
    if sum(1 for k, _ in cell.candidates if k != NULL) >= 2 and any(
            is_day_month_ambiguous(r) for r, _ in cell.votes.values()):
        return True
    isos = {iso for _, raw in cell.candidates if isinstance(raw, str) and (iso := iso_date(raw)) is not None}
    for i in isos:
        y, m, d = i.split("-")
        if m != d and int(d) <= 12 and f"{y}-{d}-{m}" in isos:
            return True
    return False


def _scope(texts: list[str]) -> bool:
    """One candidate text inside another (a value with or without its surroundings)."""
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            short, long_ = (a, b) if len(a) <= len(b) else (b, a)
            if len(short) >= 3 and short != long_ and short in long_:
                return True
    return False


def field_ambiguity(results: list[DocResult]) -> dict[str, str]:
    """Fields that split across many documents, with their fix kind; their contested cells become schema ambiguity.

    "Splits" means a contested cell not explained as one family's failure. A field with one cell per
    document is ambiguous when it splits in more than half of at least 3 documents; a record field
    when at least 3 and 30% of its cells split.
    """
    docs_with: dict[str, set[str]] = defaultdict(set)
    docs_split: dict[str, set[str]] = defaultdict(set)
    cells: Counter = Counter()
    split_cells: Counter = Counter()
    fixes: dict[str, Counter] = defaultdict(Counter)
    for r in results:
        for cell in r.cells:
            docs_with[cell.field].add(r.doc_id)
            cells[cell.field] += 1
            if cell.contested and cell.cause != MODEL_FAILURE:
                docs_split[cell.field].add(r.doc_id)
                split_cells[cell.field] += 1
            if cell.fix:
                fixes[cell.field][cell.fix] += 1
    ambiguous: dict[str, str] = {}
    for f, docs in docs_with.items():
        if "*" in f:  # a record field: the share of its cells across all rows
            hit = split_cells[f] >= 3 and split_cells[f] >= RECORD_FIELD_SHARE * cells[f]
        else:         # one cell per document: the share of documents
            hit = len(docs) >= 3 and 2 * len(docs_split[f]) > len(docs)
        if hit:
            ambiguous[f] = fixes[f].most_common(1)[0][0] if fixes[f] else ALIAS
    if not ambiguous:
        return ambiguous
    for r in results:
        for cell in r.cells:
            fix = ambiguous.get(cell.field)
            if fix and cell.contested:
                cell.cause = SCHEMA_AMBIGUITY
                cell.fix = cell.fix or fix
    return ambiguous
