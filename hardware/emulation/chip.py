"""What every emulated register-level chip shares: a register file, a clock, and an ODR sampler.

A chip is passive: it catches up with its injected clock at the start of every bus transfer
(:meth:`EmulatedChip.read` / :meth:`EmulatedChip.write`), producing every sample its output data
rate would have produced since the last transfer. So a test advances a ``FakeClock`` and the FIFO
fills exactly as the datasheet says it would have in that time.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod

import numpy as np

from controller.clock import Clock
from hardware.emulation.motion import Motion, Still


class EmulatedChip(ABC):
    """A chip on the emulated bus: transfers address its registers; time comes from ``clock``."""

    #: a short name for error messages and probe listings
    name: str

    def __init__(self, clock: Clock, motion: Motion | None = None, odr_error: float = 0.0) -> None:
        self.clock = clock
        self.motion: Motion = motion or Still()
        #: the chip's real rate differs from its nominal ODR by this fraction (oscillators drift ~1 %)
        self.odr_error = odr_error
        self.regs = bytearray(256)
        self._rate = 0.0
        self._next_t = math.inf
        #: samples produced in total (for benchmarks and tests)
        self.samples_made = 0

    # ---- the bus side -------------------------------------------------------------------

    def read(self, register: int, length: int) -> bytes:
        """``length`` bytes from ``register`` on, as one burst (the chip's own address increment)."""
        self.catch_up()
        return self._read_burst(register, length)

    def write(self, register: int, data: bytes) -> None:
        """Write ``data`` from ``register`` on, as one burst."""
        self.catch_up()
        reg = register
        for value in data:
            self._write_reg(reg, value)
            reg = self._next_address(reg)

    def _read_burst(self, register: int, length: int) -> bytes:
        out = bytearray(length)
        reg = register
        for i in range(length):
            out[i] = self._read_reg(reg)
            reg = self._next_address(reg)
        return bytes(out)

    def _read_reg(self, register: int) -> int:
        return self.regs[register]

    def _write_reg(self, register: int, value: int) -> None:
        self.regs[register] = value

    def _next_address(self, register: int) -> int:
        return (register + 1) & 0xFF

    # ---- sampling -----------------------------------------------------------------------

    def set_rate(self, rate_hz: float) -> None:
        """Start (or stop, with 0) sampling at ``rate_hz``, from now."""
        now = self.clock.monotonic()
        self._rate = rate_hz * (1.0 + self.odr_error) if rate_hz > 0 else 0.0
        self._next_t = now + 1.0 / self._rate if self._rate > 0 else math.inf

    @property
    def rate_hz(self) -> float:
        """The rate the chip is really sampling at (0 when powered down)."""
        return self._rate

    def catch_up(self) -> None:
        """Produce every sample due up to the clock's present time."""
        now = self.clock.monotonic()
        if self._rate <= 0 or now < self._next_t:
            return
        n = int(math.floor((now - self._next_t) * self._rate + 1e-9)) + 1
        keep = min(n, self.max_pending_samples())
        first = n - keep
        times = self._next_t + (np.arange(first, n) / self._rate)
        self._next_t += n / self._rate
        self.samples_made += n
        values = np.asarray(self.motion(times), dtype=float)
        if values.shape != (keep, 6):
            raise ValueError(f"a motion must return an (n, 6) array, got {values.shape}")
        self._push(values, dropped=first)

    @abstractmethod
    def max_pending_samples(self) -> int:
        """How many of a long run of samples can matter (a FIFO's capacity plus one)."""

    @abstractmethod
    def _push(self, values: np.ndarray, dropped: int) -> None:
        """Store new samples (physical units). ``dropped`` older ones were lost before them."""


def to_raw(values: np.ndarray, per_lsb: float) -> np.ndarray:
    """Physical values to the chip's int16 counts, saturating like a real ADC."""
    return np.clip(np.rint(values / per_lsb), -32768, 32767).astype(np.int16)
