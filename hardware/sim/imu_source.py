"""SimImu: the digital twin's IMU under the tray as a :class:`hardware.imu.ImuSource`."""

from __future__ import annotations

from controller.clock import Clock
from hardware.imu import ImuBatch, ImuError, ImuGap, ImuSource
from hardware.sim.world import SimWorld


class SimImu(ImuSource):
    """Everything the simulated IMU measured since the last ``read()``, on an injected clock.

    ``fail()`` / ``recover()`` imitate a sensor that stops answering on the bus: while failed,
    ``read()`` returns empty batches and :attr:`healthy` is False; on recovery the lost span is
    reported as an :class:`ImuGap`, the way the real drivers report it.
    """

    chip = "sim"

    def __init__(self, world: SimWorld, clock: Clock) -> None:
        self.world = world
        self.clock = clock
        self.rate_hz = world.imu.rate_hz
        if world.clock is None:
            world.clock = clock
        self._last: float | None = None
        self._failed_at: float | None = None
        self._lost = False

    def open(self) -> None:
        self._last = self.clock.monotonic()

    def close(self) -> None:
        self._last = None

    @property
    def healthy(self) -> bool:
        return self._failed_at is None

    def fail(self) -> None:
        """The sensor stops answering."""
        if self._failed_at is None:
            self._failed_at = self.clock.monotonic()

    def recover(self) -> None:
        """The sensor answers again; the next read reports what was lost as a gap."""
        if self._failed_at is not None:
            self._lost = True
        self._failed_at = None

    def read(self) -> ImuBatch:
        if self._last is None:
            raise ImuError("the simulated IMU is not open (use it as a context manager)")
        now = self.clock.monotonic()
        if self._failed_at is not None:
            return ImuBatch(samples=())
        gaps: tuple[ImuGap, ...] = ()
        start = self._last
        if self._lost:
            gaps = (ImuGap(self._last, now, "bus error (simulated)"),)
            start = now
            self._lost = False
        samples = self.world.imu_between(start, now)
        self._last = now
        return ImuBatch(samples=tuple(samples), gaps=gaps)
