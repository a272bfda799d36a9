"""A simulated ensemble with known truth, for tests, the benchmark and the measurements.

`simulate(folder, ...)` writes a consensus workspace (schema.json, docs/, runs/,
systems.toml) for invoices with a table of line items (identity key `line_id`) and
returns the truth. Five systems from three families (openai x2, google x2, qwen)
make seeded mistakes:

- random errors: a value replaced by a different one (a changed character, a
  shifted number or date, a flipped boolean), or dropped to null;
- correlated family errors: both systems of a family give the same wrong value;
- dropped and duplicated rows, each system's rows shuffled;
- one misread identity key per document (one system reads `L-00012` as `L-0O012`);
- three fields whose reading is ambiguous by design, one per kind of schema fix:
  `issue_date` printed `03/04/2021` (day/month), `customer` with or without its
  address (scope), `po_number` spelled three ways (format).

`measure.evaluate(truth, out)` measures a consensus output against that truth.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pymupdf

from gtkit.files.read import canonical_sha256
from gtkit.files.write import dumps_json
from gtkit.rng import generator
from gtkit.schema import compile_schema, iter_leaves
from gtkit.scoring.normalize import comparator_key

TOP_FIELDS = ("invoice_number", "vendor", "customer", "po_number", "issue_date", "due_date", "currency",
              "terms", "total", "paid_in_full")
ROW_FIELDS = ("line_id", "description", "sku", "quantity", "unit_price", "amount", "ship_date", "taxable")
AMBIGUOUS = ("/issue_date", "/customer", "/po_number")
SYSTEMS = {"google-a": "google", "google-b": "google", "openai-a": "openai", "openai-b": "openai", "qwen": "qwen"}
CITING = "openai-a"

_S = {"type": ["string", "null"]}
SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "sim_invoice",
    "version": "1.0.0",
    "type": "object",
    "properties": {
        "invoice_number": {**_S, "description": "Invoice number."},
        "vendor": {**_S, "description": "Vendor name."},
        "customer": {**_S, "description": "Customer."},
        "po_number": {**_S, "description": "Purchase order number."},
        "issue_date": {**_S, "description": "Issue date."},
        "due_date": {**_S, "x-comparator": "date", "description": "Due date."},
        "currency": {**_S, "x-comparator": "case"},
        "terms": {**_S},
        "total": {"type": ["number", "null"], "x-comparator": "number"},
        "paid_in_full": {"type": ["boolean", "null"], "x-comparator": "boolean"},
        "lines": {
            "type": "array",
            "x-identity": ["line_id"],
            "items": {
                "type": "object",
                "properties": {
                    "line_id": {**_S},
                    "description": {**_S},
                    "sku": {**_S},
                    "quantity": {"type": ["integer", "null"], "x-comparator": "number"},
                    "unit_price": {"type": ["number", "null"], "x-comparator": "number"},
                    "amount": {"type": ["number", "null"], "x-comparator": "number"},
                    "ship_date": {**_S, "x-comparator": "date"},
                    "taxable": {"type": ["boolean", "null"], "x-comparator": "boolean"},
                },
            },
        },
    },
}
WORDS = ("steel", "bolt", "washer", "cable", "panel", "bracket", "valve", "sensor", "pump", "filter", "relay",
         "switch", "hose", "clamp", "gasket", "bearing", "spring", "motor", "fuse", "lamp")


@dataclass
class Rates:
    random: float = 0.02        # per system per cell: a different wrong value
    null: float = 0.01          # per system per cell: dropped to null
    family: float = 0.02        # per family per cell: the same wrong value for the whole family
    drop_row: float = 0.01
    dup_row: float = 0.005
    wrong_type: float = 0.0     # per system per cell: a number given as a string etc.
    misread_keys: int = 1       # per document


@dataclass
class Truth:
    docs: dict[str, dict[str, Any]]
    wrong_votes: list[tuple[str, str, str, str]] = field(default_factory=list)  # (system, doc, line_id or "", field)
    dup_rows: list[tuple[str, str, str]] = field(default_factory=list)          # (system, doc, line_id)
    ambiguous: tuple[str, ...] = AMBIGUOUS


def _truth_doc(rng: np.random.Generator, n_rows: int, k: int) -> dict[str, Any]:
    d0 = dt.date(2021, 1, 1) + dt.timedelta(days=int(rng.integers(0, 700)))
    month, day = int(rng.integers(1, 13)), int(rng.integers(1, 13))
    while day == month:
        day = int(rng.integers(1, 13))
    rows: list[dict[str, Any]] = []
    for i in range(n_rows):
        qty = int(rng.integers(1, 50))
        price = round(float(rng.integers(100, 100000)) / 100, 2)
        rows.append({
            "line_id": f"L-{i + 1:05d}",
            "description": f"{WORDS[int(rng.integers(len(WORDS)))]} {WORDS[int(rng.integers(len(WORDS)))]} {i + 1}",
            "sku": f"SKU{int(rng.integers(10000, 99999))}",
            "quantity": qty,
            "unit_price": price,
            "amount": round(qty * price, 2),
            "ship_date": (d0 + dt.timedelta(days=int(rng.integers(0, 60)))).isoformat(),
            "taxable": bool(rng.integers(0, 2)),
        })
    return {
        "invoice_number": f"INV-{int(rng.integers(100000, 999999))}",
        "vendor": f"{WORDS[int(rng.integers(len(WORDS)))].title()} Supply Co",
        "customer": f"Acme Holdings {k}",
        "po_number": f"PO-{int(rng.integers(1000, 9999))}",
        "issue_date": f"{month:02d}/{day:02d}/2021",
        "due_date": (d0 + dt.timedelta(days=30)).isoformat(),
        "currency": "USD",
        "terms": "Net 30",
        "total": round(sum(r["amount"] for r in rows), 2),
        "paid_in_full": bool(rng.integers(0, 2)),
        "lines": rows,
    }


# the ambiguous fields, read differently by each family
def _ambiguous(fam: str, name: str, value: str, doc: dict[str, Any]) -> Any:
    if name == "issue_date":
        m, d, y = value.split("/")
        return {"openai": value, "google": f"{y}-{d}-{m}", "qwen": f"{y}-{m}-{d}"}[fam]
    if name == "customer":
        return {"openai": value, "google": f"{value}, 12 Elm St, Springfield", "qwen": value}[fam]
    if name == "po_number":
        return {"openai": value, "google": value.replace("-", " "), "qwen": value.replace("-", "").lower()}[fam]
    return value


def _wrong(rng: np.random.Generator, value: Any, salt: int) -> Any:
    """A different value of the same type, never a mere reformatting of the right one."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + int(rng.integers(1, 9)) * 10 + salt
    if isinstance(value, float):
        return round(value + float(rng.integers(1, 90)) + salt * 100 + 0.37, 2)
    if isinstance(value, str):
        try:
            d = dt.date.fromisoformat(value)
            return (d + dt.timedelta(days=int(rng.integers(1, 6)) + 7 * salt)).isoformat()
        except ValueError:
            pass
        chars = list(value)
        alnum = [i for i, c in enumerate(chars) if c.isalnum()]
        i = alnum[int(rng.integers(len(alnum)))] if alnum else 0
        repl = "QZXJKW"[int(rng.integers(6))] if chars[i].isdigit() else "0123456789"[int(rng.integers(10))]
        chars[i:i + 1] = [repl, "QZXJKW"[salt % 6]]
        return "".join(chars)
    return value


