"""The ante clock: the ante rises by a step every interval, and a judge can pause it.

It only keeps time; the table session turns each raise it reports into a ``raise_ante`` event in the
log (RULES.md: "the clock raises the ante by a set step every interval"). Time comes from an
injected clock, so a simulated table at ``--sim-speed 20`` raises twenty times as often in real
time, and tests advance a :class:`~controller.clock.FakeClock` instead of waiting.

Not thread-safe by itself: the table session calls it under its own lock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from controller.clock import Clock


class ClockStatus(StrEnum):
    """Where the ante clock is."""

    STOPPED = "stopped"
    RUNNING = "running"
    PAUSED = "paused"


@dataclass(frozen=True)
class AnteClockView:
    """What the display shows: the countdown to the next raise and by how much."""

    status: ClockStatus
    remaining_s: float | None
    interval_s: float
    step: int

    def to_json(self) -> dict[str, object]:
        """The ``clock`` object of ``/api/state``."""
        return {
            "status": self.status.value,
            "remaining_s": None if self.remaining_s is None else round(self.remaining_s, 2),
            "interval_s": self.interval_s,
            "step": self.step,
        }


class AnteClock:
    """Counts down to the next ante raise on an injected clock."""

    def __init__(self, interval_s: float, step: int, clock: Clock) -> None:
        if interval_s <= 0:
            raise ValueError(f"the ante interval must be positive, not {interval_s}")
        if step <= 0:
            raise ValueError(f"the ante step must be positive, not {step}")
        self.interval_s = float(interval_s)
        self.step = step
        self._clock = clock
        self._status = ClockStatus.STOPPED
        self._deadline = 0.0  # monotonic time of the next raise while running
        self._remaining = interval_s  # frozen countdown while paused

    @property
    def status(self) -> ClockStatus:
        """Stopped, running or paused."""
        return self._status

    def start(self, remaining_s: float | None = None) -> None:
        """Start counting down (a full interval, or ``remaining_s`` when resuming after a restart)."""
        left = self.interval_s if remaining_s is None else min(max(remaining_s, 0.0), self.interval_s)
        self._deadline = self._clock.monotonic() + left
        self._status = ClockStatus.RUNNING

    def start_paused(self, remaining_s: float | None = None) -> None:
        """Set the countdown without running it (a restart of a table whose clock a judge had paused)."""
        self._remaining = self.interval_s if remaining_s is None else min(max(remaining_s, 0.0), self.interval_s)
        self._status = ClockStatus.PAUSED

    def stop(self) -> None:
        """Stop for good (the table has a winner)."""
        self._status = ClockStatus.STOPPED

    def pause(self) -> bool:
        """Freeze the countdown. Returns False when it was not running (nothing changed)."""
        if self._status is not ClockStatus.RUNNING:
            return False
        self._remaining = max(self._deadline - self._clock.monotonic(), 0.0)
        self._status = ClockStatus.PAUSED
        return True

    def resume(self) -> bool:
        """Continue a paused countdown where it stopped. Returns False when it was not paused."""
        if self._status is not ClockStatus.PAUSED:
            return False
        self._deadline = self._clock.monotonic() + self._remaining
        self._status = ClockStatus.RUNNING
        return True

    def remaining_s(self) -> float | None:
        """Seconds to the next raise, or None when stopped."""
        if self._status is ClockStatus.STOPPED:
            return None
        if self._status is ClockStatus.PAUSED:
            return self._remaining
        return max(self._deadline - self._clock.monotonic(), 0.0)

    def poll(self) -> int:
        """How many raises fell due since the last poll (usually 0 or 1); the countdown re-arms.

        Several can fall due at once when the table was busy for longer than an interval (or a
        simulated table runs very fast); RULES.md says raises announced within one turn add up.
        """
        if self._status is not ClockStatus.RUNNING:
            return 0
        now = self._clock.monotonic()
        if now < self._deadline:
            return 0
        due = 1 + math.floor((now - self._deadline) / self.interval_s)
        self._deadline += due * self.interval_s
        return due

    def view(self) -> AnteClockView:
        """A snapshot for the display."""
        return AnteClockView(self._status, self.remaining_s(), self.interval_s, self.step)
