"""The degrade pipeline: plan (draw) each page's parameters, render the pages, move the boxes, write.

Per page: rasterize the parent page in gray at `dpi`; warp it by the page homography H (rotation, scale
and corner shifts composed); apply the recipe's photometric stages; encode deterministically; write an
image-only PDF of the same page sizes. Every evidence box moves by its page's H in closed form. The
values, schema and tags copy over (perception tag P1 added), and `provenance.parameters` records the dpi,
the recipe and every drawn value of every page, including H, so `--replay` redoes the run drawing nothing.

Randomness: one Generator per (seed, parent doc_id, page, stage) from `gtkit.rng`; rendering a page is a
pure function of the parent page and its plan, so output bytes do not depend on the number of workers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gtkit.check import content_problems
from gtkit.degrade.boxes import transform_field_dict
from gtkit.degrade.fit import fitting_geometry
from gtkit.degrade.legibility import check_legible
from gtkit.degrade.recipe import Recipe, load_recipe, sample_geometry, slug
from gtkit.degrade.record import DegradedGt, DegradeRecord
from gtkit.errors import GtkitError
from gtkit.files.outputs import check_output
from gtkit.files.read import read_json, sha256_file
from gtkit.format.bundle import Bundle, is_dataset, iter_bundle_dirs, read_bundle
from gtkit.format.models import ParentRef, Tags
from gtkit.format.writer import GT_NAME, PDF_NAME, Envelope, is_gtkit_output, write_bundle_output, write_dataset
from gtkit.pdf import page_sizes
from gtkit.rng import generator
from gtkit.typed import parse
from gtkit.workers import Pool, Progress, in_worker, pool_for

DEFAULT_DPI = 200
PERCEPTION_TAG = "P1"
PARAMETERS_VERSION = 1

# --- planning (the only place that draws) --------------------------------------------------------------------------


def raster_size(width_pt: float, height_pt: float, dpi: int) -> tuple[int, int]:
    """Pixels covering a page at `dpi`: round(points * dpi / 72), at least 1."""
    return max(1, round(width_pt * dpi / 72.0)), max(1, round(height_pt * dpi / 72.0))


def plan_page(recipe: Recipe, seed: int, doc_key: str, page_no: int, size_pt: tuple[float, float], dpi: int,
              boxes: np.ndarray | None = None) -> dict[str, Any]:
    """Draw everything one page needs: its geometry (and H) and each stage's parameters.

    The geometry draws from generator(seed, doc_key, page_no, "geometry") and, if that moves one of the
    page's evidence `boxes` off the page, again from generator(..., "geometry", attempt) (`fit.fitting_geometry`);
    stage i from generator(seed, doc_key, page_no, "stage", i, name). Returns plain JSON.
    """
    def draw(attempt: int) -> dict[str, Any]:
        extra = (attempt,) if attempt else ()
        return sample_geometry(recipe.geometry, generator(seed, doc_key, page_no, "geometry", *extra))

    g = fitting_geometry(draw, size_pt, np.zeros((0, 4)) if boxes is None else boxes, f"{doc_key} page {page_no}")
    stages = []
    for i, entry in enumerate(recipe.stages):
        rng = generator(seed, doc_key, page_no, "stage", i, entry.stage)
        applied = True if entry.p >= 1.0 else bool(rng.random() < entry.p)
        stages.append({"stage": entry.stage, "applied": applied,
                       "params": entry.build().sample(rng) if applied else None})
    w_px, h_px = raster_size(size_pt[0], size_pt[1], dpi)
    return {"page": page_no, "size_px": [w_px, h_px], "geometry": g, "stages": stages}


# --- rendering (pure given the plan) -------------------------------------------------------------------------------


def apply_plan(gray: np.ndarray, plan: dict[str, Any], dpi: int) -> tuple[np.ndarray, dict[int, dict[str, Any]]]:
    """Warp a clean gray page by the plan's homography, then run the applied stages in order. Returns the
    image and, by stage index, the values a stage drew while applying (an albumentations transform's)."""
    from gtkit.degrade import ops
    from gtkit.degrade.stages import STAGES

    g = plan["geometry"]
    img = ops.warp(gray, np.asarray(g["homography"], dtype=float), int(g["background"]))
    drawn: dict[int, dict[str, Any]] = {}
    for i, st in enumerate(plan["stages"]):
        if st["applied"]:
            img, values = STAGES[st["stage"]].run(img, st["params"], dpi)
            if values is not None:
                drawn[i] = values
    return img, drawn


def record_drawn(plan: dict[str, Any], drawn: dict[int, dict[str, Any]], where: str) -> None:
    """Store in the page's plan what its stages drew while applying; a replayed plan must draw what it recorded."""
    for i, values in drawn.items():
        params = plan["stages"][i]["params"]
        recorded = params.get("drawn")
        if recorded is not None and recorded != values:
            raise GtkitError(f"{where}: stage {i} ({params.get('transform', plan['stages'][i]['stage'])}) drew "
                             f"{values}, the record says {recorded}: the replay would differ")
        params["drawn"] = values


_DOCS: dict[str, Any] = {}  # per-process cache of open parent PDFs (no random state)


def rasterize(pdf_path: str, page_index: int, size_px: tuple[int, int]) -> np.ndarray:
    """The page as a gray uint8 image of exactly `size_px`, the page rectangle mapped onto the whole image."""
    import pymupdf

    doc = _DOCS.get(pdf_path)
    if doc is None:
        if len(_DOCS) > 8:
            for d in _DOCS.values():
                d.close()
            _DOCS.clear()
        doc = _DOCS[pdf_path] = pymupdf.open(pdf_path)
    page = doc[page_index]
    w, h = size_px
    rect = page.rect
    pix = page.get_pixmap(matrix=pymupdf.Matrix(w / rect.width, h / rect.height), colorspace=pymupdf.csGRAY,
                          alpha=False)
    img = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.stride)[:, : pix.width]
    if (pix.width, pix.height) != (w, h):  # MuPDF rounds the pixel rectangle outward: crop or pad to size
        out = np.full((h, w), 255, dtype=np.uint8)
        hh, ww = min(h, pix.height), min(w, pix.width)
        out[:hh, :ww] = img[:hh, :ww]
        return out
    return img.copy()


