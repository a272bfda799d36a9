"""Closed-form geometry of degrade: quads are H applied to box corners, and H^-1 brings them back."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gtkit.degrade.boxes import COORD_DECIMALS, stored_evidence, transform_evidence
from gtkit.format.models import Evidence
from gtkit.geometry import (
    apply_homography,
    box_corners,
    homography_from_points,
    page_homography,
    pixel_homography,
    transform_boxes,
    transform_quad,
)

unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@st.composite
def boxes(draw):  # type: ignore[no-untyped-def]
    x0, x1 = sorted((draw(unit), draw(unit)))
    y0, y1 = sorted((draw(unit), draw(unit)))
    if x1 - x0 < 1e-4 or y1 - y0 < 1e-4:
        x1, y1 = min(x0 + 0.01, 1.0), min(y0 + 0.01, 1.0)
        x0, y0 = x1 - 0.01, y1 - 0.01
    return (x0, y0, x1, y1)


@st.composite
def homographies(draw):  # type: ignore[no-untyped-def]
    w = draw(st.floats(200, 2000))
    h = draw(st.floats(200, 2000))
    rot = draw(st.floats(-15, 15))
    scale = draw(st.floats(0.5, 1.2))
    shift = [[draw(st.floats(-0.08, 0.08)), draw(st.floats(-0.08, 0.08))] for _ in range(4)]
    return page_homography(w, h, rot, shift, scale)


@settings(max_examples=300, deadline=None)
@given(h=homographies(), box=boxes())
def test_quad_is_h_of_corners_and_inverse_brings_it_back(h, box):  # type: ignore[no-untyped-def]
    ev = Evidence(page=1, box=box, words=[box], quote="x")
    moved = transform_evidence(ev, h)
    expected_quad = apply_homography(h, box_corners(box))
    if moved.quad is None:  # pushed wholly off the page: nothing to compare
        return
    quad = np.asarray(moved.quad)
    np.testing.assert_allclose(quad, expected_quad, rtol=0, atol=1e-12)
    back = apply_homography(np.linalg.inv(h), quad)
    np.testing.assert_allclose(back, box_corners(box), rtol=0, atol=1e-9)
    # the box is the clamped axis-aligned box around the quad
    bx = np.clip([quad[:, 0].min(), quad[:, 1].min(), quad[:, 0].max(), quad[:, 1].max()], 0, 1)
    np.testing.assert_allclose(moved.box, bx, rtol=0, atol=1e-15)
    # each word is the box around its transformed corners
    np.testing.assert_allclose(moved.words[0], bx, rtol=0, atol=1e-15)


@settings(max_examples=100, deadline=None)
@given(h1=homographies(), h2=homographies(), box=boxes())
def test_transforms_compose(h1, h2, box):  # type: ignore[no-untyped-def]
    q1, _ = transform_boxes(h1, [box])
    q12, _ = transform_quad(h2, q1[0])
    direct = apply_homography(h2 @ h1, box_corners(box))
    np.testing.assert_allclose(q12, direct, rtol=0, atol=1e-9)


def test_page_homography_parts_have_their_physical_meaning():
    w, h = 612.0, 792.0
    corners = box_corners((0, 0, 1, 1))
    # nothing asked: the identity
    np.testing.assert_allclose(page_homography(w, h), np.eye(3), atol=1e-15)
    # corner shifts alone move each page corner by exactly its shift
    shift = [[0.01, -0.02], [0.0, 0.005], [-0.01, 0.0], [0.002, 0.003]]
    np.testing.assert_allclose(apply_homography(page_homography(w, h, 0.0, shift), corners), corners + shift,
                               atol=1e-12)
    # a rotation turns every edge by the angle and keeps its length in points; the centre stays put
    pts = apply_homography(page_homography(w, h, 3.0), corners) * [w, h]
    top, left = pts[1] - pts[0], pts[3] - pts[0]
    assert np.degrees(np.arctan2(top[1], top[0])) == pytest.approx(3.0, abs=1e-9)
    assert np.hypot(*top) == pytest.approx(w, abs=1e-9) and np.hypot(*left) == pytest.approx(h, abs=1e-9)
    np.testing.assert_allclose(pts.mean(axis=0), [w / 2, h / 2], atol=1e-9)
    # a scale shrinks every distance by its factor about the centre
    pts = apply_homography(page_homography(w, h, 0.0, None, 0.95), corners) * [w, h]
    np.testing.assert_allclose(np.hypot(*(pts[2] - pts[0])), 0.95 * np.hypot(w, h), atol=1e-9)
    np.testing.assert_allclose(pts.mean(axis=0), [w / 2, h / 2], atol=1e-9)


def test_homography_from_points_solves_exactly():
    src = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)
    dst = np.array([[0.1, 0.05], [0.9, 0.0], [1.0, 0.95], [0.02, 1.0]])
    hm = homography_from_points(src, dst)
    np.testing.assert_allclose(apply_homography(hm, src), dst, atol=1e-14)
    assert hm[2, 2] == 1.0


def test_pixel_homography_matches_pixel_centres():
    hm = page_homography(612, 792, 2.0, [[0.01, 0], [0, 0.01], [0, 0], [0.005, 0]])
    w, h = 1700, 2200
    hp = pixel_homography(hm, w, h)
    idx = np.array([[0, 0], [w - 1, 0], [123, 456], [w - 1, h - 1]], dtype=float)
    via_norm = apply_homography(hm, (idx + 0.5) / [w, h]) * [w, h] - 0.5
    np.testing.assert_allclose(apply_homography(hp, idx), via_norm, atol=1e-9)


def test_page_only_evidence_is_unchanged():
    ev = Evidence(page=2, quote="x")
    assert transform_evidence(ev, page_homography(612, 792, 2.0)) == ev


@settings(max_examples=300, deadline=None)
@given(h=homographies(), box=boxes())
def test_stored_evidence_rounds_and_keeps_the_box_around_its_quad(h, box):  # type: ignore[no-untyped-def]
    exact = transform_evidence(Evidence(page=1, box=box, words=[box], quote="x", verified=True), h)
    stored = stored_evidence(exact)
    if exact.quad is None:
        assert stored == exact
        return
    step = 0.5 * 10.0**-COORD_DECIMALS + 1e-15
    coords = [*stored.box, *(v for p in stored.quad for v in p), *(v for w in stored.words or () for v in w)]
    assert all(v == round(v, COORD_DECIMALS) for v in coords)
    np.testing.assert_allclose(stored.quad, exact.quad, rtol=0, atol=step)
    np.testing.assert_allclose(stored.box, exact.box, rtol=0, atol=step)
    q = np.asarray(stored.quad)
    assert stored.box == tuple(np.clip([*q.min(0), *q.max(0)], 0, 1))  # what `gtkit check` verifies
    assert stored.verified and stored.quote == "x"


def test_a_box_rounding_leaves_empty_is_dropped():
    tiny = (0.5, 0.5, 0.5 + 4e-7, 0.6)
    ev = stored_evidence(Evidence(page=1, box=(0.1, 0.1, 0.2, 0.2), words=[tiny, (0.1, 0.1, 0.2, 0.2)],
                                  quad=((0.5, 0.5), (0.5000004, 0.5), (0.5000004, 0.6), (0.5, 0.6))))
    assert ev.box is None and ev.quad is None and ev.words == [(0.1, 0.1, 0.2, 0.2)]
