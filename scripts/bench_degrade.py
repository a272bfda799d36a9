"""Per-page wall time of every degrade recipe at 200 and 300 dpi, next to a floor measured in the same run.

The floor is the least any scan simulation does per page: rasterize the page, one `warpPerspective`
(rotation and perspective composed), Gaussian noise (float normals), an Otsu threshold, and encode/write
the result (PNG via cv2.imencode, written to a file). A recipe's time is the whole per-page path of
`gtkit degrade`: plan (draw), rasterize, warp, stages, deterministic encoding, and the page written into
the output PDF. Floor and recipe pages alternate, and each ratio is the recipe's median over the median
of the floor pages timed next to it (the machine may be shared); the target is <= 2x.

A recipe with `albumentations` stages is also timed against its own floor: the bare floor plus the same
albumentations transforms applied by albumentations alone to the same page (as a user of albumentations
would call them, in one `A.Compose`), so its ratio shows what gtkit adds around the peer's own cost.

If `augraphy` is importable (an optional bench extra, never a gtkit dependency), its default pipeline
runs on the same page as a peer.

    python scripts/bench_degrade.py [--reps 7] [--dpi 200 300] [--recipes fax aging] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
import pymupdf

from gtkit.degrade.pdfwrite import ImagePdfWriter
from gtkit.degrade.pipeline import plan_page, raster_size, render_page
from gtkit.degrade.recipe import list_recipes, load_recipe


def make_page(path: Path) -> None:
    """A dense letter page: 50 lines of small Helvetica text in two columns (about 900 words)."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    words = ["invoice", "total", "amount", "due", "account", "number", "remittance", "12,450.00", "2026-03-28",
             "SKU-1042", "widget", "steel", "large", "qty", "14", "net", "30", "customer", "Acme", "Industrial",
             "Supply", "Co.", "Springfield", "IL", "62701"]
    k = 0
    for row in range(50):
        for col in range(2):
            line = " ".join(words[(k + i) % len(words)] for i in range(9))
            k += 5
            page.insert_text((36 + col * 282, 40 + row * 14.6), line, fontsize=7.5, fontname="helv")
    doc.save(path, deflate=True, no_new_id=True)


