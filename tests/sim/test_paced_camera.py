"""The twin's camera and IMU on the simulated table's PacedClock: a slow reader gets every frame.

A FakeClock stands for real time, and a world whose every rendered frame costs it real time stands
for a slow host, so nothing here really waits.
"""

from __future__ import annotations

import numpy as np
import pytest

from controller.clock import Clock, FakeClock, PacedClock, ScaledClock
from hardware.imu import ImuSample
from hardware.sim.camera import SimCamera
from hardware.sim.imu_source import SimImu
from hardware.sim.physics import SpinKind
from hardware.sim.world import SimWorld


class SlowHostWorld(SimWorld):
    """A twin whose every picture costs ``render_s`` of real time (a starved CPU)."""

    def __init__(self, real: FakeClock, render_s: float, clock: Clock) -> None:
        super().__init__(seed=3, style="wood", width=160, height=120, fps=30, clock=clock)
        self.real = real
        self.render_s = render_s

    def frame_at(self, t: float) -> np.ndarray:
        self.real.advance(self.render_s)
        return super().frame_at(t)


def read_frames(clock: Clock, real: FakeClock, n: int, render_s: float = 0.05) -> list[tuple[int, float]]:
    world = SlowHostWorld(real, render_s, clock)
    out = []
    with SimCamera(world, clock) as cam:
        for _ in range(n):
            frame = cam.read()
            assert frame is not None
            out.append((frame.index, frame.t))
    return out


def test_a_slow_reader_on_a_paced_clock_gets_every_frame_in_order_at_its_time() -> None:
    real = FakeClock()
    clock = PacedClock(speed=20, base=real)
    frames = read_frames(clock, real, 60)  # 0.05 s of real time per frame: 1.5 times too slow for 1x
    assert [i for i, _ in frames] == list(range(60))
    assert [t for _, t in frames] == pytest.approx([i / 30 for i in range(60)])
    assert clock.monotonic() == pytest.approx(59 / 30)
    assert clock.monotonic() <= 20 * real.monotonic()


def test_a_fast_host_is_held_to_the_speed() -> None:
    real = FakeClock()
    clock = PacedClock(speed=2, base=real)
    frames = read_frames(clock, real, 61, render_s=0.001)
    assert [i for i, _ in frames] == list(range(61))
    assert real.monotonic() == pytest.approx(2.0 / 2, abs=0.002)  # 2 simulated seconds took 1 real second


def test_the_same_slow_reader_on_a_scaled_clock_skips_frames_like_a_real_camera() -> None:
    real = FakeClock()
    frames = read_frames(ScaledClock(speed=20, base=real), real, 20)
    indices = [i for i, _ in frames]
    assert indices == sorted(set(indices))
    assert indices[-1] - indices[0] > 5 * len(indices)  # each 0.05 s read lets a whole simulated second go by


def test_the_imu_and_the_camera_share_the_paced_time_and_the_imu_misses_no_sample() -> None:
    real = FakeClock()
    clock = PacedClock(speed=20, base=real)
    world = SlowHostWorld(real, 0.05, clock)
    world.launch(SpinKind.VALID, at=0.2)
    samples: list[ImuSample] = []
    with SimCamera(world, clock) as cam, SimImu(world, clock) as imu:
        for _ in range(45):
            frame = cam.read()
            batch = imu.read()
            assert frame is not None
            if frame.index == 0:
                assert batch.samples == ()  # nothing measured yet at the first frame's time
                continue
            assert batch.samples and batch.samples[-1].t < frame.t <= batch.samples[-1].t + 1 / world.imu.rate_hz
            samples += batch.samples
    times = np.array([s.t for s in samples])
    assert np.allclose(np.diff(times), 1 / world.imu.rate_hz)  # no gap, no repeat, though the host was slow
    assert np.abs(np.array([s.gz for s in samples])).max() > 1.0  # and it felt the spin launched at 0.2 s
