"""The tray's IMU calibration: how hard it rocks under a dreidel leaning at the rules' wobble.

The IMU dates the wobble onset sharply (see :meth:`~controller.imu_features.ImuFeatureExtractor.rocking_onset`),
but from an absolute level: the rotation rate at which the tray rocks when the dreidel leans at the
rules' wobble. That depends on the tray (its stiffness, its feet, where the IMU is screwed on); the
twin's tray rocks 0.2 deg/s there, and ``bench/bench_imu_robustness.py`` shows a tray that rocks half as
hard, judged with the twin's level, dates onsets ~0.2 s late.

The camera's wobble onset needs no such calibration (it measures the lean against the dreidel's own
size) but scatters by a few tenths of a second from spin to spin. So a table measures its tray once,
from a few recorded spins: for each spin whose wobble the camera saw, the tray's rocking (its fitted
growth, as the onset reads it) at the camera's onset; the level is the median over the spins, where the
camera's scatter averages out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from controller.imu_features import ImuFeatureExtractor
from controller.judge import SpinVerdict

#: the camera's onset is looked at only this long after the release (the release knock rings before)
MIN_STABLE_S = 0.6
#: reasons that make a spin's camera onset no measure of the wobble
_UNUSABLE = frozenset({"interference", "no_release", "left_tray"})


class CalibrationError(ValueError):
    """Too few usable spins to measure the tray; the message says what to record."""


@dataclass(frozen=True)
class SpinRocking:
    """One spin's reading: where the camera saw the wobble begin, and how hard the tray rocked then."""

    recording: str
    spin_id: int
    camera_onset_t: float
    rocking_dps: float


@dataclass(frozen=True)
class RockingLevel:
    """The measured level (deg/s) with the spins it came from and their middle half's spread."""

    level_dps: float
    spins: tuple[SpinRocking, ...]
    low_dps: float
    high_dps: float

    def to_json(self) -> dict[str, object]:
        return {
            "rocking_level_dps": round(self.level_dps, 4),
            "spins_used": len(self.spins),
            "middle_half_dps": [round(self.low_dps, 4), round(self.high_dps, 4)],
            "spins": [
                {"recording": s.recording, "spin_id": s.spin_id, "camera_onset_t": round(s.camera_onset_t, 3),
                 "rocking_dps": round(s.rocking_dps, 4)}
                for s in self.spins
            ],
        }


class RockingLevelMeter:
    """Measures a tray's rocking level from camera-judged spins and the IMU trace recorded with them."""

    def __init__(self, min_spins: int = 5) -> None:
        if min_spins < 1:
            raise ValueError("min_spins must be at least 1")
        self.min_spins = min_spins

    def spin_readings(self, recording: str, verdicts: Iterable[SpinVerdict], imu: np.ndarray) -> list[SpinRocking]:
        """The tray's rocking at each usable spin's camera onset (``imu``: N x 7, t ax ay az gx gy gz)."""
        if imu.ndim != 2 or imu.shape[1] != 7 or imu.shape[0] == 0:
            raise CalibrationError(f"{recording}: its IMU data is empty or not N x 7 (t, ax, ay, az, gx, gy, gz)")
        features = ImuFeatureExtractor(history_s=max(90.0, float(imu[-1, 0] - imu[0, 0]) + 10.0))
        features.feed_array(imu)
        out: list[SpinRocking] = []
        for v in verdicts:
            if v.wobble_t is None or v.release_t is None or _UNUSABLE & set(v.reasons):
                continue
            if v.wobble_t - v.release_t < MIN_STABLE_S:
                continue
            curve = features.rocking_power(v.wobble_t - 0.5, v.wobble_t + 0.5, clamp_dps=0.01)
            if curve is None:
                continue
            ts, power, _ = curve
            p = float(np.interp(v.wobble_t, ts, power))
            if p <= 0.0:
                continue
            out.append(SpinRocking(recording, v.spin_id, v.wobble_t, math.sqrt(p)))
        return out

    def level(self, readings: Sequence[SpinRocking]) -> RockingLevel:
        """The median of the spins' readings (their logs: the camera's scatter multiplies the rocking)."""
        if len(readings) < self.min_spins:
            raise CalibrationError(
                f"only {len(readings)} spin(s) wobbled clearly before falling, at least {self.min_spins} are "
                "needed: record more spins that sleep for a second or more and then wobble and fall on their "
                "own (no hands near), with the IMU connected"
            )
        logs = np.log([r.rocking_dps for r in readings])
        q1, med, q3 = np.percentile(logs, [25, 50, 75])
        return RockingLevel(float(math.exp(med)), tuple(readings), float(math.exp(q1)), float(math.exp(q3)))


def measure_recordings(recordings: Sequence[Path], meter: RockingLevelMeter | None = None) -> RockingLevel:
    """Judge each recording with the camera alone and measure the tray's level from its IMU trace.

    Raises :class:`CalibrationError` when a recording has no IMU data or too few spins are usable, and
    :class:`~hardware.recording.RecordingError` for a recording that cannot be read.
    """
    from controller.analyze_cli import analyze_recording
    from hardware.recording import RecordingReader

    meter = meter if meter is not None else RockingLevelMeter()
    readings: list[SpinRocking] = []
    for rec in recordings:
        imu = RecordingReader(rec).imu()
        if imu is None or imu.shape[0] == 0:
            raise CalibrationError(f"{rec} has no imu.csv: record the spins with the IMU connected")
        verdicts, _ = analyze_recording(rec, use_imu=False, use_recognizer=False)
        readings += meter.spin_readings(str(rec), verdicts, imu)
    return meter.level(readings)
