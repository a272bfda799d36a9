"""The synth pipeline: records first, then the PDF, then the ground truth read back from it.

1. records: generated from a seeded Generator (or the user's `--data`), and the
   document-level context (case number, ...) from its own Generator; `expected` is
   built from them before any PDF exists;
2. layout: measured pagination (`layout.plan_document`);
3. render: the reportlab canvas (`render.render_pdf`);
4. read-back and checks: the written PDF's words locate every value
   (`readback.locate`); `expected` is validated against the schema; every leaf
   gets its field entry;
5. write: one bundle, or a dataset of bundles plus dataset.jsonl, staged and
   renamed into place, so a failure leaves nothing behind.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gtkit.errors import GtkitError
from gtkit.files.outputs import check_output
from gtkit.files.read import sha256_file
from gtkit.format.models import DatasetEntry
from gtkit.format.writer import BundleWriter, Envelope, field_entry, is_gtkit_output, write_bundle_output, write_dataset
from gtkit.rng import derive_seed, generator
from gtkit.schema import compile_schema, iter_leaves, validation_errors
from gtkit.synth.data import load_records
from gtkit.synth.family import Family, get_family
from gtkit.synth.layout import plan_document
from gtkit.synth.readback import SynthProblem, locate
from gtkit.synth.render import render_pdf
from gtkit.synth.tags import measured_tags
from gtkit.workers import DEFAULT_WORKERS, Pool, Progress, no_gc, pool_for, run_inline

MAX_RECORDS = 2_000_000
MAX_DOCS = 10_000


def generate_expected(family: Family, n_records: int, seed: int,
                      records: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The document's expected object: context fields from (seed, "context"), records from (seed, "records")."""
    context: dict[str, Any] = {}
    if hasattr(family.module, "generate_context"):
        context = family.module.generate_context(generator(seed, "synth", family.name, "context"))
    if records is None:
        records = family.module.generate_records(generator(seed, "synth", family.name, "records"), n_records)
    expected = {}
    for name in family.schema.get("properties", {}):
        expected[name] = records if name == family.records_field else context.get(name)
    if hasattr(family.module, "complete_expected"):  # document-level values derived from the records (a total)
        family.module.complete_expected(expected)
    return expected


BACKGROUND_MIN_RECORDS = 2000  # records from which a document's schema check and reading half its pages go to workers
PRELOAD = ("gtkit.synth.pipeline", "pymupdf")  # what the workers import once, in the fork server (pymupdf: they
# read pages' words, `gtkit.pdf.read_pages`, and gtkit.pdf loads it only when a PDF is opened)


@dataclass
class Built:
    """One document made and checked, ready for the bundle writer (its PDF already written)."""

    envelope: Envelope
    fields: list[dict[str, Any]]


@dataclass(frozen=True)
class Made:
    """What `synth` reports of each document it wrote."""

    doc_id: str
    pages: int
    cells: int

    @classmethod
    def of(cls, entry: DatasetEntry) -> Made:
        return cls(entry.doc_id, entry.pages or 0, entry.cells or 0)


def _numeric_problems(fields: list[dict[str, Any]]) -> list[SynthProblem]:
    """Every box of every evidence entry inside [0, 1] with x0 < x1 and y0 < y1 (what the models require)."""
    boxes: list[list[float]] = []
    owners: list[str] = []
    for f in fields:
        for ev in f["readings"][0]["evidence"]:
            boxes.append(ev["box"])
            owners.append(f["path"])
            words = ev["words"] or []  # a checkbox has its box and no words
            boxes.extend(words)
            owners.extend([f["path"]] * len(words))
    if not boxes:
        return []
    arr = np.asarray(boxes, dtype=float)
    bad = ((arr < 0) | (arr > 1)).any(axis=1) | (arr[:, 0] >= arr[:, 2]) | (arr[:, 1] >= arr[:, 3])
    return [SynthProblem(owners[i], f"box {boxes[i]} is not a valid normalized box") for i in np.nonzero(bad)[0][:10]]


def _fail(problems: list[SynthProblem], doc_id: str) -> GtkitError:
    first = problems[0]
    more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
    return GtkitError(f"synth check failed for {doc_id}: {first}{more}")


def build_fields(schema: dict[str, Any], expected: Any, evidence: dict[str, list[dict[str, Any]]],
                 problems: list[SynthProblem]) -> list[dict[str, Any]]:
    """One field entry per leaf of expected: null leaves carry no evidence, every other leaf must."""
    fields = []
    for pointer, node, value in iter_leaves(compile_schema(schema), expected):
        evs = evidence.get(pointer, [])
        if value is None:
            if evs:
                problems.append(SynthProblem(pointer, "a null value was found printed"))
            evs = []
        elif not evs:
            problems.append(SynthProblem(pointer, f"value {value!r} is not printed anywhere in the PDF"))
        fields.append(field_entry(pointer, [{"value": value, "evidence": evs}], list(node.leniencies), "constructed"))
    return fields


