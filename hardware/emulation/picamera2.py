"""A fake ``picamera2.Picamera2`` with the methods Sevivon's camera source uses, and their rules.

It checks what the real library checks (configure before start, start before capture, even
sizes, lores no larger than main and YUV, a request released exactly once) and behaves like the
camera in the ways that matter: ``capture_request`` waits one frame period on the injected clock,
the frame rate is the slower of ``FrameDurationLimits`` and the sensor mode's top speed, and
without ``FrameDurationLimits`` a video configuration runs at 30 fps. Metadata carries
``SensorTimestamp`` in nanoseconds.

Pictures come from ``scene(index, t) -> BGR image`` at the main size; the lores stream is the
same picture made small and converted to YUV420 (I420), as the ISP would.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from controller.clock import Clock, FakeClock

#: the sensor modes picamera2 lists for a Camera Module 3 (imx708)
CAMERA_MODULE_3_MODES: tuple[dict[str, Any], ...] = (
    {"format": "SRGGB10_CSI2P", "unpacked": "SRGGB10", "bit_depth": 10, "size": (1536, 864), "fps": 120.13,
     "crop_limits": (768, 432, 3072, 1728), "exposure_limits": (9, 77193582, None)},
    {"format": "SRGGB10_CSI2P", "unpacked": "SRGGB10", "bit_depth": 10, "size": (2304, 1296), "fps": 56.03,
     "crop_limits": (0, 0, 4608, 2592), "exposure_limits": (13, 112015443, None)},
    {"format": "SRGGB10_CSI2P", "unpacked": "SRGGB10", "bit_depth": 10, "size": (4608, 2592), "fps": 14.35,
     "crop_limits": (0, 0, 4608, 2592), "exposure_limits": (26, 220417486, None)},
)

#: the Global Shutter camera (imx296): one mode
GLOBAL_SHUTTER_MODES: tuple[dict[str, Any], ...] = (
    {"format": "SRGGB10_CSI2P", "unpacked": "SRGGB10", "bit_depth": 10, "size": (1456, 1088), "fps": 60.38,
     "crop_limits": (0, 0, 1456, 1088), "exposure_limits": (29, 15534385, None)},
)

Scene = Callable[[int, float], np.ndarray]


def moving_square(width: int, height: int) -> Scene:
    """A grey gradient with a bright square that moves one step per frame (the frame number is visible)."""

    def scene(index: int, t: float) -> np.ndarray:
        image = np.zeros((height, width, 3), np.uint8)
        image[:] = np.linspace(40, 120, width, dtype=np.uint8)[None, :, None]
        size = max(4, height // 8)
        x = (index * 7) % max(1, width - size)
        y = height // 3
        image[y : y + size, x : x + size] = (30, 200, 250)
        return image

    return scene


class FakeRequest:
    """A completed request: arrays per stream and metadata. Must be released once."""

    def __init__(self, camera: FakePicamera2, arrays: dict[str, np.ndarray], metadata: dict[str, Any]) -> None:
        self._camera = camera
        self._arrays = arrays
        self._metadata = metadata
        self.released = False

    def make_array(self, name: str) -> np.ndarray:
        if self.released:
            raise RuntimeError("request used after release()")
        if name not in self._arrays:
            raise RuntimeError(f"stream {name!r} was not configured")
        return self._arrays[name].copy()

    def get_metadata(self) -> dict[str, Any]:
        return dict(self._metadata)

    def release(self) -> None:
        if self.released:
            raise RuntimeError("request released twice")
        self.released = True
        self._camera.outstanding -= 1


@dataclass
class FakePicamera2:
    """Stands in for ``Picamera2(camera_num)``. Build one with :meth:`factory` for the camera source."""

    camera_num: int = 0
    clock: Clock = field(default_factory=FakeClock)
    modes: tuple[dict[str, Any], ...] = CAMERA_MODULE_3_MODES
    scene: Scene | None = None
    #: capture_request raises RuntimeError after this many frames (a camera unplugged mid-run)
    fail_after: int | None = None
    #: the boot-time clock of the sensor (ns) at frame 0
    sensor_epoch_ns: int = 5_000_000_000
    config: dict[str, Any] | None = None
    started: bool = False
    closed: bool = False
    outstanding: int = 0
    frames: int = 0
    frame_duration_us: float = 0.0
    _t_next: float = 0.0

    @classmethod
    def factory(cls, **kwargs: Any) -> tuple[Callable[[int], FakePicamera2], list[FakePicamera2]]:
        """A ``picamera2_factory`` and the list it fills with the cameras it made (to inspect them)."""
        made: list[FakePicamera2] = []

        def make(camera_num: int) -> FakePicamera2:
            cam = cls(camera_num=camera_num, **kwargs)
            made.append(cam)
            return cam

        return make, made

    @property
    def sensor_modes(self) -> list[dict[str, Any]]:
        return [dict(m) for m in self.modes]

    def create_video_configuration(
        self,
        main: dict[str, Any] | None = None,
        lores: dict[str, Any] | None = None,
        raw: dict[str, Any] | None = None,
        sensor: dict[str, Any] | None = None,
        controls: dict[str, Any] | None = None,
        buffer_count: int = 6,
        queue: bool = True,
        **other: Any,
    ) -> dict[str, Any]:
        main = dict(main or {"size": (1280, 720), "format": "XBGR8888"})
        main.setdefault("format", "XBGR8888")
        controls = {"FrameDurationLimits": (33333, 33333)} | dict(controls or {})
        return {"use_case": "video", "main": main, "lores": dict(lores) if lores else None, "raw": raw,
                "sensor": sensor, "controls": controls, "buffer_count": buffer_count, "queue": queue, **other}

    def _mode_for(self, config: dict[str, Any]) -> dict[str, Any]:
        wanted = (config.get("sensor") or {}).get("output_size") or (config.get("raw") or {}).get("size")
        if wanted is None:
            return self.modes[-1]
        for mode in self.modes:
            if tuple(mode["size"]) == tuple(wanted):
                return mode
        raise RuntimeError(f"no sensor mode of size {wanted}")

    def configure(self, config: dict[str, Any]) -> None:
        if self.started:
            raise RuntimeError("Camera must be stopped before configuring")
        for name in ("main", "lores"):
            stream = config.get(name)
            if stream is None:
                continue
            w, h = stream["size"]
            if w % 2 or h % 2:
                raise RuntimeError("width and height should be even")
        if config.get("lores") is not None:
            lw, lh = config["lores"]["size"]
            mw, mh = config["main"]["size"]
            if lw > mw or lh > mh:
                raise RuntimeError("lores stream dimensions may not exceed main stream")
            if config["lores"].get("format") not in ("YUV420", "YVU420"):
                raise RuntimeError("lores stream must be YUV")
        mode = self._mode_for(config)
        limits = config["controls"].get("FrameDurationLimits", (33333, 33333))
        self.frame_duration_us = max(float(limits[0]), 1e6 / float(mode["fps"]))
        self.config = config

    def start(self) -> None:
        if self.config is None:
            raise RuntimeError("Camera has not been configured")
        self.started = True
        self._t_next = self.clock.monotonic()

    def capture_request(self) -> FakeRequest:
        if not self.started:
            raise RuntimeError("Camera is not started")
        if self.fail_after is not None and self.frames >= self.fail_after:
            raise RuntimeError("Camera frontend has timed out!")
        assert self.config is not None
        period = self.frame_duration_us / 1e6
        # queue=False: wait for the next frame to start, never hand back an old one
        now = self.clock.monotonic()
        if self._t_next > now:
            self.clock.sleep(self._t_next - now)
        t = self.clock.monotonic()
        self._t_next = t + period
        mw, mh = self.config["main"]["size"]
        picture = (self.scene or moving_square(mw, mh))(self.frames, t)
        if picture.shape[:2] != (mh, mw):
            picture = cv2.resize(picture, (mw, mh))
        arrays = {"main": picture}
        if self.config["main"].get("format") in ("XBGR8888", "XRGB8888"):
            arrays["main"] = np.dstack([picture, np.full((mh, mw), 255, np.uint8)])
        if self.config.get("lores") is not None:
            lw, lh = self.config["lores"]["size"]
            small = cv2.resize(picture, (lw, lh), interpolation=cv2.INTER_AREA)
            arrays["lores"] = cv2.cvtColor(small, cv2.COLOR_BGR2YUV_I420)
        metadata = {
            "SensorTimestamp": self.sensor_epoch_ns + int(round(self.frames * period * 1e9)),
            "FrameDuration": int(self.frame_duration_us),
            "ExposureTime": int(self.frame_duration_us * 0.9),
        }
        self.frames += 1
        self.outstanding += 1
        return FakeRequest(self, arrays, metadata)

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        self.started = False
        self.closed = True
