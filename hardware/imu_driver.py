"""What the FIFO-reading IMU drivers share: health, reconnection, overflow gaps and timestamps.

**Timestamps.** The chips have no clock the table shares, so a sample's time is made on the
host: the FIFO is counted at ``t_read`` (the injected clock), the newest sample counted was made
at most one sample period earlier, and the others are back-dated by their position divided by
the sample rate: ``t_i = t_read - (n - 1 - i) / rate``. ``rate`` starts at the nominal ODR and
follows the chip's real rate (its oscillator is off by up to a few percent), estimated from the
samples received over the last seconds. If back-dating would put a sample at or before the
previous batch's last one (host scheduling jitter), the batch is spread evenly between the two
instead, so time never goes backwards. The error of a timestamp is about one sample period
plus the host's scheduling jitter, far below what the judge needs (tens of milliseconds).

**Faults.** An :class:`~hardware.i2c.I2cError` (after the bus's retries) makes the driver
unhealthy: ``read()`` returns empty batches and tries to reconnect (identify the chip again and
configure it from scratch) at most every ``reconnect_interval_s``. When it is back, the outage is
reported as an :class:`~hardware.imu.ImuGap`. A FIFO overflow is also a gap: the FIFO is reset
and reading resumes, so lost samples are never papered over.
"""

from __future__ import annotations

import logging
from abc import abstractmethod
from dataclasses import dataclass

import numpy as np

from controller.clock import Clock, SystemClock
from hardware.i2c import I2cBus, I2cDevice, I2cError, RetryPolicy
from hardware.imu import ImuBatch, ImuError, ImuGap, ImuSample, ImuSource

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ImuConfig:
    """What to ask of the chip. The driver picks the lowest supported rate at or above ``rate_hz``."""

    rate_hz: float = 833.0
    #: full scale of the accelerometer in g; a landing dreidel's impact is a few g
    accel_range_g: int = 8
    #: full scale of the gyroscope in degrees/s; the tray only vibrates, so this is plenty
    gyro_range_dps: int = 500
    #: seconds between reconnection attempts while the chip is not answering
    reconnect_interval_s: float = 1.0

    def __post_init__(self) -> None:
        if self.rate_hz <= 0:
            raise ValueError(f"ImuConfig.rate_hz must be positive, not {self.rate_hz}")
        if self.reconnect_interval_s <= 0:
            raise ValueError(f"ImuConfig.reconnect_interval_s must be positive, not {self.reconnect_interval_s}")


def pick_code(wanted: float, table: dict[int, float], what: str) -> tuple[int, float]:
    """The code of the smallest table value >= ``wanted`` (a rate), or a clear error."""
    options = sorted((value, code) for code, value in table.items() if value > 0)
    for value, code in options:
        if value >= wanted - 1e-6:
            return code, value
    raise ValueError(f"{what}: {wanted} is more than this chip can do (at most {options[-1][0]})")


def exact_code(wanted: int, table: dict[int, int], what: str) -> int:
    """The code of a range that must be one the chip has, or a clear error listing them."""
    for code, value in table.items():
        if value == wanted:
            return code
    raise ValueError(f"{what} must be one of {sorted(table.values())}, not {wanted}")


class RateEstimator:
    """Follows a chip's real sample rate from (time, samples received) over a sliding window."""

    def __init__(self, nominal_hz: float, window_s: float = 5.0, max_error: float = 0.05) -> None:
        self.nominal_hz = nominal_hz
        self.window_s = window_s
        self.max_error = max_error
        self._points: list[tuple[float, int]] = []
        self._total = 0

    def reset(self) -> None:
        """Forget history (after a FIFO reset or a reconnection, counting starts again)."""
        self._points.clear()
        self._total = 0

    def add(self, t: float, samples: int) -> None:
        """``samples`` more arrived by time ``t``."""
        self._total += samples
        self._points.append((t, self._total))
        while len(self._points) > 2 and t - self._points[1][0] >= self.window_s:
            self._points.pop(0)

    @property
    def rate_hz(self) -> float:
        """The estimated rate, clamped to within ``max_error`` of nominal (nominal until 0.5 s of history)."""
        if len(self._points) < 2:
            return self.nominal_hz
        (t0, n0), (t1, n1) = self._points[0], self._points[-1]
        if t1 - t0 < 0.5:
            return self.nominal_hz
        estimate = (n1 - n0) / (t1 - t0)
        low, high = self.nominal_hz * (1 - self.max_error), self.nominal_hz * (1 + self.max_error)
        return min(max(estimate, low), high)


