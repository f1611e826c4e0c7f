"""The wobble onset as the camera sees it, from a spin's centroid path (no judge state: arrays in, a time out).

RULES.md, "Valid spin": a spin counts from the release to the onset of wobble. Both simulators date that
onset where the axis' tilt first reaches 6 degrees. From above, a tilted top precesses: its silhouette's
centroid circles round the tip with a radius of about (the body's lever) x sin(tilt), on top of the slow
drift of a top that walks over the felt. So the circling radius, measured against a reference path that
follows the drift but not the circling (a centred moving average about a precession long), rises with the
tilt, and the onset is where it rises through a level for good.

What sets that level is the body's lever in the picture, and the lever is set by the dreidel's length
(tip to handle), not by its width. The upright blob seen from above is the body's width (its sqrt(area)),
and dreidels differ in how long they are for their width: on the tuning data the radius at the true
onset is the same fraction of the length on both simulators (0.038 and 0.039), while as a fraction of
the upright width it was 0.065 on one and 0.085 on the other (a level fitted to one dated the other's
onsets early). The length is measured when the dreidel lies at rest, which is when the verdict is
made (:attr:`CameraTrack.body_length`); a spin without a rest (it left the tray) falls back on the width
times the typical length-to-width ratio (:attr:`WobbleSettings.length_per_width`).

The radius is read off a growing wobble through the felt's jitter and the outline's flicker, so the first
frame over a level scatters. ``fit_s`` > 0 dates the crossing on the growth instead: a straight line
through the log of the radius over ``fit_s`` either side of each frame (a wobble grows about
exponentially, a line in its log), which follows the rise without lag and averages the scatter.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from controller.imu_features import local_linear, smooth
from controller.signal_runs import final_run_start


@dataclass(frozen=True)
class CameraTrack:
    """One spin's per-frame series, as the judge collected them while the dreidel was seen.

    ``t`` (s, increasing), centroid ``x``, ``y`` (full-resolution px) and blob ``area`` (px^2); ``release_t``
    and ``fall_t`` (the start of the final fall) bound the search; ``fps`` is the frame rate;
    ``body_length`` the lying dreidel's length at rest (px, tip to handle), None when the spin ended
    without a rest.
    """

    t: np.ndarray
    x: np.ndarray
    y: np.ndarray
    area: np.ndarray
    release_t: float
    fall_t: float
    fps: float
    body_length: float | None = None

    def __post_init__(self) -> None:
        n = self.t.shape
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
    ``level``: the radius at the onset, as a fraction of the dreidel's length. ``length_per_width``: the
    length taken for a dreidel whose length at rest is unknown or implausible, in upright widths
    (sqrt of the blob's area early in the spin); ``width_ratio_range``: the length-to-width ratios
    believed (a length measured on a dreidel half out of the picture, or merged with a shadow, is not).
    ``hold_s``: without a rise that lasts into the fall, the earliest run this long counts.
    ``gap_s``: dips shorter than this do not end a rise. ``fit_s``: half-width of the log-linear growth
    fit (0: the first smoothed frame over the level).
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

    def __post_init__(self) -> None:
        for name in ("window_s", "smooth_s", "level", "length_per_width", "hold_s", "gap_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"WobbleSettings.{name} must be positive, got {getattr(self, name)}")
        lo, hi = self.width_ratio_range
        if not 0 < lo < hi:
            raise ValueError(f"WobbleSettings.width_ratio_range must be (low, high) with 0 < low < high, "
                             f"got {self.width_ratio_range}")
        if self.skip_s < 0 or self.fit_s < 0:
            raise ValueError("WobbleSettings.skip_s and fit_s must not be negative")


def body_length(track: CameraTrack, area: np.ndarray, settings: WobbleSettings) -> float:
    """The dreidel's length (px) the circling is measured against.

    The length at rest when it is plausible for the upright width (sqrt of the median area over the
    first third of the spin); otherwise the width times ``length_per_width``.
    """
    early = area[: max(5, area.size // 3)]
    width = math.sqrt(max(float(np.median(early)), 1.0)) if early.size else 1.0
    length = track.body_length
    lo, hi = settings.width_ratio_range
    if length is not None and lo * width <= length <= hi * width:
        return float(length)
    return settings.length_per_width * width


def circling_level(track: CameraTrack, settings: WobbleSettings) -> tuple[np.ndarray, np.ndarray]:
    """The circling radius as a fraction of the dreidel's length, frame by frame, from release to fall.

    Returns ``(t, level)`` over ``[release_t + skip_s, fall_t]``, the frames with a known centroid;
    empty arrays when there are none.
    """
    s = settings
    keep = (track.t >= track.release_t + s.skip_s) & (track.t <= track.fall_t)
    keep &= np.isfinite(track.x) & np.isfinite(track.y)
    t = track.t[keep]
    if t.size == 0:
        return t, np.zeros(0)
    x, y, area = track.x[keep], track.y[keep], track.area[keep]
    n = max(3, int(round(s.window_s * track.fps)))
    radius = np.hypot(x - smooth(x, n), y - smooth(y, n))
    level = smooth(radius, max(3, int(round(s.smooth_s * track.fps)))) / body_length(track, area, s)
    return t, level


def wobble_onset(track: CameraTrack, settings: WobbleSettings | None = None) -> float | None:
    """When the camera saw the wobble begin: where the circling rose through the level for good.

    The rise that lasts into the fall (dips shorter than ``gap_s`` ignored) is the wobble; an earlier
    blip that died down is not. Without such a rise, the earliest run over the level that lasts
    ``hold_s``. None when the circling never rose (a top that toppled straight over, or too few frames).
    """
    s = settings if settings is not None else WobbleSettings()
    t, level = circling_level(track, s)
    if t.size < 8:
        return None
    fps = track.fps
    if s.fit_s > 0:
        half = max(2, int(round(s.fit_s * fps)))
        level = np.exp(local_linear(t, np.log(np.maximum(level, 1e-4)), half))
    above = level > s.level
    onset = final_run_start(above, t, gap=max(2, int(round(s.gap_s * fps))))
    if onset is not None:
        return onset
    hold = max(2, int(round(s.hold_s * fps)))
    run = 0
    for i in range(above.size):
        run = run + 1 if above[i] else 0
        if run and (run >= hold or i == above.size - 1):
            return float(t[i - run + 1])
    return None
