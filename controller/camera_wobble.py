"""The wobble onset as the camera sees it, from a spin's centroid path (no judge state: arrays in, a time out).

RULES.md, "Valid spin": a spin counts from the release to the onset of wobble. Both simulators date that
onset where the axis' tilt first reaches 6 degrees. From above, a tilted top precesses: its silhouette's
centroid circles round the tip with a radius of about (the body's lever) x sin(tilt), on top of the slow
drift of a top that walks over the felt. So the circling radius, measured against a reference path that
follows the drift but not the circling (a centred moving average), rises with the tilt, and the onset is
where it rises through a level for good.

What sets that level is the body's lever in the picture, and the lever is set by the dreidel's length
(tip to handle), not by its width. The upright blob seen from above is the body's width (its sqrt(area)),
and dreidels differ in how long they are for their width: on the tuning data the radius at the true
onset is the same fraction of the length on both simulators, while as a fraction of the upright width
it was not (a level fitted to one dated the other's onsets early). The length is measured when the
dreidel lies at rest, which is when the verdict is made (:attr:`CameraTrack.body_length`); a spin
without a rest (it left the tray) falls back on the width times the typical length-to-width ratio
(:attr:`WobbleSettings.length_per_width`).

The length alone over-states the lever of a dreidel that is long for its width (a long handle adds to
the length, little to the silhouette's centroid): measured against the length, the radius at the true
onset falls as the length-to-width ratio grows, on both simulators (the eighth session's replay: the
onset's signed error grows from +0.00 s at 1.6-1.8 widths to +0.04 s at 1.8-2.1 on the twin and +0.07
to +0.09 s at 1.8-2.4 on the unseen renderer). :attr:`WobbleSettings.length_weight` below 1 measures
against ``length ** w * (length_per_width * width) ** (1 - w)`` instead (:func:`lever`); at 0.5, the
geometric mean, that trend is gone on both. It is not the default: the camera-only judge dates the
release late (median +0.09 s on the unseen renderer, +0.025 s on the twin), which the late onsets offset.
The eleventh session's replay (92 tuning spins) found no pair that pays: the geometric lever alone
took the unseen renderer's median from 0.078 to 0.161 s, and with the release re-dated
(a jitter-based release bar, ``hand_jitter_k`` 5, since removed from the judge) both medians were
within 0.004 s of today's (see ``bench/bench_camera_onset.py``).

The moving average takes its own share of the circle, and how much depends on the precession's period:
subtracting the average over a window ``W`` leaves ``1 - sinc(pi W / T)`` of a circle of period ``T``
(0.74 of it at 0.45 s, 0.36 at 0.7 s with the 0.35 s window). On the twin's tuning spins the period at
the onset ranges over 0.45-0.7 s, and the radius measured at the onset, per sine of the true tilt (the
twin's ``track.csv`` holds the tilt per frame), went from 0.56 to 0.32 of the length over that range.
The period is measured frame by frame from the circling's own phase (a weighted straight line through
the unwrapped angle of the centroid about the reference path, within 5% of the true period at the
onset on 90% of the twin's spins), and the radius is scaled to what the window leaves at ``reference_period_s``, which
is where ``level`` is stated. So ``level`` keeps its meaning and its value (0.038 of the length through
a 0.35 s window at a 0.55 s precession), while a fast or a slow precession is no longer read as a
larger or a smaller lean. The window's share is taken as at least ``min_gain``, which caps the boost
of a slow precession: its period is measured poorly while the circling is small, and a larger boost
dated onsets early on both renderers.

The phase fit needs a whole ``period_fit_s`` either side of a frame to tell the period: cut by the
path's ends it is one-sided, and on a piece of path shorter than its full span (``2 period_fit_s``)
every frame's fit is cut. There it misreads the period (a 0.55 s precession on a 0.55 s piece reads
0.42 s), and the correction takes a third off the radius. Such a piece has no period told and is read
at ``reference_period_s`` (``period_span``). It is mostly a spin that wobbled at once, measured only
from its confirmed release to its fall: altsim 980010 spin 1 (true stable 0.168 s, a 0.33 s piece at
60 fps) read the period 0.34 s, the level at half the radius as the window leaves it, and was dated
0.622 s (short) instead of 0.472 s (wobbled immediately). Replayed on the 289 tuning spins of 71
recordings (``bench/diag_camera_variants.py``), it moves 4 altsim spins, none of the twin's: 800000
spin 1 (1.821 -> 1.672 s, true 1.616), 840002 spin 1 (4.689 -> 3.888, true 4.032), 960013 spin 1
(8.555 -> 8.188, true 8.430) and 980010 spin 1; altsim stable-time error median/p95 0.076/0.615 ->
0.073/0.560 s, valid/invalid calls unchanged.

The fourteenth session (H54): a spin that wobbled at once was dated in the middle of the unseen stretch,
release + ``skip_s`` + half the rest, and the judge's series starts ~0.37 s after the release on the twin,
so every one of the twin's 28 tuning spins that wobbled at once was dated 0.219-0.261 s (63002 spin 1 and
63005 spin 7: 0.236 s) while the truth spreads over 0.088-0.436 s; the middle is only the minimax. They are
over the level from the first frame because the level as the window leaves it (``raw``) is crossed below 6
degrees by the twin's fast precession at the onset (0.38-0.45 s: the window leaves 0.74-0.91 of such a circle,
against 0.55 at ``reference_period_s``), and the piece from the confirmed release is too short to measure
the period. The judge now keeps the frames seen while it made sure of the release (12-14 on the twin, ~25 on
altsim) and hands them over as :attr:`CameraTrack.lead`: the period-scaled level on the longer piece, where
it crosses after their first frame, dates the onset (``lead_in``). Replayed on the 289 tuning spins
(``bench/diag_camera_variants.py``, ``--lead judge``) it moves 11 spins judged wobbled immediately and keeps them so
(altsim 940000 spin 1 is truly short, 0.221 -> 0.301 s; the rest wobbled at once): the twin's
median stable-time error 0.089 -> 0.085 s (those spins' 0.109 -> 0.077), p95 0.281 both; altsim 0.073/0.560
both. 63005 spin 7 0.236 -> 0.372 s (true 0.424); 63002 spin 1 stays (over the level on its lead-in's first
frame too, at 4.5 degrees). The lead-in put in front of the series for every spin (H53) or used at its raw
level was worse (twin p95 0.297).

Where the dreidel was not seen for a while (a hand over it, or merged with the hand's blob) the path is
split: the centroid jumps across such a gap, which read as a burst of circling and dated a passing hand
as the onset (twin 54005, 54008). Each piece is measured on its own (a piece shorter than the window is
averaged whole; one of fewer than :data:`MIN_FRAMES` frames has no level).

The radius is read off a growing wobble through the felt's jitter and the outline's flicker, so the first
frame over a level scatters. ``fit_s`` > 0 dates the crossing on the growth instead: a straight line
through the log of the radius over ``fit_s`` either side of each frame (a wobble grows about
exponentially, a line in its log), which follows the rise without lag and averages the scatter.

The twelfth session (H48, ``bench/onset_truth_floor.py``): the late tail is the truth's definition more
than the camera. A slowly growing lean nutates about its growth and touches 6 degrees on a brief peak
before it crosses for good; on a third of the twin's tuning spins the tilt takes over 0.15 s from 5.75
to 6.25 degrees, and there the camera's onset error is median 0.120 s, p95 0.556 s (signed +0.09 s)
against 0.078 / 0.200 s where it takes under 0.05 s. The circling, read through a moving average over
a precession, sees the mean lean, not the nutation's peaks. Hysteresis on the final rise (the first
crossing of the fitted growth within the last run over a lower level, as the IMU's rocking onset does)
changed two of 149 tuning spins at 0.7-0.8 of the level, both for the better (twin 60004 spin 2, which
wobbled at once, +0.68 -> +0.08 s; altsim 940000 spin 0), but at 0.6 and below it bridged back over the
sleeping dreidel's own circling and dated spins over a second early (60002 spin 2, 940009 spin 0 valid ->
short): while asleep the fitted circling's top decile is over 0.7 of the level on 6% of the twin's spins
and 17% of altsim's, so the margin is too thin to trust on an unseen renderer, and it is not used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from controller.imu_features import local_linear, smooth
from controller.signal_runs import final_run_start

#: fewer frames than this (a piece of the path, or the whole spin) give no circling
MIN_FRAMES = 8


@dataclass(frozen=True)
class CameraTrack:
    """One spin's per-frame series, as the judge collected them while the dreidel was seen.

    ``t`` (s, increasing), centroid ``x``, ``y`` (full-resolution px) and blob ``area`` (px^2); ``release_t``
    and ``fall_t`` (the start of the final fall) bound the search; ``fps`` is the frame rate;
    ``body_length`` the lying dreidel's length at rest (px, tip to handle), None when the spin ended
    without a rest. ``lead``: the frames seen while the judge made sure of the release, before ``t[0]``
    (rows of t, x, y, area; None or empty: none kept), asked only to date a spin that wobbled at once
    (see :func:`wobble_onset`).
    """

    t: np.ndarray
    x: np.ndarray
    y: np.ndarray
    area: np.ndarray
    release_t: float
    fall_t: float
    fps: float
    body_length: float | None = None
    lead: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = self.t.shape
        if self.lead is not None and (self.lead.ndim != 2 or self.lead.shape[1] != 4):
            raise ValueError(f"CameraTrack.lead must have rows of (t, x, y, area), got shape {self.lead.shape}")
        if len(n) != 1:
            raise ValueError(f"CameraTrack.t must be one-dimensional, got shape {n}")
        for name in ("x", "y", "area"):
            if getattr(self, name).shape != n:
                raise ValueError(f"CameraTrack.{name} has shape {getattr(self, name).shape}, t has {n}: "
                                 "give one value per frame")
        if not self.fps > 0:
            raise ValueError(f"CameraTrack.fps must be positive, got {self.fps}")


@dataclass(frozen=True)
class WobbleSettings:
    """How the onset is read off the circling.

    ``skip_s``: the start of the spin ignored (the hand, the release knock). ``window_s``: the centred
    moving average that stands for the drifting path. ``smooth_s``: the averaging of the radius.
    ``level``: the radius at the onset, as a fraction of the dreidel's length (its :func:`lever`), as the window sees a
    precession of ``reference_period_s``. ``length_per_width``: the length taken for a dreidel whose
    length at rest is unknown or implausible, in upright widths (sqrt of the blob's area early in the
    spin); ``width_ratio_range``: the length-to-width ratios believed (a length measured on a dreidel
    half out of the picture, or merged with a shadow, is not). ``hold_s``: without a rise that lasts
    into the fall, the earliest run this long counts. ``gap_s``: dips shorter than this do not end a
    rise. ``fit_s``: half-width of the log-linear growth fit (0: the first smoothed frame over the level).
    ``period_fit_s``: half-width of the phase fit that measures the precession's period;
    ``period_range``: the periods believed (s); ``min_gain``: the smallest share of a circle the window
    is taken to leave (caps the boost of a slow precession); ``period_correction``: False reads the
    radius as the window leaves it, whatever the period (the fifth session's estimator, for the bench);
    ``blind_s``: a longer stretch without the dreidel splits the path. ``unseen_share``: a spin wobbling
    already when first measured is dated this far back into the unseen stretch before (from the first
    frame towards ``release_t + skip_s``; 0: at the first frame), when that stretch is at most
    ``unseen_max_s`` long (a longer one is dated at the first frame). ``length_weight``: how much of the
    lever is the measured length rather than the length typical for the upright width (:func:`lever`; 1:
    the length alone). ``period_span``: a piece of path shorter than this share of the phase fit's full
    span (``2 period_fit_s`` and a frame) has no period told and is read at ``reference_period_s``
    (0: every fit of 6 frames or more is believed, as before the fourteenth session). ``lead_in``: a spin
    that wobbled at once is dated where the period-scaled level crosses on the path with the lead-in frames
    in front (:attr:`CameraTrack.lead`), when it crosses there after their first frame (False: never, as
    before the fourteenth session's H54). ``at_once_fall_s``: a spin over the level from its first frame
    wobbled at once only if it fell within this long of that frame; one that circled over the level for
    longer before its fall is read as any other (on the period-scaled level). A top leaning at the rules'
    wobble falls soon: from the true onset to the rest took at most 2.76 s on the twin's 560 tuning spins and
    2.44 s on the second renderer's 195 (session 23). What circles "over the level" for longer is a jittery
    outline: a black dreidel on grey felt under a long shadow, seen only in part (second renderer 1360000
    spin 0, 160-400 lores px^2), whose centroid jumped by 0.05 of its length from frame to frame from its
    first frame on; dated as wobbling at once, its valid spin of 4.51 s was judged 0.50 s (short), while the
    period-scaled level, which reads such jumps as a fast circle and scales them down, crossed 3.3 s in.
    ``read_jitter``: where even the period-scaled level is crossed for good longer than ``at_once_fall_s``
    before the fall, the onset is read against the jitter itself (:func:`read_onset`; False: kept, as before
    session 42).
    """

    skip_s: float = 0.1
    window_s: float = 0.35
    smooth_s: float = 0.08
    level: float = 0.038
    length_per_width: float = 1.65
    width_ratio_range: tuple[float, float] = (1.2, 3.5)
    hold_s: float = 0.2
    gap_s: float = 0.2
    fit_s: float = 0.2
    reference_period_s: float = 0.55
    period_fit_s: float = 0.3
    period_range: tuple[float, float] = (0.25, 1.2)
    min_gain: float = 0.5
    period_correction: bool = True
    blind_s: float = 0.1
    unseen_share: float = 0.5
    unseen_max_s: float = 0.5
    length_weight: float = 1.0
    period_span: float = 1.0
    lead_in: bool = True
    at_once_fall_s: float = 3.0
    read_jitter: bool = True

    def __post_init__(self) -> None:
        for name in ("window_s", "smooth_s", "level", "length_per_width", "hold_s", "gap_s",
                     "reference_period_s", "period_fit_s", "min_gain", "blind_s", "at_once_fall_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"WobbleSettings.{name} must be positive, got {getattr(self, name)}")
        for name in ("width_ratio_range", "period_range"):
            lo, hi = getattr(self, name)
            if not 0 < lo < hi:
                raise ValueError(f"WobbleSettings.{name} must be (low, high) with 0 < low < high, "
                                 f"got {getattr(self, name)}")
        if self.skip_s < 0 or self.fit_s < 0 or self.unseen_max_s < 0:
            raise ValueError("WobbleSettings.skip_s, fit_s and unseen_max_s must not be negative")
        if not 0.0 <= self.length_weight <= 1.0:
            raise ValueError(f"WobbleSettings.length_weight must be within 0..1, got {self.length_weight}")
        if not 0.0 <= self.period_span <= 1.0:
            raise ValueError(f"WobbleSettings.period_span must be within 0..1, got {self.period_span}")
        if not 0.0 <= self.unseen_share <= 1.0:
            raise ValueError(f"WobbleSettings.unseen_share must be within 0..1, got {self.unseen_share}")


def upright_width(area: np.ndarray) -> float:
    """The upright dreidel's width (px): sqrt of the blob's median area over the first third of the spin."""
    early = area[: max(5, area.size // 3)]
    return math.sqrt(max(float(np.median(early)), 1.0)) if early.size else 1.0


def body_length(track: CameraTrack, area: np.ndarray, settings: WobbleSettings) -> float:
    """The dreidel's length (px), tip to handle.

    The length at rest when it is plausible for the upright width (:func:`upright_width`); otherwise
    the width times ``length_per_width``.
    """
    width = upright_width(area)
    length = track.body_length
    lo, hi = settings.width_ratio_range
    if length is not None and lo * width <= length <= hi * width:
        return float(length)
    return settings.length_per_width * width


def lever(track: CameraTrack, area: np.ndarray, settings: WobbleSettings) -> float:
    """The length (px) the circling radius is measured against.

    ``length ** w * (length_per_width * width) ** (1 - w)`` with ``w = settings.length_weight``: the
    :func:`body_length` (``w`` = 1), the length a dreidel of this upright width typically has (0), or
    between. A dreidel of the typical proportions gets its length whatever ``w``.
    """
    length = body_length(track, area, settings)
    w = settings.length_weight
    if w >= 1.0:
        return length
    typical = settings.length_per_width * upright_width(area)
    return float(length**w * typical ** (1.0 - w))


def window_gain(window_s: float, period_s: np.ndarray | float) -> np.ndarray:
    """The share of a circle of period ``period_s`` that is left after subtracting its centred moving
    average over ``window_s``: ``1 - sinc(pi window / period)``."""
    x = np.maximum(math.pi * window_s / np.asarray(period_s, dtype=np.float64), 1e-6)
    return np.asarray(1.0 - np.sin(x) / x)


def precession_period(t: np.ndarray, z: np.ndarray, half: int) -> np.ndarray:
    """The circling's period (s) at each frame, NaN where it cannot be told.

    ``z`` is the centroid about the reference path (complex, px). Its angle turns once per precession;
    a straight line through the unwrapped angle over ``half`` frames either side, each frame weighted by
    its radius (a frame near the centre has a meaningless angle), gives the turning rate. Unwrapping
    depends only on successive frames, so the angle is unwrapped once and the weighted lines come from
    running sums (a long spin's verdict stays cheap).
    """
    n = t.size
    out = np.full(n, np.nan)
    if n == 0:
        return out
    w = np.abs(z)
    ph = np.unwrap(np.angle(z))
    dt = t - t[0]

    def window_sums(v: np.ndarray) -> np.ndarray:
        c = np.concatenate([[0.0], np.cumsum(v)])
        return np.asarray(c[hi] - c[lo])

    i = np.arange(n)
    lo, hi = np.maximum(i - half, 0), np.minimum(i + half + 1, n)
    sw, swt, swtt = window_sums(w), window_sums(w * dt), window_sums(w * dt * dt)
    swp, swtp = window_sums(w * ph), window_sums(w * dt * ph)
    den = sw * swtt - swt * swt
    ok = (hi - lo >= 6) & (sw > 0) & (den > 1e-12 * np.maximum(sw * swtt, 1e-300))
    rate = np.abs(np.where(ok, (sw * swtp - swt * swp) / np.where(ok, den, 1.0), 0.0))
    good = ok & (rate > 0)
    out[good] = 2.0 * math.pi / rate[good]
    return out


def _pieces(t: np.ndarray, blind_s: float, fps: float) -> list[np.ndarray]:
    """Index arrays of the runs of frames, split where the dreidel was unseen for longer than ``blind_s``."""
    if t.size == 0:
        return []
    cuts = np.flatnonzero(np.diff(t) > max(blind_s, 2.5 / fps)) + 1
    return list(np.split(np.arange(t.size), cuts))


def circling_level(track: CameraTrack, settings: WobbleSettings) -> tuple[np.ndarray, np.ndarray]:
    """The circling radius as a fraction of the dreidel's length (its :func:`lever`), frame by frame, from release to fall.

    Returns ``(t, level)`` over ``[release_t + skip_s, fall_t]``, the frames with a known centroid;
    ``level`` is NaN on pieces of the path too short to measure; empty arrays when there are none.
    The radius is scaled to what the window leaves of a circle of ``reference_period_s`` (as the window
    leaves it, whatever the period, without ``period_correction``).
    """
    t, raw, corrected = _levels(track, settings)
    return t, corrected if settings.period_correction else raw


def _levels(track: CameraTrack, s: WobbleSettings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(t, raw, corrected)``: the circling level as the window leaves it, and scaled for the period."""
    keep = (track.t >= track.release_t + s.skip_s) & (track.t <= track.fall_t)
    keep &= np.isfinite(track.x) & np.isfinite(track.y)
    t = track.t[keep]
    raw = np.full(t.size, np.nan)
    corrected = np.full(t.size, np.nan)
    if t.size == 0:
        return t, raw, corrected
    x, y, area = track.x[keep], track.y[keep], track.area[keep]
    n = max(3, int(round(s.window_s * track.fps)))
    m = max(3, int(round(s.smooth_s * track.fps)))
    half = max(3, int(round(s.period_fit_s * track.fps)))
    p_lo, p_hi = s.period_range
    reference = float(window_gain(n / track.fps, s.reference_period_s))
    length = lever(track, area, s)
    for piece in _pieces(t, s.blind_s, track.fps):
        if piece.size < MIN_FRAMES:
            continue
        k = min(n, piece.size)  # a piece shorter than the window is averaged whole
        z = (x[piece] - smooth(x[piece], k)) + 1j * (y[piece] - smooth(y[piece], k))
        raw[piece] = smooth(np.abs(z), m) / length
        if s.period_correction:
            period = precession_period(t[piece], z, half)
            if piece.size < s.period_span * (2 * half + 1):
                period[:] = np.nan  # every fit cut by the piece's ends: the period is not told
            known = np.isfinite(period)
            typical = float(np.median(period[known])) if known.any() else s.reference_period_s
            period = np.clip(np.where(known, period, typical), p_lo, p_hi)
            corrected[piece] = raw[piece] * reference / np.maximum(window_gain(k / track.fps, period), s.min_gain)
    return t, raw, corrected


def _crossing(t: np.ndarray, level: np.ndarray, s: WobbleSettings, fps: float) -> float | None:
    """Where ``level`` rose through ``s.level`` for good (NaN counts as below); see :func:`wobble_onset`."""
    if s.fit_s > 0:
        level = _fitted(t, level, max(2, int(round(s.fit_s * fps))))
    above = np.nan_to_num(level, nan=0.0) > s.level
    onset = final_run_start(above, t, gap=max(2, int(round(s.gap_s * fps))))
    if onset is None:
        hold = max(2, int(round(s.hold_s * fps)))
        run = 0
        for i in range(above.size):
            run = run + 1 if above[i] else 0
            if run and (run >= hold or i == above.size - 1):
                onset = float(t[i - run + 1])
                break
    if onset is None or onset >= t[-1]:
        return None  # over the level on the last frame alone: the edge of the fit, at the fall
    return onset


def _fitted(t: np.ndarray, level: np.ndarray, half: int) -> np.ndarray:
    """The log-linear growth fit of ``level`` within each run of known values (NaN elsewhere)."""
    out = np.full(level.size, np.nan)
    idx = np.flatnonzero(np.isfinite(level))
    if idx.size == 0:
        return out
    for run in np.split(idx, np.flatnonzero(np.diff(idx) > 1) + 1):
        out[run] = np.exp(local_linear(t[run], np.log(np.maximum(level[run], 1e-4)), half))
    return out


def _lead_crossing(track: CameraTrack, s: WobbleSettings, first: float) -> float | None:
    """Where the period-scaled level crosses on the path with the lead-in frames in front, no later than
    ``first``; None without lead-in frames, or when it is over the level from their first frame measured too."""
    lead = track.lead
    if lead is None or lead.shape[0] == 0:
        return None
    lead = lead[lead[:, 0] < track.t[0]]
    if lead.shape[0] == 0:
        return None
    longer = CameraTrack(t=np.concatenate([lead[:, 0], track.t]), x=np.concatenate([lead[:, 1], track.x]),
                         y=np.concatenate([lead[:, 2], track.y]), area=np.concatenate([lead[:, 3], track.area]),
                         release_t=track.release_t, fall_t=track.fall_t, fps=track.fps,
                         body_length=track.body_length)
    t, raw, corrected = _levels(longer, s)
    level = corrected if s.period_correction else raw
    if int(np.isfinite(level).sum()) < MIN_FRAMES:
        return None
    crossing = _crossing(t, level, s, track.fps)
    if crossing is None or crossing <= float(t[int(np.flatnonzero(np.isfinite(level))[0])]):
        return None
    return min(crossing, first)


def wobble_onset(track: CameraTrack, settings: WobbleSettings | None = None) -> float | None:
    """When the camera saw the wobble begin: where the circling rose through the level for good.

    The rise that lasts into the fall (dips shorter than ``gap_s`` ignored) is the wobble; an earlier
    blip that died down is not. Without such a rise, the earliest run over the level that lasts
    ``hold_s``. None when the circling never rose (a top that toppled straight over, or too few frames).

    A dreidel that circles over the level, as the window leaves it, from the first frame measured
    wobbled before it was measured: at once, while the hand let go and the judge made sure of the
    release (the judge's series starts some 0.35 s after the release). The period cannot be told there
    (the phase fit and the moving average are one-sided at the path's start), so it is not dated on
    the period-scaled level (the twin's 41 tuning spins that wobbled at once were 0.176 s from the
    truth, median, against 0.139 s at the first frame). Nor is it dated at the first frame: the wobble
    began somewhere in the unseen stretch before it, from ``release_t + skip_s`` on, and nothing tells
    where, so it is dated ``unseen_share`` of the way back into it (the middle, which halves the worst
    error). Dated at the first frame, the tuning spins that wobbled at once were late by 0.14-0.18 s
    (median, both renderers); see ``bench/bench_camera_onset.py``. A longer unseen stretch than
    ``unseen_max_s`` (a hand hid the spin) says too little: that spin is dated at its first frame.

    Unless the frames seen while the judge made sure of the release (:attr:`CameraTrack.lead`) tell more:
    with them in front, the piece is long enough for the period to be measured, and where the period-scaled
    level crosses after their first frame is the onset (never after the first frame of the series). See the
    module's notes (H54). And unless the dreidel went on circling for longer than a wobbling top stays up
    (``WobbleSettings.at_once_fall_s`` from the first frame to the fall): then the circling "over the level"
    from the start was the outline's jitter, and the onset is read on the period-scaled level as for any spin.
    Where that too is crossed for good longer than ``at_once_fall_s`` before the fall, the onset is read against
    the jitter itself (:func:`read_onset`, which also says so).
    """
    return read_onset(track, settings).onset


def _level_onset(track: CameraTrack, s: WobbleSettings, t: np.ndarray, raw: np.ndarray,
                 corrected: np.ndarray) -> float | None:
    """The onset read against ``s.level`` on the track's circling (``_levels``), as :func:`wobble_onset` describes."""
    if int(np.isfinite(raw).sum()) < MIN_FRAMES:
        return None
    fps = track.fps
    first = float(t[int(np.flatnonzero(np.isfinite(raw))[0])])
    as_seen = _crossing(t, raw, s, fps)
    if as_seen is not None and as_seen == first and track.fall_t - first <= s.at_once_fall_s:
        start = track.release_t + s.skip_s
        unseen = first - start
        if not 0.0 < unseen <= s.unseen_max_s:
            return first
        led = _lead_crossing(track, s, first) if s.lead_in else None
        return led if led is not None else first - s.unseen_share * unseen
    if not s.period_correction:
        return as_seen
    return _crossing(t, corrected, s, fps)


@dataclass(frozen=True)
class OnsetReading:
    """The camera's wobble onset and how it was read (:func:`read_onset`).

    ``jitter``: None when the onset was read against the level (the usual case). Else the circling rose through
    the level for good longer before the fall than a wobbling top stays up, so what it measured was the
    outline's jitter, and the onset was read against that jitter: ``jitter`` is the largest period-scaled
    circling seen while the top certainly stood, as a fraction of the lever. Such an onset is a guess of the
    camera's, which the judge asks a judge to check.
    """

    onset: float | None
    jitter: float | None = None


def read_onset(track: CameraTrack, settings: WobbleSettings | None = None) -> OnsetReading:
    """The wobble onset read against the level, unless that lies more than ``at_once_fall_s`` before the fall:
    then read against the outline's own jitter (:func:`wobble_onset` is this reading's onset).

    A top leaning at the rules' wobble falls within ``at_once_fall_s`` (see :class:`WobbleSettings`), so the
    frames up to ``fall_t - at_once_fall_s`` were before the wobble, and a circling over the level there for
    good is the outline's jitter. A low-contrast dreidel seen only in part while it spins (twin 100004 spin 8:
    a pink dreidel upside down on olive felt, a blob of 140-280 px^2 of its ~1100) jumps about by a tenth of
    its lever from frame to frame; read against the level it wobbled on its first frame measured, 0.74 s into
    a spin that stood 4.52 s. Here the onset is where the circling rose for good through the largest level
    that jitter reached while the top stood (None when it never did: the spin is timed to its fall). A spin
    dated as wobbling at once (before its first frame measured; it fell within ``at_once_fall_s`` of that
    frame) keeps its onset.
    """
    s = settings if settings is not None else WobbleSettings()
    t, raw, corrected = _levels(track, s)
    onset = _level_onset(track, s, t, raw, corrected)
    if onset is None or not s.period_correction or not s.read_jitter:
        return OnsetReading(onset)
    known = np.flatnonzero(np.isfinite(corrected))
    first = float(t[known[0]]) if known.size else math.nan
    if not onset >= first or track.fall_t - onset <= s.at_once_fall_s:
        return OnsetReading(onset)  # a wobble it could have been (or it wobbled at once, dated before ``first``)
    fitted = _fitted(t, corrected, max(2, int(round(s.fit_s * track.fps)))) if s.fit_s > 0 else corrected
    standing = (t <= track.fall_t - s.at_once_fall_s) & np.isfinite(fitted)
    jitter = float(np.max(fitted[standing]))
    # the fit stays at or under its own largest value while the top stood: the rise through it comes later
    return OnsetReading(_crossing(t, corrected, replace(s, level=jitter), track.fps), jitter)