class FifoImuDriver(ImuSource):
    """An I2C IMU read through its FIFO. Subclasses say how to identify, configure and drain it."""

    #: WHO_AM_I register address
    who_am_i_register: int
    #: WHO_AM_I value -> chip name
    known_ids: dict[int, str]

    def __init__(
        self,
        bus: I2cBus,
        address: int,
        clock: Clock | None = None,
        config: ImuConfig | None = None,
        policy: RetryPolicy | None = None,
    ) -> None:
        self.bus = bus
        self.address = address
        self.clock: Clock = clock or SystemClock()
        self.config = config or ImuConfig()
        self.policy = policy or RetryPolicy()
        self.chip = "unknown"
        self.rate_hz = 0.0
        self._dev: I2cDevice | None = None
        self._healthy = False
        self._opened = False
        self._last_t: float | None = None
        self._down_since: float | None = None
        self._down_reason = ""
        self._last_attempt = -np.inf
        self._rate: RateEstimator | None = None
        #: what went wrong last (for the health banner)
        self.last_error = ""
        #: FIFO overflows seen since open
        self.overflows = 0
        #: reconnections since open
        self.reconnects = 0

    # ---- what a chip driver provides ---------------------------------------------------

    @abstractmethod
    def _configure(self, dev: I2cDevice) -> float:
        """Reset and configure the chip, start its FIFO; return the sample rate set (Hz)."""

    @abstractmethod
    def _drain(self, dev: I2cDevice) -> np.ndarray | None:
        """Read everything complete in the FIFO: an (n, 6) float array (g, deg/s) in time order,
        or None if the FIFO had overflowed (the driver then calls :meth:`_reset_fifo`)."""

    @abstractmethod
    def _reset_fifo(self, dev: I2cDevice) -> None:
        """Empty the FIFO and start filling it again."""

    def _power_down(self, dev: I2cDevice) -> None:
        """Stop sampling (best effort, on close)."""

    # ---- the ImuSource interface --------------------------------------------------------

    @property
    def healthy(self) -> bool:
        return self._healthy

    def _identify(self, dev: I2cDevice) -> str:
        value = dev.read_u8(self.who_am_i_register)
        if value not in self.known_ids:
            known = ", ".join(f"{k:#04x} ({v})" for k, v in self.known_ids.items())
            raise ImuError(
                f"the chip at {self.address:#04x} answers WHO_AM_I {value:#04x}, not one this driver knows "
                f"({known}); run `sevivon imu probe` to see what is on the bus"
            )
        return self.known_ids[value]

    def _start(self) -> None:
        dev = self.bus.device(self.address, self.policy)
        self.chip = self._identify(dev)
        self.rate_hz = self._configure(dev)
        self._rate = RateEstimator(self.rate_hz)
        self._rate.add(self.clock.monotonic(), 0)
        self._dev = dev

    def open(self) -> None:
        if self._opened:
            return
        try:
            self._start()
        except I2cError as exc:
            self.bus.close()
            raise ImuError(
                f"no IMU answers at {self.address:#04x} on I2C bus {self.bus.number}: {exc.strerror or exc}. "
                "Check the wiring (SDA to GPIO2, SCL to GPIO3, 3V3, GND) and run `sevivon imu probe`"
            ) from exc
        except (ImuError, ValueError):  # not our chip, or a configuration it cannot do
            self.bus.close()
            raise
        self._opened = True
        self._healthy = True

    def close(self) -> None:
        if not self._opened:
            return
        self._opened = False
        self._healthy = False
        if self._dev is not None:
            try:
                self._power_down(self._dev)
            except OSError as exc:  # the chip may be the reason we are closing
                log.debug("could not power down the IMU: %s", exc)
        self._dev = None
        self.bus.close()

    def read(self) -> ImuBatch:
        if not self._opened:
            raise ImuError("read() before open(): use the IMU as a context manager")
        now = self.clock.monotonic()
        gaps: list[ImuGap] = []
        if not self._healthy:
            gap = self._try_reconnect(now)
            if gap is None:
                return ImuBatch(())
            gaps.append(gap)
        assert self._dev is not None and self._rate is not None
        try:
            t_read = self.clock.monotonic()
            values = self._drain(self._dev)
            if values is None:
                self.overflows += 1
                self._reset_fifo(self._dev)
                self._rate.reset()
                self._rate.add(t_read, 0)
                start = self._last_t if self._last_t is not None else t_read
                gaps.append(ImuGap(start, t_read, "fifo overflow"))
                self._last_t = t_read
                return ImuBatch((), tuple(gaps))
        except I2cError as exc:
            self._go_down(now, exc)
            return ImuBatch((), tuple(gaps))
        self._rate.add(t_read, len(values))
        return ImuBatch(self._stamp(values, t_read), tuple(gaps))

    # ---- internals ----------------------------------------------------------------------

    def _stamp(self, values: np.ndarray, t_read: float) -> tuple[ImuSample, ...]:
        n = len(values)
        if n == 0:
            return ()
        assert self._rate is not None
        times: np.ndarray = t_read - (n - 1 - np.arange(n)) / self._rate.rate_hz
        if self._last_t is not None and times[0] <= self._last_t:
            times = self._last_t + np.arange(1, n + 1) * ((t_read - self._last_t) / n)
        self._last_t = float(times[-1])
        rows = np.column_stack([times, values]).tolist()
        return tuple(ImuSample(*row) for row in rows)

    def _go_down(self, now: float, exc: I2cError) -> None:
        self._healthy = False
        self._down_since = self._last_t if self._last_t is not None else now
        self._down_reason = f"bus error: {exc.strerror or exc}"
        self.last_error = self._down_reason
        self._last_attempt = now
        log.warning("IMU at %#04x stopped answering: %s", self.address, exc)

    def _try_reconnect(self, now: float) -> ImuGap | None:
        if now - self._last_attempt < self.config.reconnect_interval_s:
            return None
        self._last_attempt = now
        try:
            self._start()
        except (I2cError, ImuError) as exc:
            self.last_error = str(exc)
            return None
        self._healthy = True
        self.reconnects += 1
        log.warning("IMU at %#04x answers again (%s)", self.address, self.chip)
        start = self._down_since if self._down_since is not None else now
        t_end = self.clock.monotonic()
        self._last_t = t_end
        return ImuGap(start, t_end, self._down_reason)
