"""Build small real bundles for tests: a PDF that prints every leaf, boxes read back from it."""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

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
from gtkit.schema import compile_schema, iter_leaves

PAGE_W, PAGE_H = 612.0, 792.0


def render_leaves(leaves: list[tuple[str, Any]], lines_per_page: int = 40) -> tuple[bytes, dict[str, Evidence]]:
    """One line per non-null leaf ("pointer: value"); returns the PDF and each value's evidence."""
    doc = pymupdf.open()
    evidence: dict[str, Evidence] = {}
    page = None
    for k, (pointer, value) in enumerate(x for x in leaves if x[1] is not None):
        if k % lines_per_page == 0:
            page = doc.new_page(width=PAGE_W, height=PAGE_H)
        y = 60 + (k % lines_per_page) * 17
        text = " ".join(map(str, value)) if isinstance(value, list) else str(value)
        label = f"{k}:"
        page.insert_text((40, y), label, fontsize=10, fontname="helv")
        x0 = 40 + pymupdf.get_text_length(label + " ", fontname="helv", fontsize=10)
        page.insert_text((x0, y), text, fontsize=10, fontname="helv")
        width = pymupdf.get_text_length(text, fontname="helv", fontsize=10)
        box = (x0 / PAGE_W, (y - 9) / PAGE_H, min(x0 + max(width, 1), PAGE_W - 1) / PAGE_W, (y + 3) / PAGE_H)
        evidence[pointer] = Evidence(page=page.number + 1, box=tuple(round(v, 6) for v in box), quote=text,
                                     verified=True)
    if doc.page_count == 0:
        doc.new_page(width=PAGE_W, height=PAGE_H)
    pdf = doc.tobytes(deflate=True, no_new_id=True)
    return pdf, evidence


def make_gt(schema: dict, expected: Any, *, doc_id: str = "doc-1", boxes: bool = True, tags: Tags | None = None,
            alternates: dict[str, list[Any]] | None = None, leniencies: dict[str, list[str]] | None = None,
            pending: set[str] | None = None) -> tuple[bytes, GroundTruth]:
    leaves = [(p, v) for p, _, v in iter_leaves(compile_schema(schema), expected)]
    pdf, evidence = render_leaves(leaves)
    fields = []
    for pointer, value in leaves:
        ev = [evidence[pointer]] if boxes and pointer in evidence else []
        readings = [Reading(value=value, evidence=ev)]
        readings += [Reading(value=a) for a in (alternates or {}).get(pointer, [])]
        fields.append(FieldEntry(path=pointer, readings=readings, leniencies=(leniencies or {}).get(pointer, []),
                                 trust="pending" if pointer in (pending or set()) else "constructed"))
    pages = pymupdf.open(stream=pdf, filetype="pdf").page_count
    gt = GroundTruth(
        format=FORMAT_VERSION,
        doc_id=doc_id,
        document=DocumentInfo(sha256=sha256_bytes(pdf), pages=pages, page_sizes=[(PAGE_W, PAGE_H)] * pages),
        schema=SchemaInfo(sha256=canonical_sha256(schema), version="1.0.0"),
        provenance=Provenance(pipeline="manual", gtkit=__version__),
        tags=tags or Tags(task=["T1.a"], structure=["S3"], length="L1", domain="D3"),
        expected=expected,
        fields=fields,
    )
    return pdf, gt


def make_bundle(folder: Path, schema: dict, expected: Any, **kw: Any) -> Path:
    pdf, gt = make_gt(schema, expected, **kw)
    write_bundle(folder, pdf=pdf, schema=schema, gt=gt)
    return folder


INVOICE_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "invoice_number": {"type": "string", "description": "The invoice number printed top right."},
        "date": {"type": ["string", "null"], "description": "Invoice date."},
        "paid": {"type": ["boolean", "null"], "description": "Whether the PAID box is ticked."},
        "total": {"type": ["number", "null"], "description": "Grand total."},
        "notes": {"type": "array", "items": {"type": "string"}, "description": "Free-text notes, in order."},
        "lines": {
            "type": "array",
            "x-identity": ["sku"],
            "items": {"$ref": "#/$defs/line"},
        },
    },
    "required": ["invoice_number"],
    "$defs": {
        "line": {
            "type": "object",
            "properties": {
                "sku": {"type": "string", "description": "Article number."},
                "description": {"type": ["string", "null"], "description": "What was sold."},
                "qty": {"type": ["integer", "null"], "description": "Quantity."},
            },
            "required": ["sku"],
        }
    },
}

INVOICE = {
    "invoice_number": "INV-001",
    "date": "2019-03-28",
    "paid": True,
    "total": 1250.5,
    "notes": ["net 30", "thank you"],
    "lines": [
        {"sku": "A-1", "description": "Widget", "qty": 2},
        {"sku": "B-2", "description": "Gadget", "qty": 1},
        {"sku": "C-3", "description": None, "qty": 5},
    ],
}


def pool_workers_alive() -> list[int]:
    """Pids of the live processes the fork server has started: the workers of every `gtkit.workers.Pool`."""
    from multiprocessing import forkserver

    server = forkserver._forkserver._forkserver_pid  # None until a pool has started a worker
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, ppid = stat.read_text().rsplit(")", 1)[1].split()[:2]
        except (OSError, IndexError, ValueError):
            continue
        if server is not None and int(ppid) == server and state != "Z":
            alive.append(int(stat.parent.name))
    return alive


def pdftotext_words(pdf: Path) -> list[list[tuple[float, float, float, float, str]]]:
    """Every page's words with boxes from poppler's pdftotext -bbox-layout (an extractor gtkit does not use)."""
    xml = subprocess.run(["pdftotext", "-bbox-layout", str(pdf), "-"], capture_output=True, check=True).stdout
    root = ET.fromstring(xml)
    pages = []
    for page in root.iter("{http://www.w3.org/1999/xhtml}page"):
        pw, ph = float(page.get("width")), float(page.get("height"))
        pages.append([(float(w.get("xMin")) / pw, float(w.get("yMin")) / ph, float(w.get("xMax")) / pw,
                       float(w.get("yMax")) / ph, w.text or "")
                      for w in page.iter("{http://www.w3.org/1999/xhtml}word")])
    return pages


def run_cli(argv: list, capsys) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    """Run the gtkit CLI in this process: (exit status, stdout, stderr)."""
    from gtkit.cli import main

    try:
        main([str(a) for a in argv])
        code = 0
    except SystemExit as e:
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err
