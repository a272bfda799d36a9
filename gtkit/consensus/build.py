"""`gtkit consensus`: candidate ground truth, the adjudication queue and the report.

Outputs (written to a staging folder and renamed into place, so a failed run leaves
nothing behind):

    <out>/<doc_id>/{document.pdf, schema.json, gt.json}   candidate bundles
    <out>/dataset.jsonl
    <out>/queue.jsonl     one line per contested cell or extra record
    <out>/draw.jsonl      agreed non-null cells without a valid box from the citing system
    <out>/report.json, report.md   per schema field across documents, vote failures, re-scores

Agreed cells (`unanimous`, `all_null`, clear `majority`) get trust `agreed`; contested
cells get trust `pending`, their readings the candidate values (plurality first, so
`expected` holds the plurality value). Boxes come from the one citing system only,
and only where its vote equals the reading's value.
"""

from __future__ import annotations

import gc
import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pymupdf

from gtkit import __version__
from gtkit.consensus.checks import PageWords, box_problem
from gtkit.consensus.causes import classify_document, field_ambiguity
from gtkit.consensus.cells import ALL_NULL, CAUSES, SCHEMA_AMBIGUITY, SPLIT, TIERS, UNANIMOUS, Cell, DocResult
from gtkit.consensus.tiers import settle
from gtkit.consensus.votes import INVALID, NULL, Pool, key_json
from gtkit.consensus.walk import walk_document
from gtkit.consensus.inputs import (
    Inputs,
    Systems,
    check_schema_hash,
    choose_citing,
    discover,
    load_systems,
    read_citations,
    read_run,
)
from gtkit.errors import GtkitError
from gtkit.format import GT_NAME, Envelope, GroundTruth, write_dataset
from gtkit.typed import parse
from gtkit.fileio import canonical_sha256, dumps_json, sha256_file
from gtkit.format.models import LENIENCIES
from gtkit.schema import Node, compile_schema, load_schema, validation_errors

QUEUE_NAME, DRAW_NAME, REPORT_JSON, REPORT_MD = "queue.jsonl", "draw.jsonl", "report.json", "report.md"


@dataclass
class DocInfo:
    pages: int
    sizes: list[tuple[float, float]]
    sha256: str
    text: str | None = None


def pdf_info(path: Path) -> DocInfo:
    try:
        with pymupdf.open(path) as doc:
            sizes = [(round(p.rect.width, 3), round(p.rect.height, 3)) for p in doc]
    except Exception as e:  # noqa: BLE001 - any unreadable PDF is one line
        raise GtkitError(f"cannot open PDF: {e}", path) from None
    if not sizes:
        raise GtkitError("PDF has no pages", path)
    return DocInfo(pages=len(sizes), sizes=sizes, sha256=sha256_file(path))


def pdf_text(path: Path) -> str:
    with pymupdf.open(path) as doc:
        return " ".join(" ".join(p.get_text().split()) for p in doc).casefold()


def _valid_box(box: Any) -> bool:
    if type(box) is not list or len(box) != 4:
        return False
    x0, y0, x1, y1 = box
    return 0.0 <= x0 < x1 <= 1.0 and 0.0 <= y0 < y1 <= 1.0


@dataclass
class Consensus:
    """Everything a consensus run computed, before it is written."""

    schema: dict[str, Any]
    schema_sha256: str
    systems: Systems
    inputs: Inputs
    citing: str | None
    results: list[DocResult]
    infos: dict[str, DocInfo]
    citations: dict[str, dict[str, dict[str, list[dict[str, Any]]]]]   # doc -> system -> pointer -> entries
    dropped_citations: dict[str, int] = field(default_factory=dict)
    missing_runs: list[tuple[str, str]] = field(default_factory=list)
    outputs: dict[str, dict[str, Any]] = field(default_factory=dict)   # doc -> system -> run (for the re-score)
    prefix_pages: dict[tuple[str, str], dict[str, set[int]]] = field(default_factory=dict)
    field_ambiguity: dict[str, str] = field(default_factory=dict)      # field -> fix kind


