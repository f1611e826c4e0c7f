"""A fake ``smbus2.SMBus`` that routes transfers to emulated chips, with injectable I/O errors.

It keeps smbus2's own limits, so a driver that works here works on the real bus: SMBus block
transfers stop at 32 bytes (longer ones raise ``ValueError`` as smbus2 does), and long reads must
use ``i2c_rdwr`` with ``smbus2.i2c_msg``. A transfer to an address where nothing answers raises
``OSError(121, 'Remote I/O error')``, which is what a Pi's controller reports.
"""

from __future__ import annotations

import ctypes
import errno
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hardware.emulation.chip import EmulatedChip

I2C_M_RD = 0x0001
SMBUS_BLOCK_MAX = 32


def remote_io_error() -> OSError:
    """The error a Pi's I2C controller raises when a chip does not acknowledge."""
    return OSError(errno.EREMOTEIO, "Remote I/O error")


@dataclass
class BusStats:
    """What went over the bus (for benchmarks and tests)."""

    transfers: int = 0
    bytes_read: int = 0
    bytes_written: int = 0
    errors_raised: int = 0
    largest_read: int = 0


@dataclass
class _Faults:
    fail_next: int = 0
    unplugged: bool = False


@dataclass
class FakeSMBus:
    """An I2C bus with emulated chips at their addresses: ``FakeSMBus({0x6A: Lsm6dsoxEmulation(clock)})``."""

    devices: dict[int, EmulatedChip] = field(default_factory=dict)
    stats: BusStats = field(default_factory=BusStats)
    closed: bool = False
    _faults: dict[int, _Faults] = field(default_factory=dict)
    _pointer: dict[int, int] = field(default_factory=dict)

    # ---- fault injection ----------------------------------------------------------------

    def fail_next(self, address: int, transfers: int = 1) -> None:
        """Make the next ``transfers`` transfers to ``address`` fail with errno 121."""
        self._faults.setdefault(address, _Faults()).fail_next += transfers

    def unplug(self, address: int) -> None:
        """The chip stops answering (a loose wire) until :meth:`plug`."""
        self._faults.setdefault(address, _Faults()).unplugged = True

    def plug(self, address: int) -> None:
        """The chip answers again. Its registers kept their values, as on a brief contact loss."""
        self._faults.setdefault(address, _Faults()).unplugged = False

    def _chip(self, address: int) -> EmulatedChip:
        if self.closed:
            raise OSError(errno.EBADF, "the bus is closed")
        faults = self._faults.get(address)
        if address not in self.devices or (faults is not None and faults.unplugged):
            self.stats.errors_raised += 1
            raise remote_io_error()
        if faults is not None and faults.fail_next > 0:
            faults.fail_next -= 1
            self.stats.errors_raised += 1
            raise remote_io_error()
        self.stats.transfers += 1
        return self.devices[address]

    def _read(self, address: int, register: int, length: int) -> bytes:
        data = self._chip(address).read(register, length)
        self.stats.bytes_read += length
        self.stats.largest_read = max(self.stats.largest_read, length)
        return data

    def _write(self, address: int, register: int, data: bytes) -> None:
        self._chip(address).write(register, data)
        self.stats.bytes_written += len(data) + 1

    # ---- the smbus2.SMBus surface -------------------------------------------------------

    def read_byte(self, i2c_addr: int, force: bool | None = None) -> int:
        """A read with no register address: from the chip's current register pointer."""
        return self._read(i2c_addr, self._pointer.get(i2c_addr, 0), 1)[0]

    def write_byte(self, i2c_addr: int, value: int, force: bool | None = None) -> None:
        """Set the chip's register pointer."""
        self._chip(i2c_addr)
        self._pointer[i2c_addr] = value & 0xFF

    def read_byte_data(self, i2c_addr: int, register: int, force: bool | None = None) -> int:
        return self._read(i2c_addr, register, 1)[0]

    def write_byte_data(self, i2c_addr: int, register: int, value: int, force: bool | None = None) -> None:
        if not 0 <= value <= 0xFF:
            raise ValueError(f"a byte is 0..255, not {value}")
        self._write(i2c_addr, register, bytes([value]))

    def read_word_data(self, i2c_addr: int, register: int, force: bool | None = None) -> int:
        data = self._read(i2c_addr, register, 2)
        return data[0] | (data[1] << 8)

    def read_i2c_block_data(
        self, i2c_addr: int, register: int, length: int, force: bool | None = None
    ) -> list[int]:
        if length > SMBUS_BLOCK_MAX:
            raise ValueError(f"Desired block length over {SMBUS_BLOCK_MAX} bytes")
        return list(self._read(i2c_addr, register, length))

    def write_i2c_block_data(
        self, i2c_addr: int, register: int, data: list[int], force: bool | None = None
    ) -> None:
        if len(data) > SMBUS_BLOCK_MAX:
            raise ValueError(f"Data length cannot exceed {SMBUS_BLOCK_MAX} bytes")
        self._write(i2c_addr, register, bytes(data))

    def i2c_rdwr(self, *i2c_msgs: Any) -> None:
        """Combined transactions: a write sets the register pointer (and writes any further bytes);
        a read fills the message's buffer from the pointer on."""
        for msg in i2c_msgs:
            address = int(msg.addr)
            if msg.flags & I2C_M_RD:
                register = self._pointer.get(address, 0)
                data = self._read(address, register, int(msg.len))
                ctypes.memmove(msg.buf, data, len(data))
            else:
                payload = bytes(msg)
                if not payload:
                    self._chip(address)
                    continue
                self._pointer[address] = payload[0]
                if len(payload) > 1:
                    self._write(address, payload[0], payload[1:])
                else:
                    self._chip(address)

    def opener(self) -> Callable[[int], FakeSMBus]:
        """A bus factory for :class:`hardware.i2c.I2cBus` that (re)opens this bus, whatever its number."""

        def open_bus(number: int) -> FakeSMBus:
            self.closed = False
            return self

        return open_bus

    def close(self) -> None:
        self.closed = True

    def __enter__(self) -> FakeSMBus:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
