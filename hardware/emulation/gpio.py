"""gpiozero mock pins that timestamp their state changes with an injected clock.

gpiozero's own ``MockPin`` records ``states`` with the machine's real clock, so a test of timed
behaviour would have to sleep. These pins record with the factory's clock instead; with a
``FakeClock`` a test advances time, calls ``tick()``, and checks the pin history with gpiozero's
own verbs (``pin.assert_states``, ``pin.assert_states_and_times``, ``pin.drive_high()``).
"""

from __future__ import annotations

from typing import Any

from gpiozero.pins.mock import MockFactory, MockPin, MockPWMPin, PinState

from controller.clock import Clock, FakeClock


class _ClockedStates:
    """Overrides MockPin's two uses of the real clock. Mixed in before MockPin/MockPWMPin."""

    _state: Any
    _last_change: float
    states: list[PinState]

    @property
    def _clock(self) -> Clock:
        factory = self.factory  # type: ignore[attr-defined]
        clock: Clock = factory.clock
        return clock

    def _change_state(self, value: Any) -> bool:
        if self._state != value:
            t = self._clock.monotonic()
            self._state = value
            self.states.append(PinState(t - self._last_change, value))
            self._last_change = t
            return True
        return False

    def clear_states(self) -> None:
        self._last_change = self._clock.monotonic()
        self.states = [PinState(0.0, self._state)]


class ClockedMockPin(_ClockedStates, MockPin):  # type: ignore[misc]
    """A digital mock pin on the factory's clock."""


class ClockedMockPWMPin(_ClockedStates, MockPWMPin):  # type: ignore[misc]
    """A PWM-capable mock pin on the factory's clock (what motors, servos and dimmed LEDs need)."""


class ClockedMockFactory(MockFactory):  # type: ignore[misc]
    """``MockFactory`` whose pins keep time with ``clock``; PWM-capable pins by default."""

    def __init__(self, clock: Clock | None = None, pwm: bool = True, revision: str | None = None) -> None:
        self.clock: Clock = clock or FakeClock()
        super().__init__(revision=revision, pin_class=ClockedMockPWMPin if pwm else ClockedMockPin)

    def ticks(self) -> float:
        return self.clock.monotonic()

    @staticmethod
    def ticks_diff(later: float, earlier: float) -> float:
        return later - earlier
