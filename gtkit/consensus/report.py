"""The consensus report: report.json (totals, one row per schema field, vote failures, re-scores) and
report.md (the same for a person), and the re-score of every system against the candidate truth."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from gtkit.consensus.cells import ALL_NULL, CAUSES, SCHEMA_AMBIGUITY, TIERS, UNANIMOUS
from gtkit.consensus.model import Consensus
from gtkit.format.models import Tags
from gtkit.scoring.engine import score_truth
from gtkit.scoring.report import summarize
from gtkit.scoring.truth import Truth, TruthCell


def build_report(c: Consensus, queue: list[dict], draw: list[dict]) -> dict[str, Any]:
    """report.json without its re-score (`rescore`, added once the cells are freed)."""
    return {
        "schema_sha256": c.schema_sha256,
        "documents": len(c.results),
        "systems": {s: {"family": c.systems.family(s), "cites": c.systems.systems[s].cites}
                    for s in c.inputs.systems_used},
        "citing": c.citing,
        "promote": c.promote,
        "totals": {
            **_cell_totals(c),
            "extra_records": sum(1 for q in queue if q["kind"] == "extra_record"),
            "withheld_records": sum(1 for q in queue if q["kind"] == "withheld_record"),
            "queued": len(queue), "to_draw": len(draw),
            "rows_aligned_by_fallback": sum(r.rows_fallback for r in c.results),
        },
        "fields": field_report(c),
        "vote_failures": _vote_failures(c),
        "dropped_citations": c.dropped_citations,
        "missing_runs": [{"system": s, "doc": d} for s, d in c.missing_runs],
        "left_out": left_out(c),
        "rescore": None,
    }


def _cell_totals(c: Consensus) -> dict[str, Any]:
    tiers: Counter = Counter()
    causes: Counter = Counter()
    cells = pending = 0
    for r in c.results:
        for cell in r.cells:
            cells += 1
            tiers[cell.tier] += 1
            if cell.cause:
                causes[cell.cause] += 1
            pending += cell.pending
    return {"cells": cells, "agreed": cells - pending, "pending": pending,
            "tiers": {t: tiers[t] for t in TIERS}, "causes": {k: causes[k] for k in CAUSES}}


def _vote_failures(c: Consensus) -> dict[str, dict[str, Any]]:
    """Per system: how many values of the wrong type, per schema field with the JSON types given, and the
    first 20."""
    failures: dict[str, dict[str, Any]] = {}
    for r in c.results:
        for f in r.failures:
            entry = failures.setdefault(f.system, {"count": 0, "fields": {}, "examples": []})
            entry["count"] += 1
            per_field = entry["fields"].setdefault(f.field, {"count": 0, "types": Counter()})
            per_field["count"] += 1
            per_field["types"][f.got] += 1
            if len(entry["examples"]) < 20:
                entry["examples"].append({"doc": r.doc_id, "path": f.pointer, "field": f.field, "type": f.got,
                                          "message": f.message})
    for entry in failures.values():
        entry["fields"] = {k: {"count": v["count"], "types": dict(sorted(v["types"].items()))}
                           for k, v in sorted(entry["fields"].items())}
    return dict(sorted(failures.items()))


def left_out(c: Consensus) -> dict[str, Any]:
    """What the systems reported that `expected` does not hold, and why: documents withheld, records
    withheld (per field and reason), records no system gave as an object, cells no valid vote backs and
    blanks left out where the schema forbids null (the counts are over the documents written)."""
    documents = [{"doc": r.doc_id, "problems": [p.to_json() for p in r.withheld_document]}
                 for r in c.results if r.withheld_document]
    records: dict[str, Counter] = defaultdict(Counter)
    invalid: Counter = Counter()
    unbacked: Counter = Counter()
    omitted: Counter = Counter()
    for r in c.results:
        if r.withheld_document:
            continue
        for w in r.withheld:
            records[w.field][w.cause] += 1
        invalid.update(r.invalid_rows)
        unbacked.update(r.unbacked)
        omitted.update(r.omitted)
    return {
        "documents": documents,
        "cells_in_withheld_records": sum(r.withheld_cells for r in c.results if not r.withheld_document),
        "withheld_records": {f: dict(v) for f, v in sorted(records.items())},
        "records_not_objects": dict(sorted(invalid.items())),
        "cells_without_valid_vote": dict(sorted(unbacked.items())),
        "blank_keys_left_out": dict(sorted(omitted.items())),
    }


def field_report(c: Consensus) -> list[dict[str, Any]]:
    """One row per schema field across documents: agreement, tiers, causes and the fix kind."""
    rows: dict[str, dict[str, Any]] = {}
    for r in c.results:
        for cell in r.cells:
            f = rows.get(cell.field)
            if f is None:
                f = rows[cell.field] = {"docs": set(), "cells": 0, "agreed": 0, "pending": 0, "tiers": Counter(),
                                        "causes": Counter(), "fixes": Counter(), "null_over_value": 0}
            f["docs"].add(r.doc_id)
            f["cells"] += 1
            f["pending" if cell.pending else "agreed"] += 1
            f["tiers"][cell.tier] += 1
            f["null_over_value"] += cell.null_over_value
            if cell.cause:
                f["causes"][cell.cause] += 1
            if cell.fix:
                f["fixes"][cell.fix] += 1
    return [_field_row(c, name, f) for name, f in rows.items()]


def _field_row(c: Consensus, name: str, f: dict[str, Any]) -> dict[str, Any]:
    causes = f["causes"]
    cause = causes.most_common(1)[0][0] if causes else None
    if causes.get(SCHEMA_AMBIGUITY) and name in c.field_ambiguity:
        cause = SCHEMA_AMBIGUITY
    fix = c.field_ambiguity.get(name) or (f["fixes"].most_common(1)[0][0] if f["fixes"] else None)
    return {
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
    }


# --- re-score -----------------------------------------------------------------------------------


def candidate_truth(doc_id: str, expected: Any, fields: list[dict[str, Any]], schema: dict[str, Any]) -> Truth:
    """A document's candidate truth as the scorer holds it, from the field entries handed to the writer."""
    cells = {f["path"]: TruthCell.of_dict(f) for f in fields}
    return Truth(doc_id=doc_id, tags=Tags(), schema=schema, expected=expected, cells=cells)


