"""With the IMU, a spin whose wobble grew slowly is timed as surely as the camera times, not as the IMU does.

A slowly growing lean nutates about the rules' 6 degrees before it stays over them, and the tray's averaged
rocking crosses its level after the lean first touched them: on the twin's tuning spins such onsets were dated
late, with the camera's spread (``JudgeSettings.slow_growth_per_s``). Timed near 3 s, such a spin is a close call
within the camera's window (0.2 s), not the IMU's (0.1 s).
"""

from __future__ import annotations

import pytest
from test_imu_features_timing import RELEASE, slow_wobble, spin_trace
from test_judge import run

from controller.judge import SpinVerdict
from vision.synthetic import ScriptedSpin


def judged(efold_s: float, onset_s: float, seed: int) -> SpinVerdict:
    """One spin whose lean grows (e-folding every ``efold_s``) through 6 degrees ``onset_s`` after its release:
    the twin's IMU model feels it, the scripted scene shows it."""
    traj = slow_wobble(seed, t_on=onset_s, efold_s=efold_s)
    assert traj.wobble_t is not None
    spin = ScriptedSpin(release_t=RELEASE, stable_s=traj.wobble_t, wobble_s=traj.fall_t - traj.wobble_t)
    verdicts, _ = run([spin], RELEASE + traj.rest_t + 1.5, trace=spin_trace(traj, seed))
    assert len(verdicts) == 1
    return verdicts[0]


@pytest.mark.parametrize("seed", [1, 2])
def test_a_slowly_growing_wobble_timed_near_3_s_goes_to_a_judge(seed: int) -> None:
    v = judged(1.6, 3.12, seed)
    assert v.imu_used and v.stable_s is not None
    assert 0.1 < v.stable_s - 3.0 < 0.2  # the premise: outside the IMU's window, inside the camera's
    assert v.valid and v.needs_judge and v.close_call
    assert any("a slowly growing wobble" in n for n in v.notes), v.notes


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_fast_growing_wobble_timed_as_near_is_decided(seed: int) -> None:
    v = judged(0.3, 3.12, seed)
    assert v.imu_used and v.stable_s is not None
    assert v.stable_s - 3.0 > 0.1
    assert v.valid and not v.needs_judge and not v.close_call

