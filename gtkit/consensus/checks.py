"""The consensus pipeline's check for `gtkit check`, and the rule that a cited box must show its value.

A consensus bundle's boxes come from one extraction system's citations, so nothing guarantees them
but the page itself. Where the page has a text layer, a box is kept only if the words under it (each
word whose centre lies inside the box) show the reading's value; on a page without text (a scan)
boxes cannot be verified here and are taken as cited. The same rule serves the build (a box that
fails it is dropped and the cell goes to the drawing queue) and the check (a box that fails it in a
written bundle was moved or edited afterwards).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gtkit.errors import Problem
from gtkit.format.bundle import Bundle
from gtkit.format.writer import GT_NAME, PDF_NAME
from gtkit.pdf import DocumentWords
from gtkit.scoring.normalize import comparator_key, value_key

if TYPE_CHECKING:
    from gtkit.format.decode import EvidenceRecord, FieldRecord, ReadingRecord
    from gtkit.format.models import Evidence, FieldEntry, Reading

TRUSTS = {"agreed", "pending", "adjudicated", "human"}
CITED = {"agreed", "pending"}  # boxes a system cited; a person's boxes are theirs to answer for
_NOT_ALNUM = re.compile(r"[\W_]+")


def _alnum(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return _NOT_ALNUM.sub("", str(value)).casefold()


def shows_value(text: str, value: Any) -> bool:
    """Whether `text` (the words under a box) shows `value`: equal once normalized (dates canonical, numbers
    parsed, whitespace collapsed), or the value's letters and digits appear in the text's in order."""
    if value is None or isinstance(value, bool):
        return True  # a null has no box; a checkbox's mark is not text
    if isinstance(value, list):
        return all(shows_value(text, v) for v in value)
    if value_key(value) == value_key(text):
        return True
    if isinstance(value, (int, float)) and comparator_key(value, "number") == comparator_key(text, "number"):
        return True
    want = _alnum(value)
    return bool(want) and want in _alnum(text)


def box_problem(words: DocumentWords, page: int, box: list[float] | None, value: Any) -> str | None:
    """Why a cited box does not back `value` (None when it does, or when the page cannot tell)."""
    if box is None:
        return None
    text = words.text_under(page, box)
    if text is None or shows_value(text, value):
        return None
    return f"the box on page {page} shows {text[:60]!r}, not {str(value)[:60]!r}"


def check_consensus_bundle(bundle: Bundle) -> list[Problem]:
    """Trust levels a consensus run or a person gives, and every cited box showing its reading's value."""
    g = str(bundle.path / GT_NAME)
    problems: list[Problem] = []
    words = DocumentWords(bundle.path / PDF_NAME)
    try:
        # the validated entries are models or records; enumerate() of such a union of lists would be of object
        entries: Sequence[FieldEntry | FieldRecord] = bundle.field_entries()
        for i, entry in enumerate(entries):
            if entry.trust not in TRUSTS:
                problems.append(Problem(g, f"/fields/{i}/trust", f"{entry.trust!r} is not a consensus trust level"))
            if entry.trust not in CITED:
                continue
            readings: Sequence[Reading | ReadingRecord] = entry.readings
            for r, reading in enumerate(readings):
                evidence: Sequence[Evidence | EvidenceRecord] = reading.evidence
                for e, ev in enumerate(evidence):
                    why = box_problem(words, ev.page, None if ev.box is None else list(ev.box), reading.value)
                    if why:
                        problems.append(Problem(g, f"/fields/{i}/readings/{r}/evidence/{e}/box", why))
    finally:
        words.close()
    return problems
