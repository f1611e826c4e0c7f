"""The table's GPIO parts wired together: buttons, status LED, buzzer and launcher, with one ticker.

:class:`GpioPanel` builds every part from the ``[gpio]`` pin numbers (anything with the attribute
names of ``controller.config.GpioSettings``), hands the table an indicator (``show(state)``) and
a launcher (``busy``, ``launch()``), and advances their timed patterns and the launcher's state
machine from :meth:`GpioPanel.tick`. On the Pi, :meth:`GpioPanel.start` runs that tick every
``tick_s`` in a thread; tests call ``tick()`` themselves after advancing a ``FakeClock``.

The ticker is also the launcher's motor watchdog, so it never does anything but tick.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from gpiozero.exc import GPIOZeroError
from gpiozero.pins import Factory

from controller.clock import Clock, SystemClock
from hardware.gpio_buttons import AssistiveSwitch, SpinButton
from hardware.gpio_buzzer import Buzzer, Sound
from hardware.gpio_launcher import Launcher, LauncherPins, LauncherSettings
from hardware.gpio_status_led import LedState, StatusLed

log = logging.getLogger(__name__)


class GpioUnavailable(RuntimeError):
    """The GPIO pins cannot be used here (not a Pi, no permission, a pin taken twice)."""


class GpioIndicators:
    """The LED and the buzzer behind the table's ``IndicatorPort``: ``show(state)``."""

    #: table state -> the buzzer's sound for it (states not listed are silent)
    SOUNDS: dict[LedState, Sound] = {
        LedState.VALID: Sound.VALID,
        LedState.RESPIN: Sound.RESPIN,
        LedState.JUDGE_NEEDED: Sound.JUDGE_NEEDED,
        LedState.FAULT: Sound.FAULT,
    }

    def __init__(self, led: StatusLed, buzzer: Buzzer | None = None) -> None:
        self.led = led
        self.buzzer = buzzer

    def show(self, state: str) -> None:
        """Show ``state`` (ready, spinning, valid, respin, judge_needed, fault, idle); beep on a change."""
        try:
            new = LedState(state)
        except ValueError:
            log.warning("the status LED has no state %r; showing fault", state)
            new = LedState.FAULT
        changed = new is not self.led.state
        self.led.show(new)
        if changed and self.buzzer is not None and new in self.SOUNDS:
            self.buzzer.play(self.SOUNDS[new])

    def tick(self) -> None:
        """Advance the LED pattern and the buzzer to now."""
        self.led.tick()
        if self.buzzer is not None:
            self.buzzer.tick()


class GpioPanel:
    """Every GPIO part of the table. Use :meth:`from_settings`; close it when the table stops."""

    def __init__(
        self,
        spin_button: SpinButton,
        assistive_switch: AssistiveSwitch | None,
        indicators: GpioIndicators,
        launcher: Launcher | None,
        tick_s: float = 0.005,
    ) -> None:
        self.spin_button = spin_button
        self.assistive_switch = assistive_switch
        self.indicators = indicators
        self.launcher = launcher
        self.tick_s = tick_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def from_settings(
        cls,
        gpio: Any,
        on_spin: Callable[[], object] | None = None,
        clock: Clock | None = None,
        pin_factory: Factory | None = None,
        launcher_settings: LauncherSettings | None = None,
        with_launcher: bool = True,
    ) -> GpioPanel:
        """Build the parts on the pins of ``gpio`` (a ``GpioSettings``; a pin of -1 means "not fitted").

        ``on_spin`` runs on a press of the spin button or the assistive switch; without it a press
        starts the launcher directly. Raises :class:`GpioUnavailable` saying what is wrong.
        """
        clock = clock or SystemClock()
        made: list[Any] = []
        try:
            launcher = None
            if with_launcher:
                settings = launcher_settings or LauncherSettings.within(float(gpio.motor_max_s))
                hall = int(gpio.hall)
                launcher = Launcher(
                    LauncherPins(gpio.motor_forward, gpio.motor_backward, gpio.motor_enable, gpio.servo,
                                 None if hall < 0 else hall),
                    settings, clock=clock, pin_factory=pin_factory,
                )
                made.append(launcher)
            press = on_spin or (lambda: launcher.launch() if launcher is not None else None)
            button = SpinButton(gpio.spin_button, press, clock=clock, pin_factory=pin_factory)
            made.append(button)
            switch = None
            if int(gpio.assistive_switch) >= 0:
                switch = AssistiveSwitch(gpio.assistive_switch, press, clock=clock, pin_factory=pin_factory)
                made.append(switch)
            led = StatusLed(gpio.led_red, gpio.led_green, gpio.led_blue, clock=clock, pin_factory=pin_factory)
            made.append(led)
            buzzer = None
            if int(gpio.buzzer) >= 0:
                buzzer = Buzzer(gpio.buzzer, clock=clock, pin_factory=pin_factory)
                made.append(buzzer)
        except (GPIOZeroError, OSError, RuntimeError, ValueError) as exc:
            for part in reversed(made):
                part.close()
            raise GpioUnavailable(
                f"the GPIO pins cannot be used: {exc}. On a Pi, check [gpio]: BCM pin numbers, "
                "each used once, a motor_max_s the launcher can work in; and that your user is in the gpio group; elsewhere set [gpio] enabled = false"
            ) from exc
        return cls(button, switch, GpioIndicators(led, buzzer), launcher)

    def tick(self) -> None:
        """Advance the launcher, the LED pattern and the buzzer to now."""
        if self.launcher is not None:
            self.launcher.tick()
        self.indicators.tick()

    def start(self) -> None:
        """Tick every ``tick_s`` in a background thread (on the Pi)."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="gpio-ticker", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.tick_s):
            try:
                self.tick()
            except Exception:  # the watchdog must outlive any one bad tick
                log.exception("GPIO tick failed")

    def close(self) -> None:
        """Stop the ticker and the launcher, turn everything off, release the pins."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
            self._thread = None
        if self.launcher is not None:
            self.launcher.close()
        self.spin_button.close()
        if self.assistive_switch is not None:
            self.assistive_switch.close()
        self.indicators.led.close()
        if self.indicators.buzzer is not None:
            self.indicators.buzzer.close()
