"""Real-hardware checks, for a Raspberry Pi with the table's camera, IMU and wiring.

Not run by ``make test`` (pyproject deselects the ``hardware`` marker). On the Pi::

    .venv/bin/pytest -m hardware tests/hardware/test_on_pi.py -v

Environment: ``SEVIVON_I2C_BUS`` (default 1), ``SEVIVON_CAMERA`` (default ``picamera2``). The GPIO
test moves the launcher: take the dreidel out of the chuck first.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from controller.clock import SystemClock
from hardware.camera_factory import make_camera
from hardware.i2c import I2cBus
from hardware.imu_driver import ImuConfig
from hardware.imu_probe import open_imu, probe

pytestmark = pytest.mark.hardware

BUS = int(os.environ.get("SEVIVON_I2C_BUS", "1"))
CAMERA = os.environ.get("SEVIVON_CAMERA", "picamera2")


def test_the_camera_delivers_fresh_frames_near_its_frame_rate() -> None:
    with make_camera(CAMERA) as cam:
        frames = [cam.read() for _ in range(60)]
    assert all(f is not None for f in frames)
    times = np.array([f.t for f in frames if f is not None])
    period = float(np.median(np.diff(times)))
    assert period == pytest.approx(1 / cam.fps, rel=0.1), f"{1 / period:.1f} fps, configured {cam.fps:g}"
    last = frames[-1]
    assert last is not None and last.image.shape[:2] == (cam.size[1], cam.size[0])
    assert float(last.image.std()) > 2.0, "a flat picture: is the lens cap on?"


def test_an_imu_answers_and_streams_at_its_rate_without_gaps() -> None:
    with I2cBus(BUS) as bus:
        found = [r for r in probe(bus) if r.supported]
    assert found, "no supported IMU on the bus: see hardware/README.md's wiring table"
    clock = SystemClock()
    with open_imu(BUS, clock=clock, config=ImuConfig(rate_hz=833)) as imu:
        clock.sleep(0.2)
        imu.read()
        samples, gaps = [], []
        start = clock.monotonic()
        while clock.monotonic() - start < 2.0:
            clock.sleep(0.02)
            batch = imu.read()
            samples.extend(batch.samples)
            gaps.extend(batch.gaps)
    assert gaps == []
    assert len(samples) / 2.0 == pytest.approx(imu.rate_hz, rel=0.05)
    accel = np.array([[s.ax, s.ay, s.az] for s in samples])
    assert float(np.linalg.norm(accel.mean(axis=0))) == pytest.approx(1.0, abs=0.1), "a still IMU feels 1 g"


def test_the_launcher_runs_up_and_releases_on_the_real_pins() -> None:
    from controller.config import GpioSettings
    from hardware.gpio_panel import GpioPanel

    clock = SystemClock()
    panel = GpioPanel.from_settings(GpioSettings(enabled=True), clock=clock)
    try:
        panel.start()
        assert panel.launcher is not None
        assert panel.launcher.launch() is None
        deadline = clock.monotonic() + 8.0
        while panel.launcher.busy and clock.monotonic() < deadline:
            clock.sleep(0.05)
        assert not panel.launcher.busy
        assert panel.launcher.last_result is not None
    finally:
        panel.close()
