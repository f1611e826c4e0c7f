"""The IMU under the tray feels what DESIGN.md says: hum while sleeping, chatter, impacts, bumps."""

from __future__ import annotations

import numpy as np

from hardware.sim.physics import SpinKind
from hardware.sim.world import SimWorld


def spin(kind: SpinKind, seed: int = 21) -> tuple[SimWorld, np.ndarray]:
    world = SimWorld(seed=seed, style="wood", width=320, height=240)
    world.launch(kind, at=0.5)
    truth = world.truths[0]
    return world, world.imu_array(0.0, truth.rest_t + 1.0)


def window(a: np.ndarray, t0: float, t1: float) -> np.ndarray:
    return a[(a[:, 0] >= t0) & (a[:, 0] < t1)]


def test_quiet_tray_is_gravity_and_noise() -> None:
    world, a = spin(SpinKind.VALID)
    quiet = window(a, 0.0, 0.4)
    assert abs(np.mean(quiet[:, 3]) - 1.0) < 0.01
    assert np.std(quiet[:, 3]) < 0.006


def test_hum_at_the_spin_rate_while_sleeping_then_chatter_and_a_landing_impact() -> None:
    world, a = spin(SpinKind.VALID)
    truth = world.truths[0]
    key = world.timeline(0)
    rate = world.imu.rate_hz
    # the hum: the strongest line in az while sleeping sits at the spin rate
    t0 = truth.release_t + 0.6
    seg = window(a, t0, t0 + 1.0)[:, 3]
    spec = np.abs(np.fft.rfft((seg - seg.mean()) * np.hanning(len(seg))))
    freqs = np.fft.rfftfreq(len(seg), 1 / rate)
    band = (freqs > 3) & (freqs < 60)
    peak = freqs[band][np.argmax(spec[band])]
    spin_hz = world.track_row(0, t0 + 0.5)[6]  # rev/s at the middle of the window
    assert abs(peak - spin_hz) < 0.15 * spin_hz
    # chatter while wobbling is louder than the hum
    assert truth.wobble_t is not None
    fall = float(key["fall"])
    hum_rms = np.std(window(a, t0, t0 + 1.0)[:, 3])
    chatter_rms = np.std(window(a, fall - 0.3, fall)[:, 3])
    assert chatter_rms > 2.0 * hum_rms
    # the landing is the sharpest thing in the recording
    land = float(key["land"])
    peak_land = np.abs(window(a, land, land + 0.05)[:, 3] - 1.0).max()
    assert peak_land > 0.15
    assert peak_land >= np.abs(window(a, 0.0, land - 0.01)[:, 3] - 1.0).max()
    # and at rest it is quiet again
    assert np.std(window(a, truth.rest_t + 0.3, truth.rest_t + 1.0)[:, 3]) < 0.006


def test_a_knocking_hand_is_felt() -> None:
    world, a = spin(SpinKind.HAND_TOUCH, seed=4)
    truth = world.truths[0]
    assert truth.touch_t is not None
    before = np.std(window(a, truth.touch_t - 0.4, truth.touch_t - 0.05)[:, 3])
    at = np.std(window(a, truth.touch_t, truth.touch_t + 0.2)[:, 3])
    assert at > 3.0 * before


def test_any_window_gives_the_same_samples() -> None:
    world, a = spin(SpinKind.SHORT)
    parts = np.vstack([world.imu_array(t, t + 0.37) for t in np.arange(0.0, 3.0, 0.37)])
    whole = world.imu_array(0.0, parts[-1, 0] + 1e-6)
    assert np.array_equal(parts[: len(whole)], whole[: len(parts)])
