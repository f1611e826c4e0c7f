"""The ante clock counts down on an injected clock, pauses and resumes."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.anteclock import AnteClock, ClockStatus
from controller.clock import FakeClock


def test_raises_fall_due_every_interval(clock: FakeClock) -> None:
    ante = AnteClock(180, 1, clock)
    assert ante.poll() == 0 and ante.remaining_s() is None
    ante.start()
    clock.advance(179.9)
    assert ante.poll() == 0
    assert abs(ante.remaining_s() - 0.1) < 1e-9  # type: ignore[operator]
    clock.advance(0.1)
    assert ante.poll() == 1
    assert ante.poll() == 0
    assert ante.remaining_s() == 180
    clock.advance(3 * 180 + 5)  # the table was busy: three raises add up
    assert ante.poll() == 3
    assert abs(ante.remaining_s() - 175) < 1e-9  # type: ignore[operator]


def test_pause_freezes_the_countdown(clock: FakeClock) -> None:
    ante = AnteClock(60, 2, clock)
    ante.start()
    clock.advance(20)
    assert ante.pause() and not ante.pause()
    clock.advance(1000)
    assert ante.poll() == 0 and ante.remaining_s() == 40
    assert ante.view().status is ClockStatus.PAUSED
    assert ante.resume() and not ante.resume()
    clock.advance(39)
    assert ante.poll() == 0
    clock.advance(1)
    assert ante.poll() == 1
    assert ante.view().to_json() == {"status": "running", "remaining_s": 60.0, "interval_s": 60.0, "step": 2}


def test_restart_resumes_with_the_remaining_time(clock: FakeClock) -> None:
    ante = AnteClock(60, 1, clock)
    ante.start(remaining_s=12)
    clock.advance(12)
    assert ante.poll() == 1
    ante.start_paused(remaining_s=5)
    assert ante.status is ClockStatus.PAUSED and ante.remaining_s() == 5
    ante.stop()
    assert ante.poll() == 0 and ante.view().remaining_s is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=500), max_size=30), st.floats(min_value=1, max_value=300))
def test_raises_equal_elapsed_over_interval(steps: list[float], interval: float) -> None:
    clock = FakeClock()
    ante = AnteClock(interval, 1, clock)
    ante.start()
    total = 0
    for dt in steps:
        clock.advance(dt)
        total += ante.poll()
    # elapsed / interval in exact arithmetic; in floating point a whole number can come out a hair under
    # or over it (209 s at 1.1 s: 189.99999999999997), and either side of that hair is a right count
    exact = clock.monotonic() / interval
    assert total in (math.floor(exact - 1e-9), math.floor(exact + 1e-9))
