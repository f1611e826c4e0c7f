"""GPIO parts on gpiozero's mock pins, timed by a FakeClock: pin histories asserted the way gpiozero's tests do."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.clock import FakeClock
from controller.config import GpioSettings
from hardware.emulation.gpio import ClockedMockFactory
from hardware.gpio_buttons import AssistiveSwitch, SpinButton
from hardware.gpio_buzzer import Buzzer
from hardware.gpio_launcher import Launcher, LauncherPins, LauncherSettings, LaunchOutcome, LaunchPhase
from hardware.gpio_panel import GpioPanel, GpioUnavailable
from hardware.gpio_rpm import RpmCounter
from hardware.gpio_status_led import StatusLed

TICK = 0.01


@pytest.fixture
def factory(clock: FakeClock) -> Iterator[ClockedMockFactory]:
    f = ClockedMockFactory(clock)
    yield f
    f.reset()


def run(clock: FakeClock, seconds: float, *tickers: object) -> None:
    """Advance time in TICK steps, ticking every part, as the panel's ticker thread does."""
    for _ in range(round(seconds / TICK)):
        clock.advance(TICK)
        for part in tickers:
            part.tick()  # type: ignore[attr-defined]


# ---- buttons --------------------------------------------------------------------------------


def test_a_bouncing_press_is_one_spin_request(clock: FakeClock, factory: ClockedMockFactory) -> None:
    presses: list[float] = []
    button = SpinButton(17, lambda: presses.append(clock.monotonic()), clock=clock, pin_factory=factory)
    pin = factory.pin(17)
    for _ in range(4):  # a contact bouncing for a few milliseconds
        pin.drive_low()
        clock.advance(0.002)
        pin.drive_high()
        clock.advance(0.002)
    pin.drive_low()
    assert presses == [0.0]
    assert button.bounces == 4
    assert button.is_pressed
    clock.advance(1.0)  # held down: still one press
    assert len(presses) == 1
    pin.drive_high()
    clock.advance(0.3)
    pin.drive_low()
    assert presses == [0.0, pytest.approx(1.316)]


def test_the_assistive_switch_absorbs_a_tremor_double_press(clock: FakeClock, factory: ClockedMockFactory) -> None:
    presses: list[float] = []
    AssistiveSwitch(27, lambda: presses.append(clock.monotonic()), clock=clock, pin_factory=factory)
    pin = factory.pin(27)
    for t in (0.0, 0.3, 0.45, 0.9, 1.6):
        clock.set(t)
        pin.drive_low()
        clock.advance(0.05)
        pin.drive_high()
    # 0.3 and 0.45 are within 0.5 s of the press at 0.0; 0.9 and 1.6 are new presses
    assert presses == [0.0, pytest.approx(0.9), pytest.approx(1.6)]


# ---- status LED and buzzer ------------------------------------------------------------------


def test_spinning_blinks_blue_half_a_second_on_and_off(clock: FakeClock, factory: ClockedMockFactory) -> None:
    led = StatusLed(5, 6, 13, clock=clock, pin_factory=factory)
    led.show("spinning")
    run(clock, 1.2, led)
    factory.pin(13).assert_states_and_times([(0.0, 0), (0.0, 1), (0.5, 0), (0.5, 1)])
    assert len(factory.pin(13).states) == 4
    factory.pin(5).assert_states([0])
    assert len(factory.pin(5).states) == 1  # red never lit


def test_valid_flashes_green_three_times_then_holds(clock: FakeClock, factory: ClockedMockFactory) -> None:
    led = StatusLed(5, 6, 13, clock=clock, pin_factory=factory)
    led.show("valid")
    run(clock, 2.0, led)
    green = factory.pin(6)
    green.assert_states_and_times([(0.0, 0)] + [(0.0, 1)] + [(0.15, 0), (0.15, 1)] * 3)
    assert len(green.states) == 8
    assert led.colour == (0.0, 1.0, 0.0)


def test_fault_is_red_and_a_new_state_takes_effect_at_once(clock: FakeClock, factory: ClockedMockFactory) -> None:
    led = StatusLed(5, 6, 13, clock=clock, pin_factory=factory)
    led.show("fault")
    assert led.colour == (1.0, 0.0, 0.0)
    run(clock, 0.35, led)
    led.show("ready")
    assert led.colour == (0.0, 1.0, 0.0)
    with pytest.raises(ValueError):
        led.show("party")


def test_respin_sounds_two_short_beeps(clock: FakeClock, factory: ClockedMockFactory) -> None:
    buzzer = Buzzer(12, clock=clock, pin_factory=factory)
    buzzer.play("respin")
    run(clock, 0.5, buzzer)
    factory.pin(12).assert_states_and_times([(0.0, 0), (0.0, 1), (0.1, 0), (0.1, 1), (0.1, 0)])
    assert len(factory.pin(12).states) == 5
    assert not buzzer.playing


