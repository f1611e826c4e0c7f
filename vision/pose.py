"""Find a dreidel lying at rest in an overhead picture: where it is, which way it points, its up face.

Method (explainable, NumPy/OpenCV only):

1. **Segment against the felt.** With an empty-tray picture (``background_bgr``) the foreground is the
   colour distance to it. Without one, the tray's felt is found first (the colour around the
   picture's centre, by chromaticity, and the convex hull of what connects to it), so that a checked
   cloth or wood grain around the tray is never searched; the empty felt is then a quadratic in x and
   y fitted robustly to the felt (a lamp's fall-off and vignetting are smooth; a dreidel, its shadow
   and letter are outliers whatever their size). The threshold adapts to the picture's noise
   (median + k * MAD of the distance).
2. **Pick the dreidel** among the blobs: dreidel-sized, not a thin line (a rim's edge), not cut by
   the picture's edge or the felt's, ringed by one even colour.
   Shadows (darker, same hue as the felt) are not foreground, but a black or grey dreidel on grey
   felt looks the same: the silhouette without such pixels is kept only while it still looks like a
   whole dreidel (elongated, about as long as the one with them). When only the letter stands out
   (wood on brown felt, a dark dreidel on dark felt), the dreidel is looked for again around it at
   the felt's own noise level there.
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
from dataclasses import dataclass, replace

import cv2
import numpy as np

#: the dreidel's expected length in the picture (DESIGN.md: about 40-150 px); blobs far outside are ignored
MIN_LENGTH_PX = 22.0
MAX_LENGTH_PX = 240.0
#: segmentation works on a copy no larger than this (longest side), then refines at full resolution
_WORK_SIDE = 400
#: the face is the body minus this share at each end (the tip's base and the handle's collar)
_FACE_INSET = 0.07
#: a stretch of the width profile at least this share of the body's width is still body (a waist), however
#: long: the tip's taper and the handle's stem are narrower
_WAIST = 0.75


@dataclass(frozen=True)
class RestPose:
    """Where a resting dreidel lies in a picture.

    ``axis_deg`` is the image angle of the vector from the tip to the handle (``atan2(dy, dx)``
    in degrees, 0 = right, 90 = down). ``face_quad`` is the up face as 4 corners ordered so that,
    mapped to a square's top-left, top-right, bottom-right, bottom-left, the handle is at the top
    (so the letter, whose top points to the handle, reads upright). ``upside_down`` is None: a
    resting dreidel lies on its side, so a still cannot tell how it spun. ``confidence`` (0-1)
    says how sure the tip/handle decision and the segmentation are. ``face_shadowlike`` (0-1) is the share of
    the face's pixels that look like a cast shadow (darker than the felt, every colour channel alike; see
    :data:`SHADOWLIKE_FACE`): near 1, the outline may have taken a shadow for the body.
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
    face_shadowlike: float = 0.0

    def flipped(self) -> RestPose:
        """The same pose with tip and handle swapped (when the letter shows the handle is the other way)."""
        quad = None if self.face_quad is None else self.face_quad[[2, 3, 0, 1]].copy()
        # replace() keeps every other field (the width, the shadow-like share, ...) as it is
        return replace(self, axis_deg=(self.axis_deg + 180.0) % 360.0, tip=self.handle, handle=self.tip,
                       face_quad=quad)


#: how unevenly a cast shadow may darken the three colour channels (see ``_distance_and_shadow``): generous, for
#: a lamp and an ambient light of different colours
SHADOW_SPREAD = (0.2, 0.05)
#: the same for a second look when nothing was found: a pale dreidel a little darker than pale felt and of
#: nearly its hue (altsim 1300004, 1380002) darkens the channels by 0.12-0.19 apart, which passed for a shadow
#: whole; the cast shadows beside them by 0.00-0.03
STRICT_SHADOW_SPREAD = (0.06, 0.03)
#: a face's edge cuts off a sliver whose colour, as a whole, is at least this share of the edge's step away
#: from the face's (see :func:`_sets_apart`)
SLIVER_APART = 0.5
#: a face this much shadow-like (``RestPose.face_shadowlike``) is not a face to read: a cast shadow, not the body.
#: A pale wooden dreidel on pale felt (altsim 1680004, 640x480, no empty tray) stood out less than its dark cast
#: shadow, the outline took body and shadow together, and the face cut from it was 79-81% shadow-like: its Gimel,
#: Hey and Pe were read as Shin at 0.93-0.98; a black dreidel's (bench_pose's altsim 700012, with the empty tray)
#: 79%, its Nun read as Hey. On crops of those pictures (the copy then at full resolution) 69-77%. Of 2,892 reads
#: of tuning stills of three renderers (with and without an empty tray), every right read's face was at most 60%
#: shadow-like: the bar lies between.
SHADOWLIKE_FACE = 0.65


def _lab(image_bgr: np.ndarray) -> np.ndarray:
    """CIE Lab with L in 0-100 and a, b centred on 0 (float32)."""
    # one pass to float (the same numbers as astype, then a float32 multiply)
    scaled: np.ndarray = np.multiply(image_bgr, np.float32(1.0 / 255.0), dtype=np.float32)
    return cv2.cvtColor(scaled, cv2.COLOR_BGR2LAB)


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
    scale = 32.0 / max(h, w)
    small = cv2.resize(image_bgr, (max(8, round(w * scale)), max(8, round(h * scale))), interpolation=cv2.INTER_AREA)
    felt = cv2.medianBlur(cv2.medianBlur(small, 5), 5)
    return cv2.resize(felt, (w, h), interpolation=cv2.INTER_LINEAR)


