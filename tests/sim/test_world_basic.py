"""The twin's first guarantees: determinism, truth that follows the rules, a readable recording."""

from __future__ import annotations

import numpy as np
import pytest

from hardware.recording import RecordingReader
from hardware.sim.physics import SpinKind
from hardware.sim.recorder import record_session
from hardware.sim.world import SimWorld


def test_same_seed_same_frames_and_samples() -> None:
    a, b = SimWorld(seed=5, style="wood"), SimWorld(seed=5, style="wood")
    for w in (a, b):
        w.launch(SpinKind.VALID, at=1.0)
    t = a.truths[0].release_t + 1.0
    assert np.array_equal(a.frame_at(t), b.frame_at(t))
    assert np.array_equal(a.imu_array(0.0, t), b.imu_array(0.0, t))
    assert a.truths[0] == b.truths[0]


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        (SpinKind.SHORT, "short"),
        (SpinKind.WOBBLE_AT_ONCE, "wobbled_immediately"),
        (SpinKind.LEFT_TRAY, "left_tray"),
        (SpinKind.HAND_TOUCH, "interference"),
        (SpinKind.NO_RELEASE, "no_release"),
    ],
)
def test_invalid_kinds_carry_their_reason(kind: SpinKind, reason: str) -> None:
    w = SimWorld(seed=11, style="plastic")
    w.launch(kind, at=0.5)
    truth = w.truths[0]
    assert reason in truth.reasons
    assert not truth.valid


def test_valid_spin_is_stable_for_three_seconds_and_rests_in_the_tray() -> None:
    w = SimWorld(seed=2, style="wood")
    w.launch(SpinKind.VALID, at=1.0)
    truth = w.truths[0]
    assert truth.valid and truth.reasons == ()
    assert truth.stable_s >= 3.0
    assert truth.in_tray
    assert truth.release_t < truth.wobble_t < truth.rest_t


def test_record_session_writes_the_recording_format(tmp_path) -> None:
    out = record_session(tmp_path / "rec", spins=1, seed=4, fps=12, kinds=[SpinKind.SHORT], size=(320, 240))
    rec = RecordingReader(out)
    assert rec.meta["fps"] == 12 and rec.meta["width"] == 320 and rec.meta["imu"]["chip"] == "sim"
    times = rec.frame_times()
    assert np.all(np.diff(times) > 0)
    truth = rec.truth()
    assert truth is not None and len(truth) == 1 and truth[0]["kind"] == "short"
    assert times[-1] > truth[0]["rest_t"]
    imu = rec.imu()
    assert imu is not None and imu[0, 0] == 0.0 and abs(np.median(imu[:, 3]) - 1.0) < 0.02
    # track.csv: one row per frame; no dreidel in the first second; lying (90 degrees) at rest
    track = np.genfromtxt(out / "track.csv", delimiter=",", names=True)
    assert len(track) == len(times) and np.allclose(track["t"], times, atol=1e-5)
    assert not track["visible"][track["t"] < 1.0].any()
    at_rest = (track["t"] > truth[0]["rest_t"] + 0.05) & (track["t"] < truth[0]["rest_t"] + 0.5)
    assert at_rest.any() and np.allclose(track["tilt_deg"][at_rest], 90.0, atol=0.5)
    assert np.allclose(track["x_px"][at_rest], truth[0]["rest_px"][0], atol=1.0)