def compute(schema_path: Path, docs_dir: Path, runs_dir: Path, systems_path: Path, *,
            citing: str | None = None, progress: Callable[[int, int], None] | None = None) -> Consensus:
    schema = load_schema(schema_path)
    root = compile_schema(schema)
    h = canonical_sha256(schema)
    systems = load_systems(systems_path)
    inputs = discover(docs_dir, runs_dir, systems)
    check_schema_hash(systems, inputs.systems_used, h, schema_version(schema))
    citing_sys = choose_citing(systems, inputs.systems_used, citing)
    results, infos, cits = [], {}, {}
    dropped: Counter = Counter()
    missing = []
    all_outputs: dict[str, dict[str, Any]] = {}
    for doc_id, pdf in inputs.docs.items():
        info = pdf_info(pdf)
        infos[doc_id] = info
        runs = inputs.runs[doc_id]
        missing += [(s, doc_id) for s in inputs.systems_used if s not in runs]
        outputs = {s: read_run(p) for s, p in runs.items()}
        all_outputs[doc_id] = outputs
        pool = Pool(systems=sorted(runs), family={s: systems.family(s) for s in runs})
        doc_cits = {}
        for s, p in inputs.citations.get(doc_id, {}).items():
            if s in runs:
                doc_cits[s], n = read_citations(p)
                dropped[s] += n
        cits[doc_id] = doc_cits
        result = walk_document(doc_id, root, outputs, pool)

        def text(pdf: Path = pdf, info: DocInfo = info) -> str:
            if info.text is None:
                info.text = pdf_text(pdf)
            return info.text

        classify_document(result, text)
        results.append(result)
        if progress is not None:
            progress(len(results), len(inputs.docs))
    c = Consensus(schema=schema, schema_sha256=h, systems=systems, inputs=inputs, citing=citing_sys,
                  results=results, infos=infos, citations=cits, dropped_citations=dict(dropped),
                  missing_runs=missing, outputs=all_outputs)
    c.field_ambiguity = field_ambiguity(c.results)
    for r in results:
        for cell in r.cells:
            settle(cell)
    return c


# --- building bundles ---------------------------------------------------------------------


def _evidence(c: Consensus, doc_id: str, cell: Cell, key: tuple, value: Any, words: PageWords) -> list[dict[str, Any]]:
    """The citing system's evidence for the reading `value`, where its vote is that reading; a box is kept
    only where the page shows the value under it (`checks.box_problem`)."""
    s = c.citing
    if s is None or key == NULL or cell.keys.get(s) != key:
        return []
    own = cell.own(s)
    table = c.citations.get(doc_id)
    entries = table.get(s, {}).get(own) if table and own is not None else None
    if not entries:
        return []
    pages = c.infos[doc_id].pages
    out = []
    for e in entries:
        if not 1 <= e["page"] <= pages:
            continue
        ev: dict[str, Any] = {"page": e["page"]}
        if _valid_box(e.get("box")) and box_problem(words, e["page"], e["box"], value) is None:
            ev["box"] = [float(v) for v in e["box"]]
        out.append(ev)
    return out


def _cited_pages(c: Consensus, doc_id: str, own: str | None, prefix: bool = False) -> list[int]:
    """Pages the citing system points to for its own pointer (with `prefix`, anywhere under it)."""
    s = c.citing
    if s is None or own is None:
        return []
    table = c.citations.get(doc_id, {}).get(s, {})
    if not prefix:
        return sorted({e["page"] for e in table.get(own, [])})
    key = (doc_id, s)
    if key not in c.prefix_pages:
        index: dict[str, set[int]] = defaultdict(set)
        for p, es in table.items():
            pages = {e["page"] for e in es}
            parts = p.split("/")
            for i in range(1, len(parts) + 1):
                index["/".join(parts[:i])] |= pages
        c.prefix_pages.clear()
        c.prefix_pages[key] = index
    return sorted(c.prefix_pages[key].get(own, ()))


