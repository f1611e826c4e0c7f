"""Camera sources: recording replay, OpenCV devices and files, picamera2 against its fake, the factory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from controller.clock import FakeClock
from hardware.camera import CameraError
from hardware.camera_factory import CameraSpecError, make_camera, parse_camera_spec
from hardware.camera_opencv import OpenCvCameraSource
from hardware.camera_picamera2 import Picamera2CameraSource, choose_sensor_mode
from hardware.camera_recording import RecordingCameraSource
from hardware.emulation.picamera2 import CAMERA_MODULE_3_MODES, GLOBAL_SHUTTER_MODES, FakePicamera2
from hardware.imu import ImuError, ImuSample
from hardware.imu_recording import RecordingImuSource
from hardware.recording import RecordingWriter

FRAME_TIMES = [0.0, 0.1, 0.2, 0.3, 0.45, 0.5, 0.6, 0.7]


def _picture(i: int) -> np.ndarray:
    image = np.full((48, 64, 3), 20, np.uint8)
    image[:, : 8 * (i + 1)] = 220  # a bar that grows one step per frame
    return image


@pytest.fixture
def recording(tmp_path: Path) -> Path:
    out = tmp_path / "rec"
    with RecordingWriter(out, fps=10, width=64, height=48, source="test", imu={"chip": "test", "rate_hz": 100}) as w:
        for i, t in enumerate(FRAME_TIMES):
            w.write_frame(_picture(i), t)
        times = [k / 100 for k in range(0, 30)] + [k / 100 for k in range(50, 75)]  # a hole 0.29 -> 0.50
        w.write_imu(ImuSample(t, 0.0, 0.0, 1.0, 0.0, 0.0, float(k)) for k, t in enumerate(times))
    return out


def _bar_width(image: np.ndarray) -> int:
    return int(np.count_nonzero(image[24, :, 1] > 120))


def test_recording_replays_frames_at_their_own_times_as_fast_as_asked(recording: Path) -> None:
    clock = FakeClock()
    with RecordingCameraSource(recording, clock=clock) as cam:
        assert cam.size == (64, 48) and cam.fps == 10
        frames = []
        while (frame := cam.read()) is not None:
            frames.append(frame)
    assert [f.t for f in frames] == pytest.approx(FRAME_TIMES)
    assert [f.index for f in frames] == list(range(len(FRAME_TIMES)))
    assert [_bar_width(f.image) for f in frames] == [8 * (i + 1) for i in range(len(FRAME_TIMES))]
    assert clock.monotonic() == 0.0, "as fast as possible: no waiting"


@pytest.mark.parametrize("speed", [1.0, 2.0])
def test_recording_in_real_time_paces_frames_with_the_clock(recording: Path, speed: float) -> None:
    clock = FakeClock(start=50.0)
    with RecordingCameraSource(recording, realtime=True, speed=speed, clock=clock) as cam:
        for t in FRAME_TIMES:
            frame = cam.read()
            assert frame is not None
            assert clock.monotonic() == pytest.approx(50.0 + t / speed)
        assert cam.read() is None


def test_a_missing_recording_is_a_camera_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="nowhere"):
        RecordingCameraSource(tmp_path / "nowhere").open()


def test_recorded_imu_keeps_step_with_the_replayed_frames_and_reports_holes(recording: Path) -> None:
    with RecordingCameraSource(recording) as cam, RecordingImuSource(recording, timeline=lambda: cam.position) as imu:
        assert imu.chip == "test" and imu.rate_hz == 100
        seen: list[ImuSample] = []
        gaps = []
        while (frame := cam.read()) is not None:
            batch = imu.read()
            assert all(s.t <= frame.t + 1e-9 for s in batch.samples)
            seen.extend(batch.samples)
            gaps.extend(batch.gaps)
        assert not imu.finished  # samples after the last frame (0.71..0.74) wait for a later frame
    assert len(seen) == 51
    assert [s.gz for s in seen] == list(range(51))
    assert len(gaps) == 1
    assert (gaps[0].t_start, gaps[0].t_end) == pytest.approx((0.29, 0.50))


def test_recorded_imu_without_a_timeline_follows_the_clock(recording: Path) -> None:
    clock = FakeClock()
    with RecordingImuSource(recording, clock=clock, speed=2.0) as imu:
        assert imu.read().samples[-1].t == 0.0
        clock.advance(0.1)  # 0.2 s of recording at double speed
        assert imu.read().samples[-1].t == pytest.approx(0.2)


def test_a_recording_without_imu_csv_says_so(tmp_path: Path) -> None:
    with RecordingWriter(tmp_path / "r", fps=10, width=64, height=48, source="x") as w:
        w.write_frame(_picture(0), 0.0)
    with pytest.raises(ImuError, match="no imu.csv"):
        RecordingImuSource(tmp_path / "r").open()


# ---- OpenCV ---------------------------------------------------------------------------------


def test_opencv_reads_a_video_file_to_its_end(recording: Path) -> None:
    clock = FakeClock(start=3.0)
    with OpenCvCameraSource(str(recording / "video.avi"), clock=clock) as cam:
        assert cam.size == (64, 48)
        frames = []
        while (frame := cam.read()) is not None:
            frames.append(frame)
            clock.advance(0.01)
    assert len(frames) == len(FRAME_TIMES)
    assert [_bar_width(f.image) for f in frames] == [8 * (i + 1) for i in range(len(FRAME_TIMES))]
    assert frames[1].t == pytest.approx(3.01)


class _FakeCapture:
    def __init__(self, opened: bool = True, good_frames: int = 3) -> None:
        self.opened = opened
        self.good = good_frames
        self.released = False
        self.props: dict[int, float] = {}

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return self.opened

    def set(self, prop: int, value: float) -> bool:
        self.props[prop] = value
        return True

    def get(self, prop: int) -> float:
        return self.props.get(prop, 0.0)

    def read(self) -> tuple[bool, Any]:
        if self.good <= 0:
            return False, None
        self.good -= 1
        return True, np.zeros((4, 6), np.uint8)  # a grey camera

    def release(self) -> None:
        self.released = True


def test_an_opencv_device_that_is_not_there_says_what_to_check() -> None:
    cam = OpenCvCameraSource(7, capture_factory=lambda device: _FakeCapture(opened=False))
    with pytest.raises(CameraError, match=r"plugged in.*/dev/video7"):
        cam.open()


def test_an_opencv_device_that_stops_raises_camera_error_and_is_released() -> None:
    capture = _FakeCapture(good_frames=3)
    cam = OpenCvCameraSource(0, width=6, height=4, fps=60, capture_factory=lambda device: capture, clock=FakeClock())
    with pytest.raises(CameraError, match="stopped delivering"), cam:
        for _ in range(5):
            frame = cam.read()
            assert frame is not None and frame.image.shape == (4, 6, 3)  # grey made BGR
    assert capture.released
    assert capture.props[cv2.CAP_PROP_FPS] == 60
    assert cam.fps == 60


# ---- picamera2 ------------------------------------------------------------------------------


def test_the_fastest_large_mode_is_chosen() -> None:
    assert choose_sensor_mode(CAMERA_MODULE_3_MODES, 120)["size"] == (1536, 864)
    assert choose_sensor_mode(CAMERA_MODULE_3_MODES, 50)["size"] == (2304, 1296)
    assert choose_sensor_mode(CAMERA_MODULE_3_MODES, 500)["size"] == (1536, 864)  # none that fast: the fastest
    assert choose_sensor_mode(GLOBAL_SHUTTER_MODES, 60)["size"] == (1456, 1088)


def test_picamera2_source_runs_at_120_fps_with_a_lores_grey_stream() -> None:
    clock = FakeClock(start=10.0)
    factory, made = FakePicamera2.factory(clock=clock)
    source = Picamera2CameraSource(fps=120, clock=clock, picamera2_factory=factory)
    with source as cam:
        frames = [cam.read() for _ in range(12)]
    fake = made[0]
    config = fake.config
    assert config is not None
    assert config["queue"] is False
    assert config["sensor"]["output_size"] == (1536, 864)
    assert config["controls"]["FrameDurationLimits"] == (8333, 8333)
    assert config["lores"]["format"] == "YUV420" and config["lores"]["size"] == (320, 180)
    assert cam.size == (960, 540) and cam.fps == 120
    assert fake.outstanding == 0, "every request was released"
    assert fake.closed and not fake.started
    times = np.array([f.t for f in frames if f is not None])
    assert times[0] == pytest.approx(10.0)
    assert np.diff(times) == pytest.approx(np.full(11, 1 / 120), rel=1e-3)
    last = frames[-1]
    assert last is not None and last.lores is not None
    assert last.image.shape == (540, 960, 3) and last.lores.shape == (180, 320)
    expected_grey = cv2.cvtColor(cv2.resize(last.image, (320, 180), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
    studio_range = 16 + expected_grey.astype(float) * 219 / 255  # the Y plane of YUV420 is 16..235
    assert np.abs(last.lores.astype(float) - studio_range).max() <= 2
    assert [f.index for f in frames if f is not None] == list(range(12))


def test_picamera2_caps_the_rate_at_what_the_sensor_can_do() -> None:
    clock = FakeClock()
    factory, made = FakePicamera2.factory(clock=clock, modes=GLOBAL_SHUTTER_MODES)
    with Picamera2CameraSource(fps=120, main_size=None, clock=clock, picamera2_factory=factory) as cam:
        assert cam.fps == pytest.approx(60.38)
        assert cam.size == (1456, 1088)
        first, second = cam.read(), cam.read()
    assert first is not None and second is not None
    assert second.t - first.t == pytest.approx(1 / 60.38, rel=1e-3)


def test_picamera2_failure_mid_run_is_a_camera_error_and_the_camera_is_closed() -> None:
    clock = FakeClock()
    factory, made = FakePicamera2.factory(clock=clock, fail_after=2)
    with pytest.raises(CameraError, match="stopped delivering"), Picamera2CameraSource(
        clock=clock, picamera2_factory=factory
    ) as cam:
        while True:
            cam.read()
    assert made[0].closed and made[0].outstanding == 0


def test_a_camera_that_fails_to_stop_still_closes_without_raising() -> None:
    clock = FakeClock()
    factory, made = FakePicamera2.factory(clock=clock)
    source = Picamera2CameraSource(clock=clock, picamera2_factory=factory)
    source.open()

    def broken_stop() -> None:
        raise RuntimeError("Camera frontend has timed out!")

    made[0].stop = broken_stop  # type: ignore[method-assign]
    source.close()
    assert made[0].closed
    source.close()  # twice is fine


def test_picamera2_missing_camera_says_what_to_check() -> None:
    def no_camera(num: int) -> FakePicamera2:
        raise IndexError("list index out of range")

    with pytest.raises(CameraError, match="ribbon cable"):
        Picamera2CameraSource(picamera2_factory=no_camera).open()


def test_without_picamera2_installed_the_message_says_how_to_install_it() -> None:
    with pytest.raises(CameraError, match="python3-picamera2"):
        Picamera2CameraSource().open()


# ---- the factory ----------------------------------------------------------------------------


def test_camera_strings_pick_their_source(recording: Path) -> None:
    cam = make_camera(f"recording:{recording}?realtime=1&speed=4")
    assert isinstance(cam, RecordingCameraSource) and cam.realtime and cam.speed == 4
    cv = make_camera("opencv:2?width=640&height=480")
    assert isinstance(cv, OpenCvCameraSource) and cv.device == 2 and cv._want == (640, 480, None)
    assert isinstance(make_camera("opencv:/tmp/x.mp4"), OpenCvCameraSource)
    pi = make_camera("picamera2:1?fps=90&size=640x360")
    assert isinstance(pi, Picamera2CameraSource) and pi.camera_num == 1 and pi.wanted_fps == 90
    assert pi.main_size == (640, 360)
    assert isinstance(make_camera("auto"), OpenCvCameraSource)  # no picamera2 on this machine
    assert parse_camera_spec(" OpenCV:0 ").kind == "opencv"
    # a configured frame rate applies unless the string sets its own; a recording keeps its own
    assert isinstance(p60 := make_camera("picamera2", fps=60), Picamera2CameraSource) and p60.wanted_fps == 60
    assert isinstance(p90 := make_camera("picamera2?fps=90", fps=60), Picamera2CameraSource) and p90.wanted_fps == 90
    assert isinstance(make_camera(f"recording:{recording}", fps=60), RecordingCameraSource)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("webcam", "unknown camera 'webcam'"),
        ("opencv:0?widht=640", "no option widht"),
        ("picamera2?size=big", "WIDTHxHEIGHT"),
        ("picamera2:left", "camera number"),
        ("recording:", "needs a directory"),
        ("recording:/x?realtime=maybe", "must be 1 or 0"),
        ("opencv:0?fps", "NAME=VALUE"),
        ("", "empty camera"),
    ],
)
def test_bad_camera_strings_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(CameraSpecError, match=message):
        make_camera(spec)


def test_the_sim_string_gives_the_digital_twins_camera_on_the_clock() -> None:
    clock = FakeClock()
    with make_camera("sim?seed=3&fps=50&width=320&height=240", clock=clock) as cam:
        assert cam.size == (320, 240) and cam.fps == 50
        first, second = cam.read(), cam.read()
    assert first is not None and second is not None
    assert first.image.shape == (240, 320, 3)
    assert second.t - first.t == pytest.approx(0.02)
    with pytest.raises(CameraSpecError, match="no option colour"):
        make_camera("sim?colour=red")
