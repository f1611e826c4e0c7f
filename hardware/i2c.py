"""An I2C bus with a bounded retry policy, over smbus2 (or anything shaped like ``smbus2.SMBus``).

A Pi's I2C controller answers a glitch (a loose wire, a motor's noise, clock stretching) with
``OSError(121, 'Remote I/O error')``. One such error is not a dead sensor, so every transfer is
retried a few times at once; only when all attempts fail does :class:`I2cError` reach the driver,
which then reports itself unhealthy instead of crashing the table.

Long reads go through ``i2c_rdwr`` (a register-address write and a read in one combined
transaction) because SMBus block reads stop at 32 bytes and a FIFO burst is hundreds of bytes.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol, TypeVar

T = TypeVar("T")

#: the largest single read we ask for; Linux's i2c-dev accepts 8192, but a shorter transfer keeps
#: the bus free for others and a retry cheap
MAX_TRANSFER_BYTES = 1024


class I2cError(OSError):
    """A transfer failed on every attempt of the retry policy."""


class SMBusLike(Protocol):
    """The part of ``smbus2.SMBus`` that the drivers use (the emulated bus implements the same)."""

    def read_byte_data(self, i2c_addr: int, register: int, force: bool | None = None) -> int: ...

    def write_byte_data(self, i2c_addr: int, register: int, value: int, force: bool | None = None) -> None: ...

    def read_i2c_block_data(
        self, i2c_addr: int, register: int, length: int, force: bool | None = None
    ) -> list[int]: ...

    def i2c_rdwr(self, *i2c_msgs: Any) -> None: ...

    def close(self) -> None: ...


#: makes an open bus from a bus number; ``smbus2.SMBus`` in production
BusFactory = Callable[[int], SMBusLike]


def default_bus_factory(bus: int) -> SMBusLike:
    """Open ``/dev/i2c-<bus>`` with smbus2, with a message that says what to do when it is missing."""
    from smbus2 import SMBus

    path = f"/dev/i2c-{bus}"
    if not os.path.exists(path):
        raise I2cError(
            errno.ENOENT,
            f"there is no I2C bus {path}: enable I2C (run firmware/apply.sh, or raspi-config > Interface "
            f"Options > I2C) and reboot; on a laptop there is no I2C bus, use the simulator instead",
        )
    try:
        return SMBus(bus)
    except PermissionError as exc:
        raise I2cError(
            errno.EACCES,
            f"no permission to open {path}: add your user to the i2c group (firmware/apply.sh does) and log in again",
        ) from exc


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try one transfer before giving up on it."""

    #: total attempts per transfer (1 means no retry)
    attempts: int = 3

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError(f"RetryPolicy.attempts must be at least 1, not {self.attempts}")


class I2cDevice:
    """One chip at one address on an open bus, with every transfer retried by ``policy``.

    Counts the errors it has seen (``errors``) and the transfers it gave up on (``failures``) so a
    health page can show a flaky bus before it becomes a dead one.
    """

    def __init__(self, bus: SMBusLike, address: int, policy: RetryPolicy | None = None) -> None:
        if not 0x03 <= address <= 0x77:
            raise ValueError(f"I2C address {address:#04x} is outside the 7-bit range 0x03..0x77")
        self.bus = bus
        self.address = address
        self.policy = policy or RetryPolicy()
        self.errors = 0
        self.failures = 0

    def _retry(self, what: str, op: Callable[[], T]) -> T:
        last: OSError | None = None
        for _ in range(self.policy.attempts):
            try:
                return op()
            except OSError as exc:
                self.errors += 1
                last = exc
        self.failures += 1
        assert last is not None
        raise I2cError(
            last.errno or errno.EIO,
            f"{what} at {self.address:#04x} failed {self.policy.attempts} times: {last.strerror or last}",
        ) from last

    def read_u8(self, register: int) -> int:
        """One register."""
        return self._retry(
            f"reading register {register:#04x}", lambda: self.bus.read_byte_data(self.address, register)
        )

    def write_u8(self, register: int, value: int) -> None:
        """Write one register."""
        if not 0 <= value <= 0xFF:
            raise ValueError(f"a register holds one byte, not {value}")
        self._retry(
            f"writing {value:#04x} to register {register:#04x}",
            lambda: self.bus.write_byte_data(self.address, register, value),
        )

    def read_block(self, register: int, length: int) -> bytes:
        """``length`` bytes starting at ``register`` (auto-increment or FIFO, as the chip does).

        Uses one combined ``i2c_rdwr`` transaction: a write of the register address, then a read.
        """
        if not 0 < length <= 8192:
            raise ValueError(f"a block read needs 1..8192 bytes, not {length}")
        from smbus2 import i2c_msg

        def op() -> bytes:
            write = i2c_msg.write(self.address, [register])
            read = i2c_msg.read(self.address, length)
            self.bus.i2c_rdwr(write, read)
            return bytes(read)

        return self._retry(f"reading {length} bytes from register {register:#04x}", op)


class I2cBus:
    """An open bus: a context manager around ``bus_factory(number)`` that closes it on exit."""

    def __init__(self, number: int = 1, bus_factory: BusFactory | None = None) -> None:
        self.number = number
        self._factory = bus_factory or default_bus_factory
        self._bus: SMBusLike | None = None

    def open(self) -> SMBusLike:
        """Open the bus (once). Raises :class:`I2cError` saying what to check."""
        if self._bus is None:
            try:
                self._bus = self._factory(self.number)
            except I2cError:
                raise
            except OSError as exc:
                raise I2cError(exc.errno or errno.EIO, f"cannot open I2C bus {self.number}: {exc}") from exc
        return self._bus

    @property
    def raw(self) -> SMBusLike:
        """The open smbus object (opens it if needed)."""
        return self.open()

    def device(self, address: int, policy: RetryPolicy | None = None) -> I2cDevice:
        """The chip at ``address`` on this bus."""
        return I2cDevice(self.open(), address, policy)

    def close(self) -> None:
        """Close the bus. Safe to call twice."""
        if self._bus is not None:
            bus, self._bus = self._bus, None
            bus.close()

    def __enter__(self) -> I2cBus:
        self.open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