def build_gt(c: Consensus, r: DocResult, *, family: str | None = None) -> tuple[GroundTruth, list[dict], list[dict]]:
    """The document's ground truth, its queue items and its boxes to draw."""
    words = PageWords(c.inputs.docs[r.doc_id])
    try:
        return _build_gt(c, r, family, words)
    finally:
        words.close()


def _build_gt(c: Consensus, r: DocResult, family: str | None, words: PageWords) -> tuple[GroundTruth, list[dict], list[dict]]:
    info = c.infos[r.doc_id]
    fields, queue, draw = [], [], []
    pool = r.pool
    for cell in r.cells:
        lens = [x for x in cell.node.leniencies if x in LENIENCIES]
        if cell.pending:
            readings = [{"value": raw, "evidence": _evidence(c, r.doc_id, cell, k, raw, words)} for k, raw in cell.candidates]
            trust = "pending"
            fams: dict[tuple, set[str]] = defaultdict(set)
            for s, k in cell.keys.items():
                fams[k].add(pool.family[s])
            queue.append({
                "id": f"{r.doc_id}#{cell.pointer}", "kind": "cell", "doc": r.doc_id, "path": cell.pointer,
                "field": cell.field, "tier": cell.tier, "null_over_value": cell.null_over_value,
                "row_presence_tie": cell.forced,
                "cause": cell.cause, "fix": cell.fix, "proposed": cell.value,
                "votes": [{"system": s, "family": pool.family[s], "vote": key_json(k), "value": cell.raws[s],
                           "failure": k == INVALID} for s, k in cell.keys.items()],
                "candidates": [{"value": raw, "weight": round(cell.weights.get(k, 0.0), 4),
                                "families": sorted(fams[k])} for k, raw in cell.candidates],
                "pages": _cited_pages(c, r.doc_id, cell.own(c.citing) if c.citing else None),
            })
        else:
            ev = _evidence(c, r.doc_id, cell, cell.top, cell.value, words)
            readings = [{"value": cell.value, "evidence": ev}]
            trust = "agreed"
            if cell.value is not None and not any("box" in e for e in ev):
                draw.append({"doc": r.doc_id, "path": cell.pointer, "value": cell.value,
                             "pages": sorted({e["page"] for e in ev})})
        fields.append({"path": cell.pointer, "readings": readings, "leniencies": lens, "trust": trust})
    for x in r.extras:
        queue.append({
            "id": f"{r.doc_id}#{x.pointer}", "kind": "extra_record", "doc": r.doc_id, "path": x.pointer,
            "field": x.field, "tier": SPLIT, "null_over_value": False, "cause": x.cause, "fix": x.fix,
            "weight": round(x.weight, 4),
            "votes": [{"system": s, "family": pool.family[s], "present": s in x.members,
                       "row": x.members[s][0] if s in x.members else None} for s in pool.systems],
            "pages": sorted({p for s, (_, own) in x.members.items() if s == c.citing
                             for p in _cited_pages(c, r.doc_id, own, prefix=True)}),
        })
    gt_dict = {
        "doc_id": r.doc_id,
        "document": {"sha256": info.sha256, "pages": info.pages, "page_sizes": info.sizes},
        "schema": {"sha256": c.schema_sha256, "version": schema_version(c.schema)},
        "provenance": {
            "pipeline": "consensus", "family": family, "seed": None, "recipe": None, "parent": None,
            "gtkit": __version__, "created": None,
            "parameters": {
                "systems": {s: {"family": pool.family[s], "cites": c.systems.systems[s].cites} for s in pool.systems},
                "citing": c.citing,
                "runs_sha256": {s: sha256_file(p) for s, p in sorted(c.inputs.runs[r.doc_id].items())},
            },
        },
        "expected": r.expected,
        "fields": fields,
    }
    gt = parse(GroundTruth, gt_dict, Path(r.doc_id) / GT_NAME)
    return gt, queue, draw


