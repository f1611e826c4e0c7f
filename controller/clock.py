"""Clocks, injected wherever time matters.

Every part of Sevivon that needs the time takes a :class:`Clock`, the way gpiozero devices take a
``pin_factory``. Production code uses :class:`SystemClock`; tests use :class:`FakeClock`, whose
``sleep`` advances virtual time instantly, so no test ever waits for real time; the simulated table
uses :class:`ScaledClock` to run faster than real time.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    """A source of time. ``monotonic`` is for measuring; ``wall`` is for timestamps people read."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes backwards."""
        ...

    def wall(self) -> float:
        """Seconds since the Unix epoch (for log timestamps)."""
        ...

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` of this clock's time."""
        ...


class SystemClock:
    """The real clock of the machine."""

    def monotonic(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class FakeClock:
    """A clock that moves only when told to. ``sleep`` advances it at once.

    Thread-safe, so a test can advance it while a device thread reads it.
    """

    def __init__(self, start: float = 0.0, wall_start: float = 1_700_000_000.0) -> None:
        self._t = start
        self._wall0 = wall_start - start
        self._lock = threading.Lock()

    def monotonic(self) -> float:
        with self._lock:
            return self._t

    def wall(self) -> float:
        with self._lock:
            return self._wall0 + self._t

    def sleep(self, seconds: float) -> None:
        self.advance(seconds)

    def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds`` (never backwards)."""
        if seconds < 0:
            raise ValueError(f"a clock cannot go backwards (asked to advance by {seconds})")
        with self._lock:
            self._t += seconds

    def set(self, t: float) -> None:
        """Jump to monotonic time ``t`` (which must not be in the past)."""
        with self._lock:
            if t < self._t:
                raise ValueError(f"a clock cannot go backwards (from {self._t} to {t})")
            self._t = t


class ScaledClock:
    """Real time multiplied by ``speed``: a simulated table at ``--sim-speed 20`` lives 20 s a second."""

    def __init__(self, speed: float = 1.0, base: Clock | None = None) -> None:
        if speed <= 0:
            raise ValueError(f"speed must be positive, not {speed}")
        self.speed = speed
        self._base = base or SystemClock()
        self._real0 = self._base.monotonic()
        self._wall0 = self._base.wall()

    def monotonic(self) -> float:
        return (self._base.monotonic() - self._real0) * self.speed

    def wall(self) -> float:
        return self._wall0 + self.monotonic()

    def sleep(self, seconds: float) -> None:
        self._base.sleep(seconds / self.speed)
