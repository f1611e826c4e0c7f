"""The letter descriptor: from the up face in a picture to a fixed-length vector.

Steps, each chosen to remove one nuisance:

1. ``face_patch`` warps the up face's quadrilateral to a square with the handle at the top. The
   perspective warp undoes the foreshortening of a tilted face and the dreidel's rotation.
2. ``ink_map`` measures "ink" as the colour distance from the face's own colour (the median of a ring
   inside the face's edge). Distance has no sign, so dark-on-light, light-on-dark and any colour pair
   look alike; scaling by the patch's contrast removes exposure.
3. ``normalize_glyph`` centres and scales the ink by its moments (centroid and spread), so the
   letter's size and place on the face, and a loose face outline, do not matter.
4. ``describe`` is a histogram of oriented gradients on two grids plus a coarse ink thumbnail.

Rotations by quarter turns are exact on the normalized glyph (``np.rot90``), which the recognizer
uses for test-time rotation.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

#: side of the warped face patch (px)
PATCH = 48
#: side of the normalized glyph (px)
GLYPH = 24
#: the face quad is grown by this fraction on every side before warping (a loose quad still holds the letter)
MARGIN = 0.08
#: orientation bins of the gradient histograms (signed: ink is always "high")
BINS = 12
#: the face's noise floor is this many times the 40th percentile of its colour distances
NOISE_K = 3.0
#: an ink blob smaller than this share of the largest one is a speck of texture, not a stroke
SPECK = 0.03


@dataclass(frozen=True)
class Glyph:
    """A normalized letter image (``GLYPH`` x ``GLYPH``, ink in 0-1) and how much contrast it had."""

    image: np.ndarray
    contrast: float  # 95th-percentile colour distance from the face colour (CIE Lab units)
    mass: float  # share of the patch's centre that is ink


def face_patch(image_bgr: np.ndarray, quad: np.ndarray, size: int = PATCH) -> np.ndarray:
    """The face ``quad`` (handle-side corners first, see ``RestPose.face_quad``) as a square BGR patch."""
    q = np.asarray(quad, dtype=np.float64).reshape(4, 2)
    c = q.mean(axis=0)
    grown = c + (q - c) * (1 + 2 * MARGIN)
    # Reading only a window around the quad keeps this cheap on a full-resolution frame.
    x0, y0 = np.floor(grown.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(grown.max(axis=0)).astype(int) + 3
    h, w = image_bgr.shape[:2]
    x0, y0 = max(0, x0), max(0, y0)
    x1, y1 = min(w, x1), min(h, y1)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return np.zeros((size, size, 3), np.uint8)
    window = image_bgr[y0:y1, x0:x1]
    src = (grown - [x0, y0]).astype(np.float32)
    dst = np.float32([[0, 0], [size, 0], [size, size], [0, size]])
    m = cv2.getPerspectiveTransform(src, dst)
    # A face larger than the patch is smoothed first so that the warp does not alias.
    side = float(np.linalg.norm(grown[1] - grown[0]) + np.linalg.norm(grown[2] - grown[1])) / 2
    if side > 1.5 * size:
        window = cv2.GaussianBlur(window, (0, 0), 0.4 * side / size)
    return cv2.warpPerspective(window, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def felt_colours(image_bgr: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Lab colours (k x 3) of the felt beside the body's long sides, where neither tip nor handle lies."""
    q = np.asarray(quad, dtype=np.float64).reshape(4, 2)
    h, w = image_bgr.shape[:2]
    out = []
    for a, b, a_in, b_in in ((q[0], q[3], q[1], q[2]), (q[1], q[2], q[0], q[3])):
        pts = []
        for f in (0.2, 0.35, 0.5, 0.65, 0.8):
            edge = a + (b - a) * f
            inner = a_in + (b_in - a_in) * f
            pts.append(edge + (edge - inner) * 0.45)
        px = np.array([image_bgr[int(np.clip(y, 0, h - 1)), int(np.clip(x, 0, w - 1))] for x, y in pts], np.uint8)
        out.append(np.median(px, axis=0))
    lab = cv2.cvtColor(np.array([out], np.uint8), cv2.COLOR_BGR2LAB)[0].astype(np.float32)
    lab[:, 0] *= 100.0 / 255.0
    return lab


