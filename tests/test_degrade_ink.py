"""Ink-inside-box: each word's ink, pushed through a recipe's page transform, lies inside its moved box.

The word ink comes from the clean raster (dark pixels near the word's box); it is warped with the very
function the pipeline uses on the page (`ops.warp`, same homography), and compared with the word box the
pipeline writes (H applied to the corners, then the axis-aligned box). A second check runs the full
recipe on the page and asks that the degraded page is dark where the warped ink is.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_degrade_support import make_clean_bundle

from gtkit.degrade import ops
from gtkit.degrade.boxes import transform_evidence
from gtkit.degrade.pipeline import apply_plan, plan_page, rasterize
from gtkit.degrade.recipe import list_recipes, load_recipe
from gtkit.format.bundle import read_bundle
from gtkit.format.models import Evidence

DPI = 150
SEEDS = (1, 7, 23)
RECIPES = sorted(dict(list_recipes()))


@pytest.fixture(scope="module")
def page(tmp_path_factory):  # type: ignore[no-untyped-def]
    folder = make_clean_bundle(tmp_path_factory.mktemp("ink") / "clean", n_lines=12)
    b = read_bundle(folder)
    words = [w for f in b.gt.fields for r in f.readings for e in r.evidence if e.page == 1 for w in (e.words or [])]
    size_pt = tuple(b.gt.document.page_sizes[0])
    w_px, h_px = round(size_pt[0] * DPI / 72), round(size_pt[1] * DPI / 72)
    gray = rasterize(str(b.pdf_path), 0, (w_px, h_px))
    labels = np.zeros(gray.shape, dtype=np.float32)
    ink = gray < 160
    for k, (x0, y0, x1, y1) in enumerate(words, 1):
        # pixels whose centre is within the word box grown by 2 px: the word's ink (and proof it was inside)
        a0, a1 = int(x0 * w_px) - 2, int(np.ceil(x1 * w_px)) + 2
        b0, b1 = int(y0 * h_px) - 2, int(np.ceil(y1 * h_px)) + 2
        sub = ink[b0:b1, a0:a1] & (labels[b0:b1, a0:a1] == 0)
        labels[b0:b1, a0:a1][sub] = k
    return b, words, size_pt, gray, labels


def _inside(box, w_px, h_px):  # type: ignore[no-untyped-def]
    """Pixel index ranges whose centres (i + 1/2) / W lie inside the normalized box."""
    x0, y0, x1, y1 = box
    i0, i1 = int(np.ceil(x0 * w_px - 0.5)), int(np.floor(x1 * w_px - 0.5)) + 1
    j0, j1 = int(np.ceil(y0 * h_px - 0.5)), int(np.floor(y1 * h_px - 0.5)) + 1
    return max(i0, 0), max(i1, 0), max(j0, 0), max(j1, 0)


def _shares(labels, boxes, w_px, h_px):  # type: ignore[no-untyped-def]
    lab = labels.astype(np.int64)
    total = np.bincount(lab.ravel(), minlength=len(boxes) + 1)
    shares = []
    for k, box in enumerate(boxes, 1):
        i0, i1, j0, j1 = _inside(box, w_px, h_px)
        inside = int(np.count_nonzero(lab[j0:j1, i0:i1] == k))
        assert total[k] > 0, f"word {k} has no ink"
        shares.append(inside / total[k])
    return np.array(shares)


def test_clean_ink_is_inside_the_clean_boxes(page):  # type: ignore[no-untyped-def]
    _b, words, _size, gray, labels = page
    shares = _shares(labels, words, gray.shape[1], gray.shape[0])
    assert shares.min() == 1.0


@pytest.mark.parametrize("recipe", RECIPES)
def test_warped_ink_stays_inside_moved_word_boxes(page, recipe):  # type: ignore[no-untyped-def]
    b, words, size_pt, gray, labels = page
    rec = load_recipe(recipe)
    h_px, w_px = gray.shape
    for seed in SEEDS:
        plan = plan_page(rec, seed, b.doc_id, 1, size_pt, DPI)
        assert plan["size_px"] == [w_px, h_px]
        hm = np.asarray(plan["geometry"]["homography"])
        moved = [transform_evidence(Evidence(page=1, box=w, words=[w]), hm).words[0] for w in words]
        warped = ops.warp(labels, hm, 0, nearest=True)
        shares = _shares(warped, moved, w_px, h_px)
        assert shares.min() >= 0.99, (recipe, seed, int(shares.argmin()), float(shares.min()))

        # bilinear warp of the ink mask (what the page pixels get): mass inside the union of moved boxes
        mass = ops.warp((labels > 0).astype(np.float32), hm, 0)
        inside = np.zeros_like(mass, dtype=bool)
        for box in moved:
            i0, i1, j0, j1 = _inside(box, w_px, h_px)
            inside[j0:j1, i0:i1] = True
        assert mass[inside].sum() / mass.sum() >= 0.99

        # the degraded page itself is dark where the warped ink is, light elsewhere in the boxes
        out, _drawn = apply_plan(gray, plan, DPI)
        assert out.shape[:2] == gray.shape
        g = out if out.ndim == 2 else out.mean(axis=2)
        ink_px = warped > 0
        paper_px = inside & ~ops.blur((ink_px * 255).astype(np.uint8), 2.0).astype(bool)
        assert g[ink_px].mean() + 40 < g[paper_px].mean(), (recipe, seed, g[ink_px].mean(), g[paper_px].mean())


ALBU_TRANSFORMS = ("ISONoise", "GaussNoise", "ImageCompression", "Downscale", "RandomBrightnessContrast")
ALBU_LOOSE = {"ISONoise", "GaussNoise", "Downscale"}  # pixel noise, or a resampling (sub-pixel shifts)
ALBU_ARGS = {"Downscale": {"scale_range": [0.75, 0.9], "interpolation_pair": {"downscale": 3, "upscale": 1}}}


def _stage_params():  # type: ignore[no-untyped-def]
    from gtkit.degrade.stages import STAGES

    own = [(name, {}) for name in STAGES if name != "albumentations"]
    return own + [("albumentations", {"transform": t, **ALBU_ARGS.get(t, {})}) for t in ALBU_TRANSFORMS]


STAGE_PARAMS = _stage_params()


def test_photometric_stages_do_not_move_ink(page):  # type: ignore[no-untyped-def]
    """Each stage alone, on the clean page: the darkness-weighted centre of every word stays put (< 0.5 px)."""
    from gtkit.degrade.stages import STAGES
    from gtkit.rng import generator

    _b, words, _size, gray, _labels = page
    h_px, w_px = gray.shape
    boxes = [_inside(w, w_px, h_px) for w in words[:40]]

    def centres(img):  # type: ignore[no-untyped-def]
        g = img if img.ndim == 2 else img.mean(axis=2)
        d = 255.0 - g.astype(np.float64)
        out = []
        for i0, i1, j0, j1 in boxes:
            sub = d[j0:j1, i0:i1]
            sub = np.where(sub > 0.35 * sub.max(), sub, 0.0)  # ink, not light noise
            ys, xs = np.mgrid[j0:j1, i0:i1]
            out.append((float((sub * xs).sum() / sub.sum()), float((sub * ys).sum() / sub.sum())))
        return np.array(out)

    ref = centres(gray)
    quiet = {"speckle", "dust", "gaussian_noise", "streaks", "threshold"}  # pixel noise or 1-bit: looser
    for name, params in STAGE_PARAMS:
        cls = STAGES[name]
        drawn = cls(cls.Params.model_validate(params)).sample(generator(0, "stage-test", name))
        out, _ = cls.run(gray, drawn, DPI)
        shift = np.abs(centres(out) - ref).max(axis=1)
        key = params.get("transform", name)
        limit = 1.5 if name in quiet or key in ALBU_LOOSE else 0.5
        assert np.median(shift) < limit / 2 and shift.max() < limit * 3, \
            (key, float(np.median(shift)), float(shift.max()))
