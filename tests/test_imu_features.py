"""IMU features on synthetic tray vibration with known release, chatter onset and landing."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.imu_features import ImuFeatureExtractor, hinge_onset, local_linear
from hardware.imu import ImuBatch, ImuGap, ImuSample


def synth_spin(
    rate: float = 833.0,
    release: float = 1.0,
    wobble: float = 4.2,
    land: float = 6.0,
    end: float = 7.5,
    seed: int = 0,
    noise: float = 0.003,
) -> np.ndarray:
    """An N x 7 IMU trace: quiet, release knock, steady hum, growing irregular chatter, landing knock, silence."""
    rng = np.random.default_rng(seed)
    t = np.arange(0.0, end, 1.0 / rate)
    a = rng.normal(0.0, noise, size=(t.size, 3))
    a[:, 2] += 1.0  # gravity
    spin_hz = 18.0
    hum = (t >= release) & (t < land)
    a[hum, 0] += 0.01 * np.sin(2 * np.pi * spin_hz * t[hum])
    a[hum, 1] += 0.01 * np.cos(2 * np.pi * spin_hz * t[hum])
    ch = (t >= wobble) & (t < land)
    growth = np.clip((t[ch] - wobble) / 0.6, 0, 1) * 0.06 + 0.004
    a[ch, 2] += growth * rng.normal(0, 1, ch.sum()) * (1 + np.sin(2 * np.pi * 3 * t[ch]))
    for knock, amp in ((release, 0.8), (land, 1.2)):
        k = (t >= knock) & (t < knock + 0.05)
        a[k, 2] += amp * np.exp(-(t[k] - knock) / 0.008) * np.cos(2 * np.pi * 120 * (t[k] - knock))
    g = rng.normal(0, 0.3, size=(t.size, 3))
    return np.column_stack([t, a, g])


def feed_in_batches(ex: ImuFeatureExtractor, arr: np.ndarray, batch: int = 37) -> None:
    for i in range(0, arr.shape[0], batch):
        rows = arr[i : i + batch]
        ex.feed(ImuBatch(tuple(ImuSample(*map(float, r)) for r in rows)))


def test_impacts_found_at_release_and_landing_only() -> None:
    ex = ImuFeatureExtractor()
    feed_in_batches(ex, synth_spin())
    times = [i.t for i in ex.impacts_between(0, 10)]
    assert len(times) == 2, times
    assert abs(times[0] - 1.0) < 0.005
    assert abs(times[1] - 6.0) < 0.005


def test_chatter_onset_found_near_truth() -> None:
    ex = ImuFeatureExtractor()
    ex.feed_array(synth_spin(wobble=4.2))
    onset = ex.chatter_onset(1.3, 5.9)
    assert onset is not None
    assert abs(onset - 4.2) < 0.12


def test_steady_hum_has_no_chatter_onset() -> None:
    ex = ImuFeatureExtractor()
    ex.feed_array(synth_spin(wobble=9.0, land=9.5, end=10.0))
    assert ex.chatter_onset(1.3, 8.0) is None


def test_landing_then_silence() -> None:
    ex = ImuFeatureExtractor()
    ex.feed_array(synth_spin())
    impact, quiet = ex.landing(5.0, 7.0)
    assert impact is not None and abs(impact - 6.0) < 0.01
    assert quiet is not None and 6.0 <= quiet < 6.3


def test_gap_is_reported_and_breaks_coverage() -> None:
    arr = synth_spin()
    ex = ImuFeatureExtractor()
    first = arr[arr[:, 0] < 3.0]
    second = arr[arr[:, 0] >= 3.5]
    ex.feed_array(first)
    ex.feed_array(second, gaps=(ImuGap(3.0, 3.5, "fifo overflow"),))
    assert ex.gap_between(2.9, 3.6)
    assert not ex.covers(2.0, 4.0)
    assert ex.covers(4.0, 6.0)


def test_unreported_hole_becomes_a_gap() -> None:
    arr = synth_spin()
    ex = ImuFeatureExtractor()
    ex.feed_array(arr[arr[:, 0] < 2.0])
    ex.feed_array(arr[arr[:, 0] >= 2.5])
    assert ex.gap_between(1.9, 2.6)


def test_bad_array_shape_is_an_error() -> None:
    ex = ImuFeatureExtractor()
    try:
        ex.feed_array(np.zeros((5, 4)))
    except ValueError as exc:
        assert "N x 7" in str(exc)
    else:
        raise AssertionError("a 4-column array must be refused")


@settings(max_examples=40, deadline=None)
@given(
    knee=st.floats(0.5, 3.5),
    slope=st.floats(0.5, 5.0),
    noise=st.floats(0.0, 0.05),
    seed=st.integers(0, 1000),
)
def test_hinge_onset_recovers_knee(knee: float, slope: float, noise: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    ts = np.linspace(0, 4.5, 300)
    x = np.where(ts > knee, slope * (ts - knee), 0.0) + rng.normal(0, noise, ts.size)
    if slope * (4.5 - knee) < 0.6:
        return
    found = hinge_onset(ts, x, min_rise=0.3)
    assert found is not None
    assert abs(found - knee) < 0.1


def test_hinge_onset_flat_signal_none() -> None:
    ts = np.linspace(0, 3, 200)
    x = np.random.default_rng(1).normal(0, 0.05, ts.size)
    assert hinge_onset(ts, x, min_rise=0.5) is None


def test_hum_strength_tells_a_humming_tray_from_a_quiet_one() -> None:
    arr = synth_spin(release=1.0, wobble=4.2, land=6.0, end=7.5)
    ex = ImuFeatureExtractor()
    ex.feed_array(arr[arr[:, 0] < 3.0])
    humming = ex.hum_strength(2.5, 2.9)
    ex.feed_array(arr[arr[:, 0] >= 3.0])
    quiet = ex.hum_strength(6.8, 7.2)
    assert humming is not None and quiet is not None
    assert humming > 15.0 > 8.0 > quiet
    # older than the few seconds kept: the extractor says it cannot tell rather than guess
    assert ex.hum_strength(1.5, 1.9) is None


@settings(max_examples=25, deadline=None)
@given(noise=st.floats(0.001, 0.02), seed=st.integers(0, 10_000), length=st.floats(0.25, 1.0))
def test_white_noise_never_hums(noise: float, seed: int, length: float) -> None:
    rng = np.random.default_rng(seed)
    t = np.arange(0.0, 2.0, 1.0 / 833.0)
    a = rng.normal(0.0, noise, (t.size, 3))
    a[:, 2] += 1.0
    ex = ImuFeatureExtractor()
    ex.feed_array(np.column_stack([t, a, rng.normal(0, 0.3, (t.size, 3))]))
    strength = ex.hum_strength(1.9 - length, 1.9)
    assert strength is not None and strength < 12.0


def test_a_push_is_a_bump_and_a_knock_is_not() -> None:
    rng = np.random.default_rng(3)
    rate = 833.0
    t = np.arange(0.0, 4.0, 1.0 / rate)
    a = rng.normal(0.0, 0.003, (t.size, 3))
    a[:, 2] += 1.0
    knock = (t >= 1.0) & (t < 1.1)
    a[knock, 2] += 0.6 * np.exp(-(t[knock] - 1.0) / 0.02) * np.sin(2 * np.pi * 160.0 * (t[knock] - 1.0))
    push = (t >= 2.5) & (t < 2.75)
    a[push, 2] += 0.05 * np.sin(np.pi * (t[push] - 2.5) / 0.25) ** 2
    ex = ImuFeatureExtractor()
    ex.feed_array(np.column_stack([t, a, rng.normal(0, 0.3, (t.size, 3))]))
    bumps = ex.bumps_between(0.5, 3.5, min_g=0.03)
    assert len(bumps) == 1
    assert abs(bumps[0].t - 2.5) < 0.06 and bumps[0].peak_g > 0.035
    assert [round(i.t, 2) for i in ex.impacts_between(0.5, 3.5)] == [1.0]


@settings(max_examples=40, deadline=None)
@given(
    slope=st.floats(-5.0, 5.0),
    icpt=st.floats(-3.0, 3.0),
    half=st.integers(1, 40),
    n=st.integers(2, 300),
)
def test_local_linear_follows_a_straight_line_exactly(slope: float, icpt: float, half: int, n: int) -> None:
    """A line is its own local fit, at the ends too: the fit neither lags nor blunts a steady trend."""
    ts = 10.0 + 0.01 * np.arange(n)
    x = icpt + slope * (ts - 10.0)
    np.testing.assert_allclose(local_linear(ts, x, half), x, atol=1e-7)


def test_local_linear_averages_the_scatter_about_a_trend() -> None:
    rng = np.random.default_rng(4)
    ts = np.arange(0.0, 6.0, 0.01)
    trend = 0.5 * np.exp(0.6 * ts)
    noisy = trend + rng.normal(0.0, 0.3, ts.size)
    fit = local_linear(ts, noisy, 30)
    inner = slice(30, -30)
    # 61 points averaged: the scatter falls by about sqrt(61 / 4) (a line has two parameters)
    assert np.std((fit - trend)[inner]) < 0.3 / 3.0
    # and the curvature's bias stays small against it
    assert abs(float(np.mean((fit - trend)[inner]))) < 0.05
    with pytest.raises(ValueError, match="same shape"):
        local_linear(ts[:-1], noisy, 3)