_BENIGN = {"type", "description", "title", "$comment", "examples", "default", "items", "properties", "$schema",
           "$id", "$defs", "definitions", "version"}


def _benign(schema: dict[str, Any]) -> bool:
    """No keyword that constrains values beyond their JSON type (so equal types validate alike)."""
    return all(k in _BENIGN or k.startswith("x-") for k in schema)


def _signature(node: Node, value: Any) -> Any:
    if node.kind == "object" and node.props and isinstance(value, dict):
        return tuple((k, _signature(node.props[k], v) if k in node.props else json.dumps(v, sort_keys=True))
                     for k, v in value.items())
    if node.kind == "records" and isinstance(value, list) and node.item is not None:
        return ("rows", frozenset(_signature(node.item, r) for r in value))
    if node.kind in ("scalar", "scalar_list") and _benign(node.schema) and not isinstance(value, (dict, list)):
        return type(value).__name__
    return json.dumps(value, sort_keys=True)


def _reduce(node: Node, value: Any) -> Any:
    """`value` with the rows of record arrays deduplicated by what validation can tell apart."""
    if node.kind == "object" and node.props and isinstance(value, dict):
        return {k: (_reduce(node.props[k], v) if k in node.props else v) for k, v in value.items()}
    if node.kind == "records" and isinstance(value, list) and node.item is not None and _benign(node.schema):
        seen, rows = set(), []
        for r in value:
            sig = _signature(node.item, r)
            if sig not in seen:
                seen.add(sig)
                rows.append(_reduce(node.item, r))
        return rows
    return value


def schema_problems(schema: dict[str, Any], root: Node, expected: Any) -> int:
    """How many distinct ways `expected` fails the task schema (rows that validate alike are checked once)."""
    return len(validation_errors(schema, _reduce(root, expected)))


def schema_version(schema: dict[str, Any]) -> str | None:
    for k in ("version", "x-version"):
        v = schema.get(k)
        if isinstance(v, (str, int, float)) and not isinstance(v, bool):
            return str(v)
    return None


# --- the report ---------------------------------------------------------------------------


