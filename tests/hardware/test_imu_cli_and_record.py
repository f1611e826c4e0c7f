"""`sevivon imu probe/stream` and `sevivon record`, with emulated chips and recorded cameras."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from controller.cli import main
from controller.clock import FakeClock
from hardware.camera_recording import RecordingCameraSource
from hardware.emulation.bus import FakeSMBus
from hardware.emulation.lsm6dsox import Lsm6dsoxEmulation
from hardware.emulation.motion import Hum
from hardware.emulation.mpu6050 import Mpu6050Emulation
from hardware.i2c import I2cBus
from hardware.imu import ImuError
from hardware.imu_cli import stream_imu
from hardware.imu_lsm6ds import Lsm6dsoxDriver
from hardware.imu_probe import open_imu, probe
from hardware.record_cli import RecordSummary, record_session
from hardware.recording import RecordingReader, RecordingWriter

# ---- probe ----------------------------------------------------------------------------------


def test_probe_names_what_answers_and_open_imu_picks_a_supported_chip(clock: FakeClock) -> None:
    mpu6500 = Mpu6050Emulation(clock)
    mpu6500.regs[0x75] = 0x70
    bus = FakeSMBus({0x6B: Lsm6dsoxEmulation(clock), 0x68: mpu6500})
    with I2cBus(1, bus.opener()) as i2c:
        results = probe(i2c)
    assert [(r.address, r.chip) for r in results] == [(0x6B, "lsm6dsox"), (0x68, None)]
    assert "MPU-6500" in results[1].description
    driver = open_imu(1, clock=clock, bus_factory=bus.opener())
    assert isinstance(driver, Lsm6dsoxDriver) and driver.address == 0x6B


def test_open_imu_with_only_unsupported_chips_says_what_it_saw(clock: FakeClock) -> None:
    mpu6500 = Mpu6050Emulation(clock)
    mpu6500.regs[0x75] = 0x70
    bus = FakeSMBus({0x68: mpu6500})
    with pytest.raises(ImuError, match=r"0x68: MPU-6500.*Check the wiring"):
        open_imu(1, clock=clock, bus_factory=bus.opener())
    with pytest.raises(ImuError, match="nothing answered"):
        open_imu(1, clock=clock, bus_factory=FakeSMBus().opener())


def test_smbus_block_reads_stop_at_32_bytes_like_smbus2(clock: FakeClock) -> None:
    bus = FakeSMBus({0x6A: Lsm6dsoxEmulation(clock)})
    assert bus.read_i2c_block_data(0x6A, 0x0F, 1) == [0x6C]
    with pytest.raises(ValueError, match="over 32 bytes"):
        bus.read_i2c_block_data(0x6A, 0x78, 33)


def test_imu_probe_command_on_an_emulated_bus() -> None:
    result = CliRunner().invoke(main, ["imu", "probe", "--emulate", "lsm6ds3tr-c"])
    assert result.exit_code == 0, result.output
    assert "0x6a  lsm6ds3tr-c (WHO_AM_I 0x6a)" in result.output
    assert "nothing at 0x6b, 0x68, 0x69" in result.output


def test_imu_commands_without_an_i2c_bus_say_so_without_a_traceback() -> None:
    for command in (["imu", "probe", "--bus", "97"], ["imu", "stream", "--bus", "97", "--seconds", "1"]):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 1
        assert "no I2C bus /dev/i2c-97" in result.output
        assert "Traceback" not in result.output


# ---- stream ---------------------------------------------------------------------------------


def test_stream_reports_the_rate_it_receives(clock: FakeClock) -> None:
    bus = FakeSMBus({0x6A: Lsm6dsoxEmulation(clock, Hum())})
    out = io.StringIO()
    with Lsm6dsoxDriver(I2cBus(1, bus.opener()), 0x6A, clock=clock) as imu:
        summary = stream_imu(imu, clock, 3.0, out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 3 and all("samples" in line for line in lines)
    assert summary.rate_hz == pytest.approx(833, rel=0.01)
    assert summary.gaps == []


def test_stream_as_csv_prints_every_sample(clock: FakeClock) -> None:
    bus = FakeSMBus({0x6A: Lsm6dsoxEmulation(clock, Hum())})
    out = io.StringIO()
    with Lsm6dsoxDriver(I2cBus(1, bus.opener()), 0x6A, clock=clock) as imu:
        summary = stream_imu(imu, clock, 0.5, out, csv=True)
    rows = out.getvalue().splitlines()
    assert rows[0] == "t,ax,ay,az,gx,gy,gz"
    assert len(rows) - 1 == summary.samples
    data = np.loadtxt(rows[1:], delimiter=",")
    assert np.all(np.diff(data[:, 0]) > 0)
    assert np.mean(data[:, 3]) == pytest.approx(1.0, abs=0.02)  # gravity on z


def test_stream_command_with_an_emulated_chip() -> None:
    result = CliRunner().invoke(
        main, ["imu", "stream", "--emulate", "mpu6050", "--seconds", "0.05", "--csv"]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "t,ax,ay,az,gx,gy,gz"
    assert "samples in" in result.stderr


# ---- record ---------------------------------------------------------------------------------


@pytest.fixture
def source_recording(tmp_path: Path) -> Path:
    out = tmp_path / "source"
    with RecordingWriter(out, fps=20, width=32, height=24, source="test") as w:
        for i in range(20):
            w.write_frame(np.full((24, 32, 3), 10 * i, np.uint8), 0.05 * i)
    return out


def test_record_copies_a_camera_into_the_recording_format(source_recording: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["record", str(out), "--camera", f"recording:{source_recording}", "--imu", "none", "--seconds", "0.5"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    reader = RecordingReader(out)
    assert reader.meta["source"] == f"recording:{source_recording}"
    assert reader.meta["imu"] is None
    assert reader.frame_times() == pytest.approx([0.05 * i for i in range(11)])
    frames = list(reader.frames())
    assert [int(f.image[5, 5, 1]) for f in frames] == pytest.approx([10 * i for i in range(11)], abs=3)
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 1 and "already holds a recording" in again.output
    assert CliRunner().invoke(main, [*args, "--overwrite"]).exit_code == 0


def test_record_with_a_bad_camera_string_exits_1(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["record", str(tmp_path / "x"), "--camera", "webcam", "--imu", "none"])
    assert result.exit_code == 1
    assert "unknown camera 'webcam'" in result.output


def test_record_session_puts_imu_and_frames_on_one_time_axis(source_recording: Path, tmp_path: Path) -> None:
    clock = FakeClock(start=200.0)
    bus = FakeSMBus({0x6A: Lsm6dsoxEmulation(clock, Hum())})
    camera = RecordingCameraSource(source_recording, realtime=True, clock=clock)
    imu = Lsm6dsoxDriver(I2cBus(1, bus.opener()), 0x6A, clock=clock)
    # the recorded camera's times start at 0; shift them onto the clock like a live camera's
    with camera, imu:
        live = _LiveTimes(camera, clock.monotonic())
        with RecordingWriter(tmp_path / "rec", 20, 32, 24, "test", {"chip": imu.chip, "rate_hz": imu.rate_hz}) as w:
            summary = record_session(live, imu, w, 10.0, clock)
    reader = RecordingReader(tmp_path / "rec")
    samples = reader.imu()
    assert samples is not None
    assert summary.frames == 20 and summary.error == ""
    assert samples[0, 0] >= 0.0
    assert samples[-1, 0] <= reader.frame_times()[-1] + 1e-6
    # 0.95 s of frames at 833 Hz, less the 10 ms the driver's reset wait took at open
    assert len(samples) == pytest.approx(833 * 0.94, abs=3)
    assert np.mean(samples[:, 3]) == pytest.approx(1.0, abs=0.02)


class _LiveTimes(RecordingCameraSource):
    """A recorded camera whose frame times are put on the clock, as a live camera's would be."""

    def __init__(self, inner: RecordingCameraSource, t0: float) -> None:
        self.inner, self.t0 = inner, t0
        self.fps, self.size, self.name = inner.fps, inner.size, inner.name

    def open(self) -> None: ...

    def close(self) -> None: ...

    def read(self):  # type: ignore[no-untyped-def]
        frame = self.inner.read()
        if frame is None:
            return None
        from dataclasses import replace

        return replace(frame, t=frame.t + self.t0)


def test_an_interrupted_recording_keeps_its_counts_and_valid_files(source_recording: Path, tmp_path: Path) -> None:
    class Interrupted(RecordingCameraSource):
        def read(self):  # type: ignore[no-untyped-def]
            if self.position >= 0.1:
                raise KeyboardInterrupt
            return super().read()

    summary = RecordSummary()
    with (
        Interrupted(source_recording) as cam,
        RecordingWriter(tmp_path / "r", 20, 32, 24, "test") as w,
        pytest.raises(KeyboardInterrupt),
    ):
        record_session(cam, None, w, 10.0, FakeClock(), summary)
    assert summary.frames == 3
    assert len(list(RecordingReader(tmp_path / "r").frames())) == 3
