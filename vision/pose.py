"""Find a dreidel lying at rest in an overhead picture: where it is, which way it points, its up face.

Method (explainable, NumPy/OpenCV only):

1. **Segment against the felt.** With an empty-tray picture (``background_bgr``) the foreground is the
   colour distance to it. Without one, the felt colour is estimated locally by a coarse median
   (the dreidel is small next to the tray, so the median ignores it), which also follows lighting
   gradients. Shadows (darker, same hue as the felt) are not foreground. The threshold adapts to the
   picture's noise (median + k * MAD of the distance).
2. **Pick the dreidel** among the blobs: dreidel-sized, elongated, not cut by the picture's edge or
   the tray mask.
3. **Measure it** on the full-resolution mask: the principal axis, and the width profile along it.
   The body is the wide middle. The *tip* end tapers gradually from the body's width to a point,
   while the *handle* is a narrow stem right after the body: the end whose first part is wider is the tip.
4. **The up face** is the body section; when the body lies tilted, a darker sliver of the next face
   shows along one long side, and a colour step across the body cuts it off.

Coordinates are pixels, x to the right and y down. Angles are image angles in degrees,
``atan2(dy, dx)`` in [0, 360): 0 points right, 90 points down (clockwise on screen).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

#: the dreidel's expected length in the picture (DESIGN.md: about 40-150 px); blobs far outside are ignored
MIN_LENGTH_PX = 22.0
MAX_LENGTH_PX = 240.0
#: segmentation works on a copy no larger than this (longest side), then refines at full resolution
_WORK_SIDE = 400


@dataclass(frozen=True)
class RestPose:
    """Where a resting dreidel lies in a picture.

    ``axis_deg`` is the image angle of the vector from the tip to the handle (``atan2(dy, dx)``
    in degrees, 0 = right, 90 = down). ``face_quad`` is the up face as 4 corners ordered so that,
    mapped to a square's top-left, top-right, bottom-right, bottom-left, the handle is at the top
    (so the letter, whose top points to the handle, reads upright). ``upside_down`` is None: a
    resting dreidel lies on its side, so a still cannot tell how it spun. ``confidence`` (0-1)
    says how sure the tip/handle decision and the segmentation are.
    """

    center: tuple[float, float]
    axis_deg: float
    length_px: float
    tip: tuple[float, float]
    handle: tuple[float, float]
    face_quad: np.ndarray | None
    upside_down: bool | None
    confidence: float
    width_px: float = 0.0

    def flipped(self) -> RestPose:
        """The same pose with tip and handle swapped (when the letter shows the handle is the other way)."""
        quad = None if self.face_quad is None else self.face_quad[[2, 3, 0, 1]].copy()
        return RestPose(
            center=self.center, axis_deg=(self.axis_deg + 180.0) % 360.0, length_px=self.length_px,
            tip=self.handle, handle=self.tip, face_quad=quad, upside_down=self.upside_down,
            confidence=self.confidence, width_px=self.width_px,
        )


def _lab(image_bgr: np.ndarray) -> np.ndarray:
    """CIE Lab with L in 0-100 and a, b centred on 0 (float32)."""
    lab = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    lab[..., 0] *= 100.0 / 255.0
    lab[..., 1:] -= 128.0
    return lab


def _check_image(image_bgr: np.ndarray, name: str = "image") -> None:
    if not isinstance(image_bgr, np.ndarray) or image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
        raise ValueError(f"{name} must be a BGR picture (H x W x 3 uint8 array), got "
                         f"{getattr(image_bgr, 'shape', type(image_bgr))}")
    if image_bgr.dtype != np.uint8:
        raise ValueError(f"{name} must be uint8, got {image_bgr.dtype}")
    if min(image_bgr.shape[:2]) < 32:
        raise ValueError(f"{name} is too small ({image_bgr.shape[1]}x{image_bgr.shape[0]}) to hold a dreidel")


def _local_felt(image_bgr: np.ndarray) -> np.ndarray:
    """The felt's colour around every pixel: a median over windows much larger than a dreidel."""
    h, w = image_bgr.shape[:2]
    scale = 48.0 / max(h, w)
    small = cv2.resize(image_bgr, (max(8, round(w * scale)), max(8, round(h * scale))), interpolation=cv2.INTER_AREA)
    felt = cv2.medianBlur(cv2.medianBlur(small, 5), 5)
    return cv2.resize(felt, (w, h), interpolation=cv2.INTER_LINEAR)


