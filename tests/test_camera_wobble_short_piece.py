"""A piece of path too short for the precession's phase fit is read at the reference period
(controller.camera_wobble, ``WobbleSettings.period_span``).

A spin that wobbles at once is measured only from its confirmed release (some 0.4 s after the release) to its
fall: half a second of path. The phase fit that measures the precession's period takes ``period_fit_s``
(0.3 s) either side of a frame; on such a piece every fit is cut by its ends, reads a 0.55 s precession as
about 0.42 s, and the correction for the moving average's share then takes a third off the radius, so the
onset was dated late (altsim 980010 spin 1: stable 0.622 s, short, for a true 0.168 s). The path here is a
clean top seen from above (as in ``tests/test_camera_wobble.py``): a drifting centroid circling round the tip
at the reference period with a radius of (lever x sin(tilt)), the lever chosen so that a circle at the rules'
6 degrees measures exactly the level.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from controller.camera_wobble import CameraTrack, WobbleSettings, circling_level, wobble_onset

WOBBLE_DEG = 6.0
RELEASE = 1.0


def seen_spin(onset_s: float, seen_s: float, fall_s: float, seed: int, *, fps: float = 60.0,
              period_s: float = 0.55, growth: float = 2.0, length_px: float = 60.0) -> CameraTrack:
    """A spin whose tilt reaches 6 degrees ``onset_s`` after its release, as the judge measures it: from
    ``seen_s`` after the release to its fall at ``fall_s``."""
    ws = WobbleSettings()
    rng = np.random.default_rng(seed)
    t = RELEASE + np.arange(seen_s, fall_s, 1.0 / fps)
    tt = t - RELEASE
    tilt = np.maximum(WOBBLE_DEG * np.exp(growth * (tt - onset_s)), 2.0)
    x_ref = math.pi * ws.window_s / ws.reference_period_s
    gain = 1.0 - math.sin(x_ref) / x_ref
    radius = ws.level * length_px / (math.sin(math.radians(WOBBLE_DEG)) * gain) * np.sin(np.radians(tilt))
    phase = 2.0 * math.pi * tt / period_s
    x = 200.0 + 4.0 * tt + radius * np.cos(phase) + rng.normal(0.0, 0.25, t.size)
    y = 150.0 - 2.5 * tt + radius * np.sin(phase) + rng.normal(0.0, 0.25, t.size)
    area = np.full(t.size, (length_px / 1.65) ** 2)
    return CameraTrack(t=t, x=x, y=y, area=area, release_t=RELEASE, fall_t=float(t[-1]), fps=fps,
                       body_length=length_px)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_a_spin_measured_for_half_a_second_is_dated_at_its_onset(seed: int) -> None:
    """Seen from 0.45 s after the release, wobbling at 0.7 s, fallen at 1.0 s (a 0.55 s piece, shorter than the
    phase fit's 0.6 s span): dated within 0.06 s of the truth. Before the fourteenth session the misread period
    dated it 0.18-0.2 s late (``period_span=0``)."""
    track = seen_spin(0.7, 0.45, 1.0, seed)
    truth = RELEASE + 0.7
    got = wobble_onset(track)
    assert got is not None
    assert abs(got - truth) < 0.06
    before = wobble_onset(track, WobbleSettings(period_span=0.0))
    assert before is not None and before - truth > 0.15


def test_a_short_piece_is_read_at_the_reference_period() -> None:
    """On a piece too short for the phase fit, the period-scaled level is the level as the window leaves it
    (the window's share of a circle of the reference period is the reference itself)."""
    track = seen_spin(0.7, 0.45, 1.0, seed=7)
    _, as_seen = circling_level(track, WobbleSettings(period_correction=False))
    _, scaled = circling_level(track, WobbleSettings())
    ok = np.isfinite(as_seen)
    assert ok.sum() > 20
    assert np.allclose(scaled[ok], as_seen[ok])


def test_a_long_piece_still_has_its_period_measured() -> None:
    """A piece longer than the phase fit's span is scaled for its own period as before: a fast precession
    (0.42 s), which the window leaves more of, is not read as a larger lean."""
    fast = seen_spin(2.0, 0.45, 2.8, seed=8, period_s=0.42)
    got = wobble_onset(fast)
    assert got is not None
    assert got == wobble_onset(fast, WobbleSettings(period_span=0.0))
    assert abs(got - (RELEASE + 2.0)) < 0.1


def test_the_span_must_be_a_share() -> None:
    with pytest.raises(ValueError, match="period_span"):
        WobbleSettings(period_span=1.5)
