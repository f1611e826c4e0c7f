"""The spin button and the assistive-switch input: both ask the launcher for a spin.

Debouncing is done here, on the injected clock, rather than by gpiozero's ``bounce_time``: the
behaviour is then the same on every pin backend (and in tests, where mock pins ignore
``bounce_time``). A press counts only if ``debounce_s`` has passed since the last press that
counted, so contact bounce, or a tremor on an assistive switch, makes one spin request, not
several. A switch held down counts once: only the closing edge is a press.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from gpiozero import Button
from gpiozero.pins import Factory

from controller.clock import Clock, SystemClock

PressHandler = Callable[[], object]


class DebouncedSwitch:
    """A contact to ground on a GPIO with the internal pull-up; ``on_press`` runs once per real press."""

    def __init__(
        self,
        pin: int,
        on_press: PressHandler | None = None,
        clock: Clock | None = None,
        debounce_s: float = 0.2,
        pin_factory: Factory | None = None,
        name: str = "switch",
    ) -> None:
        if debounce_s < 0:
            raise ValueError(f"debounce_s must not be negative, not {debounce_s}")
        self.name = name
        self.on_press = on_press
        self.clock: Clock = clock or SystemClock()
        self.debounce_s = debounce_s
        self._last_accepted = float("-inf")
        self._lock = threading.Lock()
        #: presses that counted
        self.presses = 0
        #: closing edges ignored as bounce
        self.bounces = 0
        self._button = Button(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
        self._button.when_pressed = self._closed

    @property
    def is_pressed(self) -> bool:
        """The contact is closed right now."""
        return bool(self._button.is_pressed)

    def _closed(self) -> None:
        now = self.clock.monotonic()
        with self._lock:
            if now - self._last_accepted < self.debounce_s:
                self.bounces += 1
                return
            self._last_accepted = now
            self.presses += 1
        if self.on_press is not None:
            self.on_press()

    def close(self) -> None:
        """Release the pin."""
        self._button.close()


class SpinButton(DebouncedSwitch):
    """The table's spin button (a momentary push button to ground)."""

    def __init__(
        self,
        pin: int = 17,
        on_press: PressHandler | None = None,
        clock: Clock | None = None,
        debounce_s: float = 0.2,
        pin_factory: Factory | None = None,
    ) -> None:
        super().__init__(pin, on_press, clock, debounce_s, pin_factory, name="spin button")


class AssistiveSwitch(DebouncedSwitch):
    """A standard assistive switch (a contact closure on a 3.5 mm jack).

    Its longer default debounce (0.5 s) absorbs the double presses that a tremor or a slow release
    makes; a switch held down still asks for one spin only.
    """

    def __init__(
        self,
        pin: int = 27,
        on_press: PressHandler | None = None,
        clock: Clock | None = None,
        debounce_s: float = 0.5,
        pin_factory: Factory | None = None,
    ) -> None:
        super().__init__(pin, on_press, clock, debounce_s, pin_factory, name="assistive switch")
