"""`gtkit consensus`: candidate ground truth, the adjudication queue and the report.

`compute` reads the inputs and decides every document (walk, what the schema cannot hold withheld,
causes, the field-level pass, settle); `write_consensus` builds each document's bundle and hands it to
the bundle writer, then writes the side files. A document whose `expected` cannot be made valid is not
written (`writable`), so every bundle written passes `gtkit check`. Outputs (staged and renamed into place
by the writer, so a failed run leaves nothing):

    <out>/<doc_id>/{document.pdf, schema.json, gt.json}   candidate bundles
    <out>/dataset.jsonl
    <out>/queue.jsonl     one line per contested cell or extra record
    <out>/draw.jsonl      agreed non-null cells without a valid box from the citing system
    <out>/report.json, report.md   per schema field across documents, vote failures, re-scores
"""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gtkit.consensus.bundles import build_document
from gtkit.consensus.causes import classify_document, field_ambiguity
from gtkit.consensus.cells import PROMOTE_RULES, PROMOTE_UNANIMOUS
from gtkit.consensus.filenames import (
    DRAW_NAME,
    QUEUE_NAME,
    REPORT_JSON,
    REPORT_MD,
    jsonl,
)
from gtkit.consensus.inputs import (
    DocInfo,
    check_schema_hash,
    choose_citing,
    discover,
    load_systems,
    pdf_info,
    pdf_text,
    read_citations,
    read_run,
    schema_version,
)
from gtkit.consensus.model import Consensus
from gtkit.consensus.report import build_report, candidate_truth, report_md, rescore
from gtkit.consensus.tiers import settle
from gtkit.consensus.votes import Voters
from gtkit.consensus.walk import walk_document
from gtkit.consensus.writable import withhold_unwritable
from gtkit.errors import GtkitError
from gtkit.files.outputs import check_output
from gtkit.files.read import canonical_sha256
from gtkit.files.write import dumps_json
from gtkit.format.writer import is_gtkit_output, write_dataset
from gtkit.schema import compile_schema, load_schema
from gtkit.scoring.truth import Truth


def run_consensus(schema: Path, docs: Path, runs: Path, systems: Path, out: Path, *, force: bool = False,
                  citing: str | None = None, family: str | None = None, do_rescore: bool = True,
                  promote: str = PROMOTE_UNANIMOUS,
                  progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Compute and write a consensus dataset; returns the report. `promote`: the promotion rule, `unanimous`
    (only cells every voting system agrees on become truth unreviewed) or `majority`."""
    check_promote(promote)
    check_output(Path(out), force=force, inputs=[schema, docs, runs, systems], replaceable=is_gtkit_output)
    # Millions of small, acyclic objects: the cyclic collector would rescan them again and
    # again for nothing (a third of the run time on 86,000 cells), so it pauses meanwhile.
    enabled = gc.isenabled()
    gc.disable()
    try:
        c = compute(schema, docs, runs, systems, citing=citing, promote=promote, progress=progress)
        return write_consensus(c, out, force=force, family=family, do_rescore=do_rescore)
    finally:
        if enabled:
            gc.enable()


def compute(schema_path: Path, docs_dir: Path, runs_dir: Path, systems_path: Path, *,
            citing: str | None = None, promote: str = PROMOTE_UNANIMOUS,
            progress: Callable[[int, int], None] | None = None) -> Consensus:
    """Read the inputs and decide every document under the promotion rule `promote`."""
    check_promote(promote)
    schema = load_schema(schema_path)
    root = compile_schema(schema)
    systems = load_systems(systems_path)
    inputs = discover(docs_dir, runs_dir, systems)
    c = Consensus(schema=schema, schema_sha256=canonical_sha256(schema), systems=systems, inputs=inputs,
                  citing=None, results=[], infos={}, citations={}, promote=promote)
    check_schema_hash(systems, inputs.systems_used, c.schema_sha256, schema_version(schema))
    c.citing = choose_citing(systems, inputs.systems_used, citing)
    dropped: Counter = Counter()
    for doc_id, pdf in inputs.docs.items():
        info = c.infos[doc_id] = pdf_info(pdf)
        runs = inputs.runs[doc_id]
        c.missing_runs += [(s, doc_id) for s in inputs.systems_used if s not in runs]
        outputs = c.outputs[doc_id] = {s: read_run(p) for s, p in runs.items()}
        c.citations[doc_id] = {}
        for s, p in inputs.citations.get(doc_id, {}).items():
            if s in runs:
                c.citations[doc_id][s], n = read_citations(p)
                dropped[s] += n
        voters = Voters(systems=sorted(runs), family={s: systems.family(s) for s in runs})
        result = walk_document(doc_id, root, outputs, voters)
        withhold_unwritable(result, root)
        classify_document(result, _text_on_demand(pdf, info))
        c.results.append(result)
        if progress is not None:
            progress(len(c.results), len(inputs.docs))
    c.dropped_citations = dict(dropped)
    c.field_ambiguity = field_ambiguity(c.results)
    for r in c.results:
        for cell in r.cells:
            settle(cell, promote)
    return c


def check_promote(promote: str) -> None:
    """Refuse a promotion rule that is not one of `PROMOTE_RULES`."""
    if promote not in PROMOTE_RULES:
        raise GtkitError(f"unknown promotion rule {promote!r}: give {' or '.join(PROMOTE_RULES)}")


def _text_on_demand(pdf: Path, info: DocInfo) -> Callable[[], str]:
    def text() -> str:
        if info.text is None:
            info.text = pdf_text(pdf)
        return info.text

    return text


def write_consensus(c: Consensus, out: Path, *, force: bool = False, family: str | None = None,
                    do_rescore: bool = True) -> dict[str, Any]:
    """Bundles (through the bundle writer), queue, drawing list and report; returns the report."""
    queue, draw = [], []
    truths: dict[str, Truth] = {}
    with write_dataset(Path(out), force=force) as dataset:
        for r in c.results:
            if r.withheld_document:
                continue
            doc = build_document(c, r, family=family)
            bundle = dataset.bundle(r.doc_id)
            bundle.write_pdf(c.inputs.docs[r.doc_id])
            bundle.write(doc.envelope, doc.fields)
            if do_rescore:
                truths[r.doc_id] = candidate_truth(r.doc_id, r.expected, doc.fields, c.schema)
            queue += doc.queue
            draw += doc.draw
        dataset.write_file(QUEUE_NAME, jsonl(queue))
        dataset.write_file(DRAW_NAME, jsonl(draw))
        rep = build_report(c, queue, draw)
        for r in c.results:  # the cells are summarized: free them before re-scoring
            r.cells = []
        del queue, draw
        rep["rescore"] = rescore(c, truths) if do_rescore else None
        dataset.write_file(REPORT_JSON, dumps_json(rep, indent=1))
        dataset.write_file(REPORT_MD, report_md(rep).encode("utf-8"))
    return rep