def render_page(task: tuple[str, int, int, dict[str, Any], str, int]) -> tuple[str, bytes, dict[int, dict[str, Any]]]:
    """(kind, encoded image, values drawn while applying) for one page: rasterize, apply the plan, encode.
    Pure given its inputs."""
    from gtkit.degrade import ops

    if in_worker():
        _one_cv2_thread()
    pdf_path, page_index, dpi, plan, fmt, quality = task
    try:
        gray = rasterize(pdf_path, page_index, tuple(plan["size_px"]))
    except GtkitError:
        raise
    except Exception as e:  # MuPDF failures on a damaged file become one line
        raise GtkitError(f"page {page_index + 1}: cannot render ({type(e).__name__}: {e})", pdf_path) from None
    img, drawn = apply_plan(gray, plan, dpi)
    return (*ops.encode(img, fmt, quality), drawn)


_CV2_THREADS: list[int] = []


def _one_cv2_thread() -> None:
    """In a worker process, OpenCV runs on one thread: the pool's processes share the cores."""
    if not _CV2_THREADS:
        import cv2

        cv2.setNumThreads(1)
        _CV2_THREADS.append(1)


# --- jobs ----------------------------------------------------------------------------------------------------------


@dataclass
class Job:
    """One bundle to degrade: where its parent is, the recipe and seed, and every page's plan.

    The parent is loaded again when its turn to be written comes, so a dataset of long documents
    never sits in memory all at once."""

    source: Path  # the parent bundle's folder
    recipe: Recipe
    seed: int
    dpi: int
    doc_id: str
    parent: ParentRef
    page_sizes: list[tuple[float, float]]
    plans: list[dict[str, Any]]

    @property
    def pdf_path(self) -> Path:
        return self.source / PDF_NAME

    def parameters(self) -> dict[str, Any]:
        return {"version": PARAMETERS_VERSION, "dpi": self.dpi, "recipe": self.recipe.record(), "pages": self.plans}


