"""The synth pipeline's check for `gtkit check`: re-find every value in the bundle's PDF.

A family that never splits a record is checked against its PDF's words directly, with no layout
(`gtkit.synth.verify`). Otherwise the family's layout is re-planned from the bundle's own `expected`
(layout depends only on it; where the records split is a fact only the plan has), the PDF's words are
read back and matched, the mechanical checks run
(every value found exactly once on the page the records say, nothing clipped,
nothing overlapping, fonts embedded), and the evidence found must equal the
evidence recorded in gt.json, field by field. A family that may split records
(`allow_split`) also has the number of split records recorded in
`provenance.parameters.split_records`, checked against the layout.

A cell a person corrected (trust `human`, recorded in `provenance.parameters.corrections`) is the
person's word: the layout is re-planned and the PDF re-read from the values synth wrote (the corrections
undone, `gtkit.corrections.original_expected`), and the corrected cell's own value and evidence are not
compared with the PDF. Every other cell is checked exactly as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from gtkit.corrections import HUMAN, original_expected, recorded
from gtkit.errors import GtkitError, Problem
from gtkit.files.read import canonical_sha256
from gtkit.format.bundle import Bundle
from gtkit.format.writer import GT_NAME, PDF_NAME
from gtkit.synth.family import Family, get_family
from gtkit.synth.verify import verify_synth_bundle

if TYPE_CHECKING:
    from gtkit.format.decode import EvidenceRecord, FieldRecord
    from gtkit.format.models import Evidence, FieldEntry
    from gtkit.synth.readback import Located


def _evidence_json(e: Evidence | EvidenceRecord) -> dict[str, Any]:
    """A validated evidence entry (record or model) as JSON, every key the format defines in its order."""
    return {"page": e.page, "box": None if e.box is None else list(e.box),
            "words": None if e.words is None else [list(w) for w in e.words],
            "quad": None if e.quad is None else [list(q) for q in e.quad], "quote": e.quote, "verified": e.verified}


def _compare(bundle: Bundle, fields: list[dict[str, Any]], g: str, problems: list[Problem]) -> list[Problem]:
    entries: Sequence[FieldEntry | FieldRecord] = bundle.field_entries()
    recorded = {f.path: (i, f) for i, f in enumerate(entries)}
    for entry in fields:
        at = recorded.get(entry["path"])
        if at is None or at[1].trust == HUMAN:
            continue  # the core check reports leaves without an entry; a person's correction is their word
        i, f = at
        have = [_evidence_json(e) for e in f.readings[0].evidence]
        want = entry["readings"][0]["evidence"]
        if have != want:
            problems.append(Problem(g, f"/fields/{i}", f"evidence of {entry['path']} differs from what the PDF shows "
                                    f"({len(have)} recorded, {len(want)} found)"))
        if len(problems) >= 50:
            break
    return problems


def _check_template_bundle(bundle: Bundle, expected: Any, family: Family, g: str, pdf_file: str) -> list[Problem]:
    """Renderer template: render the family's template again for the bundle's (uncorrected) expected (where
    each value element is), read the bundle's PDF there (words, checkbox ink), and compare with gt.json."""
    from gtkit.synth.template import render_template
    from gtkit.synth.template_readback import locate_template

    try:
        rendered = render_template(family, expected)
    except GtkitError as e:
        return [Problem(g, "/expected", f"cannot render expected with family {family.name!r}: {e.message}")]
    fields, problems = _located_fields(bundle, expected, locate_template(rendered, bundle.pdf_path.read_bytes()),
                                       pdf_file)
    return problems if fields is None else _compare(bundle, fields, g, problems)


def _located_fields(bundle: Bundle, expected: Any, located: Located,
                    pdf_file: str) -> tuple[list[dict[str, Any]] | None, list[Problem]]:
    """The field entries the read-back gives (None when it found problems first), and their problems."""
    from gtkit.synth.pipeline import build_fields
    from gtkit.synth.readback import SynthProblem

    problems = [Problem(pdf_file, "/expected" + p.pointer if p.pointer else "", p.message) for p in located.problems]
    if problems:
        return None, problems
    found: list[SynthProblem] = []
    fields = build_fields(bundle.schema, expected, located.evidence, found)
    return fields, [Problem(pdf_file, "/expected" + p.pointer, p.message) for p in found]


def check_synth_bundle(bundle: Bundle) -> list[Problem]:
    g = str(bundle.path / GT_NAME)
    pdf_file = str(bundle.path / PDF_NAME)
    gt = bundle.gt
    try:
        family = get_family(gt.provenance.family or "")
    except GtkitError as e:
        return [Problem(g, "/provenance/family", e.message)]
    if canonical_sha256(family.schema) != canonical_sha256(bundle.schema):
        return [Problem(g, "/schema", f"schema.json is not the schema of family {family.name!r} in this gtkit")]
    flat = bundle.flat_entries()
    trust = dict(zip(flat.paths, map(attrgetter("trust"), flat.entries))) if recorded(gt.provenance.parameters) else {}
    expected, undone = original_expected(gt.expected, gt.provenance.parameters, trust)
    if undone:
        return [Problem(g, pointer, message) for pointer, message in undone]
    if family.renderer == "template":
        return _check_template_bundle(bundle, expected, family, g, pdf_file)
    if not family.allow_split and HUMAN not in map(attrgetter("trust"), flat.entries):
        # every fact the check needs is in the PDF, the family and gt.json (and no correction to undo)
        return verify_synth_bundle(bundle, family)
    from gtkit.synth.layout import plan_document
    from gtkit.synth.readback import locate

    try:
        plan = plan_document(family, expected)
    except GtkitError as e:
        return [Problem(g, "/expected", f"cannot lay out expected with family {family.name!r}: {e.message}")]
    fields, problems = _located_fields(bundle, expected, locate(plan, bundle.pdf_path.read_bytes()), pdf_file)
    if fields is None:
        return problems
    if family.allow_split:  # how many records the layout split is recorded with the run's parameters
        recorded_splits = (gt.provenance.parameters or {}).get("split_records")
        if recorded_splits != len(plan.split_records):
            problems.append(Problem(g, "/provenance/parameters/split_records",
                                    f"gt.json says {recorded_splits!r} records were split, "
                                    f"the layout splits {len(plan.split_records)}"))
    return _compare(bundle, fields, g, problems)
