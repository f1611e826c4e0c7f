"""The launcher: a motor spins a chuck holding the dreidel's handle, then a servo opens the chuck.

A state machine on the injected clock, advanced by :meth:`Launcher.tick` (the GPIO panel's ticker
calls it every few milliseconds; tests call it after advancing a ``FakeClock``)::

    IDLE --launch()--> SPIN_UP --up to speed--> RELEASING --release_hold_s--> RESETTING --reclose_s--> IDLE
                          |                                                        ^
                          +--too slow / over time / stop()-------------------------+ (no release)

Safety, by construction:

- The motor never runs longer than ``motor_max_s``: every tick checks it, whatever the phase, and the
  settings are refused if the normal schedule would not fit inside it.
- The servo opens only from SPIN_UP, only after the motor has run ``spin_up_s``, and, with an rpm
  counter, only once the chuck has reached ``target_rpm``; a launch that does not get there within
  ``spin_up_timeout_s`` stops the motor, keeps the chuck closed and reports ``no_speed``.
- A launch while one is under way does nothing (it returns the reason).
- :meth:`stop` stops the motor at once and keeps the chuck closed.

The motor is driven through an H-bridge (L298N, TB6612, ...): gpiozero's ``Motor`` on the two
direction inputs and a PWM output on the bridge's enable pin for speed.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from gpiozero import AngularServo, Motor, PWMOutputDevice
from gpiozero.pins import Factory

from controller.clock import Clock, SystemClock
from hardware.gpio_rpm import RpmCounter

log = logging.getLogger(__name__)


class LaunchPhase(StrEnum):
    """Where a launch is (see the diagram above)."""

    IDLE = "idle"
    SPIN_UP = "spin_up"
    RELEASING = "releasing"
    RESETTING = "resetting"


class LaunchOutcome(StrEnum):
    """How a launch ended."""

    RELEASED = "released"
    #: with an rpm counter: the chuck did not reach target_rpm in time, so it was not released
    NO_SPEED = "no_speed"
    #: the motor hit motor_max_s before the release (a tick came too late): not released
    MOTOR_TIMEOUT = "motor_timeout"
    #: stop() was called
    STOPPED = "stopped"


@dataclass(frozen=True)
class LaunchResult:
    """What one launch did."""

    outcome: LaunchOutcome
    started_t: float
    ended_t: float
    #: the chuck's speed at release (or when it gave up), if there is an rpm counter
    rpm: float | None
    detail: str = ""

    @property
    def released(self) -> bool:
        """The dreidel left the chuck."""
        return self.outcome is LaunchOutcome.RELEASED


@dataclass(frozen=True)
class LauncherSettings:
    """Timings and limits of the launcher (a ``[launcher]`` table in the table's config)."""

    #: motor duty cycle while spinning up (0..1)
    motor_speed: float = 0.8
    #: seconds of run-up before the release (with an rpm counter: at least this long)
    spin_up_s: float = 1.5
    #: with an rpm counter: give up if target_rpm is not reached by then
    spin_up_timeout_s: float = 3.0
    #: with an rpm counter: the chuck speed required for a release
    target_rpm: float = 600.0
    #: seconds the motor keeps turning while the chuck opens (so the dreidel leaves spinning)
    release_hold_s: float = 0.3
    #: seconds after the release before the chuck closes again
    reclose_s: float = 1.0
    #: the motor never runs longer than this
    motor_max_s: float = 4.0
    servo_closed_angle: float = 0.0
    servo_open_angle: float = 90.0

    @classmethod
    def within(cls, motor_max_s: float) -> LauncherSettings:
        """The default schedule, shortened where needed to fit a motor limit of ``motor_max_s``."""
        base = cls()
        if motor_max_s <= base.release_hold_s:
            raise ValueError(f"motor_max_s ({motor_max_s} s) leaves no time to run the motor up")
        timeout = min(base.spin_up_timeout_s, motor_max_s - base.release_hold_s)
        return cls(spin_up_s=min(base.spin_up_s, timeout), spin_up_timeout_s=timeout, motor_max_s=motor_max_s)

    def __post_init__(self) -> None:
        if not 0 < self.motor_speed <= 1:
            raise ValueError(f"motor_speed must be in (0, 1], not {self.motor_speed}")
        for name in ("spin_up_s", "spin_up_timeout_s", "release_hold_s", "reclose_s", "motor_max_s", "target_rpm"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, not {getattr(self, name)}")
        if self.spin_up_timeout_s < self.spin_up_s:
            raise ValueError("spin_up_timeout_s must be at least spin_up_s")
        if self.spin_up_timeout_s + self.release_hold_s > self.motor_max_s:
            raise ValueError(
                f"spin_up_timeout_s + release_hold_s ({self.spin_up_timeout_s + self.release_hold_s} s) "
                f"must fit within motor_max_s ({self.motor_max_s} s)"
            )


@dataclass(frozen=True)
class LauncherPins:
    """BCM pins of the launcher (defaults: hardware/README.md's wiring table)."""

    motor_forward: int = 23
    motor_backward: int = 24
    motor_enable: int = 18
    servo: int = 19
    #: hall sensor; None without an rpm counter
    hall: int | None = None


ResultHandler = Callable[[LaunchResult], None]


class Launcher:
    """Spins and releases the dreidel safely. Fits the table's ``LauncherPort`` (``busy``, ``launch()``)."""

    def __init__(
        self,
        pins: LauncherPins | None = None,
        settings: LauncherSettings | None = None,
        clock: Clock | None = None,
        pin_factory: Factory | None = None,
        on_result: ResultHandler | None = None,
        pulses_per_rev: int = 1,
    ) -> None:
        self.pins = pins or LauncherPins()
        self.settings = settings or LauncherSettings()
        self.clock: Clock = clock or SystemClock()
        self.on_result = on_result
        self._lock = threading.RLock()
        s = self.settings
        self._motor = Motor(self.pins.motor_forward, self.pins.motor_backward, pwm=False, pin_factory=pin_factory)
        self._enable = PWMOutputDevice(self.pins.motor_enable, initial_value=0, pin_factory=pin_factory)
        low, high = sorted((s.servo_closed_angle, s.servo_open_angle))
        self._servo = AngularServo(
            self.pins.servo,
            initial_angle=s.servo_closed_angle,
            min_angle=min(0.0, low),
            max_angle=max(180.0, high),
            min_pulse_width=0.5 / 1000,
            max_pulse_width=2.5 / 1000,
            pin_factory=pin_factory,
        )
        self.rpm_counter = (
            RpmCounter(self.pins.hall, pulses_per_rev, clock=self.clock, pin_factory=pin_factory)
            if self.pins.hall is not None
            else None
        )
        self.phase = LaunchPhase.IDLE
        self._phase_t = self.clock.monotonic()
        self._motor_on_t: float | None = None
        self._started_t = 0.0
        self._release_rpm: float | None = None
        self.last_result: LaunchResult | None = None

    # ---- LauncherPort -------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """A launch is under way (including closing the chuck afterwards)."""
        return self.phase is not LaunchPhase.IDLE

    def launch(self) -> str | None:
        """Start a launch. Returns None if it started, else why not (a second press does nothing)."""
        with self._lock:
            if self.phase is not LaunchPhase.IDLE:
                return f"a launch is already under way ({self.phase.value})"
            now = self.clock.monotonic()
            if self.rpm_counter is not None:
                self.rpm_counter.reset()
            self._servo.angle = self.settings.servo_closed_angle
            self._motor.forward()
            self._enable.value = self.settings.motor_speed
            self._motor_on_t = now
            self._started_t = now
            self._release_rpm = None
            self._enter(LaunchPhase.SPIN_UP, now)
            return None

    # ---- the state machine --------------------------------------------------------------

    @property
    def motor_running(self) -> bool:
        """The motor is powered."""
        return self._motor_on_t is not None

    @property
    def rpm(self) -> float | None:
        """The chuck's speed, or None without an rpm counter."""
        return self.rpm_counter.rpm if self.rpm_counter is not None else None

    def _enter(self, phase: LaunchPhase, now: float) -> None:
        self.phase = phase
        self._phase_t = now

    def _motor_off(self) -> None:
        self._enable.value = 0
        self._motor.stop()
        self._motor_on_t = None

    def _finish(self, outcome: LaunchOutcome, now: float, detail: str = "") -> None:
        result = LaunchResult(outcome, self._started_t, now, self._release_rpm, detail)
        self.last_result = result
        if outcome is not LaunchOutcome.RELEASED:
            log.warning("launch not released: %s %s", outcome.value, detail)
        if self.on_result is not None:
            self.on_result(result)

    def tick(self) -> None:
        """Advance the launch to the clock's present time."""
        with self._lock:
            now = self.clock.monotonic()
            s = self.settings
            if self._motor_on_t is not None and now - self._motor_on_t >= s.motor_max_s:
                # The limit is absolute: whatever the phase, the motor stops here.
                self._motor_off()
                if self.phase is LaunchPhase.SPIN_UP:
                    self._release_rpm = self.rpm
                    self._enter(LaunchPhase.IDLE, now)
                    self._finish(LaunchOutcome.MOTOR_TIMEOUT, now, f"motor ran {s.motor_max_s} s without a release")
                    return
            elapsed = now - self._phase_t
            if self.phase is LaunchPhase.SPIN_UP:
                self._tick_spin_up(now, elapsed)
            elif self.phase is LaunchPhase.RELEASING and elapsed >= s.release_hold_s:
                self._motor_off()
                self._enter(LaunchPhase.RESETTING, now)
            elif self.phase is LaunchPhase.RESETTING and elapsed >= s.reclose_s:
                self._servo.angle = s.servo_closed_angle
                self._enter(LaunchPhase.IDLE, now)
                self._finish(LaunchOutcome.RELEASED, now)

    def _tick_spin_up(self, now: float, elapsed: float) -> None:
        s = self.settings
        if elapsed < s.spin_up_s:
            return
        rpm = self.rpm
        if rpm is not None and rpm < s.target_rpm:
            if elapsed >= s.spin_up_timeout_s:
                self._release_rpm = rpm
                self._motor_off()
                self._enter(LaunchPhase.IDLE, now)
                self._finish(
                    LaunchOutcome.NO_SPEED, now, f"reached {rpm:.0f} rpm of {s.target_rpm:.0f} in {elapsed:.1f} s"
                )
            return
        self._release_rpm = rpm
        self._servo.angle = s.servo_open_angle
        self._enter(LaunchPhase.RELEASING, now)

    def stop(self) -> None:
        """Stop at once: motor off, chuck kept closed (an emergency, or the table closing)."""
        with self._lock:
            now = self.clock.monotonic()
            was = self.phase
            self._motor_off()
            if was is LaunchPhase.SPIN_UP:
                self._servo.angle = self.settings.servo_closed_angle
                self._enter(LaunchPhase.IDLE, now)
                self._finish(LaunchOutcome.STOPPED, now, "stopped before the release")
            elif was is not LaunchPhase.IDLE:
                # Already released: only the motor needed stopping; close the chuck now.
                self._servo.angle = self.settings.servo_closed_angle
                self._enter(LaunchPhase.IDLE, now)
                self._finish(LaunchOutcome.RELEASED, now, "stopped after the release")

    @property
    def servo_angle(self) -> float | None:
        """The release servo's angle (None when detached)."""
        angle = self._servo.angle
        return None if angle is None else float(angle)

    def close(self) -> None:
        """Stop and release every pin."""
        self.stop()
        for device in (self._enable, self._motor, self._servo):
            device.close()
        if self.rpm_counter is not None:
            self.rpm_counter.close()