def open_parent_pdf(path: Path) -> list[tuple[float, float]]:
    """Page sizes (points) of a parent PDF, refusing encrypted, damaged or empty files with one line."""
    return page_sizes(path)


def degraded_doc_id(parent_doc_id: str, recipe_name: str, seed: int) -> str:
    return f"{parent_doc_id}-{slug(recipe_name)}-s{seed}"


def parent_ref(bundle: Bundle) -> ParentRef:
    return ParentRef(doc_id=bundle.doc_id, gt_sha256=sha256_file(bundle.path / GT_NAME),
                     document_sha256=bundle.gt.document.sha256)


def _replay_records(path: Path) -> dict[str, DegradeRecord]:
    """Recorded provenance by parent doc_id, from a degraded bundle, its gt.json, or a dataset of them."""
    path = Path(path)
    files = [folder / GT_NAME for _, folder in iter_bundle_dirs(path)] if path.is_dir() else [path]
    records: dict[str, DegradeRecord] = {}
    for f in files:
        data = read_json(f)
        if isinstance(data, dict) and "format" in data:
            record = parse(DegradedGt, data, f).provenance
        elif isinstance(data, dict) and "pipeline" in data:
            record = parse(DegradeRecord, data, f)
        else:
            raise GtkitError("not a degrade record (expected a degraded gt.json or its provenance)", f)
        records[record.parent.doc_id] = record
    return records


def _replay_job(bundle: Bundle, record: DegradeRecord, sizes: list[tuple[float, float]], where: Path) -> Job:
    params = record.parameters
    parent = parent_ref(bundle)
    if record.parent.document_sha256 != parent.document_sha256:
        raise GtkitError(
            f"record was made from document {record.parent.document_sha256[:12]}…, this parent's is "
            f"{parent.document_sha256[:12]}…", where)
    if len(params.pages) != len(sizes):
        raise GtkitError(f"record has {len(params.pages)} pages, the parent has {len(sizes)}", where)
    return Job(source=bundle.path, recipe=params.recipe, seed=record.seed, dpi=params.dpi,
               doc_id=degraded_doc_id(bundle.doc_id, params.recipe.name, record.seed), parent=parent,
               page_sizes=sizes, plans=[page.model_dump() for page in params.pages])


def _read_parent(folder: Path) -> Bundle:
    """A parent bundle with its field entries as parsed JSON, validated by the format models."""
    bundle = read_bundle(folder, raw_fields=True)
    assert bundle.field_check is not None
    bundle.field_check.result()
    return bundle


def _checked_parent(folder: Path) -> Bundle:
    """A parent bundle whose truth passes `gtkit check`'s content checks: a broken input is refused, not copied."""
    bundle = _read_parent(folder)
    problems = content_problems(bundle)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise GtkitError(f"the input fails gtkit check: {problems[0].pointer}: {problems[0].message}{more}",
                         problems[0].file)
    return bundle


def evidence_boxes(bundle: Bundle, sizes: list[tuple[float, float]]) -> tuple[list[np.ndarray], float]:
    """Every evidence box of the bundle by page ((n, 4) normalized arrays), and the height in points of its
    smallest word box (inf without boxes)."""
    per_page: list[list[Any]] = [[] for _ in sizes]
    heights: list[float] = []
    for f in bundle.field_dicts():
        for reading in f["readings"]:
            for ev in reading.get("evidence") or ():
                if ev.get("box") is None:
                    continue
                per_page[ev["page"] - 1].append(ev["box"])
                page_h = sizes[ev["page"] - 1][1]
                heights.extend((w[3] - w[1]) * page_h for w in ev.get("words") or [ev["box"]])
    arrays = [np.asarray(b, dtype=float).reshape(-1, 4) for b in per_page]
    return arrays, min(heights, default=float("inf"))