def foreground_distance(image_bgr: np.ndarray, background_bgr: np.ndarray, smooth: int = 3) -> np.ndarray:
    """Per-pixel colour distance from the background, with shadows pushed down (float32).

    ``smooth`` (odd, px) is the box over which the shadow test averages: a deep shadow leaves
    the felt's channels so low that single pixels' noise would hide their common ratio.
    """
    return _distance_and_shadow(image_bgr, background_bgr, smooth).damped


@dataclass(frozen=True)
class _Distances:
    """Colour distances from the felt over a box: ``raw``, where it looks like a shadow (``shadow``), and
    ``damped`` (``raw`` with shadow pixels counting a quarter)."""

    raw: np.ndarray
    shadow: np.ndarray
    damped: np.ndarray


def _distance_and_shadow(image_bgr: np.ndarray, background_bgr: np.ndarray, smooth: int,
                         image_lab: np.ndarray | None = None, uniform: bool = False,
                         spread: tuple[float, float] = SHADOW_SPREAD) -> _Distances:
    """The colour distance from the background and where it looks like a shadow.
    ``uniform``: the background is one colour (its first pixel's). ``smooth`` (odd) is the box the
    shadow test averages the channels over. ``spread`` (a, b): how unevenly a shadow may darken the three
    channels, at most ``a`` times their mean ratio plus ``b``."""
    # Channel by channel on 2-D planes: NumPy reduces a 3-long last axis slowly. The sums keep the order
    # of the per-pixel sums they replaced (L, a, b; then B, G, R), so the numbers are the same to the bit.
    il = _lab(image_bgr) if image_lab is None else image_lab
    if uniform:
        bg_lab = _lab(np.ascontiguousarray(background_bgr[:1, :1]))[0, 0]
        dl, da, db = (c - v for c, v in zip(cv2.split(il), bg_lab, strict=True))
    else:
        dl, da, db = cv2.split(cv2.subtract(il, _lab(background_bgr)))
    # Lightness counts half: exposure drifts and shading move L more than a real object does.
    dl *= np.float32(0.5)
    raw = dl * dl
    raw += da * da
    raw += db * db
    np.sqrt(raw, out=raw)
    # A shadow darkens every channel by about the same ratio; a real object changes the hue. A
    # black or grey dreidel on grey felt passes this test too: find_resting_dreidel then keeps it.
    k = (smooth, smooth)
    one = np.float32(1.0)
    if uniform:
        den: list[np.ndarray | np.float32] = [np.float32(v) + one for v in background_bgr[0, 0]]
    else:
        den = [c.astype(np.float32) + one for c in cv2.split(cv2.blur(background_bgr, k))]
    r0, r1, r2 = ((c.astype(np.float32) + one) / d for c, d in zip(cv2.split(cv2.blur(image_bgr, k)), den, strict=True))
    mean_ratio = (r0 + r1 + r2) * np.float32(1.0 / 3.0)
    channel_spread = np.maximum(np.maximum(r0, r1), r2) - np.minimum(np.minimum(r0, r1), r2)
    spread_limit = np.float32(spread[0]) * mean_ratio + np.float32(spread[1])
    shadow = (mean_ratio > 0.22) & (mean_ratio < 0.97) & (channel_spread < spread_limit)
    return _Distances(raw, shadow, np.where(shadow, raw * np.float32(0.25), raw))


