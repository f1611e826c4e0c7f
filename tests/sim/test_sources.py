"""SimCamera and SimImu behave like the real sources, on an injected clock that never really waits."""

from __future__ import annotations

import numpy as np
import pytest

from controller.clock import FakeClock
from hardware.camera import CameraError
from hardware.sim.camera import SimCamera
from hardware.sim.imu_source import SimImu
from hardware.sim.physics import SpinKind
from hardware.sim.world import AutoPlayer, SimWorld


def small_world(seed: int = 3) -> SimWorld:
    return SimWorld(seed=seed, style="wood", width=320, height=240, fps=30)


def test_camera_reads_frames_at_its_frame_times_and_skips_when_late() -> None:
    clock = FakeClock(start=10.0)
    world = small_world()
    with SimCamera(world, clock) as cam:
        f0, f1 = cam.read(), cam.read()
        assert f0 is not None and f1 is not None
        assert (f0.index, f1.index) == (0, 1)
        assert f1.t - f0.t == pytest.approx(1 / 30)
        assert f0.image.shape == (240, 320, 3)
        assert clock.monotonic() == pytest.approx(f1.t)  # read() waited on the clock, not for real
        clock.advance(1.0)
        late = cam.read()
        assert late is not None and late.index == 31  # no stale frames: it jumps to the newest
        cam.fail()
        with pytest.raises(CameraError, match="fail"):
            cam.read()
        cam.recover()
        assert cam.read() is not None


def test_camera_can_deliver_a_lores_stream() -> None:
    clock = FakeClock()
    with SimCamera(small_world(), clock, lores=(160, 120)) as cam:
        frame = cam.read()
    assert frame is not None and frame.lores is not None
    assert frame.lores.shape == (120, 160) and frame.lores.dtype == np.uint8
    assert abs(float(frame.lores.mean()) - float(frame.image.mean())) < 20


def test_camera_shows_a_launched_spin() -> None:
    clock = FakeClock()
    world = small_world()
    with SimCamera(world, clock) as cam:
        empty = cam.read()
        world.launch(SpinKind.VALID)
        truth = world.truths[0]
        assert world.busy
        clock.set(truth.release_t + 1.0)
        spinning = cam.read()
    assert empty is not None and spinning is not None
    diff = np.abs(spinning.image.astype(int) - empty.image.astype(int)).sum(axis=2)
    u, v = (int(c) for c in world.scene.project(np.array([[world.dreidel_pose(spinning.t).x,
                                                            world.dreidel_pose(spinning.t).y, 0.0]]))[0])
    assert diff[v - 3 : v + 4, u - 3 : u + 4].mean() > 40  # the dreidel is where the world says


def test_imu_returns_every_sample_once_and_reports_a_gap_after_a_failure() -> None:
    clock = FakeClock(start=5.0)
    world = small_world()
    with SimImu(world, clock) as imu:
        clock.advance(0.5)
        a = imu.read()
        clock.advance(0.5)
        b = imu.read()
        times = np.array([s.t for s in a.samples + b.samples])
        assert len(times) == pytest.approx(833, abs=2)
        assert np.allclose(np.diff(times), 1 / 833.0)
        assert abs(np.mean([s.az for s in a.samples]) - 1.0) < 0.02
        imu.fail()
        clock.advance(0.3)
        assert not imu.healthy and imu.read().samples == ()
        imu.recover()
        clock.advance(0.2)
        c = imu.read()
        assert imu.healthy
        assert len(c.gaps) == 1 and c.gaps[0].t_end - c.gaps[0].t_start == pytest.approx(0.5)
        assert len(c.samples) == 0


def test_autoplayer_spins_after_a_pause() -> None:
    clock = FakeClock(start=2.0)
    world = small_world()
    player = AutoPlayer(world, clock, seed=1, kinds=[SpinKind.SHORT])
    at = player.request_spin()
    assert 2.5 <= at <= 3.8
    truth = world.truths[0]
    assert truth.kind is SpinKind.SHORT and truth.launch_t == at
    assert world.busy  # scheduled counts as busy until the dreidel rests
    clock.set(truth.rest_t + 0.01)
    assert not world.busy


def test_a_long_running_world_forgets_old_spins_but_keeps_their_truth() -> None:
    world = SimWorld(seed=6, style="wood", width=320, height=240, history_s=30.0)
    for k in range(12):
        world.launch(SpinKind.NO_RELEASE, at=10.0 * k)
    assert len(world.truths) == 12
    assert [t.index for t in world.truths] == list(range(12))
    assert len(world._episodes) <= 5
    last = world.truths[-1]
    assert world.dreidel_pose(last.rest_t + 0.5) is not None  # the newest spin still renders


def test_the_launcher_spins_without_a_hand() -> None:
    world = small_world()
    world.launch(SpinKind.NO_RELEASE, at=1.0, by_launcher=True)
    truth = world.truths[0]
    assert truth.by_launcher and truth.kind is SpinKind.VALID  # a launcher cannot "place" a dreidel
    assert world.dreidel_pose(truth.release_t - 0.5) is None
    assert world.dreidel_pose(truth.release_t - 0.1) is not None
    assert all(not world.hands_in_picture(t) for t in np.arange(truth.launch_t, truth.rest_t, 0.1))


def test_a_hand_passing_near_is_not_interference() -> None:
    world = small_world(seed=5)
    world.launch(SpinKind.HAND_NEAR, at=1.0)
    truth = world.truths[0]
    assert truth.hand_near_t is not None and truth.release_t < truth.hand_near_t < truth.rest_t
    assert world.hands_in_picture(truth.hand_near_t)  # the hand is in the picture
    assert truth.valid and "interference" not in truth.reasons
    # and the IMU feels no bump: nothing louder than the spin's own hum near that moment
    a = world.imu_array(truth.hand_near_t - 0.2, truth.hand_near_t + 0.2)
    assert np.abs(a[:, 3] - 1.0).max() < 0.05


def test_concurrent_launches_queue_up_one_after_the_other() -> None:
    import threading

    world = small_world(seed=9)
    threads = [threading.Thread(target=world.launch, kwargs={"kind": SpinKind.SHORT, "at": 1.0}) for _ in range(3)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    truths = world.truths
    assert [t.index for t in truths] == [0, 1, 2]
    for a, b in zip(truths, truths[1:], strict=False):
        assert b.launch_t > a.rest_t  # the next spin waits until the last one has been picked up