def rescore(c: Consensus, truths: dict[str, Truth]) -> dict[str, Any]:
    """Every system's output scored against the candidate truth (pending cells left out), per system.

    Uses `gtkit.scoring.engine`; the truth of a document is shared by its systems."""
    per_system: dict[str, list] = defaultdict(list)
    for r in c.results:
        truth = truths.get(r.doc_id)
        if truth is None:   # a withheld document
            continue
        for s in sorted(c.inputs.runs[r.doc_id]):
            cites = c.citations.get(r.doc_id, {}).get(s) or None
            per_system[s].append(score_truth(truth, c.outputs[r.doc_id][s], cites))
    out = {}
    for s, docs in sorted(per_system.items()):
        summary = summarize(docs)
        out[s] = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in summary.items()}
        out[s]["family"] = c.systems.family(s)
    return out


# --- report.md ----------------------------------------------------------------------------------


def _left_out_md(out: dict[str, Any]) -> list[str]:
    lines = [f"- document {d['doc']} not written: "
             + "; ".join(f"{p['path'] or '/'}: {p['problem']}" for p in d["problems"][:3]) for d in out["documents"]]
    for f, causes in out["withheld_records"].items():
        lines.append(f"- records withheld and queued at `{f}`: " + ", ".join(f"{k} {v}" for k, v in causes.items()))
    if out["cells_in_withheld_records"]:
        lines.append(f"- cells in withheld records: {out['cells_in_withheld_records']}")
    for title, key in (("records no system gave as an object", "records_not_objects"),
                       ("cells no valid vote backs", "cells_without_valid_vote"),
                       ("blank keys left out (the schema does not let them be null)", "blank_keys_left_out")):
        if out[key]:
            lines.append(f"- {title}: " + ", ".join(f"`{f}` {n}" for f, n in out[key].items()))
    return lines or ["nothing"]


_RULES = {"unanimous": "only cells every voting system agrees on are promoted; every disagreement is queued",
          "majority": "a clear majority is promoted too, unless schema ambiguity or null over a value"}


def _pct(x: float | None) -> str:
    return "\N{EN DASH}" if x is None else f"{100 * x:.1f}%"


def report_md(rep: dict[str, Any]) -> str:
    """report.md: the totals, the field table, the re-score, vote failures and missing runs."""
    t = rep["totals"]
    lines = [
        "# Consensus report", "",
        f"- schema sha256: `{rep['schema_sha256']}`",
        f"- documents: {rep['documents']}; systems: "
        + ", ".join(f"{s} ({v['family']}{', cites' if v['cites'] else ''})" for s, v in rep["systems"].items()),
        f"- citing system (boxes): {rep['citing'] or 'none'}",
        f"- promotion rule: {rep['promote']} ({_RULES.get(rep['promote'], '')})",
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
        lines.append(f"| `{f['field']}` | {f['docs']} | {f['cells']} | {_pct(f['agreement_rate'])} "
                     f"| {tiers['unanimous']} | {tiers['majority']} | {tiers['split']} | {tiers['all_null']} "
                     f"| {f['null_over_value']} "
                     f"| {cause} | {f['fix'] or ''} |")
    lines += ["", "## Re-score against the candidate truth (pending cells left out)", ""]
    if rep.get("rescore"):
        lines += ["| system | family | value P | value R | value F1 | page F1 | word F1 |",
                  "|---|---|---|---|---|---|---|"]
        for s, v in rep["rescore"].items():
            lines.append(f"| {s} | {v['family']} | {_pct(v['value_precision'])} | {_pct(v['value_recall'])} "
                         f"| {_pct(v['value_f1'])} | {_pct(v['page_f1'])} | {_pct(v['word_f1'])} |")
    else:
        lines.append("not available")
    lines += ["", "## Vote failures (values the schema refuses where they stand)", ""]
    if rep["vote_failures"]:
        for s, v in rep["vote_failures"].items():
            ex = "; ".join(f"{e['doc']}{e['path']}: {e['message']}" for e in v["examples"][:3])
            lines.append(f"- {s}: {v['count']} ({ex})")
            for f, n in v["fields"].items():
                types = ", ".join(f"{t} {k}" for t, k in n["types"].items())
                lines.append(f"  - `{f}`: {n['count']} ({types})")
    else:
        lines.append("none")
    lines += ["", "## Left out of expected", "", *_left_out_md(rep["left_out"])]
    if rep["missing_runs"]:
        lines += ["", "## Missing runs", ""]
        lines += [f"- {m['system']} has no run for {m['doc']}" for m in rep["missing_runs"]]
    return "\n".join(lines) + "\n"
