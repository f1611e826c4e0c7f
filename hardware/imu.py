"""The IMU interface: timestamped samples in g and degrees/s, with gaps reported, not hidden.

Drivers: ``hardware.imu_lsm6ds`` (LSM6DSOX/LSM6DS3 family) and ``hardware.imu_mpu6050``, both over
smbus2; ``hardware.sim`` makes samples from the digital twin; ``hardware.imu_recording`` reads
``imu.csv``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from types import TracebackType


class ImuError(RuntimeError):
    """The IMU cannot be used (not found, or failed past its retries)."""


@dataclass(frozen=True)
class ImuSample:
    """One reading: ``t`` in seconds on the injected clock; acceleration in g; rotation in degrees/s."""

    t: float
    ax: float
    ay: float
    az: float
    gx: float
    gy: float
    gz: float


@dataclass(frozen=True)
class ImuGap:
    """Samples were lost between ``t_start`` and ``t_end`` (FIFO overflow or a bus outage)."""

    t_start: float
    t_end: float
    reason: str


@dataclass(frozen=True)
class ImuBatch:
    """What one read returns: the samples in time order, and any gaps found while reading them."""

    samples: tuple[ImuSample, ...]
    gaps: tuple[ImuGap, ...] = ()


class ImuSource(ABC):
    """A source of IMU samples. Use it as a context manager."""

    #: chip name for ``meta.json`` ("lsm6dsox", "lsm6ds3", "mpu6050", "sim", ...)
    chip: str
    #: output data rate in Hz
    rate_hz: float

    @abstractmethod
    def open(self) -> None:
        """Find and configure the chip. Raises :class:`ImuError` saying what to check."""

    @abstractmethod
    def close(self) -> None:
        """Release the bus. Safe to call twice."""

    @abstractmethod
    def read(self) -> ImuBatch:
        """Everything that has arrived since the last read (possibly nothing).

        A live driver never raises on a transient bus error: it retries, then reports itself
        unhealthy through :attr:`healthy` and returns an empty batch until the chip answers again.
        """

    @property
    def healthy(self) -> bool:
        """False while the device is not answering."""
        return True

    def __enter__(self) -> ImuSource:
        self.open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