def _lab_dist(lab: np.ndarray, ref: np.ndarray) -> np.ndarray:
    d = lab - ref
    d[..., 0] *= 0.7  # shading changes lightness across a face more than it changes hue
    return np.sqrt((d * d).sum(axis=2))


def ink_map(patch_bgr: np.ndarray, felt_lab: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Ink strength (0-1, float32) of a face patch, and the patch's contrast in Lab units.

    Ink is what differs from the face's colour; with ``felt_lab`` (colours of the felt around the
    dreidel) whatever looks like the felt is not ink either, so felt seen past a loose face outline
    does not pass for a letter stroke. The patch's margin (outside the face quad) never counts.
    """
    lab = cv2.cvtColor(patch_bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    lab[..., 0] *= 100.0 / 255.0
    n = lab.shape[0]
    m = int(round(n * MARGIN / (1 + 2 * MARGIN)))  # where the face's edge is in the patch
    ring_w = max(2, int(round(n * 0.12)))
    ring = np.zeros((n, n), bool)
    ring[m:n - m, m:n - m] = True
    ring[m + ring_w:n - m - ring_w, m + ring_w:n - m - ring_w] = False
    face = np.median(lab[ring], axis=0)
    dist = _lab_dist(lab, face)
    if felt_lab is not None:
        for felt in felt_lab:
            if float(np.linalg.norm(felt - face)) > 12.0:  # only a felt that differs from the face tells us anything
                dist = np.minimum(dist, 1.5 * _lab_dist(lab, felt))
    inside = np.zeros((n, n), bool)
    inside[m:n - m, m:n - m] = True
    dist[~inside] = 0.0
    _drop_edge_bands(dist, m, threshold=max(0.5 * float(np.percentile(dist[inside], 95)), 8.0))
    centre = dist[m:n - m, m:n - m]
    contrast = float(np.percentile(centre, 95))
    scale = max(contrast, 10.0)
    # The face's own texture and noise (wood grain, sensor noise, soft shading) sit just above zero
    # over the bare face: cut them off at the face's noise floor, so they do not pass for faint
    # strokes and pull the glyph's moments. A bold letter may cover half the face, so the floor
    # comes from the lowest 40% of the distances (bare face for any letter): for noise-like
    # distances NOISE_K times their 40th percentile lies near their 99th.
    floor = NOISE_K * float(np.percentile(centre, 40))
    low = float(np.clip(floor, 0.3 * scale, 0.5 * scale))
    ink = np.clip((dist - low) / (0.5 * scale), 0.0, 1.0).astype(np.float32)
    _drop_stray_blobs(ink, m)
    return ink, contrast


def _drop_stray_blobs(ink: np.ndarray, m: int) -> None:
    """Zero ink blobs that are not part of the letter (in place).

    The letter sits in the face's middle. A blob that touches the face's edge without reaching the
    middle half is the face's bevel, a neighbour's sliver or felt; a speck far smaller than the
    letter's main stroke is texture or noise.
    """
    n = ink.shape[0]
    strong = (ink > 0.25).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(strong, connectivity=8)
    if count <= 1:
        return
    lo, hi = m, n - m
    q = (hi - lo) // 4
    mid = np.zeros((n, n), bool)
    mid[lo + q:hi - q, lo + q:hi - q] = True
    rim = np.zeros((n, n), bool)
    rim[lo:hi, lo:hi] = True
    rim[lo + 2:hi - 2, lo + 2:hi - 2] = False
    areas = stats[1:, cv2.CC_STAT_AREA]
    biggest = float(areas.max())
    for i in range(1, count):
        blob = labels == i
        touches = bool((blob & rim).any())
        central = bool((blob & mid).any())
        if (touches and not central) or stats[i, cv2.CC_STAT_AREA] < SPECK * biggest:
            ink[blob] = 0.0


def _drop_edge_bands(dist: np.ndarray, m: int, threshold: float) -> None:
    """Zero bands that run across the whole face from its edge inward (in place).

    A loose face outline takes in the base of the tip, the handle's collar or a neighbour face's
    sliver: each shows as a solid bar along one edge of the face. A letter's strokes leave a gap
    of face colour before the edge, so scanning from each edge inward stops at the letter.
    """
    n = dist.shape[0]
    lo, hi = m, n - m
    depth = max(1, int(0.25 * (hi - lo)))
    ink = dist > threshold
    for axis in (0, 1):
        cover = ink[lo:hi, lo:hi].mean(axis=1 - axis)  # per row (axis 0) or per column (axis 1)
        for order in (range(depth), range(hi - lo - 1, hi - lo - 1 - depth, -1)):
            for i in order:
                if cover[i] < 0.6:
                    break
                if axis == 0:
                    dist[lo + i, :] = 0.0
                else:
                    dist[:, lo + i] = 0.0


def normalize_glyph(ink: np.ndarray, contrast: float, size: int = GLYPH) -> Glyph:
    """Centre and scale the ink by its moments into a ``size`` x ``size`` glyph."""
    n = ink.shape[0]
    # Weight the centre: the letter sits on the face, the patch's rim may show felt or a neighbour face.
    r = (np.arange(n) + 0.5) / n * 2 - 1
    edge = 1.0 / (1.0 + 2.0 * MARGIN)  # the face's outline, in the same units
    taper = np.clip((edge - np.abs(r)) / 0.25, 0.0, 1.0)
    w = ink * np.outer(taper, taper)
    m00 = float(w.sum())
    mass = m00 / float(n * n)
    if m00 < 1e-3:
        return Glyph(np.zeros((size, size), np.float32), contrast, 0.0)
    idx = np.arange(n, dtype=np.float64) + 0.5
    wy, wx = w.sum(axis=1), w.sum(axis=0)
    cy, cx = float(wy @ idx) / m00, float(wx @ idx) / m00
    sy = np.sqrt(float(wy @ (idx - cy) ** 2) / m00)
    sx = np.sqrt(float(wx @ (idx - cx) ** 2) / m00)
    half = max(2.2 * max(sx, sy), 3.0)
    k = size / (2 * half)
    m = np.float32([[k, 0, size / 2 - k * cx], [0, k, size / 2 - k * cy]])
    src = ink if k >= 0.7 else cv2.GaussianBlur(ink, (0, 0), 0.4 / k)
    out = cv2.warpAffine(src, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return Glyph(out.astype(np.float32), contrast, mass)


def glyph_from_face(image_bgr: np.ndarray, quad: np.ndarray) -> Glyph:
    """The whole chain: face quad in a picture -> normalized glyph."""
    ink, contrast = ink_map(face_patch(image_bgr, quad), felt_colours(image_bgr, quad))
    return normalize_glyph(ink, contrast)


def _cell_hist(mag: np.ndarray, ang: np.ndarray, cells: int) -> np.ndarray:
    n = mag.shape[0]
    pos = ang / (2 * np.pi) * BINS
    lo = np.floor(pos).astype(int) % BINS
    hi = (lo + 1) % BINS
    frac = (pos - np.floor(pos)).astype(np.float32)
    cell = n // cells
    cy = np.minimum(np.arange(n) // cell, cells - 1)
    cid = (cy[:, None] * cells + cy[None, :]).ravel()
    hist = np.zeros(cells * cells * BINS, np.float32)
    np.add.at(hist, cid * BINS + lo.ravel(), (mag * (1 - frac)).ravel())
    np.add.at(hist, cid * BINS + hi.ravel(), (mag * frac).ravel())
    return hist


def describe(glyph: np.ndarray) -> np.ndarray:
    """Descriptor of a normalized glyph: oriented-gradient histograms on 4x4 and 3x3 grids + an 8x8 thumbnail."""
    g = cv2.GaussianBlur(glyph, (0, 0), 0.8)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.sqrt(gx * gx + gy * gy)
    ang = np.arctan2(gy, gx) % (2 * np.pi)
    parts = []
    for cells in (4, 3):
        h = _cell_hist(mag, ang, cells)
        h /= np.linalg.norm(h) + 1e-6
        h = np.minimum(h, 0.2)  # "Hys" clipping: no single strong edge dominates
        h /= np.linalg.norm(h) + 1e-6
        parts.append(h)
    thumb = cv2.resize(glyph, (8, 8), interpolation=cv2.INTER_AREA).ravel()
    parts.append(thumb / (np.linalg.norm(thumb) + 1e-6))
    return np.concatenate(parts).astype(np.float32)


def describe_rotations(glyph: np.ndarray) -> np.ndarray:
    """Descriptors of the glyph turned by 0, 1, 2, 3 quarter turns counter-clockwise (4 x D)."""
    return np.stack([describe(np.ascontiguousarray(np.rot90(glyph, k))) for k in range(4)])


FEATURE_DIM = 16 * BINS + 9 * BINS + 64
