from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.clock import FakeClock, PacedClock, ScaledClock
from controller.rules.letters import Letter


def test_fake_clock_sleep_advances_instantly() -> None:
    clock = FakeClock(start=5.0)
    clock.sleep(2.5)
    assert clock.monotonic() == 7.5
    with pytest.raises(ValueError, match="backwards"):
        clock.advance(-1)


def test_scaled_clock_runs_faster_than_its_base() -> None:
    base = FakeClock()
    scaled = ScaledClock(speed=20, base=base)
    base.advance(0.5)
    assert scaled.monotonic() == pytest.approx(10.0)
    scaled.sleep(40)  # 40 scaled seconds are 2 base seconds
    assert base.monotonic() == pytest.approx(2.5)


def test_paced_clock_stands_still_until_its_driver_waits_and_waits_speed_times_less() -> None:
    base = FakeClock()
    paced = PacedClock(speed=20, base=base)
    base.advance(3.0)
    assert paced.monotonic() == 0.0  # real time alone moves nothing: the table has not asked for a frame
    paced.sleep(40)  # on time, 40 simulated seconds take 2 real seconds counted from reaching 0
    assert paced.monotonic() == pytest.approx(40.0)
    assert base.monotonic() == pytest.approx(3.0)  # the 3 s it was idle already covered them: no wait
    paced.sleep(20)
    assert base.monotonic() == pytest.approx(4.0)  # now it waits 20/20 = 1 real second
    assert paced.wall() - paced.monotonic() == pytest.approx(base.wall() - base.monotonic())
    with pytest.raises(ValueError, match="speed must be positive"):
        PacedClock(speed=0)


def test_a_late_driver_slows_simulated_time_instead_of_skipping_it() -> None:
    base = FakeClock()
    paced = PacedClock(speed=20, base=base)
    frame = 1 / 30
    for _ in range(30):
        base.advance(0.1)  # rendering and judging a frame costs 0.1 real seconds: 60 times too slow
        before = base.monotonic()
        paced.sleep(frame)
        assert base.monotonic() == before  # behind: no waiting at all...
    assert paced.monotonic() == pytest.approx(1.0)  # ...and still exactly one frame time per wait
    assert paced.rate() == pytest.approx(frame / 0.1)  # the display is told the rate achieved
    for _ in range(30):
        paced.sleep(frame)  # free again: it is not allowed to catch up faster than speed
    assert base.monotonic() == pytest.approx(3.0 + 1.0 / 20)
    for _ in range(1800):
        paced.sleep(frame)  # 3 more real seconds at full speed: the rate measured lately is the speed
    assert paced.rate() == pytest.approx(20.0)


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(st.tuples(st.floats(0.0, 0.5), st.floats(0.001, 2.0)), min_size=1, max_size=40),
       speed=st.floats(0.1, 50.0))
def test_paced_time_never_outruns_speed_times_real_time_and_never_depends_on_it(
        steps: list[tuple[float, float]], speed: float) -> None:
    base = FakeClock()
    paced = PacedClock(speed=speed, base=base)
    seen = [(base.monotonic(), paced.monotonic())]
    for work, wait in steps:
        base.advance(work)  # the host's load: how long the table took between waits
        paced.sleep(wait)
        seen.append((base.monotonic(), paced.monotonic()))
    for i, (r0, t0) in enumerate(seen):
        for r1, t1 in seen[i + 1:]:
            assert t1 - t0 <= speed * (r1 - r0) + 1e-6
    # the simulated times the driver sees are exactly the sums of its waits, whatever the load was
    expected = [0.0]
    for _, wait in steps:
        expected.append(expected[-1] + wait)
    assert [t for _, t in seen] == pytest.approx(expected)


def test_letter_parse_and_pe_plays_as_shin() -> None:
    assert Letter.parse(" Gimel ") is Letter.GIMEL
    assert Letter.PE.plays_as is Letter.SHIN
    assert Letter.NUN.plays_as is Letter.NUN
    with pytest.raises(ValueError, match="expected one of nun, gimel"):
        Letter.parse("aleph")