def _check_evidence_pages(bundle: Bundle, pages: int) -> None:
    for i, f in enumerate(bundle.raw_fields or ()):
        for reading in f["readings"]:
            for ev in reading.get("evidence") or ():
                if ev["page"] > pages:
                    raise GtkitError(f"/fields/{i} ({f['path']}) cites page {ev['page']} of a {pages}-page document",
                                     bundle.path / GT_NAME)


def prepare(
    source: Path,
    *,
    recipe: str | Path | Recipe | None = None,
    seed: int | None = None,
    dpi: int | None = None,
    replay: Path | None = None,
) -> tuple[list[Job], bool]:
    """Read and validate everything, draw every plan; nothing is written. Returns (jobs, source is a dataset)."""
    source = Path(source)
    if source.is_file():
        raise GtkitError("is a file; expected a bundle folder or a dataset folder", source)
    folders = [folder for _, folder in iter_bundle_dirs(source)]
    if not folders:
        raise GtkitError("the dataset holds no bundles", source)
    jobs: list[Job] = []
    if replay is not None:
        records = _replay_records(Path(replay))
        for folder in folders:
            b = _checked_parent(folder)
            prov = records.get(b.doc_id)
            if prov is None:
                raise GtkitError(f"no record for parent doc_id {b.doc_id!r}", replay)
            job = _replay_job(b, prov, open_parent_pdf(b.pdf_path), Path(replay))
            _check_evidence_pages(b, len(job.page_sizes))
            if recipe is not None and not isinstance(recipe, Recipe) and slug(str(recipe)) != slug(job.recipe.name) \
                    and Path(str(recipe)).stem != job.recipe.name:
                raise GtkitError(f"--recipe {recipe} disagrees with the record's recipe {job.recipe.name!r}", replay)
            if seed is not None and seed != job.seed:
                raise GtkitError(f"--seed {seed} disagrees with the record's seed {job.seed}", replay)
            if dpi is not None and dpi != job.dpi:
                raise GtkitError(f"--dpi {dpi} disagrees with the record's dpi {job.dpi}", replay)
            jobs.append(job)
        return jobs, is_dataset(source)
    if recipe is None:
        raise GtkitError("give --recipe (see `gtkit recipes`) or --replay")
    rec = recipe if isinstance(recipe, Recipe) else load_recipe(recipe)
    seed = 0 if seed is None else int(seed)
    if seed < 0:
        raise GtkitError(f"--seed must be a non-negative integer, got {seed}")
    dpi = DEFAULT_DPI if dpi is None else int(dpi)
    if not 36 <= dpi <= 1200:
        raise GtkitError(f"--dpi must be within [36, 1200], got {dpi}")
    for folder in folders:
        b = _checked_parent(folder)
        sizes = open_parent_pdf(b.pdf_path)
        if len(sizes) != b.gt.document.pages:
            raise GtkitError(f"gt.json says {b.gt.document.pages} pages, the PDF has {len(sizes)}", b.pdf_path)
        _check_evidence_pages(b, len(sizes))
        boxes, smallest_pt = evidence_boxes(b, sizes)
        check_legible(rec, dpi, smallest_pt, b.doc_id)
        plans = [plan_page(rec, seed, b.doc_id, i + 1, sizes[i], dpi, boxes[i]) for i in range(len(sizes))]
        jobs.append(Job(source=b.path, recipe=rec, seed=seed, dpi=dpi, doc_id=degraded_doc_id(b.doc_id, rec.name, seed),
                        parent=parent_ref(b), page_sizes=sizes, plans=plans))
    return jobs, is_dataset(source)


def _tasks(jobs: list[Job]) -> Iterator[tuple[str, int, int, dict[str, Any], str, int]]:
    for job in jobs:
        for i, plan in enumerate(job.plans):
            yield (str(job.pdf_path), i, job.dpi, plan, job.recipe.output.format, job.recipe.output.quality)


PRELOAD = ("gtkit.degrade.pipeline", "gtkit.degrade.stages")  # what the workers import once, in the fork server


