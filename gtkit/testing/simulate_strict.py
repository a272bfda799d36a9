"""A simulated ensemble on a strict schema: required, non-nullable fields, `$defs`, `anyOf`, nested arrays.

`simulate_strict(folder, ...)` writes a consensus workspace (schema.json, docs/, runs/, systems.toml) for
balance sheets and returns the truth. The schema (`SCHEMA`) is the kind real benchmarks use: most keys
are required and not nullable, amounts come from `$defs`, a few fields are `anyOf` a value or null, an
enum, a date `format`, a list of strings, and sections holding a table of lines (an array of records
inside an array of records, identity keys `name` and `label`) beside a table of notes (identity
`number`). Every truth document validates against the schema; an optional key (`auditor`, `subtotal`,
`tags`) is absent from some of them.

Five systems from three families (openai x2, google x2, qwen) answer with the errors real systems make,
each at a given rate (`StrictRates`):

- a different value of the right type (per system, and the same for a whole family);
- an omitted key (a null vote, also on required keys), by one system or by a whole family (two families
  omitting a key make a null majority: a required key left blank, a value lost);
- a value of the wrong type: a number as a formatted string (`"1,234.50"`), an integer as text, an enum
  value outside the enum, a date printed day-first (fails `format: date`), a boolean as `"yes"`;
- dropped rows, and the notes given as plain strings where records are wanted.

`measure_strict.evaluate_strict(truth, out)` measures a consensus output against that truth.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pymupdf

from gtkit.files.read import canonical_sha256
from gtkit.files.write import dumps_json
from gtkit.rng import generator

SYSTEMS = {"google-a": "google", "google-b": "google", "openai-a": "openai", "openai-b": "openai", "qwen": "qwen"}
SECTIONS = ("Current assets", "Non-current assets", "Current liabilities", "Non-current liabilities", "Equity")
WORDS = ("cash", "receivables", "inventory", "prepaid", "deferred", "goodwill", "leases", "payables", "accrued",
         "debt", "tax", "pension", "provisions", "intangibles", "investments", "derivatives", "equipment", "land")
TAGS = ("audited", "restated", "reclassified", "segment", "fair value")

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "sim_balance_sheet",
    "version": "1.0.0",
    "type": "object",
    "$defs": {
        "money": {"type": "number", "x-comparator": "number", "description": "An amount in the sheet's units."},
        "currency": {"type": "string", "enum": ["USD", "EUR", "GBP"]},
        "line": {
            "type": "object",
            "required": ["label", "value"],
            "properties": {
                "label": {"type": "string", "description": "The line item's caption."},
                "value": {"$ref": "#/$defs/money"},
                "prior_value": {"anyOf": [{"$ref": "#/$defs/money"}, {"type": "null"}]},
                "note_ref": {"anyOf": [{"type": "integer"}, {"type": "null"}], "x-comparator": "number"},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
        },
        "section": {
            "type": "object",
            "required": ["name", "lines"],
            "properties": {
                "name": {"type": "string"},
                "subtotal": {"$ref": "#/$defs/money"},
                "lines": {"type": "array", "x-identity": ["label"], "items": {"$ref": "#/$defs/line"}},
            },
        },
        "note": {
            "type": "object",
            "required": ["number", "text"],
            "properties": {"number": {"type": "integer", "x-comparator": "number"}, "text": {"type": "string"}},
        },
    },
    "required": ["company", "fiscal_year_end", "currency", "audited", "sections", "notes"],
    "properties": {
        "company": {"type": "string"},
        "fiscal_year_end": {"type": "string", "format": "date", "x-comparator": "date"},
        "currency": {"$ref": "#/$defs/currency"},
        "units": {"anyOf": [{"type": "string", "enum": ["units", "thousands", "millions"]}, {"type": "null"}]},
        "auditor": {"type": "string"},
        "audited": {"type": "boolean", "x-comparator": "boolean"},
        "sections": {"type": "array", "x-identity": ["name"], "items": {"$ref": "#/$defs/section"}},
        "notes": {"type": "array", "x-identity": ["number"], "items": {"$ref": "#/$defs/note"}},
    },
}
TOP_FIELDS = ("company", "fiscal_year_end", "currency", "units", "auditor", "audited")
SECTION_FIELDS = ("name", "subtotal")
LINE_FIELDS = ("label", "value", "prior_value", "note_ref", "tags")
NOTE_FIELDS = ("number", "text")
COMPARATORS = {"fiscal_year_end": "date", "audited": "boolean", "subtotal": "number", "value": "number",
               "prior_value": "number", "note_ref": "number", "number": "number"}
REQUIRED = {"top": {"company", "fiscal_year_end", "currency", "audited"}, "section": {"name"},
            "line": {"label", "value"}, "note": {"number", "text"}}
OMITTED = object()      # a family's omission of a key
ENUMS = {"currency": ("USD", "EUR", "GBP"), "units": ("units", "thousands", "millions")}


@dataclass
class StrictRates:
    random: float = 0.02        # per system per cell: a different value of the right type
    family: float = 0.02        # per family per cell: the same different value for the whole family
    omit: float = 0.03          # per system per cell: the key left out (a null vote)
    family_omit: float = 0.01   # per family per cell: the key left out by the whole family
    wrong_type: float = 0.03    # per system per cell: a value of the wrong type
    drop_row: float = 0.01      # per system per row
    notes_as_strings: float = 0.1   # per system per document: the notes as plain strings


@dataclass
class StrictTruth:
    docs: dict[str, dict[str, Any]]


def truth_document(rng: np.random.Generator, n_lines: int, k: int) -> dict[str, Any]:
    """A balance sheet valid for `SCHEMA`: 2 to 5 sections of about `n_lines` lines each, 1 to 4 notes."""
    n_notes = int(rng.integers(1, 5))
    sections = []
    for s in range(int(rng.integers(2, len(SECTIONS) + 1))):
        lines = []
        for i in range(max(1, n_lines + int(rng.integers(-1, 2)))):
            line: dict[str, Any] = {
                "label": f"{WORDS[int(rng.integers(len(WORDS)))].title()} {s + 1}.{i + 1}",
                "value": round(float(rng.integers(1000, 10_000_000)) / 100, 2),
                "prior_value": round(float(rng.integers(1000, 10_000_000)) / 100, 2) if rng.random() < 0.8 else None,
                "note_ref": int(rng.integers(1, n_notes + 1)) if rng.random() < 0.3 else None,
            }
            if rng.random() < 0.4:
                line["tags"] = sorted({TAGS[int(rng.integers(len(TAGS)))] for _ in range(int(rng.integers(1, 3)))})
            lines.append(line)
        section: dict[str, Any] = {"name": SECTIONS[s], "lines": lines}
        if rng.random() < 0.7:
            section["subtotal"] = round(sum(x["value"] for x in lines), 2)
        sections.append(section)
    doc: dict[str, Any] = {
        "company": f"{WORDS[int(rng.integers(len(WORDS)))].title()} Holdings {k} Inc",
        "fiscal_year_end": (dt.date(2020, 12, 31) + dt.timedelta(days=int(rng.integers(0, 1500)))).isoformat(),
        "currency": ENUMS["currency"][int(rng.integers(3))],
        "units": ENUMS["units"][int(rng.integers(3))] if rng.random() < 0.7 else None,
        "audited": bool(rng.integers(0, 2)),
        "sections": sections,
        "notes": [{"number": n + 1, "text": f"Note {n + 1}: {WORDS[int(rng.integers(len(WORDS)))]} policy"}
                  for n in range(n_notes)],
    }
    if rng.random() < 0.7:
        doc["auditor"] = f"{WORDS[int(rng.integers(len(WORDS)))].title()} & Partners LLP"
    return doc


def different(rng: np.random.Generator, value: Any, name: str, salt: int) -> Any:
    """A different value of the right type (valid for the schema), never a reformatting of the right one."""
    if name in ENUMS:
        options = [v for v in ENUMS[name] if v != value]
        return options[(int(rng.integers(len(options))) + salt) % len(options)]
    if value is None:
        return None
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1 + salt
    if isinstance(value, float):
        return round(value + float(rng.integers(1, 90)) + salt * 100 + 0.37, 2)
    if isinstance(value, list):
        return [*value, TAGS[salt % len(TAGS)] + " x"]
    if name == "fiscal_year_end":
        return (dt.date.fromisoformat(value) + dt.timedelta(days=int(rng.integers(1, 6)) + 7 * salt)).isoformat()
    chars = list(value)
    alnum = [i for i, c in enumerate(chars) if c.isalnum()]
    i = alnum[int(rng.integers(len(alnum)))]
    chars[i:i + 1] = ["QZXJKW"[salt % 6], "0123456789"[int(rng.integers(10))]]
    return "".join(chars)


def wrong_type(value: Any, name: str) -> Any:
    """The same reading given with a type (or spelling) the schema refuses at the field."""
    if name in ENUMS and isinstance(value, str):
        return value.lower() + "."
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:,.2f}"
    if isinstance(value, list):
        return ", ".join(value)
    if name == "fiscal_year_end":
        y, m, d = value.split("-")
        return f"{d}/{m}/{y}"
    if isinstance(value, str):
        return {"text": value}
    return value


def _family_errors(rng: np.random.Generator, doc: dict[str, Any], rates: StrictRates) -> dict[tuple, Any]:
    """Per (family, cell): one different value at the family rate, or `OMITTED` at the family omission rate;
    cells keyed by their truth path."""
    out: dict[tuple, Any] = {}
    for f_i, fam in enumerate(sorted(set(SYSTEMS.values()))):
        for key, name, value in truth_cells(doc):
            if name in ("name", "label", "number"):
                continue
            if rng.random() < rates.family:
                out[(fam, key)] = different(rng, value, name, f_i)
            elif rng.random() < rates.family_omit:
                out[(fam, key)] = OMITTED
    return out


def truth_cells(doc: dict[str, Any]) -> list[tuple[tuple, str, Any]]:
    """Every truth cell: (key, field name, value); the key names rows by identity; a key absent from the truth
    is a null cell, as in scoring."""
    cells: list[tuple[tuple, str, Any]] = [((n,), n, doc.get(n)) for n in TOP_FIELDS]
    for s in doc["sections"]:
        cells += [(("s", s["name"], n), n, s.get(n)) for n in SECTION_FIELDS]
        for line in s["lines"]:
            cells += [(("l", s["name"], line["label"], n), n, line.get(n)) for n in LINE_FIELDS]
    for note in doc["notes"]:
        cells += [(("n", note["number"], n), n, note[n]) for n in NOTE_FIELDS]
    return cells


@dataclass
class _Run:
    """One system's output for one document, from its own seeded generator."""

    index: int
    family: str
    rng: np.random.Generator
    rates: StrictRates
    fam_wrong: dict[tuple, Any]

    def put(self, out: dict[str, Any], key: tuple, name: str, value: Any) -> None:
        """Write the system's vote on one cell into `out` (or leave the key out)."""
        rng, rates = self.rng, self.rates
        identity = name in ("name", "label", "number")
        if rng.random() < rates.omit and not identity:
            return
        if (self.family, key) in self.fam_wrong:
            value = self.fam_wrong[(self.family, key)]
            if value is OMITTED:
                return
        elif rng.random() < rates.random and not identity:
            value = different(rng, value, name, 3 + self.index)
        if value is not None and rng.random() < rates.wrong_type and not identity:
            value = wrong_type(value, name)
        if value is None and rng.random() < 0.5:
            return      # a blank either omitted or given as null
        out[name] = value

    def output(self, doc: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for n in TOP_FIELDS:
            self.put(out, (n,), n, doc.get(n))
        sections = []
        for s in doc["sections"]:
            so: dict[str, Any] = {}
            for n in SECTION_FIELDS:
                self.put(so, ("s", s["name"], n), n, s.get(n))
            lines = []
            for line in s["lines"]:
                if self.rng.random() < self.rates.drop_row:
                    continue
                lo: dict[str, Any] = {}
                for n in LINE_FIELDS:
                    self.put(lo, ("l", s["name"], line["label"], n), n, line.get(n))
                lines.append(lo)
            so["lines"] = [lines[int(j)] for j in self.rng.permutation(len(lines))]
            sections.append(so)
        out["sections"] = sections
        notes: list[Any] = []
        as_strings = self.rng.random() < self.rates.notes_as_strings
        for note in doc["notes"]:
            if as_strings:
                notes.append(note["text"])
                continue
            no: dict[str, Any] = {}
            for n in NOTE_FIELDS:
                self.put(no, ("n", note["number"], n), n, note[n])
            notes.append(no)
        out["notes"] = notes
        return out


def simulate_strict(folder: Path, *, seed: int = 7, n_docs: int = 4, n_lines: int = 8,
                    rates: StrictRates | None = None) -> StrictTruth:
    """Write docs/, runs/, schema.json and systems.toml under `folder`; return the truth."""
    rates = rates or StrictRates()
    folder = Path(folder)
    (folder / "docs").mkdir(parents=True, exist_ok=True)
    (folder / "schema.json").write_bytes(dumps_json(SCHEMA, indent=2))
    toml = [f'schema_sha256 = "{canonical_sha256(SCHEMA)}"', ""]
    for s, fam in SYSTEMS.items():
        toml += [f"[systems.{s}]", f'family = "{fam}"', ""]
    (folder / "systems.toml").write_text("\n".join(toml), encoding="utf-8")
    truth = StrictTruth(docs={})
    for k in range(n_docs):
        doc_id = f"strict-{seed}-{k:03d}"
        doc = truth_document(generator(seed, doc_id, "truth"), n_lines, k)
        truth.docs[doc_id] = doc
        pdf = pymupdf.open()
        pdf.new_page(width=612, height=792).insert_text((40, 60), doc_id, fontsize=10, fontname="helv")
        (folder / "docs" / f"{doc_id}.pdf").write_bytes(pdf.tobytes(deflate=True, no_new_id=True))
        fam_wrong = _family_errors(generator(seed, doc_id, "family"), doc, rates)
        for s_i, (s, fam) in enumerate(SYSTEMS.items()):
            run = _Run(s_i, fam, generator(seed, doc_id, s), rates, fam_wrong)
            sdir = folder / "runs" / s
            sdir.mkdir(parents=True, exist_ok=True)
            (sdir / f"{doc_id}.json").write_bytes(dumps_json(run.output(doc), indent=None))
    return truth
