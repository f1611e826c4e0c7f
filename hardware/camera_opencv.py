"""Any OpenCV capture device (a USB webcam on a laptop) or a video file, as a camera source."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

from controller.clock import Clock, SystemClock
from hardware.camera import CameraError, CameraSource, Frame

#: how many failed grabs in a row a live device gets before it counts as gone (USB cameras drop one now and then)
MAX_FAILED_GRABS = 5

CaptureFactory = Callable[[int | str], Any]


class OpenCvCameraSource(CameraSource):
    """``cv2.VideoCapture(device)``: an index (0 is the first camera) or a path to a video file.

    A video file is a finite source (``read()`` returns None at its end); a device is live, and a
    device that stops delivering raises :class:`CameraError`. Frame times come from the injected clock.
    """

    def __init__(
        self,
        device: int | str = 0,
        width: int | None = None,
        height: int | None = None,
        fps: float | None = None,
        clock: Clock | None = None,
        capture_factory: CaptureFactory | None = None,
    ) -> None:
        self.device = device
        self.clock: Clock = clock or SystemClock()
        self._want = (width, height, fps)
        self._factory: CaptureFactory = capture_factory or _open_capture
        self._cap: Any = None
        self._index = 0
        self._first: np.ndarray | None = None
        self.finite = isinstance(device, str) and os.path.isfile(device)
        self.name = f"opencv:{device}"
        self.fps = float(fps or 30.0)
        self.size = (width or 0, height or 0)

    def _hint(self) -> str:
        if self.finite:
            return "check that the file is a video OpenCV can read"
        if isinstance(self.device, str):
            return f"{self.device} is not a file or a device OpenCV can open"
        return (
            f"check the camera is plugged in, that /dev/video{self.device} exists, that your user is in the "
            "'video' group, and that no other program holds it"
        )

    def open(self) -> None:
        if self._cap is not None:
            return
        cap = self._factory(self.device)
        if cap is None or not cap.isOpened():
            raise CameraError(f"cannot open camera {self.device!r}: {self._hint()}")
        width, height, fps = self._want
        if width:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        if height:
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        if fps:
            cap.set(cv2.CAP_PROP_FPS, fps)
        ok, image = cap.read()  # the real size is only known from a frame
        if not ok or image is None:
            cap.release()
            raise CameraError(f"camera {self.device!r} opened but gave no picture: {self._hint()}")
        self._cap = cap
        self._first = image
        self.size = (int(image.shape[1]), int(image.shape[0]))
        reported = float(cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = reported if reported > 0 else float(fps or 30.0)
        self._index = 0

    def close(self) -> None:
        if self._cap is not None:
            cap, self._cap = self._cap, None
            cap.release()

    def read(self) -> Frame | None:
        if self._cap is None:
            raise CameraError("read() before open(): use the source as a context manager")
        image: np.ndarray | None
        if self._first is not None:
            image, self._first = self._first, None
        else:
            image = self._grab()
        if image is None:
            return None
        frame = Frame(index=self._index, t=self.clock.monotonic(), image=_as_bgr(image))
        self._index += 1
        return frame

    def _grab(self) -> np.ndarray | None:
        for _ in range(1 if self.finite else MAX_FAILED_GRABS):
            ok, image = self._cap.read()
            if ok and image is not None:
                return np.asarray(image)
        if self.finite:
            return None
        raise CameraError(f"camera {self.device!r} stopped delivering frames: {self._hint()}")


def _open_capture(device: int | str) -> Any:
    return cv2.VideoCapture(device)


def _as_bgr(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return image