def degraded_envelope(job: Job, parent: Bundle) -> tuple[Envelope, list[dict[str, Any]]]:
    """The child's (envelope, field entries): parent values, schema and tags, P1 added, provenance recorded;
    every field entry with its boxes moved (`transform_field_dict`).

    The parent's entries are transformed one by one in place, so a long document's entries exist once."""
    gt = parent.gt
    hs = [np.asarray(p["geometry"]["homography"], dtype=float) for p in job.plans]
    fields = parent.raw_fields if parent.raw_fields is not None else [f.model_dump(mode="json") for f in gt.fields]
    for i, f in enumerate(fields):
        fields[i] = transform_field_dict(f, hs)
    perception = list(gt.tags.perception)
    if PERCEPTION_TAG not in perception:
        perception.append(PERCEPTION_TAG)
    tags = Tags.model_validate({**gt.tags.model_dump(), "perception": perception})
    envelope = Envelope(
        doc_id=job.doc_id, page_sizes=job.page_sizes, schema=parent.schema, schema_version=gt.schema_.version,
        provenance={"pipeline": "degrade", "family": gt.provenance.family, "seed": job.seed,
                    "recipe": job.recipe.name, "parent": job.parent.model_dump(mode="json"),
                    "parameters": job.parameters()},
        tags=tags, expected=gt.expected)
    return envelope, fields


def write_jobs(jobs: list[Job], out: Path, *, dataset: bool, force: bool = False, workers: int = 1,
               pool: Pool | None = None, progress: Progress | None = None) -> list[Path]:
    """Render every page, in order, on the `pool` (or one of `workers` made for this call), and write the
    bundle (or dataset) atomically into `out`. A worker reads its page from the parent's PDF file."""
    from gtkit.degrade.pdfwrite import ImagePdfWriter

    total = sum(len(j.plans) for j in jobs)
    done = 0
    folders: list[Path] = []
    with contextlib.ExitStack() as stack:
        pool = stack.enter_context(pool_for(pool, workers, preload=PRELOAD))
        if dataset:
            data = stack.enter_context(write_dataset(Path(out), force=force))
        rendered = pool.map(render_page, _tasks(jobs))
        stack.callback(rendered.close)
        for job in jobs:
            bundle = data.bundle(job.doc_id) if dataset else stack.enter_context(write_bundle_output(out, force=force))
            writer = ImagePdfWriter(bundle.pdf_path)
            try:
                for page_no, (w, h) in enumerate(job.page_sizes, 1):
                    kind, image, drawn = next(rendered)
                    record_drawn(job.plans[page_no - 1], drawn, f"{job.doc_id} page {page_no}")
                    writer.add_page(w, h, kind, image)
                    done += 1
                    if progress is not None:
                        progress(done, total)
            finally:
                writer.close()
            parent = _read_parent(job.source)
            bundle.write(*degraded_envelope(job, parent))
            folders.append(Path(out) / job.doc_id if dataset else Path(out))
            del parent
    return folders


def degrade(
    source: Path,
    out: Path,
    *,
    recipe: str | Path | Recipe | None = None,
    seed: int | None = None,
    dpi: int | None = None,
    replay: Path | None = None,
    force: bool = False,
    workers: int = 1,
    pool: Pool | None = None,
    progress: Progress | None = None,
) -> list[Path]:
    """Degrade a bundle (or every bundle of a dataset) into `out`; returns the written bundle folders."""
    out, source = Path(out), Path(source)
    check_output(out, force=force, inputs=[source, replay], replaceable=is_gtkit_output)
    with pool_for(pool, workers, preload=PRELOAD) as pool:
        pool.warm()  # the workers' server starts while the parents are read and the plans drawn
        jobs, dataset = prepare(source, recipe=recipe, seed=seed, dpi=dpi, replay=replay)
        ids = [j.doc_id for j in jobs]
        if len(set(ids)) != len(ids):
            raise GtkitError("two bundles would get the same degraded doc_id", source)
        return write_jobs(jobs, out, dataset=dataset, force=force, pool=pool, progress=progress)


__all__ = ["DEFAULT_DPI", "Job", "apply_plan", "degrade", "degraded_envelope", "plan_page", "prepare",
           "rasterize", "render_page", "write_jobs"]