def _misread(key: str) -> str:
    return key.replace("0", "O", 1) if "0" in key else key + "I"


def _render(doc: dict[str, Any], path: Path) -> dict[str, tuple[int, list[float]]]:
    """A PDF printing every non-null leaf; returns each truth pointer's (page, box)."""
    pdf = pymupdf.open()
    where: dict[str, tuple[int, list[float]]] = {}
    page = None
    leaves = [(p, v) for p, _, v in iter_leaves(compile_schema(SCHEMA), doc) if v is not None]
    W, H = 612.0, 792.0
    for k, (pointer, value) in enumerate(leaves):
        if page is None or k % 42 == 0:
            page = pdf.new_page(width=W, height=H)
        y = 50 + (k % 42) * 17
        text = str(value).lower() if isinstance(value, bool) else str(value)
        label = pointer.rsplit("/", 1)[-1] + ":"
        page.insert_text((40, y), label, fontsize=10, fontname="helv")
        x0 = 160.0
        page.insert_text((x0, y), text, fontsize=10, fontname="helv")
        wdt = pymupdf.get_text_length(text, fontname="helv", fontsize=10)
        where[pointer] = (page.number + 1, [round(x0 / W, 6), round((y - 9) / H, 6),
                                            round(min(x0 + max(wdt, 1), W - 1) / W, 6), round((y + 3) / H, 6)])
    path.write_bytes(pdf.tobytes(deflate=True, no_new_id=True))
    return where