def test_a_new_sound_cuts_off_the_old_one(clock: FakeClock, factory: ClockedMockFactory) -> None:
    buzzer = Buzzer(12, clock=clock, pin_factory=factory)
    buzzer.play("fault")  # 0.8 s long
    run(clock, 0.2, buzzer)
    buzzer.play("valid")
    run(clock, 1.0, buzzer)
    factory.pin(12).assert_states_and_times([(0.0, 0), (0.0, 1), (0.2, 0), (0.0, 1), (0.12, 0)])


# ---- rpm counter ----------------------------------------------------------------------------


def pulse(factory: ClockedMockFactory, pin: int) -> None:
    factory.pin(pin).drive_low()  # the magnet passes: the hall switch pulls the line low
    factory.pin(pin).drive_high()


@pytest.mark.parametrize(("ppr", "expected"), [(1, 1200.0), (2, 600.0)])
def test_rpm_from_hall_pulses(clock: FakeClock, factory: ClockedMockFactory, ppr: int, expected: float) -> None:
    counter = RpmCounter(22, pulses_per_rev=ppr, clock=clock, pin_factory=factory)
    assert counter.rpm == 0.0
    for _ in range(20):
        pulse(factory, 22)
        clock.advance(0.05)
    assert counter.rpm == pytest.approx(expected, rel=1e-6)
    clock.advance(0.2)  # no more pulses: it has stopped
    assert counter.rpm == 0.0
    assert counter.pulses == 20


# ---- the launcher ---------------------------------------------------------------------------


def make_launcher(clock: FakeClock, factory: ClockedMockFactory, hall: int | None = None,
                  **overrides: float) -> tuple[Launcher, list]:
    results: list = []
    launcher = Launcher(
        LauncherPins(23, 24, 18, 19, hall), LauncherSettings(**overrides), clock=clock, pin_factory=factory,
        on_result=results.append,
    )
    return launcher, results


def test_a_launch_spins_up_releases_then_stops_and_recloses(clock: FakeClock, factory: ClockedMockFactory) -> None:
    launcher, results = make_launcher(clock, factory)
    enable, forward, backward = factory.pin(18), factory.pin(23), factory.pin(24)
    assert launcher.launch() is None
    assert launcher.busy and launcher.phase is LaunchPhase.SPIN_UP
    assert launcher.launch() is not None, "a second press during a launch does nothing"
    run(clock, 1.49, launcher)
    assert launcher.servo_angle == 0.0, "no release before the run-up"
    run(clock, 0.02, launcher)
    assert launcher.servo_angle == 90.0 and launcher.phase is LaunchPhase.RELEASING
    run(clock, 2.0, launcher)
    assert not launcher.busy
    assert launcher.servo_angle == 0.0
    enable.assert_states_and_times([(0.0, 0), (0.0, 0.8), (1.8, 0)])
    forward.assert_states_and_times([(0.0, 0), (0.0, 1), (1.8, 0)])
    backward.assert_states([0])
    assert len(backward.states) == 1
    assert [r.outcome for r in results] == [LaunchOutcome.RELEASED]
    assert results[0].ended_t == pytest.approx(2.8, abs=2 * TICK)
    assert launcher.launch() is None, "ready for the next launch"


def _chuck(clock: FakeClock, factory: ClockedMockFactory, launcher: Launcher, rev_per_s: float, seconds: float) -> None:
    """Tick the launcher while a magnet on the chuck passes the hall sensor ``rev_per_s`` times a second."""
    next_pulse = clock.monotonic()
    for _ in range(round(seconds / TICK)):
        clock.advance(TICK)
        while launcher.motor_running and clock.monotonic() >= next_pulse:
            pulse(factory, 22)
            next_pulse += 1 / rev_per_s
        launcher.tick()


def test_with_an_rpm_counter_the_release_waits_for_speed(clock: FakeClock, factory: ClockedMockFactory) -> None:
    launcher, results = make_launcher(clock, factory, hall=22)
    launcher.launch()
    _chuck(clock, factory, launcher, 20.0, 4.0)  # 1200 rpm
    assert [r.outcome for r in results] == [LaunchOutcome.RELEASED]
    assert results[0].rpm == pytest.approx(1200, rel=0.05)
    factory.pin(18).assert_states_and_times([(0.0, 0), (0.0, 0.8), (1.8, 0)])


def test_a_launch_that_does_not_reach_speed_is_reported_and_not_released(
    clock: FakeClock, factory: ClockedMockFactory
) -> None:
    launcher, results = make_launcher(clock, factory, hall=22)
    servo = factory.pin(19)
    servo_states = len(servo.states)
    launcher.launch()
    _chuck(clock, factory, launcher, 5.0, 4.0)  # 300 rpm: a slipping belt
    assert [r.outcome for r in results] == [LaunchOutcome.NO_SPEED]
    assert not results[0].released
    assert results[0].rpm == pytest.approx(300, rel=0.05)
    assert "300 rpm of 600" in results[0].detail
    assert len(servo.states) == servo_states, "the servo never moved"
    factory.pin(18).assert_states_and_times([(0.0, 0), (0.0, 0.8), (3.0, 0)])
    assert not launcher.busy


