"""The camera's wobble onset (controller.camera_wobble) on synthetic centroid paths with a known onset.

A path is a top seen from above: its centroid drifts over the felt and circles round the tip at the
precession rate with a radius of (lever x sin(tilt)). The tilt sleeps at a couple of degrees and then
grows exponentially through the rules' 6 degrees (the true onset) until the fall. The lever is chosen so
that a clean circle at 6 degrees measures exactly the settings' level after the reference path (a centred
moving average) has taken its share, so the onset the module should find is the true one.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.camera_wobble import CameraTrack, WobbleSettings, body_length, circling_level, wobble_onset

WOBBLE_DEG = 6.0


def moving_average_gain(window_s: float, period_s: float) -> float:
    """What is left of a circle of this period after subtracting its centred moving average."""
    x = math.pi * window_s / period_s
    return 1.0 - math.sin(x) / x


def spin_path(
    onset_s: float | None,
    *,
    length_px: float = 60.0,
    fps: float = 60.0,
    period_s: float = 0.55,
    growth: float = 1.5,
    sleep_deg: float = 2.0,
    fall_s: float = 6.0,
    drift: tuple[float, float] = (4.0, -2.5),
    curve_px: float = 0.0,
    jitter_px: float = 0.25,
    seed: int = 1,
    ws: WobbleSettings | None = None,
) -> CameraTrack:
    """A spin released at t = 1 s whose tilt reaches 6 degrees at 1 + ``onset_s`` (never when None)."""
    ws = ws if ws is not None else WobbleSettings()
    rng = np.random.default_rng(seed)
    release = 1.0
    t = release + np.arange(0.0, fall_s, 1.0 / fps)
    if onset_s is None:
        tilt = np.full(t.size, sleep_deg)
    else:
        tilt = np.maximum(WOBBLE_DEG * np.exp(growth * (t - release - onset_s)), sleep_deg)
    lever = ws.level * length_px / (math.sin(math.radians(WOBBLE_DEG)) * moving_average_gain(ws.window_s, period_s))
    radius = lever * np.sin(np.radians(tilt))
    phase = 2 * math.pi * (t - release) / period_s
    tt = t - release
    x = 200.0 + drift[0] * tt + curve_px * np.sin(0.7 * tt) + radius * np.cos(phase) + rng.normal(0, jitter_px, t.size)
    y = 150.0 + drift[1] * tt + curve_px * np.cos(0.5 * tt) + radius * np.sin(phase) + rng.normal(0, jitter_px, t.size)
    width = length_px / 1.65
    area = np.full(t.size, width * width) + rng.normal(0, 0.02 * width * width, t.size)
    return CameraTrack(t=t, x=x, y=y, area=area, release_t=release, fall_t=float(t[-1]), fps=fps,
                       body_length=length_px)


@pytest.mark.parametrize("onset_s", [0.4, 1.7, 3.2])
@pytest.mark.parametrize("growth", [0.8, 1.5, 3.0])
def test_onset_found_where_the_tilt_reaches_the_rules_level(onset_s: float, growth: float) -> None:
    track = spin_path(onset_s, growth=growth, fall_s=onset_s + math.log(30 / WOBBLE_DEG) / growth, seed=7)
    got = wobble_onset(track)
    assert got is not None
    assert abs(got - (track.release_t + onset_s)) < 0.1


def test_growth_fit_is_steadier_than_the_first_frame_over_the_level() -> None:
    """Over many noisy spins the fitted crossing scatters less about the true onset than the raw one."""
    raw: list[float] = []
    fitted: list[float] = []
    for seed in range(12):
        track = spin_path(2.0, growth=0.9, fall_s=4.0, jitter_px=0.5, seed=seed)
        truth = track.release_t + 2.0
        for out, ws in ((raw, WobbleSettings(fit_s=0.0)), (fitted, WobbleSettings())):
            got = wobble_onset(track, ws)
            out.append(abs(got - truth) if got is not None else 9.0)
    assert np.median(fitted) < 0.08
    assert np.percentile(fitted, 90) < np.percentile(raw, 90)


def test_a_drifting_sleeper_is_not_a_wobble() -> None:
    """A top that walks fast and on a curve, but does not lean further, shows no onset before its fall."""
    track = spin_path(None, drift=(25.0, -18.0), curve_px=12.0, fall_s=5.0, seed=3)
    assert wobble_onset(track) is None


def test_a_noisy_sleeper_never_wobbles() -> None:
    track = spin_path(None, jitter_px=0.6, sleep_deg=2.5, fall_s=8.0, seed=11)
    t, level = circling_level(track, WobbleSettings())
    assert t.size > 100
    assert wobble_onset(track) is None
    assert float(np.median(level)) < 0.5 * WobbleSettings().level


def test_drift_does_not_move_the_onset() -> None:
    still = wobble_onset(spin_path(2.5, seed=5))
    walking = wobble_onset(spin_path(2.5, drift=(30.0, 20.0), curve_px=10.0, seed=5))
    assert still is not None and walking is not None
    assert abs(still - walking) < 0.06


def test_a_blip_that_dies_down_is_not_the_onset() -> None:
    """A short burst of circling early in the spin (a nudge of the felt) is followed by the real wobble."""
    track = spin_path(3.0, fall_s=4.5, seed=2)
    burst = (track.t > 1.8) & (track.t < 2.2)
    phase = 2 * math.pi * track.t[burst] / 0.3
    x = track.x.copy()
    x[burst] += 0.2 * 60.0 * np.cos(phase)
    nudged = CameraTrack(t=track.t, x=x, y=track.y, area=track.area, release_t=track.release_t,
                         fall_t=track.fall_t, fps=track.fps, body_length=track.body_length)
    got = wobble_onset(nudged)
    assert got is not None
    assert abs(got - (track.release_t + 3.0)) < 0.1


def test_the_search_ends_at_the_fall() -> None:
    track = spin_path(3.0, fall_s=5.0, seed=4)
    early_fall = CameraTrack(t=track.t, x=track.x, y=track.y, area=track.area, release_t=track.release_t,
                             fall_t=track.release_t + 2.0, fps=track.fps, body_length=track.body_length)
    assert wobble_onset(early_fall) is None


@settings(max_examples=25, deadline=None)
@given(zoom=st.floats(0.5, 2.5), onset_s=st.floats(0.8, 3.0), seed=st.integers(0, 1000))
def test_the_onset_does_not_depend_on_the_picture_scale(zoom: float, onset_s: float, seed: int) -> None:
    """The same spin filmed larger (positions, area and length scaled) has the same onset."""
    track = spin_path(onset_s, fall_s=onset_s + 1.5, seed=seed)
    zoomed = CameraTrack(t=track.t, x=zoom * track.x, y=zoom * track.y, area=zoom * zoom * track.area,
                         release_t=track.release_t, fall_t=track.fall_t, fps=track.fps,
                         body_length=None if track.body_length is None else zoom * track.body_length)
    a, b = wobble_onset(track), wobble_onset(zoomed)
    assert (a is None) == (b is None)
    if a is not None and b is not None:
        assert abs(a - b) < 1e-6


def test_a_long_dreidel_is_dated_by_its_length_not_its_width() -> None:
    """Two dreidels of the same width circle alike in pixels; the longer one's lever is longer, so the
    same circling is a smaller lean: its onset comes later."""
    short = spin_path(2.0, length_px=50.0, fall_s=3.5, seed=9)
    long_ = CameraTrack(t=short.t, x=short.x, y=short.y, area=short.area, release_t=short.release_t,
                        fall_t=short.fall_t, fps=short.fps, body_length=80.0)
    a, b = wobble_onset(short), wobble_onset(long_)
    assert a is not None and b is not None
    assert b - a > 0.15


def test_an_implausible_length_falls_back_on_the_width() -> None:
    track = spin_path(2.0, length_px=66.0)
    ws = WobbleSettings()
    width = math.sqrt(float(np.median(track.area[: track.t.size // 3])))
    assert body_length(track, track.area, ws) == pytest.approx(66.0)
    for bad in (None, 0.5 * width, 6.0 * width):
        odd = CameraTrack(t=track.t, x=track.x, y=track.y, area=track.area, release_t=track.release_t,
                          fall_t=track.fall_t, fps=track.fps, body_length=bad)
        assert body_length(odd, odd.area, ws) == pytest.approx(ws.length_per_width * width, rel=1e-6)


def test_too_few_frames_give_no_onset() -> None:
    track = spin_path(0.5, fall_s=0.3)
    assert wobble_onset(track) is None


def test_bad_input_says_what_to_fix() -> None:
    t = np.arange(10.0)
    with pytest.raises(ValueError, match="area"):
        CameraTrack(t=t, x=t, y=t, area=t[:5], release_t=0.0, fall_t=9.0, fps=60.0)
    with pytest.raises(ValueError, match="fps"):
        CameraTrack(t=t, x=t, y=t, area=t, release_t=0.0, fall_t=9.0, fps=0.0)
    with pytest.raises(ValueError, match="level"):
        WobbleSettings(level=0.0)
    with pytest.raises(ValueError, match="width_ratio_range"):
        WobbleSettings(width_ratio_range=(3.0, 2.0))
