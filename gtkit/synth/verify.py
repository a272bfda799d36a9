"""Verify a synth bundle's evidence straight against its PDF's words, without laying the document out again.

The synth check of a family that never splits a record (`allow_split = false`). The read-back
(`readback.locate`) takes from a plan only the text and order of what each page must show and the region
each word must stay inside; here they come from elsewhere, at a small part of the cost of a layout:

- the values' texts and order: each record's non-null fields as the family prints them (`Family.display`),
  in drawing order (`layout.drawing_order`), records in order;
- each page's chrome (running lines, a table's column header with its group titles): laid out alone for
  the PDF's page count (`layout.page_chrome`);
- a value's region: its table column (renderer `table`) or its record's column (renderer `columns`: the
  column its first word starts in), from the body's top to its bottom. The plan's row (or block) of a record
  is not known here; instead the records of a page must follow one another down the page (down each
  column, columns left to right), each beginning below the end of the one before, less twice the clipping
  tolerance (the most two rows' words may overshoot): a word drawn in another record's row is caught.

Words are read and the pages walked as the read-back does (`gtkit.pdf.page_words`, `gtkit.pdf.PageWalk`): on a
rotated page (`[page] rotate`) mapped to the page as a viewer shows it, and every page must carry the family's /Rotate.

Where a page ends is read from the PDF: its words are its chrome, then values in order until they run
out. The walk is the read-back's: every word claimed by exactly one item, spelling its text; a record on
one page; nothing clipped or overlapping; every font embedded. Each value's word count is taken from its
recorded evidence, and the evidence is compared with what the PDF shows where the value is found, so no
evidence entry is built.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

import numpy as np

from gtkit.errors import GtkitError, Problem
from gtkit.format.bundle import Bundle
from gtkit.format.flat import FlatEntries
from gtkit.format.writer import GT_NAME, PDF_NAME
from gtkit.pdf import PageWalk, PageWords, each_page, open_document
from gtkit.schema import compile_schema, escape_token, iter_leaves
from gtkit.synth.chrome import geometry
from gtkit.synth.family import Family, display
from gtkit.synth.layout import body_columns, drawing_order, page_chrome
from gtkit.synth.plan import Item
from gtkit.synth.readback import TOL, SynthProblem, describe, drawing_problems, not_found, spelled_end
from gtkit.synth.text import leaf_text

MAX_EVIDENCE_PROBLEMS = 50

Found = tuple[int, list[tuple[float, ...]], tuple[float, ...], str]
"""Where the PDF shows a value: (1-based page, normalized word boxes, their union box, quote)."""


def _values(family: Family, records: list[dict[str, Any]], unprinted: list[SynthProblem]) -> list[Value]:
    """Every non-null record value that is printed, in drawing order; a non-null value the family prints as
    nothing (an empty string) goes to `unprinted`."""
    head = "/" + escape_token(family.records_field)
    formats = family.formats
    fields = [(name, escape_token(name), c, formats.get(name)) for c, name in enumerate(drawing_order(family))]
    out: list[Value] = []
    append = out.append
    for r, rec in enumerate(records):
        get = rec.get
        at = f"{head}/{r}/"
        for name, token, c, fmt in fields:
            value = get(name)
            if value is None:
                continue
            if value.__class__ is str:
                parts = value.split()
            elif value.__class__ is int or value.__class__ is float:
                parts = display(fmt, value).split()
            else:  # what `leaf_text` refuses (a boolean, a list) it refuses here too
                parts = (leaf_text(family, name, value) or "").split()
            if len(parts) == 1:
                append((at + token, r, c, parts[0], parts[0]))
            elif parts:
                append((at + token, r, c, " ".join(parts), "".join(parts)))
            else:
                unprinted.append(SynthProblem(at + token, f"value {value!r} is not printed anywhere in the PDF"))
    return out


Value = tuple[str, int, int, str, str]
"""A printed record value: (pointer, record, column in drawing order, printed text, its characters)."""


def _found(p: int, texts: list[str], norm: list[tuple[float, ...]], k: int, end: int) -> Found:
    if end == k + 1:
        return p + 1, norm[k:end], norm[k], texts[k]
    wl = norm[k:end]
    x0, y0, x1, y1 = zip(*wl)
    return p + 1, wl, (min(x0), min(y0), max(x1), max(y1)), " ".join(texts[k:end])


def _matches(evidence: list[Any], found: list[Found]) -> bool:
    """Whether recorded evidence entries are exactly the places found (verified, no quad)."""
    if len(evidence) != len(found):
        return False
    for ev, (page, words, box, quote) in zip(evidence, found):
        if not (ev.page == page and ev.quote == quote and ev.verified is True and ev.quad is None
                and ev.words == words and ev.box == box):
            return False
    return True


_NEAR = 4096  # how far into the entries the first records' are looked for


def _entries_of(values: list[Value], flat: FlatEntries, records: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """Each value's field entry (-1 where no entry has its pointer).

    Entries usually go record after record, each record's fields in one order. So each value's entry is first
    guessed from the first two records' entries of its column (found among the first entries), as a
    record's worth of entries per record, and the guess kept when every guessed entry's path is its value's
    pointer: one list comparison instead of a look-up by pointer for each value, done otherwise."""
    pointers = list(map(itemgetter(0), values))
    guess = _guess_entries(pointers, flat.paths, records, columns)
    if guess is not None and list(map(flat.paths.__getitem__, guess.tolist())) == pointers:
        return guess
    found = list(map(flat.index.get, pointers))
    return np.array([-1 if i is None else i for i in found] if None in found else found, dtype=np.int64)


def _guess_entries(pointers: list[str], paths: list[str], records: np.ndarray,
                   columns: np.ndarray) -> np.ndarray | None:
    n, n_paths = len(pointers), len(paths)
    if not n:
        return None
    cols, first = np.unique(columns, return_index=True)
    try:
        at = np.array([paths.index(pointers[j], 0, _NEAR) for j in first.tolist()], dtype=np.int64)
        step = None
        nxt = np.nonzero(records > records[0])[0]
        if len(nxt):  # a later record's value: how many entries a record takes
            j = int(nxt[0])
            c = int(np.searchsorted(cols, columns[j]))
            span = int(records[j] - records[first[c]])
            step, rest = divmod(paths.index(pointers[j], 0, _NEAR) - int(at[c]), span)
            if rest:
                return None
    except ValueError:
        return None
    where = np.searchsorted(cols, columns)
    guess = at[where] + (records - records[first][where]) * (step or 0)
    return guess if guess.min() >= 0 and guess.max() < n_paths else None


class _Recorded:
    """The recorded evidence of every printed value, in drawing order: what a page is checked against at once.

    `page_run` takes a page's body words and the values whose evidence names that page, and answers what the
    value-by-value walk would find, with every comparison made on whole pages (joined texts, word boxes, union
    boxes, quotes): or None when anything differs, and the walk then looks, value by value, at what."""

    def __init__(self, values: list[Value], flat: FlatEntries, regions: list, starts_x: np.ndarray, table: bool):
        n = len(values)
        self.chars = list(map(itemgetter(4), values))
        self.char_at = np.concatenate([[0], np.cumsum(np.fromiter(map(len, self.chars), np.int64, n))])
        self.records = np.fromiter(map(itemgetter(1), values), np.int64, n)
        self.columns = np.fromiter(map(itemgetter(2), values), np.int64, n)
        entry = _entries_of(values, flat, self.records, self.columns)
        safe = np.maximum(entry, 0)
        # a value is taken when its entry's first reading has exactly one evidence entry, verified, with words,
        # a quote and no quad; any other gets page 0: no page takes it, so the walk looks at it value by value
        ok = (entry >= 0) & (flat.ev_at[safe + 1] - flat.ev_at[safe] == 1)
        ev = flat.ev_at[safe[ok]]
        quotes = np.array(flat.quotes, dtype=object)
        ok[ok] = (flat.plain[ev] & (flat.word_at[ev + 1] > flat.word_at[ev])
                  & (quotes[ev] != None))  # noqa: E711 (elementwise)
        ev = flat.ev_at[safe[ok]]
        self.pages = np.zeros(n, dtype=np.int64)
        self.pages[ok] = flat.pages[ev]
        counts = np.zeros(n, dtype=np.int64)
        counts[ok] = flat.word_at[ev + 1] - flat.word_at[ev]
        self.word_at = np.concatenate([[0], np.cumsum(counts)])
        rows = np.repeat(flat.word_at[ev] - self.word_at[:-1][ok], counts[ok]) + np.arange(int(self.word_at[-1]))
        self.word_boxes = flat.word_boxes[rows]
        self.union_boxes = np.full((n, 4), np.nan)
        self.union_boxes[ok] = flat.boxes[ev]  # a missing box is NaN: never equal to a box found
        quotes_ = np.full(n, "", dtype=object)  # "" where no page takes the value (its quote_len -1 never matches)
        quotes_[ok] = quotes[ev]
        self.quotes: list[str] = quotes_.tolist()
        self.quote_len = np.full(n, -1, dtype=np.int64)
        self.quote_len[ok] = np.fromiter(map(len, quotes_[ok]), np.int64, int(ok.sum()))
        self.regions, self.starts_x, self.table = regions, starts_x, table

    def page_run(self, p: int, a: int, texts: list[str], coords: np.ndarray, norm_arr: np.ndarray,
                 k0: int) -> tuple[int, list[int], list[Any]] | None:
        """(the value after the page's last, each value's first word, each value's region) when the values from
        `a` on whose evidence names page `p` (0-based) are exactly the body words from `k0` on, evidence and all."""
        if a != int(np.searchsorted(self.pages, p + 1, side="left")):
            return None
        b = int(np.searchsorted(self.pages, p + 1, side="right"))
        n = len(texts)
        wa, wb = int(self.word_at[a]), int(self.word_at[b])
        if wb - wa != n - k0 or (a > 0 and b > a and self.records[a] == self.records[a - 1]):
            return None  # a word count differs, or the record before goes on on this page
        if b == a:
            return b, [], []
        body = texts[k0:]
        sub = norm_arr[k0:]
        if "".join(body) != "".join(self.chars[a:b]) or not np.array_equal(self.word_boxes[wa:wb], sub):
            return None
        firsts = self.word_at[a:b + 1] - wa  # each value's first word in the body, and the body's end
        ends = np.concatenate([[0], np.cumsum(np.fromiter(map(len, body), np.int64, n - k0))])[firsts]
        if not np.array_equal(ends, self.char_at[a:b + 1] - self.char_at[a]):
            return None  # the words do not split between values where the values do
        at = firsts[:-1]
        union = np.stack([np.minimum.reduceat(sub[:, 0], at), np.minimum.reduceat(sub[:, 1], at),
                          np.maximum.reduceat(sub[:, 2], at), np.maximum.reduceat(sub[:, 3], at)], axis=1)
        if not np.array_equal(union, self.union_boxes[a:b]):
            return None
        # the quotes: the page's words and the recorded quotes each joined by spaces are the same text, and each
        # quote is as long as its value's words so joined: then each quote is its words
        if not np.array_equal(np.diff(ends) + np.diff(firsts) - 1, self.quote_len[a:b]) \
                or " ".join(body) != " ".join(self.quotes[a:b]):
            return None
        if self.table:
            columns = self.columns[a:b]
        else:  # a columns block: the column its record's first word starts in
            records = self.records[a:b]
            first = np.concatenate([[True], records[1:] != records[:-1]])
            x0 = coords[k0 + at[first], 0]
            columns = np.repeat(self._column_of(x0), np.diff(np.concatenate([np.nonzero(first)[0], [b - a]])))
        return b, (k0 + at).tolist(), [self.regions[c] for c in columns.tolist()]

    def _column_of(self, x0: np.ndarray) -> np.ndarray:
        return np.maximum(np.searchsorted(self.starts_x, x0 + TOL, side="right") - 1, 0)


def verify_synth_bundle(bundle: Bundle, family: Family) -> list[Problem]:
    """Every problem of a synth bundle of a family without split records, read from its PDF alone."""
    g, pdf_file = str(bundle.path / GT_NAME), str(bundle.path / PDF_NAME)
    flat = bundle.flat_entries()
    problems: list[SynthProblem] = []
    walk = PageWalk(family.rotate, "the family's pages have")
    v = _Verify(bundle, family, problems)
    try:
        v.take_values(bundle.gt.expected.get(family.records_field) or [], family)
        with open_document(bundle.pdf_path) as doc:
            chrome = page_chrome(family, bundle.gt.expected, doc.page_count)
            for p, words in walk(each_page(doc)):
                if not v.page(p, words, chrome[p]):
                    break
    except GtkitError as e:
        return [Problem(g, "/expected", f"cannot lay out expected with family {family.name!r}: {e.message}")]
    if walk.problem:
        problems.append(SynthProblem("", walk.problem))
    values, cursor = v.values, v.cursor
    if not problems and cursor < len(values):
        pointer, r, _, text, _ = values[cursor]
        problems.append(SynthProblem(pointer, f"{len(values) - cursor} values never found in the PDF, the first "
                                              f"{describe(Item(pointer, text, r, (0, 0, 0, 0), -1))}"))
    problems.extend(SynthProblem("", message) for message in walk.font_problems())
    out = [Problem(pdf_file, "/expected" + p.pointer if p.pointer else "", p.message) for p in problems]
    if out:
        return out
    out += _unprinted(bundle, family, set(v.chrome_found), pdf_file)
    for pointer, found in v.chrome_found.items():  # document-level values printed in the chrome, once a page
        i = flat.index.get(pointer)
        if i is not None and not _matches(flat.entries[i].readings[0].evidence, found):
            recorded = len(flat.entries[i].readings[0].evidence)
            out.append(Problem(g, f"/fields/{i}", f"evidence of {pointer} differs from what the PDF shows "
                                                  f"({recorded} recorded, {len(found)} found)"))
    return out + v.evidence_problems


class _Verify:
    """The verify's walk over the pages, one page at a time (`page`): the chrome's items, then the values in
    order, a page's worth at once while the recorded evidence agrees with the page (`_Recorded.page_run`) and
    value by value from the first page where it does not (`_one_by_one`); then the drawing checks."""

    def __init__(self, bundle: Bundle, family: Family, problems: list[SynthProblem]):
        self.g = str(bundle.path / GT_NAME)
        self.flat = bundle.flat_entries()
        columns, (_, body_top, _, body_bottom) = body_columns(family)
        self.table = family.renderer == "table"
        self.regions = [(left, body_top, right, body_bottom) for left, right in columns]
        self.starts_x = np.array([left for left, _ in columns])
        self.content = geometry(family)[0]
        self.problems = problems
        self.evidence_problems: list[Problem] = []
        self.chrome_found: dict[str, list[Found]] = {}
        self.values: list[Value] = []
        self.cursor = 0
        self.last_record, self.last_page, self.region = -1, -1, self.regions[0]

    def take_values(self, records: list[dict[str, Any]], family: Family) -> None:
        """The printed values of `records` and their recorded evidence, to walk."""
        self.values = _values(family, records, self.problems)
        self.recorded: _Recorded | None = _Recorded(self.values, self.flat, self.regions, self.starts_x, self.table)
        self.value_records = self.recorded.records

    def page(self, p: int, words: PageWords, chrome: list[Item]) -> bool:
        """Walk page `p` (0-based), its chrome items `chrome`; False when a word does not match (the walk stops)."""
        texts, coords, n = words.texts, words.coords, len(words.texts)
        norm_arr = words.evidence_boxes()
        norm: list[tuple[float, ...]] = []  # the same as tuples, made where the walk needs them
        owners: list[Item | int] = []  # a chrome item, or the index of a value
        owner_regions: list[tuple[float, float, float, float]] = []
        starts: list[int] = []
        k = 0
        for item in chrome:
            end = spelled_end(texts, k, item.chars)
            if end is None:
                self.problems.append(not_found(p, texts, k, item))
                return False
            owners.append(item)
            owner_regions.append(item.region)
            starts.append(k)
            if item.pointer is not None:
                norm = norm or list(map(tuple, norm_arr.tolist()))
                self.chrome_found.setdefault(item.pointer, []).append(_found(p, texts, norm, k, end))
            k = end
        body_start = k
        run = None if self.recorded is None else self.recorded.page_run(p, self.cursor, texts, coords, norm_arr, k)
        if run is None:
            self.recorded = None  # from here on, value by value
            norm = norm or list(map(tuple, norm_arr.tolist()))
            if not self._one_by_one(p, texts, coords, norm, k, owners, owner_regions, starts):
                return False
        else:
            end_cursor, value_starts, value_regions = run
            owners += range(self.cursor, end_cursor)
            owner_regions += value_regions
            starts += value_starts
            if end_cursor > self.cursor:
                self.last_record, self.last_page, self.region = self.values[end_cursor - 1][1], p, value_regions[-1]
            self.cursor = end_cursor
        values = self.values

        def item_at(j: int) -> Item:
            o = owners[j]
            if isinstance(o, Item):
                return o
            pointer, r, _, text, _ = values[o]
            return Item(pointer, text, r, owner_regions[j], p)

        self.problems.extend(drawing_problems(p, texts, coords, owner_regions, starts, self.content, item_at))
        self.problems.extend(_row_order(p, coords, owners, values, self.value_records, owner_regions, starts,
                                        body_start, n, by_column=not self.table))
        return True

    def _one_by_one(self, p: int, texts: list[str], coords: np.ndarray, norm: list[tuple[float, ...]], k: int,
                    owners: list[Item | int], owner_regions: list[tuple[float, float, float, float]],
                    starts: list[int]) -> bool:
        """Walk the values from the cursor on, each over the words from `k` on that spell it, to the end of page
        `p`: its record on one page, its recorded evidence what the page shows. False when a value is not there."""
        values, n_values, n = self.values, len(self.values), len(texts)
        regions, starts_x, table = self.regions, self.starts_x, self.table
        entries, index = self.flat.entries, self.flat.index.get
        cursor, last_record, last_page, region = self.cursor, self.last_record, self.last_page, self.region
        page1 = p + 1
        ok = True
        while k < n:
            if cursor == n_values:
                self.problems.append(SynthProblem("", f"page {page1}: unexpected text {' '.join(texts[k:k + 6])!r} "
                                                      "where no more values were expected"))
                ok = False
                break
            pointer, r, c, text, chars = values[cursor]
            if r != last_record:
                if not table:  # a columns block: the column its first word starts in
                    region = regions[max(int(np.searchsorted(starts_x, coords[k, 0] + TOL, side="right")) - 1, 0)]
            elif p != last_page:
                self.problems.append(SynthProblem(pointer,
                                                  f"record {r} is split across pages {last_page + 1} and {page1}"))
            last_record, last_page = r, p
            i = index(pointer)
            evidence = entries[i].readings[0].evidence if i is not None else []
            ev = evidence[0] if len(evidence) == 1 else None
            words = ev.words if ev is not None else None
            m = len(words) if words else 0
            if m == 1 and k < n and texts[k] == chars:
                end = k + 1
            elif m > 1 and k + m <= n and "".join(texts[k:k + m]) == chars:
                end = k + m
            else:
                spelled = spelled_end(texts, k, chars)
                if spelled is None:
                    self.problems.append(not_found(p, texts, k, Item(pointer, text, r, region, p)))
                    ok = False
                    break
                end = spelled
            owners.append(cursor)
            owner_regions.append(regions[c] if table else region)
            starts.append(k)
            cursor += 1
            if ev is None or words is None or ev.page != page1 or ev.verified is not True or ev.quad is not None:
                same = False
            elif end == k + 1:
                same = m == 1 and words[0] == norm[k] and ev.box == norm[k] and ev.quote == texts[k]
            else:
                same = m == end - k and _matches([ev], [_found(p, texts, norm, k, end)])
            if i is not None and not same and len(self.evidence_problems) < MAX_EVIDENCE_PROBLEMS:
                self.evidence_problems.append(Problem(self.g, f"/fields/{i}", f"evidence of {pointer} differs from "
                                                      f"what the PDF shows ({len(evidence)} recorded, 1 found)"))
            k = end
        self.cursor, self.last_record, self.last_page, self.region = cursor, last_record, last_page, region
        return ok


def _unprinted(bundle: Bundle, family: Family, in_chrome: set[str], pdf_file: str) -> list[Problem]:
    """A non-null leaf of expected that no page shows: a document-level value not in the chrome, or a record
    field the layout does not draw."""
    out = []
    context = {k: v for k, v in bundle.gt.expected.items() if k != family.records_field}
    for pointer, _, value in iter_leaves(compile_schema(bundle.schema), context):
        if value is not None and pointer not in in_chrome:
            out.append(Problem(pdf_file, "/expected" + pointer, f"value {value!r} is not printed anywhere in the PDF"))
    drawn = set(drawing_order(family))
    hidden = [name for name in family.record_schema.get("properties", {}) if name not in drawn]
    head = "/" + escape_token(family.records_field)
    for r, rec in enumerate(bundle.gt.expected.get(family.records_field) or [] if hidden else []):
        for name in hidden:
            value = rec.get(name) if isinstance(rec, dict) else None
            if value is not None:
                out.append(Problem(pdf_file, f"/expected{head}/{r}/{escape_token(name)}",
                                   f"value {value!r} is not printed anywhere in the PDF"))
    return out


def _row_order(p: int, coords: np.ndarray, owners: list[Item | int], values: list[Value], value_records: np.ndarray,
               regions: list[tuple[float, float, float, float]], starts: list[int], body_start: int, n: int,
               *, by_column: bool) -> list[SynthProblem]:
    """The records of page `p` one below the other (down each column, columns left to right, when
    `by_column`): each record's words begin below where the previous record's end, less 2 x TOL. The page's
    owners are its chrome items, then indices of values (whose records `value_records` gives)."""
    n_chrome = next((j for j, o in enumerate(owners) if not isinstance(o, Item)), len(owners))
    records = value_records[np.array(owners[n_chrome:], dtype=np.int64)]
    if len(records) < 2:
        return []
    first = n_chrome + np.nonzero(np.concatenate([[True], records[1:] != records[:-1]]))[0]
    if len(first) < 2:
        return []
    word_starts = np.array(starts)[first] - body_start
    ys = coords[body_start:n]
    top = np.minimum.reduceat(ys[:, 1], word_starts)
    bottom = np.maximum.reduceat(ys[:, 3], word_starts)
    left = np.array(regions, dtype=float).reshape(-1, 4)[first, 0]
    same_column = left[1:] == left[:-1] if by_column else np.ones(len(first) - 1, dtype=bool)
    backwards = left[1:] < left[:-1] if by_column else np.zeros(len(first) - 1, dtype=bool)
    bad = backwards | (same_column & (top[1:] < bottom[:-1] - 2 * TOL))
    out = []
    for j in np.nonzero(bad)[0][:20]:
        a, b = values[owners[first[j]]], values[owners[first[j + 1]]]
        out.append(SynthProblem(b[0], f"page {p + 1}: record {b[1]} is drawn over or above record {a[1]} (its words "
                                      f"begin at y {top[j + 1]:.1f}, record {a[1]}'s end at {bottom[j]:.1f})"))
    return out