def simulate(folder: Path, *, seed: int = 7, n_docs: int = 4, n_rows: int = 30, rates: Rates | None = None,
             render: bool = True, cite_error: float = 0.05) -> Truth:
    """Write docs/, runs/, schema.json and systems.toml under `folder`; return the truth."""
    rates = rates or Rates()
    folder = Path(folder)
    (folder / "docs").mkdir(parents=True, exist_ok=True)
    (folder / "schema.json").write_bytes(dumps_json(SCHEMA, indent=2))
    toml = [f'schema_sha256 = "{canonical_sha256(SCHEMA)}"', f'citing = "{CITING}"', ""]
    for s, fam in SYSTEMS.items():
        toml += [f'[systems.{s}]', f'family = "{fam}"', f'cites = {"true" if s == CITING else "false"}', ""]
    (folder / "systems.toml").write_text("\n".join(toml), encoding="utf-8")
    truth = Truth(docs={})
    for k in range(n_docs):
        doc_id = f"sim-{seed}-{k:03d}"
        doc = _truth_doc(generator(seed, doc_id, "truth"), n_rows, k)
        truth.docs[doc_id] = doc
        where = _write_pdf(doc_id, doc, folder / "docs" / f"{doc_id}.pdf", render)
        fam_wrong = _family_errors(generator(seed, doc_id, "family"), doc, rates)
        misread_sys = sorted(SYSTEMS)[k % len(SYSTEMS)]
        mrng = generator(seed, doc_id, "misread")
        misread_rows = {int(i) for i in mrng.choice(n_rows, size=min(rates.misread_keys, n_rows), replace=False)}
        for s_i, (s, fam) in enumerate(SYSTEMS.items()):
            run = _SystemRun(s, s_i, fam, generator(seed, doc_id, s), doc_id, doc, rates, fam_wrong, truth)
            out, row_src = run.output(misread_rows if s == misread_sys else set())
            sdir = folder / "runs" / s
            sdir.mkdir(parents=True, exist_ok=True)
            (sdir / f"{doc_id}.json").write_bytes(dumps_json(out, indent=None))
            if s == CITING:
                cites = _citations(run.rng, out, row_src, doc, where, render, cite_error)
                (sdir / f"{doc_id}.citations.json").write_bytes(dumps_json(cites, indent=None))
    return truth


def _write_pdf(doc_id: str, doc: dict[str, Any], path: Path, render: bool) -> dict[str, tuple[int, list[float]]]:
    """The document's PDF (every leaf printed, or with `render` off one line of text); each pointer's (page, box)."""
    if render:
        return _render(doc, path)
    pdf = pymupdf.open()
    pdf.new_page(width=612, height=792).insert_text((40, 60), doc_id, fontsize=10, fontname="helv")
    path.write_bytes(pdf.tobytes(deflate=True, no_new_id=True))
    return {}


def _family_errors(frng: np.random.Generator, doc: dict[str, Any], rates: Rates) -> dict[tuple[str, str, str], Any]:
    """Correlated family errors: one wrong value per (family, line_id or "", field)."""
    fam_wrong: dict[tuple[str, str, str], Any] = {}
    for fam_i, fam in enumerate(sorted(set(SYSTEMS.values()))):
        for name in TOP_FIELDS:
            if f"/{name}" not in AMBIGUOUS and frng.random() < rates.family:
                fam_wrong[(fam, "", name)] = _wrong(frng, doc[name], fam_i)
        for row in doc["lines"]:
            for name in ROW_FIELDS[1:]:
                if frng.random() < rates.family:
                    fam_wrong[(fam, row["line_id"], name)] = _wrong(frng, row[name], fam_i)
    return fam_wrong


