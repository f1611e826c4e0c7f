"""A hall-sensor revolution counter on the launcher's chuck.

A magnet on the chuck passes a hall switch (e.g. a DRV5023, which runs on 3.3 V: open drain, pulls
the line low while the magnet is near) ``pulses_per_rev`` times a revolution. Each falling edge is timestamped
with the injected clock in the GPIO callback; the rate comes from the edges of the last
``window_s`` seconds. No edge for a while means the chuck has stopped, so rpm is 0 then.
"""

from __future__ import annotations

import threading
from collections import deque

from gpiozero import DigitalInputDevice
from gpiozero.pins import Factory

from controller.clock import Clock, SystemClock


class RpmCounter:
    """Counts revolutions from hall-sensor edges and reports revolutions per minute."""

    def __init__(
        self,
        pin: int,
        pulses_per_rev: int = 1,
        window_s: float = 0.5,
        clock: Clock | None = None,
        pin_factory: Factory | None = None,
    ) -> None:
        if pulses_per_rev < 1:
            raise ValueError(f"pulses_per_rev must be at least 1, not {pulses_per_rev}")
        if window_s <= 0:
            raise ValueError(f"window_s must be positive, not {window_s}")
        self.pulses_per_rev = pulses_per_rev
        self.window_s = window_s
        self.clock: Clock = clock or SystemClock()
        self._edges: deque[float] = deque(maxlen=4096)
        self._lock = threading.Lock()
        self.pulses = 0
        self._input = DigitalInputDevice(pin, pull_up=True, pin_factory=pin_factory)
        self._input.when_activated = self._pulse

    def _pulse(self) -> None:
        with self._lock:
            self._edges.append(self.clock.monotonic())
            self.pulses += 1

    def reset(self) -> None:
        """Forget earlier edges (at the start of a launch)."""
        with self._lock:
            self._edges.clear()

    @property
    def rpm(self) -> float:
        """Revolutions per minute over the last ``window_s``; 0 when the chuck is (nearly) still."""
        now = self.clock.monotonic()
        with self._lock:
            recent = [t for t in self._edges if now - t <= self.window_s]
        if len(recent) < 2:
            return 0.0
        span = recent[-1] - recent[0]
        if span <= 0:
            return 0.0
        period = span / (len(recent) - 1)
        if now - recent[-1] > 2 * period:
            return 0.0  # the pulses have stopped coming: it is slowing to a halt
        return 60.0 / (period * self.pulses_per_rev)

    def close(self) -> None:
        """Release the pin."""
        self._input.close()
