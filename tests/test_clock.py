from __future__ import annotations

import pytest

from controller.clock import FakeClock, ScaledClock
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


def test_letter_parse_and_pe_plays_as_shin() -> None:
    assert Letter.parse(" Gimel ") is Letter.GIMEL
    assert Letter.PE.plays_as is Letter.SHIN
    assert Letter.NUN.plays_as is Letter.NUN
    with pytest.raises(ValueError, match="expected one of nun, gimel"):
        Letter.parse("aleph")
