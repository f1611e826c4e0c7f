"""The tray's IMU calibration: measured from camera onsets, kept in the config, used by the judge."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.analyze_cli import analyze
from controller.clock import FakeClock
from controller.config import ConfigError, load_config
from controller.imu_features import ImuFeatureExtractor
from controller.imu_level import CalibrationError, RockingLevelMeter, SpinRocking
from controller.imu_level_cli import imu_level
from controller.judge import JudgeSettings, SpinVerdict
from controller.run_cli import judge_builder
from controller.table_model import JudgeSetup

RATE = 833.0
GROWTH = 3.0  # per second: the rocking's amplitude grows e-fold in a third of a second


def tray_trace(onsets: list[tuple[float, float]], duration: float, gain: float, seed: int = 0) -> np.ndarray:
    """An N x 7 IMU trace of a tray rocking under wobbles that start at each (release, onset) pair.

    The rocking grows exponentially from the release to a second after the onset; at the onset it is
    ``gain`` x 0.2 deg/s (a tray of the twin's stiffness has gain 1). The gyro's noise is the twin's.
    """
    rng = np.random.default_rng(seed)
    t = np.arange(0.0, duration, 1.0 / RATE)
    a = rng.normal(0.0, 0.003, (t.size, 3))
    a[:, 2] += 1.0
    g = rng.normal(0.0, 0.06, (t.size, 3)) + np.array([0.3, -0.2, 0.1])
    for release, onset in onsets:
        w = (t >= release + 0.3) & (t < onset + 1.0)
        amp = gain * 0.2 * np.exp(GROWTH * (t[w] - onset))
        phase = 2 * math.pi * 3.0 * t[w]
        # a rotation rate turning at the precession: its RMS over the axes is amp
        g[w, 0] += amp * math.sqrt(2) * np.cos(phase)
        g[w, 1] += amp * math.sqrt(2) * np.sin(phase)
    return np.column_stack([t, a, g])


def verdict(i: int, release: float, onset: float, reasons: tuple[str, ...] = ()) -> SpinVerdict:
    return SpinVerdict(spin_id=i, release_t=release, wobble_t=onset, rest_t=onset + 1.5, stable_s=onset - release,
                       letter=None, valid=not reasons, reasons=reasons, confidence=0.9, needs_judge=True)


SPINS = [(2.0 + 8.0 * k, 2.0 + 8.0 * k + 3.0 + 0.4 * k) for k in range(6)]


def measured(gain: float, scatter: tuple[float, ...] = (0.0,) * len(SPINS)) -> float:
    """The level measured on SPINS of a tray of ``gain``, with the camera's onsets off by ``scatter``."""
    trace = tray_trace(SPINS, 52.0, gain)
    meter = RockingLevelMeter()
    seen = [verdict(i, r, o + d) for i, ((r, o), d) in enumerate(zip(SPINS, scatter, strict=True))]
    level = meter.level(meter.spin_readings("rec", seen, trace))
    assert len(level.spins) == len(SPINS)
    return level.level_dps


def test_the_measured_level_follows_the_tray() -> None:
    base = measured(1.0)
    assert 0.1 < base < 0.3  # the trace's 0.2 deg/s, as the extractor's high-pass passes it
    assert measured(0.5) / base == pytest.approx(0.5, rel=0.2)
    assert measured(2.0) / base == pytest.approx(2.0, rel=0.2)


def test_the_cameras_scatter_averages_out() -> None:
    """Camera onsets scattered by up to 0.25 s about the truth still give the level within 25%."""
    assert measured(1.0, (0.25, -0.2, 0.1, -0.25, 0.2, -0.1)) == pytest.approx(measured(1.0), rel=0.25)


def test_spins_that_say_nothing_of_the_wobble_are_left_out() -> None:
    trace = tray_trace(SPINS, 52.0, 1.0)
    r, o = SPINS[0]
    verdicts = [
        verdict(0, r, o),
        verdict(1, SPINS[1][0], SPINS[1][0] + 0.3),  # wobbled at once: the release knock still rings
        verdict(2, SPINS[2][0], SPINS[2][1], ("interference",)),
        verdict(3, SPINS[3][0], SPINS[3][1], ("left_tray",)),
        SpinVerdict(4, SPINS[4][0], None, None, None, None, False, ("no_release",), 0.9, False),
    ]
    readings = RockingLevelMeter().spin_readings("rec", verdicts, trace)
    assert [x.spin_id for x in readings] == [0]


def test_too_few_spins_say_what_to_record() -> None:
    with pytest.raises(CalibrationError, match="record more spins"):
        RockingLevelMeter(min_spins=5).level([SpinRocking("rec", 0, 5.0, 0.2)] * 4)


@given(st.lists(st.floats(0.01, 5.0), min_size=5, max_size=30), st.floats(0.1, 10.0))
@settings(max_examples=60, deadline=None)
def test_the_level_scales_with_the_readings(values: list[float], k: float) -> None:
    """Measuring a tray k times as stiff gives k times the level, and the level is inside the readings."""
    meter = RockingLevelMeter()
    base = meter.level([SpinRocking("r", i, 1.0, v) for i, v in enumerate(values)])
    scaled = meter.level([SpinRocking("r", i, 1.0, k * v) for i, v in enumerate(values)])
    assert scaled.level_dps == pytest.approx(k * base.level_dps, rel=1e-9)
    eps = 1e-9 * max(values)
    assert min(values) - eps <= base.level_dps <= max(values) + eps
    assert base.low_dps - eps <= base.level_dps <= base.high_dps + eps


def test_a_calibrated_level_dates_a_soft_trays_wobble_on_time() -> None:
    """A tray that rocks half as hard as the one the default level suits: measured once on six spins,
    its own level dates a new spin's onset on time, where the default dates it late."""
    soft = measured(0.5)
    release, onset = 2.0, 5.5
    trace = tray_trace([(release, onset)], 9.0, 0.5, seed=3)
    late = {}
    for level in (JudgeSettings.rocking_level_dps, soft):
        features = ImuFeatureExtractor(rocking_level_dps=level)
        features.feed_array(trace)
        got = features.rocking_onset(release + 0.2, onset + 0.9)
        assert got is not None
        late[level] = got - onset
    assert abs(late[soft]) < 0.07
    assert late[JudgeSettings.rocking_level_dps] > 0.25


def test_a_rocking_level_must_be_positive() -> None:
    with pytest.raises(ValueError, match="above 0"):
        ImuFeatureExtractor(rocking_level_dps=0.0)


def test_the_config_carries_the_trays_level_to_the_live_judge(tmp_path: Path) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text("[imu]\nrocking_level_dps = 0.35\n")
    config = load_config(cfg)
    assert config.imu.rocking_level_dps == 0.35
    build = judge_builder(FakeClock(), rocking_level_dps=config.imu.rocking_level_dps)
    judge = build(JudgeSetup(imu=True, enroll_dir=None, tray=None, frame_size=None))
    assert judge.settings.rocking_level_dps == 0.35
    assert judge.imu.rocking_level_dps == 0.35
    cfg.write_text("[imu]\nrocking_level_dps = 0\n")
    with pytest.raises(ConfigError, match="rocking_level_dps"):
        load_config(cfg)


def test_the_commands_refuse_what_they_cannot_use(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(analyze, [str(tmp_path), "--rocking-level", "0"])
    assert res.exit_code == 2 and "rocking-level" in res.output
    rec = tmp_path / "rec"
    rec.mkdir()
    (rec / "meta.json").write_text('{"format": 1, "fps": 30, "width": 64, "height": 48, "source": "t", "imu": null}')
    res = runner.invoke(imu_level, [str(rec)])
    assert res.exit_code == 2
    assert res.output.startswith("sevivon imu-level: ") and str(rec) in res.output
    assert JudgeSettings().rocking_level_dps == 0.2  # the twin's tray, the default