def foreground_distance(image_bgr: np.ndarray, background_bgr: np.ndarray) -> np.ndarray:
    """Per-pixel colour distance from the background, with shadows pushed down (float32)."""
    li, ai, bi = cv2.split(_lab(image_bgr))
    lb, ab, bb = cv2.split(_lab(background_bgr))
    # Lightness counts half: exposure drifts and shading move L more than a real object does.
    dl, da, db = 0.5 * (li - lb), ai - ab, bi - bb
    dist = np.sqrt(dl * dl + da * da + db * db)
    # A shadow darkens every channel by about the same ratio; a real object changes the hue.
    ratios = [(ci.astype(np.float32) + 1.0) / (cb.astype(np.float32) + 1.0)
              for ci, cb in zip(cv2.split(image_bgr), cv2.split(background_bgr), strict=True)]
    mean_ratio = (ratios[0] + ratios[1] + ratios[2]) / 3.0
    spread = np.maximum(np.maximum(ratios[0], ratios[1]), ratios[2]) - np.minimum(np.minimum(ratios[0], ratios[1]),
                                                                                  ratios[2])
    shadow = (mean_ratio > 0.35) & (mean_ratio < 0.97) & (spread < 0.2 * mean_ratio + 0.05)
    dist[shadow] *= 0.25
    return dist


def _threshold(dist: np.ndarray, valid: np.ndarray) -> float:
    vals = dist[valid][::3]  # a sample is plenty for a robust level
    if vals.size == 0:
        return float("inf")
    med = float(np.median(vals))
    mad = float(np.median(np.abs(vals - med))) * 1.4826
    return max(10.0, med + 7.0 * mad)


