"""A recording directory as a camera: its frames at their own timestamps.

Either as fast as the reader asks (``realtime=False``: analysis, tests) or paced like the live
camera was (``realtime=True``: a demo table replaying a recording), by sleeping on the injected
clock until each frame is due. With a ``FakeClock`` the pacing costs no real time, so tests of
real-time replay are instant.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from controller.clock import Clock, SystemClock
from hardware.camera import CameraError, CameraSource, Frame
from hardware.recording import RecordingError, RecordingReader


class RecordingCameraSource(CameraSource):
    """Frames from ``video.avi`` with their times from ``frames.csv``; None at the end."""

    def __init__(
        self,
        path: str | Path,
        realtime: bool = False,
        speed: float = 1.0,
        clock: Clock | None = None,
    ) -> None:
        if speed <= 0:
            raise ValueError(f"speed must be positive, not {speed}")
        self.path = Path(path)
        self.realtime = realtime
        self.speed = speed
        self.clock: Clock = clock or SystemClock()
        self.name = f"recording:{self.path}"
        self.fps = 0.0
        self.size = (0, 0)
        self._frames: Iterator[Frame] | None = None
        self._t0 = 0.0
        #: the recording time of the last frame delivered (what an IMU replay should keep up with)
        self.position = 0.0

    def open(self) -> None:
        try:
            reader = RecordingReader(self.path)
            reader.frame_times()  # check frames.csv now, not halfway through a replay
        except RecordingError as exc:
            raise CameraError(f"cannot replay {self.path}: {exc}") from exc
        self.reader = reader
        self.fps = reader.fps
        self.size = reader.size
        self._frames = reader.frames()
        self._t0 = self.clock.monotonic()
        self.position = 0.0

    def close(self) -> None:
        if self._frames is not None:
            frames, self._frames = self._frames, None
            close = getattr(frames, "close", None)
            if close is not None:
                close()  # runs the reader's finally: releases the video file

    def read(self) -> Frame | None:
        if self._frames is None:
            raise CameraError("read() before open(): use the source as a context manager")
        try:
            frame = next(self._frames, None)
        except RecordingError as exc:
            raise CameraError(f"{self.path} is damaged: {exc}") from exc
        if frame is None:
            return None
        if self.realtime:
            due = self._t0 + frame.t / self.speed
            wait = due - self.clock.monotonic()
            if wait > 0:
                self.clock.sleep(wait)
        self.position = frame.t
        return frame
