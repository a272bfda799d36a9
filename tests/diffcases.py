"""Random scoring cases for the differential test against ExtractBench's reference scorer.

`make_case(seed)` is a pure function of the seed (a numpy Generator drives every draw): a random
task schema (scalars of every type, nullable unions, `$ref`s, lists of scalars, nested objects,
arrays of records with nested arrays of records and sometimes `x-identity`, `x-leniency`), a truth
(`expected` plus field entries as gtkit stores them: readings with alternates, evidence pages and
boxes, leniencies; nulls and omitted keys) and a prediction with its citations (right values, other
spellings of the same value, wrong values, nulls, omitted keys; records shuffled, dropped,
duplicated, added; citations on the right or a wrong page, page-only, or with boxes whose IoU with
the truth's is just under, at or just over 0.5).

A case is one JSON object, the form `scripts/extractbench_bridge.py` reads:
`{"id", "schema", "expected", "fields", "prediction", "citations"}`.

By default the generator stays off the shapes where gtkit deliberately scores differently from
ExtractBench (docs/scoring.md, "Where gtkit differs from ExtractBench"); `include=` names the
classes of `DELIBERATE` to draw as well, to measure each difference on its own.

`gtkit_scores(case)` scores a case with gtkit's in-memory API (`Truth`, `score_truth`) into the
bridge's output form, and `disagreements(gt, eb)` compares the two.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from gtkit.format.models import Tags
from gtkit.schema import compile_schema, iter_leaves
from gtkit.scoring.engine import score_truth
from gtkit.scoring.truth import Truth, TruthCell

ROOT = Path(__file__).resolve().parent.parent
BRIDGE = ROOT / "scripts" / "extractbench_bridge.py"
DEFAULT_EB_PYTHON = ROOT / ".venv-eb312" / "bin" / "python"

# Shape classes where gtkit deliberately differs (each documented in docs/scoring.md).
DELIBERATE = {
    "free_object": "an object, or array of objects, whose schema declares no properties (ExtractBench: one "
                   "opaque cell, or no cell)",
    "bool_number": "a boolean predicted as 1/0 or a number as true/false (ExtractBench: True == 1)",
    "list_whitespace": "a list of strings whose elements differ in whitespace only (ExtractBench: exact)",
    "list_leniency": "x-leniency on a list of scalars (ExtractBench: leniencies apply to strings only)",
    "date_spellings": "date spellings only one of the two reads as a date (ordinals, 'Mar.', trailing '.', ...)",
    "two_digit_pivot": "two-digit years 69-75, which ExtractBench reads by the clock (20xx today)",
    "lenient_numeric_year": "numeric dates with two-digit years under lenient_date (ExtractBench: one century)",
    "null_alternate": "a null alternate reading (ExtractBench cannot express one)",
    "page_only_evidence": "truth evidence with a page and no box on a cell without a box",
    "unpaired_rows": "predicted records sharing no cell with any truth record, with citations or nested records",
    "extra_root_key": "a top-level key the schema does not declare (ExtractBench: a precision miss)",
    "nested_pairing": "records whose pairing ExtractBench also weighs by their nested records",
}

WORDS = ["Acme", "Birch", "Cedar", "Delta", "Echo", "Fern", "Gamma", "Harbor", "Iris", "Juniper", "Kilo",
         "Lumen", "Maple", "Nova", "Orbit", "Pine", "Quartz", "River", "Sierra", "Tango", "Umber", "Vale"]
NAMES = ["name", "city", "code", "amount", "qty", "issued", "phone", "note", "status", "ref", "label", "kind",
         "owner", "zip", "title", "rate", "memo", "agent", "unit", "due", "paid", "count", "tags", "items",
         "lines", "parts", "holder", "region", "score", "flag"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sept", "Oct", "Nov", "Dec"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
WD = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
STRING_LENIENCIES = ["case_insensitive", "optional_terminal_punctuation", "punctuation_spacing", "phone_digits",
                     "lenient_date"]
GRID = 256  # boxes on a 1/256 grid: their IoUs are exact in binary floating point, in either box form


class Spec:
    """One node of a generated schema."""

    def __init__(self, kind: str, **kw: Any):
        self.kind = kind  # scalar | slist | object | records | free
        self.type: str = kw.get("type", "string")  # scalar: string | number | integer | boolean
        self.flavor: str = kw.get("flavor", "text")  # string: text | date | phone | code
        self.nullable: bool = kw.get("nullable", True)
        self.leniency: list[str] = kw.get("leniency", [])
        self.props: dict[str, Spec] = kw.get("props", {})
        self.item: Spec | None = kw.get("item")
        self.identity: list[str] = kw.get("identity", [])


class _Gen:
    def __init__(self, seed: int, include: frozenset[str]):
        self.rng = np.random.default_rng(seed)
        self.inc = include
        self.defs: dict[str, Any] = {}
        self.fresh = 0

    # --- small draws ---------------------------------------------------------------------
    def p(self, prob: float) -> bool:
        return bool(self.rng.random() < prob)

    def pick(self, seq: list[Any]) -> Any:
        return seq[int(self.rng.integers(len(seq)))]

    def names(self, k: int) -> list[str]:
        return [NAMES[i] for i in self.rng.choice(len(NAMES), size=k, replace=False)]

    def token(self) -> str:
        self.fresh += 1
        return f"{self.pick(WORDS)}-{self.fresh}{int(self.rng.integers(100, 999))}"

    # --- schema --------------------------------------------------------------------------
    def scalar_spec(self) -> Spec:
        t = self.pick(["string", "string", "string", "number", "integer", "boolean"])
        flavor = self.pick(["text", "text", "date", "date", "phone", "code"]) if t == "string" else "text"
        lens: list[str] = []
        if t == "string" and self.p(0.3):
            lens = [self.pick(STRING_LENIENCIES)]
        if t == "boolean" and self.p(0.3):
            lens = ["null_equals_false"]
        return Spec("scalar", type=t, flavor=flavor, nullable=self.p(0.8), leniency=lens)

    def record_spec(self, depth: int) -> Spec:
        """Record items; the first property is a non-boolean scalar that is never null and unique per record,
        so that no two truth records are alike."""
        props: dict[str, Spec] = {"ref": Spec("scalar", type=self.pick(["string", "integer"]), flavor="code",
                                              nullable=False, leniency=[])}
        for name in self.names(int(self.rng.integers(0, 4))):
            if name == "ref":
                continue
            r = self.rng.random()
            if r < 0.1 and depth == 0:
                members = self.names(int(self.rng.integers(1, 3)))
                props[name] = Spec("object", props={n: self.scalar_spec() for n in members})
            elif r < 0.22 and depth == 0:
                props[name] = Spec("records", item=self.record_spec(depth + 1))
            elif r < 0.3:
                props[name] = Spec("slist", type=self.pick(["string", "number"]))
            else:
                props[name] = self.scalar_spec()
        return Spec("object", props=props)

    def root_spec(self) -> Spec:
        props: dict[str, Spec] = {}
        for name in self.names(int(self.rng.integers(1, 7))):
            r = self.rng.random()
            if r < 0.3:
                item = self.record_spec(0)
                scalars = [n for n, s in item.props.items() if s.kind == "scalar"]
                identity = [self.pick(scalars)] if scalars and self.p(0.4) else []
                props[name] = Spec("records", item=item, identity=identity)
            elif r < 0.4:
                members = self.names(int(self.rng.integers(1, 4)))
                props[name] = Spec("object", props={n: self.scalar_spec() for n in members})
            elif r < 0.45 and "free_object" in self.inc:
                props[name] = Spec("free", type=self.pick(["object", "records"]))
            elif r < 0.55:
                spec = Spec("slist", type=self.pick(["string", "number"]))
                if "list_leniency" in self.inc and self.p(0.5):
                    spec.leniency = [self.pick(STRING_LENIENCIES)]
                props[name] = spec
            else:
                props[name] = self.scalar_spec()
        return Spec("object", props=props)

    def schema(self, spec: Spec, top: bool = False) -> dict[str, Any]:
        if spec.kind == "scalar":
            s: dict[str, Any]
            json_type = spec.type
            if spec.nullable:
                form = self.pick(["list", "anyOf", "plain"])
                s = ({"type": [json_type, "null"]} if form == "list" else
                     {"anyOf": [{"type": json_type}, {"type": "null"}]} if form == "anyOf" else {"type": json_type})
            else:
                s = {"type": json_type}
            if spec.leniency:
                s["x-leniency"] = spec.leniency[0] if len(spec.leniency) == 1 and self.p(0.5) else list(spec.leniency)
            return s
        if spec.kind == "slist":
            s = {"type": "array", "items": {"type": spec.type}}
            if spec.leniency:
                s["x-leniency"] = list(spec.leniency)
            return s
        if spec.kind == "free":
            return {"type": "object"} if spec.type == "object" else {"type": "array", "items": {"type": "object"}}
        if spec.kind == "object":
            s = {"type": "object", "properties": {n: self.schema(c) for n, c in spec.props.items()}}
            if top:
                s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
            return s
        assert spec.item is not None
        item = self.schema(spec.item)
        if self.p(0.3):
            name = f"row{len(self.defs)}"
            self.defs[name] = item
            item = {"$ref": f"#/$defs/{name}"}
        s = {"type": "array", "items": item}
        if spec.identity:
            s["x-identity"] = spec.identity
        return s

    # --- values --------------------------------------------------------------------------
    def year(self) -> int:
        return int(self.rng.integers(1950, 2040))

    def date(self) -> dt.date:
        return dt.date(self.year(), int(self.rng.integers(1, 13)), int(self.rng.integers(1, 29)))

    def spell_date(self, d: dt.date, *, lenient: bool = False) -> str:
        """A spelling both scorers read as `d` (with `lenient`, also spellings only lenient_date reads)."""
        m, day, y = d.month, d.day, d.year
        yy = y % 100
        two_digit_ok = (0 <= yy <= 49 and y >= 2000) or (80 <= yy <= 99 and y < 2000) or "two_digit_pivot" in self.inc
        forms = [
            d.isoformat(), f"{y}-{m}-{day}", f"{m}/{day}/{y}", f"{m:02d}/{day:02d}/{y}", f"{m}-{day}-{y}",
            f"{MONTHS[m - 1]} {day}, {y}", f"{MONTHS[m - 1]} {day} {y}", f"{MON[m - 1]} {day}, {y}",
            f"{day} {MONTHS[m - 1]} {y}", f"{day} {MON[m - 1]} {y}",
            f"{WEEKDAYS[d.weekday()]}, {MONTHS[m - 1]} {day}, {y}",
            f"{WEEKDAYS[d.weekday()]} {MONTHS[m - 1]} {day} {y}",
            f"{WD[d.weekday()]} {MONTHS[m - 1]} {day} {y}", f"{MONTHS[m - 1].upper()} {day}, {y}",
            f"{day} {MONTHS[m - 1].lower()} {y}",
        ]
        if day > 12:
            forms.append(f"{day}/{m}/{y}")  # day first where the day cannot be a month
        if two_digit_ok and (not lenient or "lenient_numeric_year" in self.inc):
            forms += [f"{m}/{day}/{yy:02d}", f"{m}-{day}-{yy:02d}"]
        if lenient:
            forms += [f"{MONTHS[m - 1]} {day}, {yy:02d}", f"{day} {MON[m - 1]} {yy:02d}",
                      f"{MONTHS[m - 1]} {day}, {y // 100} {yy:02d}", f"{day} {MONTHS[m - 1]} {yy:02d}"]
        if "date_spellings" in self.inc:
            forms += [f"{day}th {MONTHS[m - 1]} {y}", f"{day}-{MON[m - 1]}-{y}", f"{MON[m - 1]}. {day}, {y}",
                      f"{MONTHS[m - 1]} {day}, {y}.", f"{MONTHS[m - 1]}  {day}, {y}", f"{day} {MONTHS[m - 1]}, {y}",
                      f"{y}/{m:02d}/{day:02d}", f"Tues {MONTHS[m - 1]} {day} {y}", f"{m}/{day}/{y // 100} {yy:02d}"]
        return self.pick(forms)

    def phone(self) -> str:
        a, b, c = int(self.rng.integers(200, 999)), int(self.rng.integers(200, 999)), int(self.rng.integers(1000, 9999))
        return self.pick([f"({a}) {b}-{c}", f"{a}-{b}-{c}", f"{a}.{b}.{c}", f"+1 {a} {b} {c}", f"{b}-{c}",
                          f"{a}{b}{c}"])

    def respell_phone(self, s: str) -> str:
        digits = "".join(ch for ch in s if ch.isdigit())
        if len(digits) >= 10:
            d = digits[-10:]
            return self.pick([f"({d[:3]}) {d[3:6]}-{d[6:]}", f"{d[:3]}.{d[3:6]}.{d[6:]}",
                              f"1-{d[:3]}-{d[3:6]}-{d[6:]}", d])
        return self.pick([digits, "-".join([digits[:3], digits[3:]]) if len(digits) > 3 else digits])

    def text(self) -> str:
        k = int(self.rng.integers(1, 4))
        words = [self.pick(WORDS) for _ in range(k)]
        s = " ".join(words)
        if self.p(0.3):
            s = self.pick([f"{words[0]}, {s}", f"{s}, Inc.", f"{s}; {self.pick(WORDS)}",
                           f"No. {int(self.rng.integers(1, 99))}"])
        return f"{s} {self.fresh}" if self.p(0.5) else s

    def scalar(self, spec: Spec, unique: bool = False) -> Any:
        if spec.type == "boolean":
            return bool(self.p(0.5))
        if spec.type == "integer":
            return int(self.rng.integers(0, 10_000)) + (self.fresh * 10_000 if unique else 0)
        if spec.type == "number":
            v = round(float(self.rng.uniform(0, 5000)), int(self.rng.integers(0, 3)))
            return v + self.fresh * 10_000 if unique else v
        if spec.flavor == "date":
            return self.spell_date(self.date(), lenient="lenient_date" in spec.leniency)
        if spec.flavor == "phone":
            return self.phone()
        if spec.flavor == "code":
            return self.token()
        s = self.text()
        if unique:
            self.fresh += 1
            s = f"{s} #{self.fresh}"
        return s

    def value(self, spec: Spec, unique: bool = False) -> Any:
        if spec.kind == "scalar":
            return None if spec.nullable and self.p(0.15) else self.scalar(spec, unique)
        if spec.kind == "slist":
            elem = Spec("scalar", type=spec.type, flavor=self.pick(["text", "date", "code"]), nullable=False)
            return [self.scalar(elem) for _ in range(int(self.rng.integers(0, 4)))]
        if spec.kind == "free":
            keys = self.names(int(self.rng.integers(1, 3)))
            if spec.type == "records":
                return [{n: self.pick([self.text(), int(self.rng.integers(0, 99)), None]) for n in keys}
                        for _ in range(int(self.rng.integers(1, 4)))]
            return {n: self.pick([self.text(), int(self.rng.integers(0, 99)), None]) for n in keys}
        if spec.kind == "object":
            out = {}
            for n, c in spec.props.items():
                if self.p(0.1):
                    continue  # an omitted key is a null
                out[n] = self.value(c, unique)
            return out
        assert spec.item is not None
        if self.p(0.1):
            return self.pick([None, []])
        rows = []
        for _ in range(int(self.rng.integers(1, 6))):
            row = self.value(spec.item, unique=True)
            row["ref"] = self.scalar(spec.item.props["ref"], unique=True)
            rows.append(row)
        return rows

    # --- equivalent spellings and wrong values -------------------------------------------------
    def same(self, spec: Spec, v: Any, lens: list[str]) -> Any:
        """Another spelling of `v` that both scorers accept (exactly or under the field's leniencies)."""
        if isinstance(v, bool) or v is None:
            if v is None and "null_equals_false" in lens:
                return self.pick([None, False])
            if v is False and "null_equals_false" in lens:
                return self.pick([None, False])
            return v
        if isinstance(v, (int, float)):
            return float(v) if self.p(0.3) and float(v).is_integer() else v
        if isinstance(v, list):
            return list(v)
        if "lenient_date" in lens:
            from gtkit.scoring.normalize import _lenient_dates, collapse_ws

            options = _lenient_dates(collapse_ws(v))
            if _NUMERIC_TWO_DIGIT_YEAR.fullmatch(v.strip()) and "lenient_numeric_year" not in self.inc:
                options = [_date_of(v)]  # ExtractBench reads a numeric two-digit year in one century only
            if options and self.p(0.6):
                return self.spell_date(dt.date.fromisoformat(self.pick(options)))
            if not options or self.p(0.5):
                return v
        iso = _date_of(v)
        if iso is not None:
            d = dt.date.fromisoformat(iso)
            return self.spell_date(d) if self.p(0.7) else v
        r = self.rng.random()
        if "case_insensitive" in lens and r < 0.3:
            return v.upper() if self.p(0.5) else v.lower()
        if "optional_terminal_punctuation" in lens and r < 0.5:
            return v.rstrip(".,;:") if v and v[-1] in ".,;:" else v + self.pick([".", ",", ";", ":"])
        if "punctuation_spacing" in lens and r < 0.6:
            return v.replace(", ", " , ").replace(". ", ".").replace("; ", ";")
        if "phone_digits" in lens and r < 0.7 and any(ch.isdigit() for ch in v):
            return self.respell_phone(v)
        if r < 0.8:
            return self.pick([f"  {v}", f"{v} ", v.replace(" ", "  "), v.replace(" ", "\n"), v.replace(" ", "\u00a0"),
                              f"\t{v}"])
        return v

    def wrong(self, spec: Spec, v: Any) -> Any:
        if spec.kind == "slist":
            return [*(v or [])[::-1], "x"] if self.p(0.5) else [self.text()]
        if spec.type == "boolean":
            return (not v) if isinstance(v, bool) else self.p(0.5)
        if spec.type in ("integer", "number"):
            if self.p(0.1):
                return str(v) if v is not None else "0"  # a number as its string never matches
            return (v or 0) + int(self.rng.integers(1, 50)) + self.fresh * 10_000
        if spec.flavor == "date":
            iso = _date_of(v) if isinstance(v, str) else None
            d = dt.date.fromisoformat(iso) if iso else self.date()
            return self.spell_date(d + dt.timedelta(days=int(self.rng.integers(1, 400))))
        if isinstance(v, str) and self.p(0.3):
            return v[:-1] + ("X" if v[-1:] != "X" else "Y")
        return self.token()


def _row_scalars(item: Spec, row: Any, prefix: str = "") -> list[tuple[str, Any]]:
    out = []
    row = row if isinstance(row, dict) else {}
    for n, c in item.props.items():
        if c.kind == "object":
            out += _row_scalars(c, row.get(n), prefix + n + ".")
        elif c.kind in ("scalar", "slist"):
            out.append((prefix + n, row.get(n)))
    return out


_NUMERIC_TWO_DIGIT_YEAR = re.compile(r"\d{1,2}[/-]\d{1,2}[/-]\d{2}")


def _row_specs(item: Spec) -> list[Spec]:
    out = []
    for c in item.props.values():
        if c.kind == "object":
            out += _row_specs(c)
        elif c.kind in ("scalar", "slist"):
            out.append(c)
    return out


def _row_get(row: Any, name: str) -> Any:
    for part in name.split("."):
        row = row.get(part) if isinstance(row, dict) else None
    return row


def _date_of(s: Any) -> str | None:
    from gtkit.scoring.normalize import canonical_string

    if not isinstance(s, str):
        return None
    c = canonical_string(s)
    return c if len(c) == 10 and c[4] == "-" and c[7] == "-" and c[:4].isdigit() else None


# --- truth, prediction, citations ----------------------------------------------------------------

def _box(g: _Gen) -> list[float]:
    w, h = int(g.rng.integers(8, 64)), int(g.rng.integers(4, 16))
    x, y = int(g.rng.integers(0, GRID - w)), int(g.rng.integers(0, GRID - h))
    return [x / GRID, y / GRID, (x + w) / GRID, (y + h) / GRID]


def _near_box(g: _Gen, box: list[float]) -> list[float]:
    """A box whose IoU with `box` is 1, exactly 0.5, or just over or under 0.5."""
    x0, y0, x1, y1 = (round(v * GRID) for v in box)
    w = x1 - x0
    kind = g.pick(["same", "half", "under", "over", "far"])
    if kind == "same":
        return list(box)
    if kind == "far":
        return _box(g)
    # shift right by s grid cells: IoU = (w - s) / (w + s); s = w/3 gives exactly 0.5
    if kind == "half" and w % 3 == 0:
        s = w // 3
    else:
        s = max(1, round(w / 3)) + (1 if kind == "under" else 0)
        if kind == "over":
            s = max(0, s - 1)
    if x1 + s > GRID:  # shifted left instead: a box past the page edge grounds nothing in gtkit (docs/scoring.md)
        s = -s
    return [(x0 + s) / GRID, y0 / GRID, (x1 + s) / GRID, y1 / GRID]


def _evidence(g: _Gen, value: Any) -> list[dict[str, Any]]:
    if value is None or not g.p(0.7):
        return []
    evs = [{"page": int(g.rng.integers(1, 4)), "box": _box(g), "verified": True}]  # verified box ground truth
    if g.p(0.15):
        evs.append({"page": int(g.rng.integers(1, 4)), "box": _box(g), "verified": True})
    if g.p(0.1):
        evs.append({"page": int(g.rng.integers(1, 4)), "verified": True})  # a page-only place, on a cell that has a box
    return evs


def _fields(g: _Gen, schema: dict[str, Any], expected: Any, specs: dict[str, Spec]) -> list[dict[str, Any]]:
    fields = []
    for pointer, _node, value in iter_leaves(compile_schema(schema), expected):
        spec = specs.get(_pattern(pointer), Spec("scalar"))
        readings = [{"value": value, "evidence": _evidence(g, value)}]
        if g.p(0.12):
            if value is not None and g.p(0.6):
                alt = g.same(spec, value, []) if g.p(0.5) else g.wrong(spec, value)
            elif "null_alternate" in g.inc and value is not None:
                alt = None
            else:
                alt = g.scalar(spec) if spec.kind == "scalar" else None
            if alt is not None or "null_alternate" in g.inc:
                readings.append({"value": alt, "evidence": _evidence(g, alt) if g.p(0.4) else []})
        if "page_only_evidence" in g.inc and value is not None and not readings[0]["evidence"] and g.p(0.3):
            readings[0]["evidence"] = [{"page": int(g.rng.integers(1, 4)), "verified": True}]
        lens: list[str] = []
        if g.p(0.15) and spec.kind == "scalar" and spec.type == "string":
            lens = sorted({g.pick(STRING_LENIENCIES) for _ in range(int(g.rng.integers(1, 3)))})
        elif g.p(0.15) and spec.kind == "scalar" and spec.type == "boolean":
            lens = ["null_equals_false"]
        entry: dict[str, Any] = {"path": pointer, "readings": readings, "trust": "constructed"}
        if lens:
            entry["leniencies"] = lens
        fields.append(entry)
    return fields


def _pattern(pointer: str) -> str:
    return "/".join("*" if t.isdigit() else t for t in pointer.split("/"))


def _spec_index(spec: Spec, prefix: str = "") -> dict[str, Spec]:
    out: dict[str, Spec] = {}
    if spec.kind == "object":
        for n, c in spec.props.items():
            out.update(_spec_index(c, f"{prefix}/{n}"))
    elif spec.kind == "records":
        assert spec.item is not None
        out.update(_spec_index(spec.item, f"{prefix}/*"))
    else:
        out[prefix] = spec
    return out


class _Pred:
    """Builds the prediction and remembers, for each predicted leaf, the truth leaf it copies."""

    def __init__(self, g: _Gen, fields: dict[str, dict[str, Any]]):
        self.g = g
        self.fields = fields
        self.source: dict[str, str | None] = {}  # predicted pointer -> truth pointer (None: no counterpart)
        self.dups: dict[str, str] = {}  # pointer in a duplicated record -> the same cell in the original
        self.no_cite: set[str] = set()  # added records that cite nothing

    def lens(self, spec: Spec, t_ptr: str) -> list[str]:
        entry = self.fields.get(t_ptr)
        return sorted({*spec.leniency, *((entry or {}).get("leniencies") or [])})

    def leaf(self, spec: Spec, tv: Any, t_ptr: str, p_ptr: str, mode: str) -> tuple[bool, Any]:
        """(present, value) of a predicted leaf; mode: keep (an accepted value) or any."""
        g = self.g
        self.source[p_ptr] = t_ptr
        entry = self.fields.get(t_ptr)
        lens = self.lens(spec, t_ptr)
        if mode == "exact":
            return tv is not None, tv
        if mode == "keep":
            if entry is not None and len(entry["readings"]) > 1 and g.p(0.3):
                tv = entry["readings"][1]["value"]
            v = g.same(spec, tv, lens)
            if v is None and g.p(0.5):
                return False, None
            return True, v
        r = g.rng.random()
        if r < 0.6:
            return self.leaf(spec, tv, t_ptr, p_ptr, "keep")
        if r < 0.85:
            if "bool_number" in g.inc and spec.kind == "scalar" and spec.type == "boolean" and g.p(0.5):
                return True, int(bool(tv))
            return True, g.wrong(spec, tv)
        if r < 0.93:
            return True, None
        return False, None

    def obj(self, spec: Spec, tv: Any, t_ptr: str, p_ptr: str, mode: str) -> dict[str, Any]:
        tv = tv if isinstance(tv, dict) else {}
        out: dict[str, Any] = {}
        for n, c in spec.props.items():
            present, v = self.node(c, tv.get(n), f"{t_ptr}/{n}", f"{p_ptr}/{n}", mode)
            if present:
                out[n] = v
        return out

    def node(self, spec: Spec, tv: Any, t_ptr: str, p_ptr: str, mode: str) -> tuple[bool, Any]:
        if mode == "any" and self.g.p(0.03):  # a value of the wrong shape
            if spec.kind in ("object", "records", "free"):
                return True, self.g.pick(["n/a", 0, {"value": None}] if spec.kind == "records" else ["n/a", [1], 0])
            return True, self.g.pick([[tv], {"v": tv}, "n/a" if spec.kind == "slist" else [tv, tv]])
        if spec.kind == "object":
            if mode == "any" and self.g.p(0.05):
                return False, None
            return True, self.obj(spec, tv, t_ptr, p_ptr, mode)
        if spec.kind == "records":
            return True, self.records(spec, tv, t_ptr, p_ptr, mode)
        if spec.kind == "free":
            if isinstance(tv, list):
                rows = [dict(r) for r in tv if self.g.p(0.8)]
                return True, [rows[int(i)] for i in self.g.rng.permutation(len(rows))]
            return True, (dict(tv) if isinstance(tv, dict) and self.g.p(0.6) else {"x": self.g.text()})
        if spec.kind == "slist":
            self.source[p_ptr] = t_ptr
            g = self.g
            if mode == "exact":
                return tv is not None, tv
            if mode == "keep" or g.p(0.6):
                v = list(tv) if isinstance(tv, list) else tv
                if "list_whitespace" in g.inc and isinstance(v, list) and v and isinstance(v[0], str):
                    v = [f" {x}" for x in v]
                if spec.leniency and isinstance(v, list) and mode != "exact":
                    v = [g.same(Spec("scalar", type=spec.type), x, spec.leniency) for x in v]
                return (tv is not None or g.p(0.5)), v
            return True, g.wrong(spec, tv)
        return self.leaf(spec, tv, t_ptr, p_ptr, mode)

    def records(self, spec: Spec, tv: Any, t_ptr: str, p_ptr: str, mode: str) -> Any:
        g = self.g
        assert spec.item is not None
        truth = tv if isinstance(tv, list) else []
        if not truth and g.p(0.7):
            return g.pick([None, []]) if tv is None else tv
        n = len(truth)
        plan = g.pick(["all", "all", "drop", "extra", "dup"])
        keep_idx = list(range(n))
        if plan == "drop" and n:
            keep_idx = sorted(int(i) for i in g.rng.choice(n, size=int(g.rng.integers(0, n)), replace=False))
        order = [int(i) for i in g.rng.permutation(len(keep_idx))] if g.p(0.7) else list(range(len(keep_idx)))
        sources: list[int | None] = [keep_idx[k] for k in order]
        if plan == "extra" or (plan == "drop" and "unpaired_rows" in g.inc):
            for _ in range(int(g.rng.integers(1, 3))):
                sources.insert(int(g.rng.integers(0, len(sources) + 1)), None)
        out: list[Any] = [None] * len(sources)
        for j, src in enumerate(sources):
            if src is not None:
                out[j] = self.derived_row(spec.item, truth, src, t_ptr, f"{p_ptr}/{j}")
        for j, src in enumerate(sources):
            if src is not None:
                continue
            # an added record must match each truth record in fewer cells than that record's own copy does,
            # else the optimal pairing is not unique; failing that it gets values nothing matches
            row = self.extra_row(spec.item, f"{p_ptr}/{j}")
            if "unpaired_rows" not in g.inc and not self.below_copies(spec.item, row, out, sources, truth, t_ptr):
                row = self.alien_row(spec.item)
                if not self.below_copies(spec.item, row, out, sources, truth, t_ptr):
                    row = self.alien_row(spec.item, as_object=True)
            out[j] = row
        if plan == "dup" and out:
            k = int(g.rng.integers(0, len(out)))
            j = len(out)
            out.append(json.loads(json.dumps(out[k])))
            for p, t in list(self.source.items()):
                if p.startswith(f"{p_ptr}/{k}/"):
                    self.source[f"{p_ptr}/{j}/" + p[len(f"{p_ptr}/{k}/"):]] = t
                    self.dups[f"{p_ptr}/{j}/" + p[len(f"{p_ptr}/{k}/"):]] = p
        return out

    def extra_row(self, item: Spec, p_ptr: str) -> dict[str, Any]:
        g = self.g
        row = g.value(item, unique=True)
        for n, c in item.props.items():
            if c.kind == "records" and "unpaired_rows" not in g.inc:
                row[n] = []
        if "unpaired_rows" not in g.inc:
            self.no_cite.add(p_ptr)
        return row

    def below_copies(self, item: Spec, row: Any, out: list[Any], sources: list[int | None], truth: list[Any],
                     t_base: str) -> bool:
        return all(self.weight(item, row, truth, k, t_base) < self.weight(item, out[j], truth, k, t_base)
                   for j, k in enumerate(sources) if k is not None)

    def alien_row(self, item: Spec, as_object: bool = False) -> Any:
        """A record whose every cell is a fresh string no truth cell can match (not even a number or a list)."""
        if not as_object and self.g.p(0.3):
            return self.g.pick(["n/a", 7, None])  # not even an object: every cell reads as null
        row: dict[str, Any] = {}
        for n, c in item.props.items():
            if c.kind == "object":
                row[n] = {m: self.g.token() for m in c.props}
            elif c.kind == "records":
                row[n] = []
            else:
                row[n] = self.g.token()
        return row

    def derived_row(self, item: Spec, truth: list[Any], src: int, t_base: str, p_ptr: str) -> dict[str, Any]:
        """A predicted record copied from truth record `src` with fewer than half of its cells changed,
        checked to match its source in strictly more cells than any other truth record, so that the
        optimal pairing is unique (else redrawn with every cell kept, else an exact copy)."""
        cols = _row_scalars(item, truth[src])
        budget = (len(cols) - 1) // 2
        for attempt in range(3):
            row = self.draw_row(item, truth[src], f"{t_base}/{src}", p_ptr, budget if attempt == 0 else 0,
                                "exact" if attempt == 2 else "keep")
            if attempt == 2 or self.dominates(item, row, truth, src, t_base):
                return row
        return row

    def weight(self, item: Spec, row: Any, truth: list[Any], k: int, t_base: str) -> int:
        """How many cells of predicted record `row` match truth record k."""
        from gtkit.scoring.normalize import accepts

        n = 0
        for (name, pv), spec in zip(_row_scalars(item, row), _row_specs(item)):
            t_ptr = f"{t_base}/{k}/" + name.replace(".", "/")
            entry = self.fields.get(t_ptr)
            readings = [r["value"] for r in entry["readings"]] if entry else [_row_get(truth[k], name)]
            n += accepts(readings, pv, self.lens(spec, t_ptr))
        return n

    def dominates(self, item: Spec, row: Any, truth: list[Any], src: int, t_base: str) -> bool:
        w = self.weight(item, row, truth, src, t_base)
        return all(self.weight(item, row, truth, k, t_base) < w for k in range(len(truth)) if k != src)

    def draw_row(self, item: Spec, trow: Any, t_ptr: str, p_ptr: str, budget: int, keep: str) -> dict[str, Any]:
        g = self.g
        cols = _row_scalars(item, trow)
        wrong: set[int] = set()
        if cols:
            size = min(budget, int(g.rng.integers(0, budget + 1)))
            wrong = set(g.rng.choice(len(cols), size=size, replace=False).tolist())
        wrong_names = {cols[i][0] for i in wrong}
        trow = trow if isinstance(trow, dict) else {}
        row: dict[str, Any] = {}
        for n, c in item.props.items():
            if c.kind == "object":
                sub: dict[str, Any] = {}
                tsub = trow.get(n) if isinstance(trow.get(n), dict) else {}
                for m, cc in c.props.items():
                    present, v = self.node(cc, tsub.get(m), f"{t_ptr}/{n}/{m}", f"{p_ptr}/{n}/{m}",
                                           "any" if f"{n}.{m}" in wrong_names else keep)
                    if present:
                        sub[m] = v
                row[n] = sub
            elif c.kind == "records":
                if "nested_pairing" in g.inc:
                    present, v = self.node(c, trow.get(n), f"{t_ptr}/{n}", f"{p_ptr}/{n}", "any")
                else:
                    present, v = True, self.records_mild(c, trow.get(n), f"{t_ptr}/{n}", f"{p_ptr}/{n}")
                if present:
                    row[n] = v
            else:
                mode = "any" if n in wrong_names else keep
                present, v = self.node(c, trow.get(n), f"{t_ptr}/{n}", f"{p_ptr}/{n}", mode)
                if present:
                    row[n] = v
        # a changed cell may still match (an equivalent spelling drawn in "any" mode): that only widens the margin
        return row

    def records_mild(self, spec: Spec, tv: Any, t_ptr: str, p_ptr: str) -> Any:
        """Nested records kept in number (shuffled, cells changed), so the parent pairing does not hinge on them."""
        g = self.g
        assert spec.item is not None
        truth = tv if isinstance(tv, list) else []
        if not truth:
            return tv
        order = [int(i) for i in g.rng.permutation(len(truth))]
        return [self.derived_row(spec.item, truth, src, t_ptr, f"{p_ptr}/{j}") for j, src in enumerate(order)]


def _cite(g: _Gen, entry: dict[str, Any] | None) -> list[dict[str, Any]] | None:
    places = [ev for r in (entry or {}).get("readings", []) for ev in r.get("evidence") or [] if ev.get("box")]
    if not places:
        return [{"page": int(g.rng.integers(1, 4)), "box": _box(g)}] if g.p(0.15) else None
    ev = g.pick(places)
    r = g.rng.random()
    if r < 0.45:
        return [{"page": ev["page"], "box": _near_box(g, ev["box"])}]
    if r < 0.6:
        return [{"page": ev["page"]}]
    if r < 0.7:
        return [{"page": ev["page"] % 3 + 1, "box": list(ev["box"])}]
    if r < 0.78:
        return [{"page": ev["page"] % 3 + 1}, {"page": ev["page"], "box": _near_box(g, ev["box"])}]
    return None


def make_case(seed: int, include: Iterable[str] = ()) -> dict[str, Any]:
    """One random case, a pure function of `seed` (and of the deliberate-difference classes to include)."""
    inc = frozenset(include)
    unknown = inc - set(DELIBERATE)
    if unknown:
        raise ValueError(f"unknown shape classes: {', '.join(sorted(unknown))}")
    g = _Gen(seed, inc)
    spec = g.root_spec()
    schema = g.schema(spec, top=True)
    if g.defs:
        schema["$defs"] = g.defs
    expected = g.value(spec)
    if not isinstance(expected, dict):
        expected = {}
    fields = _fields(g, schema, expected, _spec_index(spec))
    by_path = {f["path"]: f for f in fields}
    pred = _Pred(g, by_path)
    prediction = pred.obj(spec, expected, "", "", "any")
    if "extra_root_key" in inc and g.p(0.5):
        prediction["undeclared"] = g.text()
    citations: dict[str, list[dict[str, Any]]] = {}
    for p_ptr, t_ptr in pred.source.items():
        if p_ptr in pred.dups:
            if pred.dups[p_ptr] in citations:
                citations[p_ptr] = citations[pred.dups[p_ptr]]
            continue
        if any(p_ptr.startswith(x + "/") for x in pred.no_cite):
            continue
        cites = _cite(g, by_path.get(t_ptr) if t_ptr else None)
        if cites:
            citations[p_ptr] = cites
    return {"id": str(seed), "schema": schema, "expected": expected, "fields": fields,
            "prediction": prediction, "citations": citations}


# --- scoring both ways --------------------------------------------------------------------------

def gtkit_truth(case: dict[str, Any]) -> Truth:
    cells = {}
    for f in case["fields"]:
        cells[f["path"]] = TruthCell.of_dict(f)
    return Truth(doc_id=case["id"], tags=Tags(), schema=case["schema"], expected=case["expected"], cells=cells)


def gtkit_scores(case: dict[str, Any]) -> dict[str, Any]:
    """gtkit's scores of a case, in the bridge's output form."""
    s = score_truth(gtkit_truth(case), case["prediction"], case["citations"])
    out: dict[str, Any] = {"id": case["id"]}
    for name, c in (("value", s.value), ("page", s.page), ("word", s.word)):
        out[name] = None if c is None else {"precision": c.precision, "recall": c.recall, "f1": c.f1,
                                            "correct": c.correct, "n_pred": c.n_pred, "n_truth": c.n_truth}
    return out


def disagreements(gt: dict[str, Any], eb: dict[str, Any], tol: float = 1e-9) -> list[str]:
    """How gtkit's scores of a case differ from ExtractBench's; empty when they agree.

    Compared: value precision, recall and F1, page F1 and word F1. ExtractBench emits no value metric
    for a document with no cells at all, which gtkit scores 1.0 (documented): those agree when gtkit
    counted no cell either.
    """
    out = []
    gv, ev = gt["value"], eb["value"]
    if ev is None:
        if gv["n_pred"] or gv["n_truth"]:
            out.append(f"value: gtkit counted {gv['n_pred']}/{gv['n_truth']} cells, ExtractBench none")
    else:
        for k in ("precision", "recall", "f1"):
            if abs(gv[k] - ev[k]) > tol:
                out.append(f"value {k}: gtkit {gv[k]:.6f} ({gv['correct']}/{gv['n_pred']}/{gv['n_truth']}) "
                           f"ExtractBench {ev[k]:.6f} ({ev['correct']}/{ev['n_pred']}/{ev['n_truth']})")
    for name in ("page", "word"):
        g, e = gt[name], eb[name]
        if (g is None) != (e is None):
            out.append(f"{name}: gtkit {'none' if g is None else round(g['f1'], 6)}, "
                       f"ExtractBench {'none' if e is None else round(e['f1'], 6)}")
        elif g is not None and abs(g["f1"] - e["f1"]) > tol:
            out.append(f"{name} f1: gtkit {g['f1']:.6f} ({g['correct']}/{g['n_pred']}/{g['n_truth']}) "
                       f"ExtractBench {e['f1']:.6f} ({e['correct']}/{e['n_pred']}/{e['n_truth']})")
    return out


def run_bridge(python: str | Path, cases: list[dict[str, Any]], *, absent: str = "null",
               timeout: float = 600) -> list[dict[str, Any]]:
    """ExtractBench's scores of `cases`, from the bridge run by the interpreter `python` (`absent`: the
    bridge's reading of an omitted key, `null` as gtkit reads it or ExtractBench's own `absent`)."""
    text = "".join(json.dumps(c) + "\n" for c in cases)
    done = subprocess.run([str(python), str(BRIDGE), "--absent", absent], input=text, capture_output=True,
                          text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"the ExtractBench bridge failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