def test_stop_is_immediate_and_keeps_the_chuck_closed(clock: FakeClock, factory: ClockedMockFactory) -> None:
    launcher, results = make_launcher(clock, factory)
    launcher.launch()
    run(clock, 0.7, launcher)
    launcher.stop()
    factory.pin(18).assert_states_and_times([(0.0, 0), (0.0, 0.8), (0.7, 0)])
    run(clock, 3.0, launcher)
    assert launcher.servo_angle == 0.0
    assert [r.outcome for r in results] == [LaunchOutcome.STOPPED]


def test_the_motor_limit_holds_even_when_ticks_come_late(clock: FakeClock, factory: ClockedMockFactory) -> None:
    launcher, results = make_launcher(clock, factory, hall=22)
    launcher.launch()
    clock.advance(4.0)  # the ticker stalled for the whole limit
    launcher.tick()
    assert not launcher.motor_running
    assert [r.outcome for r in results] == [LaunchOutcome.MOTOR_TIMEOUT]
    assert launcher.servo_angle == 0.0


def test_settings_that_cannot_fit_the_motor_limit_are_refused() -> None:
    with pytest.raises(ValueError, match="must fit within motor_max_s"):
        LauncherSettings(spin_up_timeout_s=3.9, release_hold_s=0.3, motor_max_s=4.0)
    with pytest.raises(ValueError, match="motor_speed"):
        LauncherSettings(motor_speed=1.5)
    short = LauncherSettings.within(2.0)  # a tighter motor limit shortens the run-up to fit
    assert short.spin_up_timeout_s + short.release_hold_s <= 2.0 and short.spin_up_s <= short.spin_up_timeout_s
    assert LauncherSettings.within(4.0) == LauncherSettings()


@settings(max_examples=30, deadline=None)
@given(
    actions=st.lists(
        st.tuples(st.integers(min_value=0, max_value=150), st.sampled_from(["launch", "launch", "stop", "wait"])),
        min_size=1,
        max_size=12,
    ),
    rev_per_s=st.sampled_from([0.0, 6.0, 25.0]),
)
def test_no_sequence_of_presses_breaks_the_safety_rules(actions: list[tuple[int, str]], rev_per_s: float) -> None:
    clock = FakeClock()
    factory = ClockedMockFactory(clock)
    launcher, _ = make_launcher(clock, factory, hall=22 if rev_per_s else None)
    s = launcher.settings
    motor_since: float | None = None
    launches = 0
    next_pulse = 0.0
    for ticks, action in actions:
        if action == "launch" and launcher.launch() is None:
            launches += 1
            motor_since = clock.monotonic()
        elif action == "stop":
            launcher.stop()
            motor_since = None
        for _ in range(ticks):
            clock.advance(TICK)
            while rev_per_s and launcher.motor_running and clock.monotonic() >= next_pulse:
                pulse(factory, 22)
                next_pulse = clock.monotonic() + 1 / rev_per_s
            was_angle = launcher.servo_angle
            launcher.tick()
            now = clock.monotonic()
            if launcher.motor_running:
                assert motor_since is not None and now - motor_since < s.motor_max_s
            else:
                motor_since = None
            if was_angle != s.servo_open_angle and launcher.servo_angle == s.servo_open_angle:
                # a release: only from a motor that has run up, and (with a counter) at speed
                assert motor_since is not None and now - motor_since >= s.spin_up_s - 1e-9
                if rev_per_s:
                    assert rev_per_s * 60 >= s.target_rpm
    factory.reset()


# ---- the panel ------------------------------------------------------------------------------


def test_the_panel_wires_buttons_to_the_launcher_and_states_to_led_and_buzzer(
    clock: FakeClock, factory: ClockedMockFactory
) -> None:
    panel = GpioPanel.from_settings(GpioSettings(enabled=True, hall=22), clock=clock, pin_factory=factory)
    assert panel.launcher is not None
    factory.pin(27).drive_low()  # the assistive switch
    assert panel.launcher.busy
    panel.indicators.show("judge_needed")
    assert panel.indicators.buzzer is not None and panel.indicators.buzzer.sounding
    assert panel.indicators.led.colour == (1.0, 0.0, 1.0)
    panel.indicators.show("no such state")
    assert panel.indicators.led.colour == (1.0, 0.0, 0.0), "an unknown state shows fault, never crashes"
    run(clock, 5.0, panel)
    assert not panel.launcher.busy
    assert panel.launcher.last_result is not None
    assert panel.launcher.last_result.outcome is LaunchOutcome.NO_SPEED  # nothing turned the hall sensor
    panel.start()
    panel.close()
    assert factory.pin(18).state == 0


def test_two_parts_on_one_pin_is_a_clear_error(clock: FakeClock, factory: ClockedMockFactory) -> None:
    with pytest.raises(GpioUnavailable, match="each used once"):
        GpioPanel.from_settings(GpioSettings(buzzer=5), clock=clock, pin_factory=factory)
    with pytest.raises(GpioUnavailable, match="motor_max_s"):
        GpioPanel.from_settings(GpioSettings(motor_max_s=0.2), clock=clock, pin_factory=factory)
    # everything built before the clash was released again: the pins can be used
    panel = GpioPanel.from_settings(GpioSettings(), clock=clock, pin_factory=factory)
    panel.close()