def field_report(c: Consensus) -> list[dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for r in c.results:
        for cell in r.cells:
            f = rows.get(cell.field)
            if f is None:
                f = rows[cell.field] = {"field": cell.field, "docs": set(), "cells": 0, "agreed": 0, "pending": 0,
                                        "tiers": Counter(), "causes": Counter(), "fixes": Counter(),
                                        "null_over_value": 0}
            f["docs"].add(r.doc_id)
            f["cells"] += 1
            f["pending" if cell.pending else "agreed"] += 1
            f["tiers"][cell.tier] += 1
            f["null_over_value"] += cell.null_over_value
            if cell.cause:
                f["causes"][cell.cause] += 1
            if cell.fix:
                f["fixes"][cell.fix] += 1
    out = []
    for name, f in rows.items():
        causes = f["causes"]
        cause = causes.most_common(1)[0][0] if causes else None
        if causes.get(SCHEMA_AMBIGUITY) and name in c.field_ambiguity:
            cause = SCHEMA_AMBIGUITY
        fix = c.field_ambiguity.get(name) or (f["fixes"].most_common(1)[0][0] if f["fixes"] else None)
        out.append({
            "field": name, "docs": len(f["docs"]), "cells": f["cells"],
            "agreement_rate": round(f["agreed"] / f["cells"], 4),
            "unanimous_rate": round((f["tiers"][UNANIMOUS] + f["tiers"][ALL_NULL]) / f["cells"], 4),
            "agreed": f["agreed"], "pending": f["pending"],
            "tiers": {t: f["tiers"][t] for t in TIERS},
            "null_over_value": f["null_over_value"],
            "causes": {k: causes[k] for k in CAUSES},
            "cause": cause,
            "field_level_ambiguity": name in c.field_ambiguity,
            "fix": fix if causes.get(SCHEMA_AMBIGUITY) else None,
            "fixes": dict(f["fixes"]),
        })
    return out


def rescore(c: Consensus, gts: dict[str, GroundTruth]) -> dict[str, Any]:
    """Every system's cached output scored against the candidate truth (pending cells left out).

    Uses `gtkit.score`; the truth index of a document is built once and shared by its systems."""
    from gtkit import score

    tasks, scores = [], []
    for r in c.results:
        gt = gts[r.doc_id]
        truth = score.Truth.from_gt(gt, c.schema)
        for s in sorted(c.inputs.runs[r.doc_id]):
            cites = c.citations.get(r.doc_id, {}).get(s) or None
            predicted = c.outputs.get(r.doc_id, {}).get(s)
            if predicted is None:
                predicted = read_run(c.inputs.runs[r.doc_id][s])
            tasks.append((r.doc_id, s))
            scores.append(score.score_truth(truth, predicted, cites))
    per_system: dict[str, list] = defaultdict(list)
    for (_, s), doc_score in zip(tasks, scores):
        per_system[s].append(doc_score)
    out = {}
    for s, docs in sorted(per_system.items()):
        summary = score.summarize(docs)
        out[s] = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in summary.items()}
        out[s]["family"] = c.systems.family(s)
    return out


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def report_md(rep: dict[str, Any]) -> str:
    t = rep["totals"]
    lines = [
        "# Consensus report", "",
        f"- schema sha256: `{rep['schema_sha256']}`",
        f"- documents: {rep['documents']}; systems: "
        + ", ".join(f"{s} ({v['family']}{', cites' if v['cites'] else ''})" for s, v in rep["systems"].items()),
        f"- citing system (boxes): {rep['citing'] or 'none'}",
        f"- cells: {t['cells']}, agreed {t['agreed']} ({_pct(t['agreed'] / t['cells'] if t['cells'] else None)}), "
        f"pending {t['pending']}; extra-record votes queued: {t['extra_records']}; boxes to draw: {t['to_draw']}",
        "- tiers: " + ", ".join(f"{k} {v}" for k, v in t["tiers"].items()),
        "- causes: " + ", ".join(f"{k} {v}" for k, v in t["causes"].items()),
        "", "## Fields", "",
        "| field | docs | cells | agreement | unanimous | majority | split | all_null | null>value | cause | fix |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for f in rep["fields"]:
        tiers = f["tiers"]
        cause = (f["cause"] or "") + (" (field)" if f["field_level_ambiguity"] else "")
        lines.append(f"| `{f['field']}` | {f['docs']} | {f['cells']} | {_pct(f['agreement_rate'])} | {tiers['unanimous']} "
                     f"| {tiers['majority']} | {tiers['split']} | {tiers['all_null']} | {f['null_over_value']} "
                     f"| {cause} | {f['fix'] or ''} |")
    lines += ["", "## Re-score against the candidate truth (pending cells left out)", ""]
    if rep.get("rescore"):
        lines += ["| system | family | value P | value R | value F1 | page F1 | word F1 |", "|---|---|---|---|---|---|---|"]
        for s, v in rep["rescore"].items():
            lines.append(f"| {s} | {v['family']} | {_pct(v['value_precision'])} | {_pct(v['value_recall'])} "
                         f"| {_pct(v['value_f1'])} | {_pct(v['page_f1'])} | {_pct(v['word_f1'])} |")
    else:
        lines.append("not available")
    lines += ["", "## Vote failures (values of the wrong type for the schema)", ""]
    if rep["vote_failures"]:
        for s, v in rep["vote_failures"].items():
            ex = "; ".join(f"{e['doc']}{e['path']}: {e['message']}" for e in v["examples"][:3])
            lines.append(f"- {s}: {v['count']} ({ex})")
    else:
        lines.append("none")
    if rep["missing_runs"]:
        lines += ["", "## Missing runs", ""] + [f"- {m['system']} has no run for {m['doc']}" for m in rep["missing_runs"]]
    return "\n".join(lines) + "\n"


def build_report(c: Consensus, queue: list[dict], draw: list[dict], rescored: dict | None,
                 schema_errors: dict[str, int]) -> dict[str, Any]:
    tiers: Counter = Counter()
    causes: Counter = Counter()
    agreed = pending = cells = fallback = 0
    failures: dict[str, dict[str, Any]] = {}
    for r in c.results:
        fallback += r.rows_fallback
        for cell in r.cells:
            cells += 1
            tiers[cell.tier] += 1
            if cell.cause:
                causes[cell.cause] += 1
            if cell.pending:
                pending += 1
            else:
                agreed += 1
        for f in r.failures:
            entry = failures.setdefault(f.system, {"count": 0, "examples": []})
            entry["count"] += 1
            if len(entry["examples"]) < 20:
                entry["examples"].append({"doc": r.doc_id, "path": f.pointer, "message": f.message})
    return {
        "schema_sha256": c.schema_sha256,
        "documents": len(c.results),
        "systems": {s: {"family": c.systems.family(s), "cites": c.systems.systems[s].cites}
                    for s in c.inputs.systems_used},
        "citing": c.citing,
        "totals": {
            "cells": cells, "agreed": agreed, "pending": pending,
            "tiers": {t: tiers[t] for t in TIERS}, "causes": {k: causes[k] for k in CAUSES},
            "extra_records": sum(1 for q in queue if q["kind"] == "extra_record"),
            "queued": len(queue), "to_draw": len(draw), "rows_aligned_by_fallback": fallback,
        },
        "fields": field_report(c),
        "vote_failures": dict(sorted(failures.items())),
        "dropped_citations": c.dropped_citations,
        "missing_runs": [{"system": s, "doc": d} for s, d in c.missing_runs],
        "expected_schema_errors": schema_errors,
        "rescore": rescored,
    }


def write_consensus(c: Consensus, out: Path, *, force: bool = False, family: str | None = None,
                    do_rescore: bool = True) -> dict[str, Any]:
    queue, draw = [], []
    schema_errors: dict[str, int] = {}
    gts: dict[str, GroundTruth] = {}
    root = compile_schema(c.schema)
    with write_dataset(Path(out), force=force) as dataset:
        for r in c.results:
            gt, q, d = build_gt(c, r, family=family)
            n_errs = schema_problems(c.schema, root, r.expected)
            if n_errs:
                schema_errors[r.doc_id] = n_errs
            bundle = dataset.bundle(r.doc_id)
            bundle.write_pdf(c.inputs.docs[r.doc_id])
            bundle.write(Envelope.of(gt, c.schema), gt.model_dump(mode="json")["fields"])
            if do_rescore:
                gts[r.doc_id] = gt
            queue += q
            draw += d
        dataset.write_file(QUEUE_NAME, jsonl(queue))
        dataset.write_file(DRAW_NAME, jsonl(draw))
        rep = build_report(c, queue, draw, None, schema_errors)
        for r in c.results:  # the cells are summarized: free them before re-scoring
            r.cells = []
        del queue, draw
        rep["rescore"] = rescore(c, gts) if do_rescore else None
        dataset.write_file(REPORT_JSON, dumps_json(rep, indent=1))
        dataset.write_file(REPORT_MD, report_md(rep).encode("utf-8"))
    return rep


def jsonl(items: list[dict]) -> bytes:
    return "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in items).encode("utf-8")


def run_consensus(schema: Path, docs: Path, runs: Path, systems: Path, out: Path, *, force: bool = False,
                  citing: str | None = None, family: str | None = None, do_rescore: bool = True,
                  progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    if Path(out).exists() and not force:
        raise GtkitError("output already exists (use --force to overwrite)", out)
    # Millions of small, acyclic objects: the cyclic collector would rescan them again and
    # again for nothing (a third of the run time on 86,000 cells), so it pauses meanwhile.
    enabled = gc.isenabled()
    gc.disable()
    try:
        c = compute(schema, docs, runs, systems, citing=citing, progress=progress)
        return write_consensus(c, out, force=force, family=family, do_rescore=do_rescore)
    finally:
        if enabled:
            gc.enable()
