"""Clocks, injected wherever time matters.

Every part of Sevivon that needs the time takes a :class:`Clock`, the way gpiozero devices take a
``pin_factory``. Production code uses :class:`SystemClock`; tests use :class:`FakeClock`, whose
``sleep`` advances virtual time instantly, so no test ever waits for real time; the simulated table
uses :class:`PacedClock`, whose time passes only while the table waits for its next camera frame, so
it runs as fast as ``--sim-speed`` allows but never faster than the table can judge.
:class:`ScaledClock` (real time times a factor) is for a simulated IMU or table beside a real camera,
which delivers frames whether or not the table keeps up.
"""

from __future__ import annotations

import threading
import time
from collections import deque
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


class PacedClock:
    """Simulated time that passes only while its driver waits, at most ``speed`` times real time.

    The simulated table's loop is its driver: it waits (``sleep``) for the twin's next camera frame,
    so simulated time advances frame by frame and never runs ahead of the table. When rendering and
    judging a frame takes longer than ``1 / (fps * speed)`` real seconds, the simulated world slows
    down instead of frames being skipped: every frame is judged, and the same seed plays the same
    game on a fast machine and a starved one. ``speed`` is therefore the fastest the simulation may
    run. A wait never takes less than ``seconds / speed`` real seconds counted from the moment the
    clock last reached its current time, so over any stretch simulated time advances by no more than
    ``speed`` times the real time that passed (lateness is forgiven, not repaid by running faster).

    Between waits the time stands still, so readers on other threads (web requests, the ante clock's
    display) see the time of the frame being judged. Several threads may wait: each waits until the
    time is at least its start plus ``seconds``. ``rate()`` is the speed actually achieved lately.
    """

    #: real seconds of history behind :meth:`rate`
    RATE_WINDOW_S = 2.0

    def __init__(self, speed: float = 1.0, base: Clock | None = None) -> None:
        if speed <= 0:
            raise ValueError(f"speed must be positive, not {speed}")
        self.speed = speed
        self._base = base or SystemClock()
        self._t = 0.0
        self._real_at = self._base.monotonic()  # the base time at which self._t was reached
        self._wall0 = self._base.wall()
        self._lock = threading.Lock()  # guards _t and _real_at
        self._drive = threading.Lock()  # one waiter moves the time at once
        self._history: deque[tuple[float, float]] = deque([(self._real_at, 0.0)])

    def monotonic(self) -> float:
        with self._lock:
            return self._t

    def wall(self) -> float:
        return self._wall0 + self.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            return
        target = self.monotonic() + seconds
        with self._drive:
            with self._lock:
                if self._t >= target:
                    return  # another waiter already moved the time past it
                deadline = self._real_at + (target - self._t) / self.speed
            wait = deadline - self._base.monotonic()
            if wait > 0:
                self._base.sleep(wait)
            reached = max(deadline, self._base.monotonic())
            with self._lock:
                self._t = target
                self._real_at = reached
                self._history.append((reached, target))
                while len(self._history) > 2 and reached - self._history[1][0] >= self.RATE_WINDOW_S:
                    self._history.popleft()

    def rate(self) -> float:
        """Simulated seconds per real second over the last ``RATE_WINDOW_S`` (``speed`` until measurable)."""
        with self._lock:
            (r0, t0), (r1, t1) = self._history[0], self._history[-1]
        if r1 - r0 < 0.25 * self.RATE_WINDOW_S:
            return self.speed
        return min(self.speed, (t1 - t0) / (r1 - r0))