def _schema_errors(schema: dict[str, Any], expected: Any) -> list[tuple[str, str]]:
    """The first few complaints of the schema about `expected` (a pool task)."""
    return validation_errors(schema, expected)[:5]


class Steps:
    """Counts a run's steps for `progress(done, total)`; the total grows as the steps become known."""

    def __init__(self, progress: Progress | None, total: int = 0):
        self.progress, self.done, self.total = progress, 0, total

    def expect(self, n: int) -> None:
        self.total += n

    def __call__(self, *_: object) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total)


def build_document(family: Family, expected: dict[str, Any], *, doc_id: str, seed: int, parameters: dict[str, Any],
                   bundle: BundleWriter, pool: Pool | None = None, steps: Steps | None = None) -> Built:
    """Layout, render, write the PDF into `bundle`, read it back from the file written, check, and make the
    envelope and field entries of the document's gt.json.

    A long document (`BACKGROUND_MIN_RECORDS`) with a `pool` of workers validates `expected` against the
    schema in a worker while the rendering and the read-back run here, and has a worker read the words of
    about half the pages (`readback.locate`). `steps` counts the layout, each page rendered, each page read
    back and the checks."""
    steps = steps or Steps(None)
    if family.renderer == "template":
        return _build_template_document(family, expected, doc_id=doc_id, seed=seed, parameters=parameters,
                                        bundle=bundle, steps=steps)
    n_records = len(expected.get(family.records_field) or [])
    background = pool if pool is not None and n_records >= BACKGROUND_MIN_RECORDS else None
    steps.expect(1)
    plan = plan_document(family, expected)
    steps.expect(2 * len(plan.pages) + 1)
    steps()
    # validating expected against the schema (jsonschema, ~0.1 ms a record): in a worker while this
    # process renders and reads back, or here
    if background is not None:
        schema_check = background.submit(_schema_errors, family.schema, expected)
    else:
        schema_check = run_inline(_schema_errors, family.schema, expected)
    try:
        pdf = render_pdf(plan, info=family.info(expected), on_page=steps)
        bundle.write_pdf(pdf)
        del pdf
        for pp in plan.pages:  # what was drawn is no longer needed: the read-back uses the PDF file
            pp.body_runs = []
        located = locate(plan, bundle.pdf_path, on_page=steps, pool=background)
    except BaseException:
        schema_check.cancel()
        raise
    schema_errors = schema_check.result()
    problems = list(located.problems)
    if problems:
        raise _fail(problems, doc_id)
    for pointer, message in schema_errors:
        problems.append(SynthProblem(pointer, f"expected does not satisfy the schema: {message}"))
    fields = build_fields(family.schema, expected, located.evidence, problems)
    for f in fields:
        for ev in f["readings"][0]["evidence"]:
            if not 1 <= ev["page"] <= located.pages:
                problems.append(SynthProblem(f["path"], f"evidence page {ev['page']} is out of range"))
    if problems:
        raise _fail(problems, doc_id)
    split = {"split_records": len(plan.split_records)} if family.allow_split else {}
    drawn = {"S1": plan.two_level_header, "P1": located.rotated_pages > 0}
    envelope = _envelope(family, expected, located, fields, doc_id=doc_id, seed=seed,
                         parameters={**parameters, **split}, drawn=drawn)
    problems.extend(_numeric_problems(fields))
    if problems:
        raise _fail(problems, doc_id)
    steps()
    return Built(envelope=envelope, fields=fields)


def _envelope(family: Family, expected: dict[str, Any], located: Any, fields: list[dict[str, Any]], *, doc_id: str,
              seed: int, parameters: dict[str, Any], drawn: dict[str, bool] | None = None) -> Envelope:
    """The document's envelope; its tags measured from the field entries and the layout facts `drawn`
    (`gtkit.synth.tags`)."""
    records = len(expected.get(family.records_field) or [])
    tags = measured_tags(family.tags, family.records_field, records, fields, located.pages, drawn)
    split = {k: parameters[k] for k in ("split_records",) if k in parameters}
    rest = {k: v for k, v in parameters.items() if k not in split}
    return Envelope(
        doc_id=doc_id, page_sizes=located.page_sizes, schema=family.schema, schema_version=family.schema_version,
        provenance={"pipeline": "synth", "family": family.name, "seed": seed, "recipe": None, "parent": None,
                    "parameters": {**rest, "pages": located.pages, "renderer": family.renderer, **split}},
        tags=tags, expected=expected)


