"""The consensus report: report.json (totals, one row per schema field, vote failures, re-scores) and
report.md (the same for a person), and the re-score of every system against the candidate truth."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

from gtkit import score
from gtkit.consensus.cells import ALL_NULL, CAUSES, SCHEMA_AMBIGUITY, TIERS, UNANIMOUS
from gtkit.format import Tags
from gtkit.score_report import summarize

if TYPE_CHECKING:
    from gtkit.consensus.run import Consensus


def build_report(c: Consensus, queue: list[dict], draw: list[dict], schema_errors: dict[str, int]) -> dict[str, Any]:
    """report.json without its re-score (`rescore`, added once the cells are freed)."""
    return {
        "schema_sha256": c.schema_sha256,
        "documents": len(c.results),
        "systems": {s: {"family": c.systems.family(s), "cites": c.systems.systems[s].cites}
                    for s in c.inputs.systems_used},
        "citing": c.citing,
        "totals": {
            **_cell_totals(c),
            "extra_records": sum(1 for q in queue if q["kind"] == "extra_record"),
            "queued": len(queue), "to_draw": len(draw),
            "rows_aligned_by_fallback": sum(r.rows_fallback for r in c.results),
        },
        "fields": field_report(c),
        "vote_failures": _vote_failures(c),
        "dropped_citations": c.dropped_citations,
        "missing_runs": [{"system": s, "doc": d} for s, d in c.missing_runs],
        "expected_schema_errors": schema_errors,
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
    """Per system: how many values of the wrong type, and the first 20."""
    failures: dict[str, dict[str, Any]] = {}
    for r in c.results:
        for f in r.failures:
            entry = failures.setdefault(f.system, {"count": 0, "examples": []})
            entry["count"] += 1
            if len(entry["examples"]) < 20:
                entry["examples"].append({"doc": r.doc_id, "path": f.pointer, "message": f.message})
    return dict(sorted(failures.items()))


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


def candidate_truth(doc_id: str, expected: Any, fields: list[dict[str, Any]], schema: dict[str, Any]) -> score.Truth:
    """A document's candidate truth as the scorer holds it, from the field entries handed to the writer."""
    cells = {f["path"]: score.TruthCell.of_dict(f) for f in fields}
    return score.Truth(doc_id=doc_id, tags=Tags(), schema=schema, expected=expected, cells=cells)


def rescore(c: Consensus, truths: dict[str, score.Truth]) -> dict[str, Any]:
    """Every system's output scored against the candidate truth (pending cells left out), per system.

    Uses `gtkit.score`; the truth of a document is shared by its systems."""
    per_system: dict[str, list] = defaultdict(list)
    for r in c.results:
        truth = truths[r.doc_id]
        for s in sorted(c.inputs.runs[r.doc_id]):
            cites = c.citations.get(r.doc_id, {}).get(s) or None
            per_system[s].append(score.score_truth(truth, c.outputs[r.doc_id][s], cites))
    out = {}
    for s, docs in sorted(per_system.items()):
        summary = summarize(docs)
        out[s] = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in summary.items()}
        out[s]["family"] = c.systems.family(s)
    return out


# --- report.md ----------------------------------------------------------------------------------


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def report_md(rep: dict[str, Any]) -> str:
    """report.md: the totals, the field table, the re-score, vote failures and missing runs."""
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
