"""A Raspberry Pi camera (Camera Module 3, Global Shutter, ...) through picamera2, as a camera source.

picamera2 comes from the OS package ``python3-picamera2`` and is imported only inside
:meth:`Picamera2CameraSource.open`, so nothing else in Sevivon needs it. Two streams run at once:
``main`` (BGR, for the letter) and ``lores`` (YUV420, whose Y plane is the small grey picture the
tracker uses, delivered as ``Frame.lores`` at no extra cost).

Speed matters more than pixels here, so the source picks the sensor mode that reaches the wanted
frame rate (Camera Module 3: 1536x864 at about 120 fps) and pins ``FrameDurationLimits`` to it;
without that, libcamera's video configuration stays at 30 fps. ``queue=False`` makes every capture
wait for a fresh frame instead of handing back one that was already waiting. Each request is
released in a ``finally``, because a request that is kept stalls the camera's buffer pool.

Frame times: the request's ``SensorTimestamp`` (nanoseconds, the moment the sensor started the
frame) mapped onto the injected clock by the offset seen at the first frame, so intervals between
frames are the sensor's own; without it, the clock at capture time.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from controller.clock import Clock, SystemClock
from hardware.camera import CameraError, CameraSource, Frame

log = logging.getLogger(__name__)

Picamera2Factory = Callable[[int], Any]

INSTALL_HINT = (
    "picamera2 is not installed: on Raspberry Pi OS run `sudo apt install python3-picamera2` and make "
    "the venv with --system-site-packages (see hardware/README.md); elsewhere use --camera opencv:0 or sim"
)


def _import_picamera2() -> Picamera2Factory:
    try:
        from picamera2 import Picamera2  # type: ignore[import-not-found,unused-ignore]
    except ImportError as exc:
        raise CameraError(INSTALL_HINT) from exc
    factory: Picamera2Factory = Picamera2
    return factory


def choose_sensor_mode(modes: Sequence[Mapping[str, Any]], fps: float) -> Mapping[str, Any]:
    """The sensor mode for ``fps``: among those fast enough, the one with the most pixels; else the fastest.

    Raises :class:`CameraError` when the camera lists no modes at all.
    """
    if not modes:
        raise CameraError("the camera lists no sensor modes: is it a Raspberry Pi camera?")
    fast = [m for m in modes if float(m.get("fps", 0.0)) >= fps - 0.5]
    if fast:
        return max(fast, key=lambda m: (m["size"][0] * m["size"][1], m.get("bit_depth", 0)))
    return max(modes, key=lambda m: (float(m.get("fps", 0.0)), m["size"][0] * m["size"][1]))


def _even(value: float) -> int:
    return max(2, int(round(value / 2)) * 2)


class Picamera2CameraSource(CameraSource):
    """A Pi camera at a high frame rate, with a lores grey stream for tracking."""

    def __init__(
        self,
        camera_num: int = 0,
        fps: float = 120.0,
        main_size: tuple[int, int] | None = (960, 540),
        lores_width: int = 320,
        clock: Clock | None = None,
        picamera2_factory: Picamera2Factory | None = None,
    ) -> None:
        if fps <= 0:
            raise ValueError(f"fps must be positive, not {fps}")
        self.camera_num = camera_num
        self.wanted_fps = fps
        self.main_size = main_size
        self.lores_width = lores_width
        self.clock: Clock = clock or SystemClock()
        self._factory = picamera2_factory
        self._cam: Any = None
        self._index = 0
        self._offset: float | None = None
        self.name = f"picamera2:{camera_num}"
        self.fps = fps
        self.size = main_size or (0, 0)
        self.lores_size = (0, 0)
        #: the sensor mode chosen at open (for the health page and meta.json)
        self.sensor_mode: Mapping[str, Any] | None = None

    def open(self) -> None:
        if self._cam is not None:
            return
        factory = self._factory or _import_picamera2()
        try:
            cam = factory(self.camera_num)
        except (IndexError, RuntimeError, OSError) as exc:
            raise CameraError(
                f"no Pi camera {self.camera_num}: {exc}. Check the ribbon cable (contacts the right way round), "
                "camera_auto_detect=1 in config.txt, and `rpicam-hello --list-cameras`"
            ) from exc
        try:
            self._configure(cam)
            cam.start()
        except CameraError:
            cam.close()
            raise
        except (RuntimeError, ValueError, OSError) as exc:
            cam.close()
            raise CameraError(f"the Pi camera would not start: {exc}") from exc
        self._cam = cam
        self._index = 0
        self._offset = None

    def _configure(self, cam: Any) -> None:
        mode = choose_sensor_mode(cam.sensor_modes, self.wanted_fps)
        self.sensor_mode = mode
        mode_w, mode_h = mode["size"]
        fps = min(self.wanted_fps, float(mode.get("fps", self.wanted_fps)))
        if fps < self.wanted_fps - 0.5:
            log.warning("the camera reaches %.1f fps at most, not %.1f", fps, self.wanted_fps)
        main_w, main_h = self.main_size or (mode_w, mode_h)
        main_w, main_h = _even(main_w), _even(main_h)
        lores_w = _even(min(self.lores_width, main_w))
        lores_h = _even(lores_w * main_h / main_w)
        frame_us = int(round(1e6 / fps))
        kwargs: dict[str, Any] = {
            # "RGB888" is B, G, R in memory: what OpenCV calls BGR
            "main": {"size": (main_w, main_h), "format": "RGB888"},
            "lores": {"size": (lores_w, lores_h), "format": "YUV420"},
            "controls": {"FrameDurationLimits": (frame_us, frame_us)},
            "buffer_count": 4,
            "queue": False,
        }
        try:
            config = cam.create_video_configuration(
                sensor={"output_size": (mode_w, mode_h), "bit_depth": mode.get("bit_depth", 10)}, **kwargs
            )
        except TypeError:
            # picamera2 before 0.3.17 has no sensor= argument: choose the mode through the raw stream
            config = cam.create_video_configuration(
                raw={"size": (mode_w, mode_h), "format": str(mode.get("format", ""))}, **kwargs
            )
        cam.configure(config)
        self.fps = fps
        self.size = (main_w, main_h)
        self.lores_size = (lores_w, lores_h)

    def close(self) -> None:
        if self._cam is None:
            return
        cam, self._cam = self._cam, None
        try:
            cam.stop()
        except (RuntimeError, OSError) as exc:  # closing must not fail the table: log and carry on
            log.warning("the Pi camera did not stop cleanly: %s", exc)
        try:
            cam.close()
        except (RuntimeError, OSError) as exc:
            log.warning("the Pi camera did not close cleanly: %s", exc)

    def read(self) -> Frame | None:
        if self._cam is None:
            raise CameraError("read() before open(): use the source as a context manager")
        try:
            request = self._cam.capture_request()
        except (RuntimeError, OSError, TimeoutError) as exc:
            raise CameraError(f"the Pi camera stopped delivering frames: {exc}") from exc
        try:
            main = np.asarray(request.make_array("main"))
            yuv = np.asarray(request.make_array("lores"))
            metadata = request.get_metadata() or {}
        except (RuntimeError, ValueError, OSError) as exc:
            raise CameraError(f"the Pi camera gave a broken frame: {exc}") from exc
        finally:
            request.release()
        t = self._timestamp(metadata)
        lores_w, lores_h = self.lores_size
        grey = np.ascontiguousarray(yuv[:lores_h, :lores_w])  # the Y plane is the first lores_h rows
        if main.ndim == 3 and main.shape[2] == 4:
            main = np.ascontiguousarray(main[:, :, :3])
        frame = Frame(index=self._index, t=t, image=main, lores=grey)
        self._index += 1
        return frame

    def _timestamp(self, metadata: Mapping[str, Any]) -> float:
        now = self.clock.monotonic()
        sensor_ns = metadata.get("SensorTimestamp")
        if sensor_ns is None:
            return now
        sensor_s = float(sensor_ns) / 1e9
        if self._offset is None:
            self._offset = now - sensor_s
        return sensor_s + self._offset