def _build_template_document(family: Family, expected: dict[str, Any], *, doc_id: str, seed: int,
                             parameters: dict[str, Any], bundle: BundleWriter, steps: Steps) -> Built:
    """Renderer template: render the jinja2 template with weasyprint, write the PDF, locate every value
    element's words in the file written (`gtkit.synth.template`), check, and make the gt entries."""
    from gtkit.synth.template import render_template
    from gtkit.synth.template_readback import locate_template

    steps.expect(3)
    rendered = render_template(family, expected)
    steps()
    bundle.write_pdf(rendered.pdf)
    rendered.pdf = b""
    located = locate_template(rendered, bundle.pdf_path)
    steps()
    problems = list(located.problems)
    if problems:
        raise _fail(problems, doc_id)
    for pointer, message in _schema_errors(family.schema, expected):
        problems.append(SynthProblem(pointer, f"expected does not satisfy the schema: {message}"))
    fields = build_fields(family.schema, expected, located.evidence, problems)
    problems.extend(_numeric_problems(fields))
    if problems:
        raise _fail(problems, doc_id)
    envelope = _envelope(family, expected, located, fields, doc_id=doc_id, seed=seed, parameters=parameters)
    steps()
    return Built(envelope=envelope, fields=fields)


def _check_args(family_name: str, records: int | None, seed: int, docs: int | None, data: Path | None) -> Family:
    family = get_family(family_name)
    if records is not None and records <= 0:
        raise GtkitError(f"--records must be a positive number, got {records}")
    if records is not None and records > MAX_RECORDS:
        raise GtkitError(f"--records {records} is more than this tool makes in one document ({MAX_RECORDS})")
    if seed < 0:
        raise GtkitError(f"--seed must be 0 or more, got {seed}")
    if docs is not None and docs <= 0:
        raise GtkitError(f"--docs must be a positive number, got {docs}")
    if docs is not None and docs > MAX_DOCS:
        raise GtkitError(f"--docs {docs} is more than {MAX_DOCS}")
    if data is not None and records is not None:
        raise GtkitError("--records and --data exclude each other: the data file says how many records there are")
    if data is not None and docs is not None:
        raise GtkitError("--docs makes documents from generated records; --data renders one document")
    return family


def synth(family_name: str, *, out: Path, seed: int = 0, records: int | None = None, docs: int | None = None,
          data: Path | None = None, force: bool = False, workers: int = DEFAULT_WORKERS, pool: Pool | None = None,
          progress: Progress | None = None) -> list[Made]:
    """Make one bundle (or, with `docs`, a dataset of bundles) at `out`; returns what was written.

    Long documents use the `pool` (or one of `workers` made for this call) beside this process, see
    `build_document`. `progress(done, total)` is told of a long run's steps (a document of 2,000 records
    or more, or a dataset's documents)."""
    family = _check_args(family_name, records, seed, docs, data)
    out = Path(out)
    check_output(out, force=force, inputs=[data], replaceable=is_gtkit_output)
    user_records = load_records(Path(data), family) if data is not None else None
    n = len(user_records) if user_records is not None else (records or family.default_records)
    base_params: dict[str, Any] = {"records": n}
    if data is not None:
        base_params["data"] = {"file": Path(data).name, "sha256": sha256_file(Path(data))}
    big = n >= BACKGROUND_MIN_RECORDS or (docs or 1) > 1
    steps = Steps(progress if big else None)
    with no_gc(), pool_for(pool, workers, preload=PRELOAD) as pool:
        if n >= BACKGROUND_MIN_RECORDS:
            pool.warm()  # the workers' server starts while the records are made and laid out
        if docs is None:
            steps.expect(2)  # the records, and writing gt.json (the pages are counted once laid out)
            expected = generate_expected(family, n, seed, user_records)
            steps()
            with write_bundle_output(out, force=force) as bundle:
                built = build_document(family, expected, doc_id=f"{family.name}-s{seed}", seed=seed,
                                       parameters=base_params, bundle=bundle, pool=pool, steps=steps)
                entry = bundle.write(built.envelope, built.fields)
                steps()
            return [Made.of(entry)]
        done: list[Made] = []
        steps.expect(docs)
        with write_dataset(out, force=force) as dataset:
            for k in range(docs):
                doc_seed = derive_seed(seed, "synth", family.name, k)
                doc_id = f"{family.name}-s{seed}-{k:04d}"
                expected = generate_expected(family, n, doc_seed)
                params = {**base_params, "dataset_seed": seed, "index": k}
                bundle = dataset.bundle(doc_id)
                built = build_document(family, expected, doc_id=doc_id, seed=doc_seed, parameters=params,
                                       bundle=bundle, pool=pool)
                done.append(Made.of(bundle.write(built.envelope, built.fields)))  # memory stays flat over documents
                del built, expected
                steps()
        return done


def render_only(family_name: str, *, records: int, seed: int = 0) -> bytes:
    """The floor of the benchmark: generate and render the same document, no read-back, checks or gt."""
    family = get_family(family_name)
    with no_gc():  # millions of small lists and dicts and no reference cycles
        expected = generate_expected(family, records, seed)
        if family.renderer == "template":  # the same template rendered by weasyprint alone
            from gtkit.synth.template import render_template

            return render_template(family, expected, measure=False).pdf
        plan = plan_document(family, expected)
        return render_pdf(plan, info=family.info(expected))