def time_floor(pdf: Path, dpi: int, reps: int, out_dir: Path) -> list[float]:
    times = []
    doc = pymupdf.open(pdf)
    rng = np.random.default_rng(0)
    for r in range(reps):
        t0 = time.perf_counter()
        page = doc[0]
        w, h = raster_size(page.rect.width, page.rect.height, dpi)
        pix = page.get_pixmap(matrix=pymupdf.Matrix(w / page.rect.width, h / page.rect.height),
                              colorspace=pymupdf.csGRAY, alpha=False)
        img = np.frombuffer(pix.samples, np.uint8).reshape(pix.height, pix.stride)[:, : pix.width]
        m = cv2.getRotationMatrix2D((w / 2, h / 2), 2.0, 1.0)
        hm = np.vstack([m, [2e-6, -1e-6, 1.0]])
        warped = cv2.warpPerspective(img, hm, (w, h), flags=cv2.INTER_LINEAR, borderValue=255)
        noise = (rng.standard_normal(warped.shape, dtype=np.float32) * 8.0).astype(np.int16)
        noisy = cv2.add(warped.astype(np.int16), noise).clip(0, 255).astype(np.uint8)
        _, binary = cv2.threshold(noisy, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        _ok, buf = cv2.imencode(".png", binary)
        (out_dir / f"floor-{r}.png").write_bytes(buf.tobytes())
        times.append(time.perf_counter() - t0)
    return times


def time_recipe(pdf: Path, name: str, dpi: int, reps: int, out_dir: Path, seed: int = 0) -> list[float]:
    rec = load_recipe(name)
    doc = pymupdf.open(pdf)
    size = (doc[0].rect.width, doc[0].rect.height)
    times = []
    writer = ImagePdfWriter(out_dir / f"{name}-{dpi}.pdf")
    for page_seed in range(seed, seed + reps):
        t0 = time.perf_counter()
        plan = plan_page(rec, page_seed, "bench", 1, size, dpi)
        kind, data, _drawn = render_page((str(pdf), 0, dpi, plan, rec.output.format, rec.output.quality))
        writer.add_page(size[0], size[1], kind, data)
        times.append(time.perf_counter() - t0)
    writer.close()
    return times


def albumentations_transforms(name: str) -> list[tuple[str, dict]]:
    """The (transform, arguments) of a recipe's albumentations stages, in order."""
    rec = load_recipe(name)
    return [(e.params.transform, dict(e.params.args)) for e in rec.stages if e.stage == "albumentations"]


def time_albumentations_alone(pdf: Path, transforms: list[tuple[str, dict]], dpi: int, reps: int) -> list[float]:
    """The transforms in one A.Compose on the rasterized RGB page, nothing else."""
    import albumentations as A

    doc = pymupdf.open(pdf)
    pix = doc[0].get_pixmap(dpi=dpi, alpha=False)
    img = np.frombuffer(pix.samples, np.uint8).reshape(pix.height, pix.width, pix.n)[:, :, :3].copy()
    args = [{k: tuple(v) if isinstance(v, list) else v for k, v in a.items()} for _, a in transforms]
    compose = A.Compose([getattr(A, t)(**a, p=1.0) for (t, _), a in zip(transforms, args)], seed=0)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        compose(image=img)
        times.append(time.perf_counter() - t0)
    return times


def time_augraphy(pdf: Path, dpi: int, reps: int) -> list[float] | None:
    try:
        from augraphy import default_augraphy_pipeline  # type: ignore[import-not-found]  # optional, rarely installed
    except Exception:  # optional peer
        return None
    doc = pymupdf.open(pdf)
    pix = doc[0].get_pixmap(dpi=dpi)
    img = np.frombuffer(pix.samples, np.uint8).reshape(pix.height, pix.width, pix.n)[:, :, :3].copy()
    times = []
    for _ in range(reps):
        pipeline = default_augraphy_pipeline()
        t0 = time.perf_counter()
        pipeline(img)
        times.append(time.perf_counter() - t0)
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=7, help="pages (seeds) per recipe and dpi; the median is reported")
    ap.add_argument("--dpi", type=int, nargs="+", default=[200, 300])
    ap.add_argument("--recipes", nargs="+", default=None)
    ap.add_argument("--json", type=Path, default=None, help="also write the figures as JSON")
    args = ap.parse_args()
    names = args.recipes or [n for n, _ in list_recipes()]
    results: dict[str, dict[str, float]] = {}
    ratios: dict[str, dict[str, float]] = {}
    peer_cost: dict[str, dict[str, list[float]]] = {}  # floor + albumentations alone, per recipe that uses it
    with tempfile.TemporaryDirectory() as tmp:
        tmpd = Path(tmp)
        pdf = tmpd / "page.pdf"
        make_page(pdf)
        for name in names[:1]:  # warm-up: imports, caches, first-call costs
            time_recipe(pdf, name, 100, 2, tmpd)
        time_floor(pdf, 100, 2, tmpd)
        for dpi in args.dpi:
            floors: list[float] = []
            for name in names:
                # alternate floor and recipe page by page, so that load on a shared machine hits both alike;
                # each recipe's ratio is against the floor pages measured next to it
                fl, rc = [], []
                for seed in range(args.reps):
                    fl += time_floor(pdf, dpi, 1, tmpd)
                    rc += time_recipe(pdf, name, dpi, 1, tmpd, seed=seed)
                    if albu := albumentations_transforms(name):
                        fl[-1] += time_albumentations_alone(pdf, albu, dpi, 1)[0]
                        peer_cost.setdefault(name, {}).setdefault(str(dpi), []).append(fl[-1])
                if name not in peer_cost:
                    floors += fl
                results.setdefault(name, {})[str(dpi)] = statistics.median(rc)
                ratios.setdefault(name, {})[str(dpi)] = statistics.median(rc) / statistics.median(fl)
            results.setdefault("floor", {})[str(dpi)] = statistics.median(floors)
            ratios.setdefault("floor", {})[str(dpi)] = 1.0
            aug = time_augraphy(pdf, dpi, max(1, min(args.reps, 3)))
            if aug is not None:
                results.setdefault("augraphy (default pipeline)", {})[str(dpi)] = statistics.median(aug)
                ratios.setdefault("augraphy (default pipeline)", {})[str(dpi)] = (
                    statistics.median(aug) / results["floor"][str(dpi)])

    head = f"{'recipe':<28}" + "".join(f"{f'{d} dpi ms':>12}{'x floor':>9}" for d in args.dpi)
    print(head)
    print("-" * len(head))
    worst = 0.0
    order = ["floor", *[n for n in results if n != "floor"]]
    for name in order:
        row = results[name]
        cells = ""
        for d in args.dpi:
            t = row.get(str(d))
            if t is None:
                cells += f"{'-':>12}{'-':>9}"
                continue
            ratio = ratios[name][str(d)]
            if name not in ("floor",) and not name.startswith("augraphy"):
                worst = max(worst, ratio)
            cells += f"{t * 1000:>12.1f}{ratio:>9.2f}"
        print(f"{name:<28}{cells}{'  (floor + albumentations alone)' if name in peer_cost else ''}")
    if not any(n.startswith("augraphy") for n in results):
        print("augraphy: not installed (optional peer, `pip install augraphy` to compare)")
    print(f"worst recipe / floor: {worst:.2f} (target <= 2.00)")
    if args.json:
        args.json.write_text(json.dumps({"seconds_per_page_median": results, "ratio_to_floor": ratios,
                                         "worst_ratio": worst}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
