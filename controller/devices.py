"""Device health and reconnection without a restart.

Each device of the table sits in a slot that owns opening, reading, closing and retrying it. A
device that fails is closed, reported once as a fault, and reopened every ``retry_s`` seconds of the
injected clock until it answers again; meanwhile the table runs degraded (manual entry without a
camera, camera-only without an IMU). Nothing a device does can raise out of a slot.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from controller.clock import Clock
from hardware.camera import CameraSource, Frame
from hardware.imu import ImuBatch, ImuSource


class DeviceStatus(StrEnum):
    """How a device is doing."""

    OK = "ok"
    #: not configured (``source = "none"``): the table runs without it on purpose
    ABSENT = "absent"
    #: configured but not answering; retried
    FAILED = "failed"


@dataclass(frozen=True)
class DeviceHealth:
    """One line of the health panel."""

    name: str
    status: DeviceStatus
    detail: str
    since: float

    def to_json(self) -> dict[str, object]:
        """For ``/api/state``'s ``health``."""
        return {"status": self.status.value, "detail": self.detail, "since": round(self.since, 3)}


#: called with (device name, message, is_recovery) on every change of health
FaultSink = Callable[[str, str, bool], None]


class _Slot:
    """Health bookkeeping shared by the camera and IMU slots."""

    def __init__(self, name: str, clock: Clock, retry_s: float, on_change: FaultSink | None) -> None:
        self.name = name
        self._clock = clock
        self.retry_s = retry_s
        self._on_change = on_change
        self._next_try = 0.0
        self._health = DeviceHealth(name, DeviceStatus.ABSENT, "not configured", clock.wall())

    @property
    def health(self) -> DeviceHealth:
        """The device's current health."""
        return self._health

    @property
    def ok(self) -> bool:
        """True while the device works."""
        return self._health.status is DeviceStatus.OK

    def _set(self, status: DeviceStatus, detail: str) -> None:
        old = self._health.status
        self._health = DeviceHealth(self.name, status, detail, self._clock.wall())
        if self._on_change and status is not old and not (old is DeviceStatus.ABSENT and status is DeviceStatus.OK):
            self._on_change(self.name, detail, status is DeviceStatus.OK)

    def _fail(self, detail: str) -> None:
        self._next_try = self._clock.monotonic() + self.retry_s
        if self._health.status is not DeviceStatus.FAILED or self._health.detail != detail:
            self._set(DeviceStatus.FAILED, detail)

    def retry_now(self) -> None:
        """Try to reopen at the next poll instead of waiting for the retry interval."""
        self._next_try = 0.0


class CameraSlot(_Slot):
    """The camera, reopened after a failure. ``factory`` is None when no camera is configured."""

    def __init__(
        self,
        factory: Callable[[], CameraSource] | None,
        clock: Clock,
        retry_s: float = 3.0,
        on_change: FaultSink | None = None,
    ) -> None:
        super().__init__("camera", clock, retry_s, on_change)
        self._factory = factory
        self._source: CameraSource | None = None
        self.last_frame: Frame | None = None
        if factory is None:
            self._health = DeviceHealth("camera", DeviceStatus.ABSENT, "no camera configured", clock.wall())

    @property
    def configured(self) -> bool:
        """A camera is configured (it may still be failing)."""
        return self._factory is not None

    @property
    def source(self) -> CameraSource | None:
        """The open camera, if any."""
        return self._source

    def poll(self) -> None:
        """Open the camera if it is closed and a retry is due."""
        if self._factory is None or self._source is not None:
            return
        if self._clock.monotonic() < self._next_try:
            return
        try:
            source = self._factory()
            source.open()
        except Exception as e:  # noqa: BLE001 - whatever a driver throws, the table carries on without it
            self._fail(f"camera not available: {e}")
            return
        self._source = source
        self._set(DeviceStatus.OK, f"{getattr(source, 'name', 'camera')} open")

    def read(self) -> Frame | None:
        """The next frame, or None (no camera, failed now, or a recording ended)."""
        if self._source is None:
            return None
        try:
            frame = self._source.read()
        except Exception as e:  # noqa: BLE001 - CameraError, OSError, cv2.error...: the camera is down
            self._drop(f"camera failed: {e}")
            return None
        if frame is None:
            self._drop("the camera source ended")
            return None
        self.last_frame = frame
        return frame

    def _drop(self, detail: str) -> None:
        source, self._source = self._source, None
        if source is not None:
            with contextlib.suppress(Exception):
                source.close()
        self._fail(detail)

    def close(self) -> None:
        """Release the camera."""
        source, self._source = self._source, None
        if source is not None:
            with contextlib.suppress(Exception):
                source.close()


class ImuSlot(_Slot):
    """The IMU. A driver reports transient trouble through ``healthy``; a slot also reopens a lost one."""

    def __init__(
        self,
        factory: Callable[[], ImuSource] | None,
        clock: Clock,
        retry_s: float = 3.0,
        on_change: FaultSink | None = None,
    ) -> None:
        super().__init__("imu", clock, retry_s, on_change)
        self._factory = factory
        self._source: ImuSource | None = None
        if factory is None:
            self._health = DeviceHealth("imu", DeviceStatus.ABSENT, "no IMU configured: camera-only", clock.wall())

    @property
    def configured(self) -> bool:
        """An IMU is configured (it may still be failing)."""
        return self._factory is not None

    def poll(self) -> None:
        """Open the IMU if it is closed and a retry is due; follow the driver's own health."""
        if self._factory is None:
            return
        if self._source is None:
            if self._clock.monotonic() < self._next_try:
                return
            try:
                source = self._factory()
                source.open()
            except Exception as e:  # noqa: BLE001 - ImuError, OSError...: judge camera-only meanwhile
                self._fail(f"IMU not available: {e}; judging camera-only")
                return
            self._source = source
            self._set(DeviceStatus.OK, f"{getattr(source, 'chip', 'imu')} at {getattr(source, 'rate_hz', '?')} Hz")
            return
        healthy = bool(self._source.healthy)
        if healthy and not self.ok:
            self._set(DeviceStatus.OK, f"{self._source.chip} answering again")
        elif not healthy and self.ok:
            self._fail("IMU not answering; judging camera-only")

    def read(self) -> ImuBatch | None:
        """New samples, or None when there is no working IMU."""
        if self._source is None:
            return None
        try:
            batch = self._source.read()
        except Exception as e:  # noqa: BLE001 - a driver is meant not to raise; if it does, reopen it
            source, self._source = self._source, None
            with contextlib.suppress(Exception):
                source.close()
            self._fail(f"IMU failed: {e}; judging camera-only")
            return None
        if not self.ok and not batch.samples and not batch.gaps:
            return None
        # Pass a batch through even before poll() has marked the IMU healthy again: the batch that
        # carries the reconnection's ImuGap arrives first, and the judge must see that gap.
        return batch

    def close(self) -> None:
        """Release the bus."""
        source, self._source = self._source, None
        if source is not None:
            with contextlib.suppress(Exception):
                source.close()