def _felt_region(small_bgr: np.ndarray) -> np.ndarray | None:
    """The tray's felt as a convex region (bool, the size of ``small_bgr``), or None when the felt is
    not set off from its surroundings (then there is nothing to cut).

    The felt is the colour around the picture's centre (DESIGN.md: the tray fills most of the
    picture); pixels of that chromaticity and about that lightness that connect to the centre are
    the felt, and their convex hull is the tray (round or square), with the notches that a dreidel,
    its shadow or a letter cut. Chromaticity does not change under a lamp's gradient, vignetting or
    the rim's shadow, and lightness only counts by its ratio.
    """
    h, w = small_bgr.shape[:2]
    f = max(1, round(max(h, w) / 160))  # about 160 px across is plenty to find the tray
    tiny = cv2.medianBlur(cv2.resize(small_bgr, (w // f, h // f), interpolation=cv2.INTER_AREA), 5)
    gh, gw = tiny.shape[:2]
    # 2-D planes (a 3-long last axis is slow in NumPy); the sums keep the channels' order (B, G, R)
    six = np.float32(6.0)  # keeps the chromaticity of near-black pixels steady
    p0, p1, p2 = (c.astype(np.float32) + six for c in cv2.split(tiny))
    total = p0 + p1 + p2
    chroma = (p0 / total, p1 / total, p2 / total)
    lum = np.log(total)
    cy0, cy1, cx0, cx1 = int(gh * 0.3), int(math.ceil(gh * 0.7)), int(gw * 0.3), int(math.ceil(gw * 0.7))
    e0, e1, e2 = (c - np.median(c[cy0:cy1, cx0:cx1]) for c in chroma)
    c_lum = float(np.median(lum[cy0:cy1, cx0:cx1]))
    d_chroma = 100.0 * np.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
    d_lum = 8.0 * np.abs(lum - c_lum)
    near = (np.hypot(d_chroma, d_lum) < 6.0).astype(np.uint8)
    near = cv2.morphologyEx(near, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(near, connectivity=4)
    inner = labels[cy0:cy1, cx0:cx1]
    counts = np.bincount(inner[inner > 0].ravel(), minlength=n)
    if n <= 1 or counts.max() == 0:
        return None
    best = int(np.argmax(counts))
    if stats[best, cv2.CC_STAT_AREA] >= 0.97 * gw * gh or stats[best, cv2.CC_STAT_AREA] < 0.1 * gw * gh:
        return None  # felt everywhere (no tray edge to find), or no clear felt
    # the hull of a region is the hull of its outer boundary: far fewer points to sort
    contours, _ = cv2.findContours((labels == best).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    hull = cv2.convexHull(np.concatenate(contours).reshape(-1, 2).astype(np.float32))
    region = np.zeros((gh, gw), np.uint8)
    cv2.fillConvexPoly(region, np.round(hull).astype(np.int32), 1)
    return cv2.resize(region, (w, h), interpolation=cv2.INTER_NEAREST).astype(bool)


def _felt_surface(small_bgr: np.ndarray, region: np.ndarray | None) -> np.ndarray:
    """The empty felt as a smooth picture: per channel, a quadratic in x and y fitted to the felt.

    A lamp's fall-off and vignetting are smooth, so a quadratic follows them; a dreidel, its shadow
    and its letter are not, and a second fit without the pixels that the first one did not explain
    (over 3 robust deviations) leaves them out, whatever their size. ``region`` (bool) limits the
    fit to the tray's felt (None: the whole picture).
    """
    h, w = small_bgr.shape[:2]
    step = max(1, round(math.sqrt(h * w / 2500.0)))  # about 2500 samples
    ys, xs = np.mgrid[0:h:step, 0:w:step]
    xs_f, ys_f = xs.ravel(), ys.ravel()
    if region is not None:
        keep = region[ys_f, xs_f]
        if keep.sum() >= 50:
            xs_f, ys_f = xs_f[keep], ys_f[keep]
    colours = small_bgr[ys_f, xs_f].astype(np.float64)
    u, v = xs_f / w - 0.5, ys_f / h - 0.5
    design = np.stack([np.ones_like(u), u, v, u * u, u * v, v * v], axis=1)
    use = np.ones(len(u), bool)
    coef = np.zeros((6, 3))
    for _ in range(3):
        # the normal equations of a 6-term fit, summed with einsum (no BLAS threads on a shared Pi)
        d_use = design[use]
        gram = np.einsum("ni,nj->ij", d_use, d_use) + 1e-6 * np.eye(6)
        coef = np.linalg.solve(gram, np.einsum("ni,nc->ic", d_use, colours[use]))
        resid = np.abs(colours - np.einsum("ni,ic->nc", design, coef)).sum(axis=1)
        scale = float(np.median(resid[use])) * 1.4826 + 1.0
        use = resid < 3.0 * scale
        if use.sum() < 12:
            break
    # a quadratic is smooth: evaluated on a grid 4 times coarser and interpolated up
    cw, ch = max(2, w // 4), max(2, h // 4)
    gu = ((np.arange(cw) + 0.5) / cw - 0.5)[None, :]
    gv = ((np.arange(ch) + 0.5) / ch - 0.5)[:, None]
    out = np.empty((ch, cw, 3), np.float32)
    for c in range(3):
        a = coef[:, c]
        out[..., c] = a[0] + a[1] * gu + a[2] * gv + a[3] * gu * gu + a[4] * gu * gv + a[5] * gv * gv
    return cv2.resize(np.clip(out, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)


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
                         mask: np.ndarray | None = None, *, window: bool = True) -> RestPose | None:
    """Locate the resting dreidel in an overhead BGR picture, or None when there is none to see.

    ``background_bgr`` is an empty-tray picture of the same size (better segmentation, e.g. the
    judge's background model); ``mask`` is the tray (non-zero = inside), outside which nothing is
    searched. With both, only a window around the mask is looked at (the judge's disc around where
    the dreidel rests: several times faster); ``window=False`` looks at the whole picture, for the
    same outline. Raises ``ValueError`` for a picture that is not an H x W x 3 uint8 array or whose
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
    felt_region: np.ndarray | None = None
    if mask is not None:
        if mask.shape[:2] != (h, w):
            raise ValueError(f"mask is {mask.shape[:2]}, the picture is {(h, w)}: the tray mask must match it")
        tray = (mask.reshape(h, w) != 0).astype(np.uint8)

    # 1. coarse segmentation on a small copy
    # an integer factor keeps OpenCV's area resampling on its fast path
    factor = max(1, math.ceil(max(h, w) / _WORK_SIDE))
    scale = 1.0 / factor
    small_w, small_h = w // factor, h // factor
    # With an empty tray and a search disc (the judge's call), nothing outside the disc can count, so
    # step 1 needs only a window around it (the small copy's pixels there are the same).
    box = _search_window(tray, factor, w, h) if window and tray is not None and background_bgr is not None else None
    sx0, sy0, sx1, sy1 = box or (0, 0, small_w, small_h)
    if box is None:
        view, bg_view, tray_view = image_bgr, background_bgr, tray
    else:
        rows, cols = slice(sy0 * factor, sy1 * factor), slice(sx0 * factor, sx1 * factor)
        view = image_bgr[rows, cols]
        bg_view = None if background_bgr is None else background_bgr[rows, cols]
        tray_view = None if tray is None else tray[rows, cols]
    small_size = (sx1 - sx0, sy1 - sy0)
    small = cv2.resize(view, small_size, interpolation=cv2.INTER_AREA) if scale < 1 else view
    if bg_view is not None:
        bg_small = cv2.resize(bg_view, small_size, interpolation=cv2.INTER_AREA) if scale < 1 else bg_view
    else:
        # Without an empty-tray picture, a checked cloth or a wood grain around the tray makes blobs
        # of a dreidel's size: only the felt (the tray) is searched, and the felt's colour is
        # estimated from the felt alone.
        felt_region = _felt_region(small)
        bg_small = _felt_surface(small, felt_region)
    tray_small = None
    if tray_view is not None:
        tray_small = cv2.resize(tray_view, small_size, interpolation=cv2.INTER_NEAREST) if scale < 1 else tray_view
    lab_small = _lab(small)
    dists = _distance_and_shadow(small, bg_small, 3, lab_small)
    raw, dist = dists.raw, dists.damped
    valid = np.ones(dist.shape, bool) if tray_small is None else tray_small.astype(bool)
    if felt_region is not None:
        valid &= felt_region
    thr = _threshold(dist, valid)
    fg = ((dist > thr) & valid).astype(np.uint8)
    fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    frame = (sx0, sy0, small_w, small_h)
    blob = _pick_blob(fg, scale, lab_small, felt_region, frame)
    if blob is None and background_bgr is None:
        # A busy cloth around the tray (checks, stripes) inflates the picture-wide noise level until
        # the dreidel drowns under it; the felt's own, evener patches then set the level instead.
        # (An empty-tray picture already cancels the cloth, so it needs no second look.)
        felt_thr = _felt_threshold(dist, valid)
        if felt_thr < thr:
            thr = felt_thr
            fg = ((dist > thr) & valid).astype(np.uint8)
            fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
            blob = _pick_blob(fg, scale, lab_small, felt_region, frame)
    spread = SHADOW_SPREAD
    if blob is None:
        # A pale dreidel a little darker than pale felt, and of nearly its hue, can pass for a shadow whole
        # (altsim 1300004, 1380002: "no dreidel found" on a dreidel anyone sees). Look again, counting as
        # shadow only what darkens the three channels nearly alike, as a cast shadow does.
        strict = _distance_and_shadow(small, bg_small, 3, lab_small, spread=STRICT_SHADOW_SPREAD)
        if bool((dists.shadow & ~strict.shadow & (raw > thr) & valid).any()):
            fg = ((strict.damped > thr) & valid).astype(np.uint8)
            fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
            blob = _pick_blob(fg, scale, lab_small, felt_region, frame)
            spread = STRICT_SHADOW_SPREAD
    if blob is None:
        return None
    x, y, bw, bh = _with_shadowlike(blob, fg, raw > thr, valid, scale)
    x, y = x + sx0, y + sy0  # the small copy's coordinates
    # 2. refine at full resolution inside the blob's box (plus a margin for the thin tip and handle)
    margin = int(max(bw, bh) / scale * 0.25) + 6
    box = (max(0, int(x / scale) - margin), max(0, int(y / scale) - margin),
           min(w, int((x + bw) / scale) + margin), min(h, int((y + bh) / scale) + margin))
    felt = _FeltModel(image_bgr, background_bgr, bg_small, scale, factor, tray, spread)
    pose = felt.measure(box, thr)
    # Low contrast (wood on brown felt, a dark dreidel on dark felt): the picture-wide threshold may
    # leave only the letter standing out. When, right around what was found, the (smoothed) felt
    # is not felt but something faint that goes on, look again in a box that holds any dreidel
    # around it, at the felt's own noise level there.
    if pose is not None and felt.continues(pose):
        cx, cy = pose.center
        half = max(1.3 * pose.length_px, 0.08 * max(h, w))
        big = (max(0, int(cx - half)), max(0, int(cy - half)), min(w, int(cx + half)), min(h, int(cy + half)))
        again = felt.measure(big, felt.noise_level(big), local=True)
        if _plausible(again, body=True) and again is not None and again.length_px > 1.15 * pose.length_px:
            pose = again
    if pose is None:
        return None
    quad = _refine_face(image_bgr, pose)
    return RestPose(center=pose.center, axis_deg=pose.axis_deg, length_px=pose.length_px, tip=pose.tip,
                    handle=pose.handle, face_quad=quad, upside_down=None, confidence=pose.confidence,
                    width_px=pose.width_px, face_shadowlike=_shadowlike_share(small, bg_small, quad, factor, sx0, sy0))


def _shadowlike_share(small: np.ndarray, bg_small: np.ndarray, quad: np.ndarray, factor: int, x0: int,
                      y0: int) -> float:
    """The share of the face ``quad`` (full-resolution px) that a cast shadow could be: darker than the felt and
    darkening its three channels alike (the strict shadow test, ``STRICT_SHADOW_SPREAD``), on the segmentation
    copy ``small`` (reduced ``factor`` times, its window at (``x0``, ``y0``); ``bg_small`` its felt). 0 when the
    quad covers none of its pixels.

    The strict test, not the generous one: a grey dreidel on beige felt passes the generous test on its whole face
    and the strict one on 1-9% of it (altsim 700130, read right); a cast shadow passes both. On the copy, not at full resolution: its pixels average the sensor's
    noise and the face's edges away as the shadow test needs, so a picture and a crop of it give about the same
    share."""
    corners = np.asarray(quad, np.float64) / factor - (x0, y0)
    h, w = small.shape[:2]
    # a window around the face (with a margin for the test's 3 px blur): the same numbers, a fraction of the work
    wx0, wy0 = max(0, int(corners[:, 0].min()) - 3), max(0, int(corners[:, 1].min()) - 3)
    wx1, wy1 = min(w, int(corners[:, 0].max()) + 4), min(h, int(corners[:, 1].max()) + 4)
    if wx1 <= wx0 or wy1 <= wy0:
        return 0.0
    rows, cols = slice(wy0, wy1), slice(wx0, wx1)
    shadow = _distance_and_shadow(small[rows, cols], bg_small[rows, cols], 3, spread=STRICT_SHADOW_SPREAD).shadow
    inside = np.zeros(shadow.shape, np.uint8)
    cv2.fillConvexPoly(inside, np.round(corners - (wx0, wy0)).astype(np.int32), 1)
    n = int(inside.sum())
    return float(np.count_nonzero(shadow & inside.astype(bool))) / n if n else 0.0


def _search_window(tray: np.ndarray, factor: int, w: int, h: int) -> tuple[int, int, int, int] | None:
    """The part of the small copy (x0, y0, x1, y1, in its pixels) that step 1 must see when only ``tray``
    (non-zero) may hold the dreidel: the tray's box, and around it the ring in which a blob's
    surroundings are judged (``_pick_blob``: 0.3 of the blob's size) and the shadow test's blur. None
    when the whole picture is as cheap, or when the small copy's pixels would not be the same in a
    window (a size that the factor does not divide)."""
    if w % factor or h % factor:
        return None
    x, y, bw, bh = cv2.boundingRect(tray)
    if bw == 0 or bh == 0:
        return None
    small_w, small_h = w // factor, h // factor
    x0, y0 = x // factor, y // factor
    x1, y1 = -(-(x + bw) // factor), -(-(y + bh) // factor)
    pad = math.ceil(0.3 * max(x1 - x0, y1 - y0)) + 4
    x0, y0, x1, y1 = max(0, x0 - pad), max(0, y0 - pad), min(small_w, x1 + pad), min(small_h, y1 + pad)
    if (x1 - x0) * (y1 - y0) > 0.6 * small_w * small_h:
        return None
    return x0, y0, x1, y1


def _plausible(m: _Measured | None, body: bool = False) -> bool:
    """Does a measured silhouette look like a whole dreidel (not a lone letter or handle)? It is
    elongated and, with ``body``, its body is about as long as it is wide (a face is roughly square)
    where a letter's stroke would make a long thin "body"."""
    if m is None or m.length_px < 1.45 * m.width_px:
        return False
    if not body:
        return True
    body_len = (m.core[1] - m.core[0]) / (1.0 - 2 * _FACE_INSET)
    return 0.5 * m.width_px <= body_len <= 2.2 * m.width_px


class _FeltModel:
    """Colour distances from the felt in boxes of the full-resolution picture, and what they make."""

    def __init__(self, image_bgr: np.ndarray, background_bgr: np.ndarray | None, bg_small: np.ndarray,
                 scale: float, factor: int, tray: np.ndarray | None,
                 spread: tuple[float, float] = SHADOW_SPREAD) -> None:
        self.image, self.background, self.bg_small = image_bgr, background_bgr, bg_small
        self.scale, self.factor, self.tray = scale, factor, tray
        #: the shadow test's colour spread (``_distance_and_shadow``)
        self.spread = spread
        self._distances: dict[tuple[tuple[int, int, int, int], bool, int], _Distances] = {}

    def distances(self, box: tuple[int, int, int, int], local: bool = False, step: int = 1) -> _Distances:
        """The colour distances in ``box`` (x0, y0, x1, y1); with ``local``, from the felt's
        colour along the box's border (in a small box the light is even, and this felt is the one
        right around the dreidel), smoothed, or reduced ``step`` times. Read-only: kept for the
        next ask of the same box (a second look measures the box whose noise it just took)."""
        key = (box, local, step)
        if key not in self._distances:
            self._distances[key] = self._compute_distances(box, local, step)
        return self._distances[key]

    def _compute_distances(self, box: tuple[int, int, int, int], local: bool, step: int) -> _Distances:
        x0, y0, x1, y1 = box
        roi = self.image[y0:y1, x0:x1]
        if local:
            if step > 1:  # reduced by area: as smooth as the blur, and cheap
                roi = cv2.resize(roi, ((x1 - x0) // step, (y1 - y0) // step), interpolation=cv2.INTER_AREA)
            else:  # smoothed: a faint body is wide, while the felt's grain and the sensor's noise are fine
                roi = cv2.GaussianBlur(roi, (0, 0), 1.5)
            bg_roi = np.empty_like(roi)
            bg_roi[:] = np.median(_border(roi).reshape(-1, 3), axis=0).astype(np.uint8)
        elif self.background is not None:
            bg_roi = self.background[y0:y1, x0:x1]
        else:
            # upsample only the part of the coarse felt estimate that the box needs
            s = self.scale
            to_small = np.float32([[s, 0, (x0 + 0.5) * s - 0.5], [0, s, (y0 + 0.5) * s - 0.5]])
            bg_roi = cv2.warpAffine(self.bg_small, to_small, (x1 - x0, y1 - y0),
                                    flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
        return _distance_and_shadow(roi, bg_roi, 2 * self.factor + 1, uniform=local, spread=self.spread)

    def noise_level(self, box: tuple[int, int, int, int]) -> float:
        """A threshold from the felt's noise along the box's border (where the dreidel is not),
        for distances from the local felt colour."""
        dist = self.distances(box, local=True).damped
        border = _border(dist)
        if self.tray is not None:
            x0, y0, x1, y1 = box
            border = border[_border(self.tray[y0:y1, x0:x1]).astype(bool)]
        if border.size < 16:
            return float("inf")
        med = float(np.median(border))
        mad = float(np.median(np.abs(border - med))) * 1.4826
        return max(4.0, med + 6.0 * mad)

    def continues(self, m: _Measured) -> bool:
        """Does something faint go on around the silhouette ``m`` (most of a band a few pixels
        outside its length x width rectangle differs from the felt around it)?"""
        u = np.array(m.u)
        v = np.array([-u[1], u[0]])
        c = np.array(m.origin) + u * (m.body[0] + m.body[1]) / 2
        pad = max(4.0, 0.15 * m.width_px)
        half_l, half_w = m.length_px / 2 + 2 * pad, m.width_px / 2 + 2 * pad
        h, w = self.image.shape[:2]
        # the box's border must lie on the felt beyond any dreidel, not on the faint body
        reach = max(2.5 * half_l, 0.1 * max(h, w))
        box = (max(0, int(c[0] - reach)), max(0, int(c[1] - reach)), min(w, int(c[0] + reach)),
               min(h, int(c[1] + reach)))
        # shadows count: a body darker than the felt in the felt's hue looks like one. About 64 px
        # across is plenty for a band this wide, and keeps this cheap.
        k = max(1, int((box[2] - box[0]) // 64))
        dist = self.distances(box, local=True, step=k).raw
        ys, xs = np.mgrid[0:dist.shape[0], 0:dist.shape[1]]
        xs = box[0] + (xs + 0.5) * k - 0.5
        ys = box[1] + (ys + 0.5) * k - 0.5
        t = (xs - c[0]) * u[0] + (ys - c[1]) * u[1]
        s = (xs - c[0]) * v[0] + (ys - c[1]) * v[1]
        # beside the body (not past the ends, where tip and handle narrow to the felt anyway)
        band = (np.abs(t) < m.length_px / 4) & (np.abs(s) > m.width_px / 2 + pad) & (np.abs(s) < half_w + pad)
        if band.sum() < 10:
            return False
        border = _border(dist)
        med = float(np.median(border))
        level = max(4.0, med + 6.0 * float(np.median(np.abs(border - med))) * 1.4826)
        return float(np.mean(dist[band] > level)) > 0.4

    def measure(self, box: tuple[int, int, int, int], thr: float, local: bool = False) -> _Measured | None:
        """The dreidel in ``box`` cut at ``thr``, measured.

        Two readings of the dark pixels that keep the felt's hue: a cast shadow (left out), or a black
        or grey dreidel on grey felt (kept). The silhouette without them wins while it still looks like
        a dreidel (elongated, with a face about as long as wide; a dark handle may be missing, which
        the tip/handle decision tolerates). Left only a letter or a handle, it does not.

        On a picture much larger than the segmentation copy (``factor`` > 2), a body near the felt's
        colour can stay under the cut while its bright parts (the face's frame, the letter, the handle)
        come out as separate pieces, too far apart for the 3 px clean-up to join; the largest, the
        handle, was then taken for the dreidel. A silhouette that does not look like a dreidel is cut
        again with a clean-up as wide in the segmentation copy's pixels (``_close_size``), and kept
        when that one does. A plausible silhouette, and any picture up to twice the copy (640x480,
        800x600: what the letter model was calibrated on), is cut exactly as before.
        """
        x0, y0, x1, y1 = box
        dists = self.distances(box, local)
        tray = None if self.tray is None else self.tray[y0:y1, x0:x1]
        pose_a = _silhouette_pose(dists.damped, thr, tray, x0, y0)
        if not _plausible(pose_a, body=True) and self.factor > 2:
            joined = _silhouette_pose(dists.damped, thr, tray, x0, y0, _close_size(self.factor))
            if _plausible(joined, body=True):
                return joined
        if _plausible(pose_a, body=True) or not bool(dists.shadow.any()):
            return pose_a
        pose_b = _silhouette_pose(dists.raw, thr, tray, x0, y0)
        return pose_a if pose_b is None else pose_b


def _border(a: np.ndarray) -> np.ndarray:
    """The values in a band (an eighth of the box's shorter side) along the box's four edges."""
    b = max(2, min(a.shape[:2]) // 8)
    parts = [a[:b], a[-b:], a[b:-b, :b], a[b:-b, -b:]]
    return np.concatenate([p.reshape(-1, *a.shape[2:]) for p in parts])


def _close_size(factor: int) -> int:
    """The side (px, odd) of a clean-up at full resolution that bridges about what 3 px bridge on a
    picture twice the segmentation copy: 3 up to ``factor`` 2, 5 at 3-4 (960x540, 1280x720), 7 at 5-6
    (a Camera Module 3's 2304x1296)."""
    return 2 * math.ceil(factor / 2) + 1


def _silhouette_pose(dist: np.ndarray, thr: float, tray: np.ndarray | None, x0: int, y0: int,
                     close: int = 3) -> _Measured | None:
    """Cut the dreidel's silhouette from a box's colour distances and measure it (``close``: the side of
    the clean-up that joins the pieces of one silhouette)."""
    fg = (dist > thr).astype(np.uint8)
    if tray is not None:
        fg &= tray
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((close, close), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
    if n <= 1:
        return None
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    # Re-cut at half the dreidel's own contrast: a blurred edge is where the step is half done,
    # and the halo of blur, JPEG ringing and soft shadow stays outside.
    first = (labels == best).astype(np.uint8)
    level = float(np.median(dist[first > 0]))
    if 0.45 * level > thr:
        fg = (dist > 0.45 * level).astype(np.uint8)
        if tray is not None:
            fg &= tray
        fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((close, close), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
        if n <= 1:
            return None
        best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        cut = (labels == best).astype(np.uint8)
        # A faint part (a handle near the felt's colour) falls below the re-cut; past the halo's
        # few pixels around the bright part, what the first cut held stays.
        halo = cv2.dilate(cut, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9)))
        cut |= _on_axis(first & (1 - halo), cut)
    else:
        cut = first
    # Fill holes: a letter the colour of the felt must not cut the body's silhouette.
    contours, _ = cv2.findContours(cut, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    solid = np.zeros_like(fg)
    cv2.drawContours(solid, contours, -1, 1, thickness=cv2.FILLED)
    ys, xs = np.nonzero(solid)
    return _measure(xs.astype(np.float64) + x0, ys.astype(np.float64) + y0)


def _on_axis(extra: np.ndarray, core: np.ndarray) -> np.ndarray:
    """The pixels of ``extra`` that lie on the long axis of ``core`` (within 0.3 of its width of the
    axis line): a handle or a tip does, a shadow thrown to the side does not."""
    ys, xs = np.nonzero(core)
    ey, ex = np.nonzero(extra)
    out = np.zeros_like(extra)
    if xs.size < 10 or ex.size == 0:
        return out
    cx, cy = xs.mean(), ys.mean()
    evals, evecs = np.linalg.eigh(np.cov(np.stack([xs - cx, ys - cy])))
    v = evecs[:, 0]  # across the axis
    width = math.sqrt(max(float(evals[0]), 0.0)) * math.sqrt(12.0)  # a uniform band's width from its spread
    keep = np.abs((ex - cx) * v[0] + (ey - cy) * v[1]) < 0.3 * width
    out[ey[keep], ex[keep]] = 1
    return out


def _with_shadowlike(blob: tuple[int, int, int, int], fg: np.ndarray, fg_raw: np.ndarray, valid: np.ndarray,
                     scale: float) -> tuple[int, int, int, int]:
    """The blob's box grown over the felt-hued dark pixels joined to it (a black body around a light
    letter), unless they make something larger than any dreidel (the rim's shadow)."""
    x, y, bw, bh = blob
    n, labels, stats, _ = cv2.connectedComponentsWithStats((fg_raw & valid).astype(np.uint8), connectivity=8)
    inside = labels[y:y + bh, x:x + bw][fg[y:y + bh, x:x + bw] > 0]
    inside = inside[inside > 0]
    if inside.size == 0:
        return blob
    k = int(np.bincount(inside).argmax())
    gx, gy, gw, gh = (int(v) for v in stats[k, :4])
    if max(gw, gh) > MAX_LENGTH_PX * scale:
        return blob
    nx0, ny0 = min(x, gx), min(y, gy)
    return nx0, ny0, max(x + bw, gx + gw) - nx0, max(y + bh, gy + gh) - ny0


def _pick_blob(fg: np.ndarray, scale: float, lab: np.ndarray, felt: np.ndarray | None = None,
               frame: tuple[int, int, int, int] | None = None) -> tuple[int, int, int, int] | None:
    """The blob most like a dreidel lying on felt: dreidel-sized, inside the picture, and ringed by
    one even colour (the felt). A piece of the tray's rim has felt on one side and something else
    on the other, so its ring is uneven. With ``felt`` (the tray's felt region), a blob whose ring
    lies largely outside it is something cut off at the tray's edge (a cloth's check), not a dreidel.
    ``frame`` (x0, y0, width, height): ``fg`` is a window at (x0, y0) of a picture of that size, whose
    edges are the ones that cut a blob (default: ``fg`` is the whole picture)."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
    h, w = fg.shape
    fx, fy, fw, fh = frame or (0, 0, w, h)
    min_len, max_len = MIN_LENGTH_PX * scale, MAX_LENGTH_PX * scale
    found: list[tuple[float, int]] = []
    # the cheap tests on all the (often hundreds of) specks at once: size, and not cut by the picture's
    # edge (the tray's rim or something outside)
    sx, sy, sw, sh, sa = (stats[1:, k] for k in range(5))
    maybe = ((np.maximum(sw, sh) <= max_len) & (sa >= 0.05 * min_len ** 2) & (sx + fx > 0) & (sy + fy > 0)
             & (sx + fx + sw < fw) & (sy + fy + sh < fh))
    for i in (np.flatnonzero(maybe) + 1).tolist():
        x, y, bw, bh, area = (int(v) for v in stats[i])
        if math.hypot(bw, bh) < min_len * 0.7:
            continue
        mo = cv2.moments((labels[y:y + bh, x:x + bw] == i).astype(np.uint8), binaryImage=True)
        mu20, mu02, mu11 = mo["mu20"], mo["mu02"], mo["mu11"]
        root = math.sqrt(max(0.0, (mu20 - mu02) ** 2 + 4 * mu11 ** 2))
        if (mu20 + mu02 + root) > 64.0 * max(mu20 + mu02 - root, 1e-9):
            continue  # longer than 8 widths: an edge of the rim or a seam, not a dreidel
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
        if felt is not None and float(np.mean(~felt[y0:y1, x0:x1][ring])) > 0.35:
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
    core: tuple[float, float]  # t0, t1 of the body without a waist (for _plausible)
    origin: tuple[float, float]
    u: tuple[float, float]
    confidence: float
    width_px: float


def _body_run(width: np.ndarray, wb: float, max_gap: int, waist: bool) -> tuple[int, int] | None:
    """The longest stretch (first, last bin) of the width profile at (nearly) the body's width ``wb``.

    Gaps of up to ``max_gap`` bins are bridged: a stray notch (a dark letter or sliver lost against the
    felt) must not split the body. With ``waist``, a longer gap is bridged too while the width stays
    over _WAIST of the body's: a waist between a wide tip's cap and a collar (or a shadow's bulge) at the
    other end. Split there, the longer half was taken for the body, and on a blunt tip the handle's side
    then looked the wider next to it (twin 55005 spin 3: the handle taken for the tip, a 13 px face).
    """
    wide = width >= 0.85 * wb
    body_like = width >= _WAIST * wb
    runs: list[tuple[int, int]] = []
    start, end, gap, narrowed = -1, -1, 0, False
    for i, flag in enumerate(wide):
        if flag:
            if start < 0:
                start = i
            end, gap, narrowed = i, 0, False
        elif start >= 0:
            gap += 1
            narrowed = narrowed or not (waist and body_like[i])
            if gap > max_gap and narrowed:
                runs.append((start, end))
                start, gap, narrowed = -1, 0, False
    if start >= 0:
        runs.append((start, end))
    return max(runs, key=lambda r: r[1] - r[0]) if runs else None


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
    # The body is the longest stretch at (nearly) full width (_body_run). Outlier pixels (shadow,
    # noise) do not move it, as they would a convex hull's. Whether the silhouette is a whole dreidel
    # (_plausible) is judged on the body without its waist: a lone letter's blob has one too.
    max_gap = max(2, int(0.06 * length))
    core = _body_run(width, wb, max_gap, waist=False)
    if core is None:
        return None
    b0, b1 = _body_run(width, wb, max_gap, waist=True) or core
    core_inset = _FACE_INSET * (core[1] + 1 - core[0])
    core_t = (t0 + core[0] + core_inset, t0 + core[1] + 1 - core_inset)
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
    inset = _FACE_INSET * (b1 + 1 - b0)
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
                     body=(tb0, tb1, w_lo, w_hi), core=core_t, origin=(float(cx), float(cy)),
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
    step parallel to the axis that runs the body's whole length, unlike a letter's strokes; a stroke that
    does too is told by its band (:func:`_comes_back`).
    """
    rows, cols = lab.shape[:2]
    if rows < 10 or cols < 6:
        return None
    # A letter's long stroke (a Nun's stem) runs along the axis too, but seldom the face's whole length:
    # the edge must be there from end to end.
    c0, c1 = int(cols * 0.04), max(int(cols * 0.96), int(cols * 0.04) + 2)
    band = lab[:, c0:c1]
    # the step across a candidate edge at row r, per column: band[r + 1] - band[r - 2] (row j = r - 2)
    steps = band[3:] - band[:-3]
    meds = np.median(steps, axis=1)  # one call for every row
    strengths = np.sqrt((meds * meds).sum(axis=1))
    profile = np.median(band, axis=1)  # each row's colour
    edges: list[tuple[float, int, int, int]] = []  # (score, side, k, r) of each step from end to end
    strokes: set[int] = set()  # the rows where such a step is a letter's stroke
    for k in range(max(2, int(rows * 0.1)), int(rows * 0.42) + 1):
        for side in (0, 1):
            r = k if side == 0 else rows - k
            if r - 2 < 0 or r + 2 > rows:
                continue
            strength = float(strengths[r - 2])
            if strength < 7.0:
                continue
            along = steps[r - 2] @ (meds[r - 2] / strength)  # every column must step the same way
            coverage = float(np.mean(along > 0.5 * strength))
            if coverage < 0.92:
                continue
            if _comes_back(profile, r, strength):
                strokes.add(r)
            elif _sets_apart(profile, side, r, strength):
                edges.append((strength * coverage, side, k, r))
    best: tuple[int, int] | None = None
    best_score = 0.0
    for score, side, k, r in edges:
        # a row next to a stroke's is the same blurred step, seen where the far side is too short to show it
        if score > best_score and not strokes & {r - 1, r + 1}:
            best_score, best = score, (side, k)
    return best


def _sets_apart(profile: np.ndarray, side: int, r: int, strength: float) -> bool:
    """Whether the rows an edge at row ``r`` would cut off differ in colour, as a whole, from the rows it keeps.

    A neighbouring face's sliver is another face, turned away from the light and often painted another
    colour: across its whole width it is unlike the up face. A grain line in a wooden dreidel (or a crease
    of light) is a sharp step too, from end to end, with the same wood on both sides, so the medians of the
    two sides stay close. Cutting there shortens the face across the letter (twin 85016: a Nun's stem ran
    on at the quad's edge, and the taught model could not read it).

    The bar is half the step. On 1050 tuning stills with their true faces (600 twin, 300 synth, 150 altsim;
    bench/bench_pose.py's), 27 outlines moved: 20 came closer to the true face by more than 0.02 IoU and 2
    went farther. A bar of 0.35 moved 18 (12 closer, 2 farther); 0.7 moved 42 (32, 6); 1.0 moved 96 (46, 29):
    past half the step, some real slivers, shaded only a little, stop counting.
    """
    rows = profile.shape[0]
    # each side without the rim row and the two rows the blurred step spans
    cut, kept = (profile[1:r - 2], profile[r + 2:rows - 1]) if side == 0 else (profile[r + 2:rows - 1],
                                                                               profile[1:r - 2])
    if cut.shape[0] == 0 or kept.shape[0] == 0:
        return True  # a sliver two rows wide: nothing to weigh, keep the step's word
    apart = float(np.sqrt(((np.median(cut, axis=0) - np.median(kept, axis=0)) ** 2).sum()))
    return apart >= SLIVER_APART * strength


def _comes_back(profile: np.ndarray, r: int, strength: float) -> bool:
    """Whether a candidate edge at row ``r`` is a letter's stroke: one side comes back to the other's colour.

    A face's edge has the up face's paint on one side and the next face's, shaded otherwise, on the other,
    each as far as its face goes. A stroke is a band of ink with the same paint on both sides, so past the
    band the colour comes back. A stem as long as the face (some fonts draw a Nun's that way) steps from
    end to end like an edge; its band is what gives it away.
    """
    rows = profile.shape[0]
    # the step runs from row r - 2 to row r + 1; each side's colour is taken a row clear of it
    low_rows, high_rows = profile[max(0, r - 4):max(0, r - 2)], profile[r + 2:r + 4]
    if low_rows.shape[0] == 0 or high_rows.shape[0] == 0:
        return False  # an edge at the rim: nothing past it to come back
    low, high = low_rows.mean(axis=0), high_rows.mean(axis=0)
    reach = max(3, int(0.2 * rows))  # a stroke is narrower than this
    tol = 0.35 * strength
    # each side from past where its colour was taken, to 2 rows short of the body's rim
    for far, level in ((profile[max(2, r - 4 - reach):max(2, r - 4)][::-1], high),
                       (profile[r + 4:min(rows - 2, r + 4 + reach)], low)):
        back = np.sqrt(((far - level) ** 2).sum(axis=1)) < tol
        # three rows in a row: the face's paint again. A blurred step from paint to ink passes any level in
        # between for a row, and a row across part of a letter mixes ink and paint for a row or two: on a
        # sliver shaded only a little darker than the face, such rows look like the sliver (synth 91500163)
        if bool((back[2:] & back[1:-1] & back[:-2]).any()):
            return True
    return False


def bearing_deg(origin: tuple[float, float], point: tuple[float, float]) -> float:
    """Image angle from ``origin`` to ``point`` in degrees [0, 360): 0 = right, 90 = down."""
    return math.degrees(math.atan2(point[1] - origin[1], point[0] - origin[0])) % 360.0
