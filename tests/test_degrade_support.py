"""Helpers for the degrade tests (no tests here): a small clean bundle whose boxes come from the PDF's words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pymupdf

from gtkit import __version__
from gtkit.files.read import canonical_sha256, sha256_bytes
from gtkit.format.models import (
    FORMAT_VERSION,
    DocumentInfo,
    Evidence,
    FieldEntry,
    GroundTruth,
    Provenance,
    Reading,
    SchemaInfo,
    Tags,
)
from gtkit.format.writer import write_bundle

PAGE_W, PAGE_H = 612.0, 792.0

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "invoice_number": {"type": "string"},
        "date": {"type": ["string", "null"]},
        "total": {"type": ["number", "null"]},
        "customer": {"type": ["string", "null"]},
        "lines": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"sku": {"type": "string"}, "description": {"type": ["string", "null"]},
                               "qty": {"type": ["integer", "null"]}},
                "required": ["sku"],
            },
        },
    },
    "required": ["invoice_number"],
}

DESCRIPTIONS = ["Steel widget, large", "Gadget (blue)", "Sprocket 12mm", "Flange bolt M8 x 40", "Washer, zinc",
                "Hinge pin", "Bearing 6204-2RS", "Cable tie 300mm", "Gasket set", "Spring clip"]


def _expected(n_lines: int) -> dict[str, Any]:
    return {
        "invoice_number": "INV-2026-0042",
        "date": "2026-03-28",
        "total": 1250.5,
        "customer": "Acme Industrial Supply Co.",
        "lines": [{"sku": f"SKU-{100 + i}", "description": DESCRIPTIONS[i % len(DESCRIPTIONS)], "qty": i + 1}
                  for i in range(n_lines)],
    }


def _value_text(v: Any) -> str:
    return str(v)


def make_clean(n_lines: int = 40, lines_per_page: int = 30, fontsize: float = 10.0,
               doc_id: str = "inv-1") -> tuple[bytes, dict[str, Any], GroundTruth]:
    """A PDF printing 'label: value' rows (base-14 Helvetica), its schema and a gt.json whose evidence
    boxes and word boxes are read back from the PDF with get_text('words')."""
    expected = _expected(n_lines)
    rows: list[tuple[str, str, Any]] = []  # (pointer, label, value)
    for key in ("invoice_number", "date", "total", "customer"):
        rows.append((f"/{key}", key.replace("_", " ").title() + ":", expected[key]))
    for i, line in enumerate(expected["lines"]):
        for key in ("sku", "description", "qty"):
            rows.append((f"/lines/{i}/{key}", f"Line {i + 1} {key}:", line[key]))
    doc = pymupdf.open()
    placed: list[tuple[str, int, float, float]] = []  # pointer, page index, value x, baseline y
    page = None
    per_page = lines_per_page * 2  # two columns
    for k, (pointer, label, value) in enumerate(rows):
        if k % per_page == 0:
            page = doc.new_page(width=PAGE_W, height=PAGE_H)
        slot = k % per_page
        col, row = divmod(slot, lines_per_page)
        x = 48 + col * 280
        y = 64 + row * (fontsize * 2.2)
        page.insert_text((x, y), label, fontsize=fontsize, fontname="helv")
        vx = x + 100
        page.insert_text((vx, y), _value_text(value), fontsize=fontsize, fontname="helv")
        placed.append((pointer, page.number, vx, y))
    pdf = doc.tobytes(deflate=True, no_new_id=True)
    doc = pymupdf.open("pdf", pdf)
    words_by_page = [p.get_text("words", sort=False) for p in doc]
    evidence: dict[str, Evidence] = {}
    for pointer, pno, vx, y in placed:
        ws = [w for w in words_by_page[pno] if w[0] >= vx - 0.5 and w[0] < vx + 170 and w[1] < y < w[3]]
        assert ws, pointer
        boxes = [(w[0] / PAGE_W, w[1] / PAGE_H, w[2] / PAGE_W, w[3] / PAGE_H) for w in ws]
        arr = np.array(boxes)
        union = (float(arr[:, 0].min()), float(arr[:, 1].min()), float(arr[:, 2].max()), float(arr[:, 3].max()))
        evidence[pointer] = Evidence(page=pno + 1, box=union, words=boxes, quote=" ".join(w[4] for w in ws),
                                     verified=True)
    fields = []
    for pointer, _label, value in rows:
        fields.append(FieldEntry(path=pointer, readings=[Reading(value=value, evidence=[evidence[pointer]])],
                                 trust="constructed"))
    pages = doc.page_count
    gt = GroundTruth(
        format=FORMAT_VERSION,
        doc_id=doc_id,
        document=DocumentInfo(sha256=sha256_bytes(pdf), pages=pages, page_sizes=[(PAGE_W, PAGE_H)] * pages),
        schema=SchemaInfo(sha256=canonical_sha256(SCHEMA), version="1.0.0"),
        provenance=Provenance(pipeline="manual", gtkit=__version__),
        tags=Tags(task=["T1.a"], structure=["S3"], length="L1", domain="D3", grounding=["G1"]),
        expected=expected,
        fields=fields,
    )
    return pdf, SCHEMA, gt


def make_clean_bundle(folder: Path, **kw: Any) -> Path:
    pdf, schema, gt = make_clean(**kw)
    write_bundle(folder, pdf=pdf, schema=schema, gt=gt)
    return folder