def _felt_threshold(dist: np.ndarray, valid: np.ndarray, grid: int = 8) -> float:
    """The noise level of the picture's evenest blocks (the felt), as a threshold."""
    h, w = dist.shape
    levels: list[tuple[float, float]] = []
    for by in range(grid):
        for bx in range(grid):
            ys, xs = slice(by * h // grid, (by + 1) * h // grid), slice(bx * w // grid, (bx + 1) * w // grid)
            vals = dist[ys, xs][valid[ys, xs]]
            if vals.size < 16:
                continue
            med = float(np.median(vals))
            levels.append((float(np.median(np.abs(vals - med))) * 1.4826, med))
    if not levels:
        return float("inf")
    levels.sort()
    mad, med = levels[len(levels) // 10]
    return max(10.0, med + 7.0 * mad)


def find_resting_dreidel(image_bgr: np.ndarray, background_bgr: np.ndarray | None = None,
                         mask: np.ndarray | None = None) -> RestPose | None:
    """Locate the resting dreidel in an overhead BGR picture, or None when there is none to see.

    ``background_bgr`` is an empty-tray picture of the same size (better segmentation, e.g. the
    judge's background model); ``mask`` is the tray (non-zero = inside), outside which nothing is
    searched. Raises ``ValueError`` for a picture that is not an H x W x 3 uint8 array or whose
    background/mask do not match its size.
    """
    _check_image(image_bgr)
    h, w = image_bgr.shape[:2]
    if background_bgr is not None:
        _check_image(background_bgr, "background_bgr")
        if background_bgr.shape != image_bgr.shape:
            raise ValueError(f"background_bgr is {background_bgr.shape}, the picture is {image_bgr.shape}: "
                             "pass an empty-tray picture from the same camera mode")
    tray: np.ndarray | None = None
    if mask is not None:
        if mask.shape[:2] != (h, w):
            raise ValueError(f"mask is {mask.shape[:2]}, the picture is {(h, w)}: the tray mask must match it")
        tray = (mask.reshape(h, w) != 0).astype(np.uint8)

    # 1. coarse segmentation on a small copy
    # an integer factor keeps OpenCV's area resampling on its fast path
    factor = max(1, math.ceil(max(h, w) / _WORK_SIDE))
    scale = 1.0 / factor
    small_size = (w // factor, h // factor)
    small = cv2.resize(image_bgr, small_size, interpolation=cv2.INTER_AREA) if scale < 1 else image_bgr
    if background_bgr is not None:
        bg_small = cv2.resize(background_bgr, small_size, interpolation=cv2.INTER_AREA) if scale < 1 else background_bgr
    else:
        bg_small = _local_felt(small)
    tray_small = None
    if tray is not None:
        tray_small = cv2.resize(tray, small_size, interpolation=cv2.INTER_NEAREST) if scale < 1 else tray
    dist = foreground_distance(small, bg_small)
    valid = np.ones(dist.shape, bool) if tray_small is None else tray_small.astype(bool)
    thr = _threshold(dist, valid)
    fg = ((dist > thr) & valid).astype(np.uint8)
    fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    blob = _pick_blob(fg, scale, _lab(small))
    if blob is None and background_bgr is None:
        # A busy cloth around the tray (checks, stripes) inflates the picture-wide noise level until
        # the dreidel drowns under it; the felt's own, evener patches then set the level instead.
        # (An empty-tray picture already cancels the cloth, so it needs no second look.)
        felt_thr = _felt_threshold(dist, valid)
        if felt_thr < thr:
            thr = felt_thr
            fg = ((dist > thr) & valid).astype(np.uint8)
            fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
            blob = _pick_blob(fg, scale, _lab(small))
    if blob is None:
        return None
    x, y, bw, bh = blob
    # 2. refine at full resolution inside the blob's box (plus a margin for the thin tip and handle)
    margin = int(max(bw, bh) / scale * 0.25) + 6
    x0 = max(0, int(x / scale) - margin)
    y0 = max(0, int(y / scale) - margin)
    x1 = min(w, int((x + bw) / scale) + margin)
    y1 = min(h, int((y + bh) / scale) + margin)
    roi = image_bgr[y0:y1, x0:x1]
    if background_bgr is not None:
        bg_roi = background_bgr[y0:y1, x0:x1]
    else:
        # upsample only the part of the coarse felt estimate that the box needs
        inv = 1.0 / scale
        to_small = np.float32([[1 / inv, 0, (x0 + 0.5) / inv - 0.5], [0, 1 / inv, (y0 + 0.5) / inv - 0.5]])
        bg_roi = cv2.warpAffine(bg_small, to_small, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                borderMode=cv2.BORDER_REPLICATE)
    dist_full = foreground_distance(roi, bg_roi)
    fg_full = (dist_full > thr).astype(np.uint8)
    if tray is not None:
        fg_full &= tray[y0:y1, x0:x1]
    fg_full = cv2.morphologyEx(fg_full, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    fg_full = cv2.morphologyEx(fg_full, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(fg_full, connectivity=8)
    if n <= 1:
        return None
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    # Re-cut at half the dreidel's own contrast: a blurred edge is where the step is half done,
    # and the halo of blur, JPEG ringing and soft shadow stays outside.
    level = float(np.median(dist_full[labels == best]))
    if 0.45 * level > thr:
        fg_full = (dist_full > 0.45 * level).astype(np.uint8)
        if tray is not None:
            fg_full &= tray[y0:y1, x0:x1]
        fg_full = cv2.morphologyEx(fg_full, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(fg_full, connectivity=8)
        if n <= 1:
            return None
        best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    # Fill holes: a letter the colour of the felt must not cut the body's silhouette.
    contours, _ = cv2.findContours((labels == best).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    solid = np.zeros_like(fg_full)
    cv2.drawContours(solid, contours, -1, 1, thickness=cv2.FILLED)
    ys, xs = np.nonzero(solid)
    pose = _measure(xs.astype(np.float64) + x0, ys.astype(np.float64) + y0)
    if pose is None:
        return None
    quad = _refine_face(image_bgr, pose)
    return RestPose(center=pose.center, axis_deg=pose.axis_deg, length_px=pose.length_px, tip=pose.tip,
                    handle=pose.handle, face_quad=quad, upside_down=None, confidence=pose.confidence,
                    width_px=pose.width_px)


def _pick_blob(fg: np.ndarray, scale: float, lab: np.ndarray) -> tuple[int, int, int, int] | None:
    """The blob most like a dreidel lying on felt: dreidel-sized, inside the picture, and ringed by
    one even colour (the felt). A piece of the tray's rim has felt on one side and something else
    on the other, so its ring is uneven."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
    h, w = fg.shape
    min_len, max_len = MIN_LENGTH_PX * scale, MAX_LENGTH_PX * scale
    found: list[tuple[float, int]] = []
    for i in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        span = math.hypot(bw, bh)
        if span < min_len * 0.7 or max(bw, bh) > max_len or area < 0.05 * min_len ** 2:
            continue
        if x <= 0 or y <= 0 or x + bw >= w or y + bh >= h:
            continue  # cut by the picture's edge: the tray's rim or something outside
        found.append((float(area), i))
    best: tuple[float, tuple[int, int, int, int]] | None = None
    for area, i in sorted(found, reverse=True)[:8]:
        x, y, bw, bh, _ = (int(v) for v in stats[i])
        pad = max(3, int(0.3 * max(bw, bh)))
        x0, y0, x1, y1 = max(0, x - pad), max(0, y - pad), min(w, x + bw + pad), min(h, y + bh + pad)
        blob = (labels[y0:y1, x0:x1] == i).astype(np.uint8)
        ring = cv2.dilate(blob, np.ones((2 * pad + 1, 2 * pad + 1), np.uint8)).astype(bool) & (fg[y0:y1, x0:x1] == 0)
        colours = lab[y0:y1, x0:x1][ring]
        if colours.shape[0] < 8:
            continue
        spread = float(np.median(np.linalg.norm(colours - np.median(colours, axis=0), axis=1)))
        score = area / (1.0 + (spread / 6.0) ** 2)
        if best is None or score > best[0]:
            best = (score, (x, y, bw, bh))
    return None if best is None else best[1]


@dataclass(frozen=True)
class _Measured:
    center: tuple[float, float]
    axis_deg: float
    length_px: float
    tip: tuple[float, float]
    handle: tuple[float, float]
    body: tuple[float, float, float, float]  # t0, t1, w0, w1 in axis coordinates
    origin: tuple[float, float]
    u: tuple[float, float]
    confidence: float
    width_px: float


def _measure(xs: np.ndarray, ys: np.ndarray) -> _Measured | None:
    """Axis, body section and tip/handle ends from the silhouette's pixel coordinates."""
    if xs.size < 30:
        return None
    cx, cy = xs.mean(), ys.mean()
    cov = np.cov(np.stack([xs - cx, ys - cy]))
    evals, evecs = np.linalg.eigh(cov)
    u = evecs[:, 1]
    v = np.array([-u[1], u[0]])
    t = (xs - cx) * u[0] + (ys - cy) * u[1]
    s = (xs - cx) * v[0] + (ys - cy) * v[1]
    t0 = float(t.min())
    length = float(t.max() - t0) + 1.0
    if length < MIN_LENGTH_PX or length > MAX_LENGTH_PX * 1.2:
        return None
    nb = int(math.ceil(length))
    bins = np.clip((t - t0).astype(int), 0, nb - 1)
    width = np.bincount(bins, minlength=nb).astype(np.float64)
    width = np.convolve(width, np.ones(3) / 3, mode="same")
    wb = float(np.percentile(width, 90))
    if wb < 4:
        return None
    # The body is the longest stretch at (nearly) full width. Gaps are bridged: a stray notch (a
    # dark letter or sliver lost against the felt) must not split it. Outlier pixels (shadow, noise)
    # do not move it, as they would a convex hull's.
    wide = width >= 0.85 * wb
    max_gap = max(2, int(0.06 * length))
    runs: list[tuple[int, int]] = []
    start, end, gap = -1, -1, 0
    for i, flag in enumerate(wide):
        if flag:
            if start < 0:
                start = i
            end, gap = i, 0
        elif start >= 0:
            gap += 1
            if gap > max_gap:
                runs.append((start, end))
                start, gap = -1, 0
    if start >= 0:
        runs.append((start, end))
    if not runs:
        return None
    b0, b1 = max(runs, key=lambda r: r[1] - r[0])
    left, right = width[:b0], width[b1 + 1:]

    def end_score(part: np.ndarray) -> float:
        """Mean width (in body widths) over the end's first 40% next to the body."""
        if part.size < 2:
            return 0.0
        k = max(1, int(round(part.size * 0.4)))
        return float(part[:k].mean() / wb)

    s_left = end_score(left[::-1])
    s_right = end_score(right)
    # a missing end (blob cut short) gives no evidence
    diff = s_left - s_right
    conf_dir = 1.0 / (1.0 + math.exp(-abs(diff) / 0.07))
    conf_dir = 2.0 * conf_dir - 1.0  # 0 when the ends look alike, -> 1 when clearly different
    tip_left = diff >= 0
    in_body = (bins >= b0) & (bins <= b1)
    w_lo, w_hi = (float(np.percentile(s[in_body], 2)), float(np.percentile(s[in_body], 98))) if in_body.any() \
        else (-wb / 2, wb / 2)
    # the body's ends meet the tip's base and the handle's collar: keep the face's inner part
    inset = 0.07 * (b1 + 1 - b0)
    tb0, tb1 = t0 + b0 + inset, t0 + b1 + 1 - inset
    end_l = t <= t0 + 1.5
    end_r = t >= t0 + length - 2.5
    p_left = (float(xs[end_l].mean()), float(ys[end_l].mean()))
    p_right = (float(xs[end_r].mean()), float(ys[end_r].mean()))
    tip, handle = (p_left, p_right) if tip_left else (p_right, p_left)
    tm, sm = (tb0 + tb1) / 2, (w_lo + w_hi) / 2
    center = (float(cx + tm * u[0] + sm * v[0]), float(cy + tm * u[1] + sm * v[1]))
    axis = math.degrees(math.atan2(handle[1] - tip[1], handle[0] - tip[0])) % 360.0
    elong = length / max(wb, 1.0)
    shape_ok = min(1.0, max(0.0, (elong - 1.2) / 0.6))
    return _Measured(center=center, axis_deg=axis, length_px=length, tip=tip, handle=handle,
                     body=(tb0, tb1, w_lo, w_hi), origin=(float(cx), float(cy)),
                     u=(float(u[0]), float(u[1])), confidence=float(conf_dir * shape_ok), width_px=wb)


def _refine_face(image_bgr: np.ndarray, m: _Measured) -> np.ndarray:
    """The up face's corners (handle side first), cutting off the sliver of a neighbouring face."""
    u = np.array(m.u)
    v = np.array([-u[1], u[0]])
    o = np.array(m.origin)
    tb0, tb1, w_lo, w_hi = m.body
    # look at the body section straight: rows across the body (s), columns along it (t)
    rows = max(8, int(round(w_hi - w_lo)))
    cols = max(8, int(round(tb1 - tb0)))
    src = np.float32([o + tb0 * u + w_lo * v, o + tb1 * u + w_lo * v, o + tb0 * u + w_hi * v])
    dst = np.float32([[0, 0], [cols, 0], [0, rows]])
    patch = cv2.warpAffine(image_bgr, cv2.getAffineTransform(src, dst), (cols, rows), flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REPLICATE)
    best = _sliver_cut(_lab(patch))
    lo, hi = w_lo, w_hi
    if best is not None:
        side, k = best
        if side == 0:
            lo = w_lo + k
        else:
            hi = w_hi - k
    # order: handle-side left, handle-side right, tip-side right, tip-side left (handle "up")
    hdir = np.array(m.handle) - np.array(m.tip)
    along_handle = float(np.dot(hdir, u)) >= 0
    th, tt = (tb1, tb0) if along_handle else (tb0, tb1)
    up = u if along_handle else -u
    right = np.array([-up[1], up[0]])
    # with "up" toward the handle, "right" on screen is up rotated a quarter turn clockwise
    s_right, s_left = (hi, lo) if float(np.dot(right, v)) >= 0 else (lo, hi)
    quad = np.array([o + th * u + s_left * v, o + th * u + s_right * v,
                     o + tt * u + s_right * v, o + tt * u + s_left * v], dtype=np.float64)
    return quad


def _sliver_cut(lab: np.ndarray) -> tuple[int, int] | None:
    """Where the edge between the up face and a neighbouring face's sliver runs, as (side, rows in).

    ``lab`` is the body straightened (rows across the body, columns along it). The edge is a colour
    step parallel to the axis that runs the body's whole length, unlike a letter's strokes.
    """
    rows, cols = lab.shape[:2]
    if rows < 10 or cols < 6:
        return None
    # A letter's long stroke (a Nun's stem) runs along the axis too, but not the face's whole length:
    # the edge must be there from end to end.
    c0, c1 = int(cols * 0.04), max(int(cols * 0.96), int(cols * 0.04) + 2)
    band = lab[:, c0:c1]
    best: tuple[int, int] | None = None
    best_score = 0.0
    for k in range(max(2, int(rows * 0.1)), int(rows * 0.42) + 1):
        for side in (0, 1):
            r = k if side == 0 else rows - k
            if r - 2 < 0 or r + 2 > rows:
                continue
            d = band[min(r + 1, rows - 1)] - band[max(r - 2, 0)]  # across the edge, per column
            med = np.median(d, axis=0)
            strength = float(np.linalg.norm(med))
            if strength < 7.0:
                continue
            along = d @ (med / strength)  # every column must step the same way
            coverage = float(np.mean(along > 0.5 * strength))
            score = strength * coverage
            if coverage >= 0.92 and score > best_score:
                best_score, best = score, (side, k)
    return best


def bearing_deg(origin: tuple[float, float], point: tuple[float, float]) -> float:
    """Image angle from ``origin`` to ``point`` in degrees [0, 360): 0 = right, 90 = down."""
    return math.degrees(math.atan2(point[1] - origin[1], point[0] - origin[0])) % 360.0
