"""How the judge fuses the camera with the IMU when the camera's picture of the spin misleads it.

A dark mat, a deep shadow or a checked cloth lying against a sleeping dreidel makes its blob look like a
lying body from the release on, so the camera dates the fall at once. The tray's own account of the
spin (the wobble rocking it, then the landing knock) must then decide the stable time.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from test_judge import run  # the judge's tests' feeding loop and fake recognizer (tests/ is on the path)

from controller.judge import SpinVerdict
from vision.synthetic import SceneRenderer, SceneStyle, ScriptedSpin, scene_imu

FPS = 30.0
VALID = ScriptedSpin(release_t=1.5, stable_s=3.6, wobble_s=0.9)


class BlackMatScene(SceneRenderer):
    """A black mat (darker than any shadow, so the tracker keeps it) touching the dreidel's tip from the
    release until it is picked up: the blob is long and thin all along, shaped like a lying dreidel."""

    def _draw_spin(self, img: np.ndarray, sp: ScriptedSpin, t: float) -> None:
        if sp.release_t <= t < sp.pickup_t:
            side = self.style.side_px
            moved = max(0.0, min(t, sp.fall_t) - sp.release_t)
            tip = (sp.x + sp.drift[0] * moved, sp.y + sp.drift[1] * moved)
            centre = (int(tip[0] - 1.4 * side), int(tip[1] + 0.3 * side))
            cv2.ellipse(img, centre, (int(1.3 * side), int(0.35 * side)), -10.0, 0, 360, (8, 10, 8), -1, cv2.LINE_AA)
        super()._draw_spin(img, sp, t)


def with_rocking(trace: np.ndarray, sp: ScriptedSpin) -> np.ndarray:
    """The trace with the tray rocking under the wobble: the gyro turns at the precession rate with an
    amplitude growing from 1 to 9 deg/s between the wobble onset and the fall."""
    out = trace.copy()
    t = out[:, 0]
    w = (t >= sp.wobble_t) & (t < sp.fall_t)
    amp = 1.0 + 8.0 * (t[w] - sp.wobble_t) / sp.wobble_s
    phase = 2 * math.pi * sp.precession_hz * t[w]
    out[w, 4] += amp * np.cos(phase)
    out[w, 5] += amp * np.sin(phase)
    return out


def judge_scene(scene: SceneRenderer, duration: float, trace: np.ndarray | None) -> list[SpinVerdict]:
    """The verdicts on ``scene`` (camera only when ``trace`` is None), fed as the judge's own tests feed it."""
    return run(list(scene.spins), duration, trace=trace, scene=scene)[0]


def test_the_tray_dates_the_wobble_when_the_camera_sees_a_lying_body_from_the_release() -> None:
    trace = with_rocking(scene_imu([VALID], 9.0), VALID)
    (verdict,) = judge_scene(BlackMatScene([VALID], SceneStyle(), seed=7), 9.0, trace)
    assert verdict.imu_used
    assert verdict.valid, verdict.reasons
    assert verdict.wobble_t is not None and abs(verdict.wobble_t - VALID.wobble_t) < 0.1
    assert abs(verdict.stable_s - VALID.stable_s) < 0.1


def test_without_an_imu_the_same_scene_is_not_called_valid_on_the_camera_alone() -> None:
    """The camera alone is misled here (the mat looks like a fallen dreidel from the start): this is the
    case the IMU fusion exists for, and it shows the scene really does mislead the camera."""
    (verdict,) = judge_scene(BlackMatScene([VALID], SceneStyle(), seed=7), 9.0, None)
    assert not verdict.valid
    assert verdict.stable_s < 1.0


def test_a_short_spin_stays_short_when_the_tray_ends_it_early() -> None:
    """The fusion only widens the window up to the tray's own end of the spin: a spin that wobbled after
    1.5 s is still short, whatever the camera thought."""
    short = ScriptedSpin(release_t=1.5, stable_s=1.5, wobble_s=0.9)
    trace = with_rocking(scene_imu([short], 7.0), short)
    (verdict,) = judge_scene(BlackMatScene([short], SceneStyle(), seed=7), 7.0, trace)
    assert not verdict.valid
    assert abs(verdict.stable_s - short.stable_s) < 0.1
