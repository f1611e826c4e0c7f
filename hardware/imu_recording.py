"""A recording's ``imu.csv`` as an IMU source, kept in step with the replay of its video.

``read()`` returns the samples whose time has come: up to ``timeline()`` when one is given
(typically ``lambda: camera.position`` of a :class:`~hardware.camera_recording.RecordingCameraSource`,
so IMU and frames stay together however fast the replay runs), else up to the time elapsed on the
injected clock since :meth:`open` (times ``speed``). Holes in the recorded stream longer than three
sample periods come back as :class:`~hardware.imu.ImuGap`, as the live driver would have reported them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from controller.clock import Clock, SystemClock
from hardware.imu import ImuBatch, ImuError, ImuGap, ImuSample, ImuSource
from hardware.recording import RecordingError, RecordingReader


class RecordingImuSource(ImuSource):
    """Replays ``imu.csv`` of a recording directory."""

    def __init__(
        self,
        path: str | Path,
        timeline: Callable[[], float] | None = None,
        clock: Clock | None = None,
        speed: float = 1.0,
    ) -> None:
        if speed <= 0:
            raise ValueError(f"speed must be positive, not {speed}")
        self.path = Path(path)
        self.timeline = timeline
        self.clock: Clock = clock or SystemClock()
        self.speed = speed
        self.chip = "recording"
        self.rate_hz = 0.0
        self._data: np.ndarray | None = None
        self._next = 0
        self._t0 = 0.0

    def open(self) -> None:
        try:
            reader = RecordingReader(self.path)
            data = reader.imu()
        except RecordingError as exc:
            raise ImuError(f"cannot replay the IMU of {self.path}: {exc}") from exc
        if data is None:
            raise ImuError(f"{self.path} has no imu.csv (it was recorded without an IMU)")
        meta_imu = reader.meta.get("imu") or {}
        self.chip = str(meta_imu.get("chip", "recording"))
        self.rate_hz = float(meta_imu.get("rate_hz") or _median_rate(data))
        self._data = data
        self._next = 0
        self._t0 = self.clock.monotonic()

    def close(self) -> None:
        self._data = None

    @property
    def finished(self) -> bool:
        """True once every recorded sample has been returned."""
        return self._data is not None and self._next >= len(self._data)

    def read(self) -> ImuBatch:
        if self._data is None:
            raise ImuError("read() before open(): use the source as a context manager")
        upto = self.timeline() if self.timeline is not None else (self.clock.monotonic() - self._t0) * self.speed
        end = int(np.searchsorted(self._data[:, 0], upto, side="right"))
        if end <= self._next:
            return ImuBatch(())
        chunk = self._data[self._next : end]
        previous_t = float(self._data[self._next - 1, 0]) if self._next > 0 else None
        self._next = end
        samples = tuple(ImuSample(*row) for row in chunk.tolist())
        return ImuBatch(samples, self._gaps(chunk[:, 0], previous_t))

    def _gaps(self, times: np.ndarray, previous_t: float | None) -> tuple[ImuGap, ...]:
        if self.rate_hz <= 0:
            return ()
        full = times if previous_t is None else np.concatenate([[previous_t], times])
        steps = np.diff(full)
        holes = np.nonzero(steps > 3.0 / self.rate_hz)[0]
        return tuple(ImuGap(float(full[i]), float(full[i + 1]), "gap in the recording") for i in holes)


def _median_rate(data: np.ndarray) -> float:
    if len(data) < 2:
        return 0.0
    step = float(np.median(np.diff(data[:, 0])))
    return 1.0 / step if step > 0 else 0.0