@dataclass
class _SystemRun:
    """One system's output for one document, drawn from its own seeded generator (the draws' order is fixed)."""

    system: str
    index: int
    family: str
    rng: np.random.Generator
    doc_id: str
    doc: dict[str, Any]
    rates: Rates
    fam_wrong: dict[tuple[str, str, str], Any]
    truth: Truth

    def vote(self, line_id: str, name: str, value: Any, ambiguous: bool = False) -> Any:
        rng, rates = self.rng, self.rates
        if ambiguous:
            out = _ambiguous(self.family, name, value, self.doc)
        elif (self.family, line_id, name) in self.fam_wrong:
            out = self.fam_wrong[(self.family, line_id, name)]
        elif rng.random() < rates.random:
            out = _wrong(rng, value, 3 + self.index)
        elif rng.random() < rates.null:
            out = None
        else:
            out = value
        if not ambiguous and comparator_key(out) != comparator_key(value):
            self.truth.wrong_votes.append((self.system, self.doc_id, line_id, name))
        if out is not None and rates.wrong_type and rng.random() < rates.wrong_type and isinstance(out, (int, float)) \
                and not isinstance(out, bool):
            out = str(out)
        return out

    def output(self, misread_rows: set[int]) -> tuple[dict[str, Any], list[str]]:
        """The run, its rows shuffled, and each shuffled row's truth line_id."""
        out: dict[str, Any] = {}
        for name in TOP_FIELDS:
            v = self.vote("", name, self.doc[name], f"/{name}" in AMBIGUOUS)
            if v is not None or self.rng.random() < 0.5:  # an omitted key is a null vote too
                out[name] = v
        rows, row_src = [], []
        for i, row in enumerate(self.doc["lines"]):
            if self.rng.random() < self.rates.drop_row:
                for name in ROW_FIELDS:
                    if row[name] is not None:
                        self.truth.wrong_votes.append((self.system, self.doc_id, row["line_id"], name))
                continue
            r = {"line_id": row["line_id"]}
            if i in misread_rows:
                r["line_id"] = _misread(row["line_id"])
                self.truth.wrong_votes.append((self.system, self.doc_id, row["line_id"], "line_id"))
            for name in ROW_FIELDS[1:]:
                r[name] = self.vote(row["line_id"], name, row[name])
            rows.append(r)
            row_src.append(row["line_id"])
            if self.rng.random() < self.rates.dup_row:
                rows.append(dict(r))
                row_src.append(row["line_id"])
                self.truth.dup_rows.append((self.system, self.doc_id, row["line_id"]))
        perm = self.rng.permutation(len(rows))
        out["lines"] = [rows[int(j)] for j in perm]
        return out, [row_src[int(j)] for j in perm]


def _citations(rng: np.random.Generator, out: dict[str, Any], row_src: list[str], doc: dict[str, Any],
               where: dict[str, tuple[int, list[float]]], render: bool, cite_error: float) -> dict[str, list]:
    """The citing system's citations: the truth's boxes, some pointing at a page that does not exist."""
    cites: dict[str, list[dict[str, Any]]] = {}
    index = {r["line_id"]: i for i, r in enumerate(doc["lines"])}
    for name in TOP_FIELDS:
        if name in out and out[name] is not None and f"/{name}" in where:
            page, box = where[f"/{name}"]
            cites[f"/{name}"] = [{"page": page, "box": box}]
    for j, lid in enumerate(row_src):
        for name in ROW_FIELDS:
            p = f"/lines/{index[lid]}/{name}"
            if p in where or not render:
                page, box = where.get(p, (1, [0.1, 0.1, 0.2, 0.12]))
                if rng.random() < cite_error:
                    page = 10_000  # an invalid citation: a person draws this box
                cites[f"/lines/{j}/{name}"] = [{"page": page, "box": box}]
    return cites
