"""The RGB status LED: one colour and blink pattern per table state.

Patterns differ in rhythm as well as colour, so they can be told apart by someone who cannot
tell red from green. The LED is driven by :meth:`StatusLed.tick` on the injected clock (the GPIO
panel's ticker calls it every few milliseconds), not by gpiozero's blink threads, so the timing is
testable and a state change takes effect at once.

| state        | colour  | pattern                                  |
|--------------|---------|------------------------------------------|
| idle         | off     |                                          |
| ready        | green   | steady                                   |
| spinning     | blue    | slow blink, 0.5 s on / 0.5 s off         |
| valid        | green   | three quick flashes (0.15 s), then steady |
| respin       | amber   | blink 0.3 s on / 0.3 s off               |
| judge_needed | magenta | long on 0.8 s / short off 0.2 s          |
| fault        | red     | fast blink 0.1 s on / 0.1 s off          |
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from enum import StrEnum

from gpiozero import RGBLED
from gpiozero.pins import Factory

from controller.clock import Clock, SystemClock

Colour = tuple[float, float, float]
OFF: Colour = (0.0, 0.0, 0.0)
GREEN: Colour = (0.0, 1.0, 0.0)
BLUE: Colour = (0.0, 0.0, 1.0)
AMBER: Colour = (1.0, 0.35, 0.0)
MAGENTA: Colour = (1.0, 0.0, 1.0)
RED: Colour = (1.0, 0.0, 0.0)


class LedState(StrEnum):
    """What the table is doing, as the LED shows it (the names of the table's IndicatorPort)."""

    IDLE = "idle"
    READY = "ready"
    SPINNING = "spinning"
    VALID = "valid"
    RESPIN = "respin"
    JUDGE_NEEDED = "judge_needed"
    FAULT = "fault"


@dataclass(frozen=True)
class LedPattern:
    """Segments of (colour, seconds) played in order; repeated, or played once and then held."""

    segments: tuple[tuple[Colour, float], ...]
    repeat: bool = True
    #: colour held after a pattern that does not repeat
    hold: Colour = OFF

    def colour_at(self, elapsed: float) -> Colour:
        """The colour ``elapsed`` seconds into the pattern."""
        total = sum(d for _, d in self.segments)
        if total <= 0:
            return self.hold
        if self.repeat:
            elapsed %= total
        elif elapsed >= total:
            return self.hold
        for colour, duration in self.segments:
            if elapsed < duration:
                return colour
            elapsed -= duration
        return self.segments[-1][0]


def steady(colour: Colour) -> LedPattern:
    """One colour, all the time."""
    return LedPattern(((colour, 1.0),))


def blink(colour: Colour, on_s: float, off_s: float) -> LedPattern:
    """``colour`` for ``on_s``, dark for ``off_s``, repeated."""
    return LedPattern(((colour, on_s), (OFF, off_s)))


PATTERNS: dict[LedState, LedPattern] = {
    LedState.IDLE: steady(OFF),
    LedState.READY: steady(GREEN),
    LedState.SPINNING: blink(BLUE, 0.5, 0.5),
    LedState.VALID: LedPattern(((GREEN, 0.15), (OFF, 0.15)) * 3, repeat=False, hold=GREEN),
    LedState.RESPIN: blink(AMBER, 0.3, 0.3),
    LedState.JUDGE_NEEDED: blink(MAGENTA, 0.8, 0.2),
    LedState.FAULT: blink(RED, 0.1, 0.1),
}


class StatusLed:
    """An RGB LED (common cathode, one PWM pin per colour) showing a :class:`LedState`."""

    def __init__(
        self,
        red: int = 5,
        green: int = 6,
        blue: int = 13,
        clock: Clock | None = None,
        pin_factory: Factory | None = None,
        active_high: bool = True,
    ) -> None:
        self.clock: Clock = clock or SystemClock()
        self._led = RGBLED(red, green, blue, active_high=active_high, pwm=True, pin_factory=pin_factory)
        self._lock = threading.Lock()
        self.state = LedState.IDLE
        self._since = self.clock.monotonic()

    @property
    def colour(self) -> Colour:
        """The colour shown right now (r, g, b in 0..1)."""
        r, g, b = self._led.value
        return (float(r), float(g), float(b))

    def show(self, state: LedState | str) -> None:
        """Switch to ``state`` now (its pattern starts from the beginning)."""
        new = LedState(state)
        with self._lock:
            self.state = new
            self._since = self.clock.monotonic()
        self.tick()

    def tick(self) -> None:
        """Bring the LED up to date with the pattern at the clock's present time."""
        with self._lock:
            colour = PATTERNS[self.state].colour_at(self.clock.monotonic() - self._since)
            if self.colour != colour:
                self._led.value = colour

    def close(self) -> None:
        """Turn off and release the pins."""
        self._led.close()
