"""Runs of a boolean signal: the final rise, and its first crossing of a level (hysteresis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.signal_runs import final_rise_first_crossing, final_run_start, largest_rise_first_crossing


def levels(x: np.ndarray, high: float, low: float) -> tuple[np.ndarray, np.ndarray]:
    return x > high, x > low


def test_a_hovering_rise_is_dated_from_its_first_crossing() -> None:
    # rises through 1.0 at t=2, hovers just under it (0.8) for 0.5 s, then runs away
    ts = np.arange(0.0, 4.0, 0.01)
    x = np.interp(ts, [0, 1.5, 2.0, 2.1, 2.3, 2.6, 4.0], [0.1, 0.1, 1.0, 1.05, 0.8, 0.85, 3.0])
    hi, lo = levels(x, 1.0, 0.5)
    onset = final_rise_first_crossing(hi, lo, ts, gap=10)
    assert onset is not None and abs(onset - 2.0) < 0.02
    # the final run above the level alone starts only where the runaway crossed it again
    later = final_run_start(hi, ts, gap=10)
    assert later is not None and later > 2.6


def test_an_earlier_blip_that_died_down_is_not_the_onset() -> None:
    ts = np.arange(0.0, 5.0, 0.01)
    x = np.full(ts.size, 0.1)
    x[(ts >= 1.0) & (ts < 1.2)] = 1.5  # a knock's ring, over the level, then quiet for 1.8 s
    x[ts >= 3.0] = np.linspace(0.4, 3.0, int((ts >= 3.0).sum()))
    hi, lo = levels(x, 1.0, 0.5)
    onset = final_rise_first_crossing(hi, lo, ts, gap=10)
    first_over = float(ts[np.flatnonzero((ts >= 3.0) & (x > 1.0))[0]])
    assert onset == pytest.approx(first_over)


def test_a_final_run_that_never_reaches_the_level_has_no_onset() -> None:
    ts = np.arange(0.0, 2.0, 0.01)
    x = np.where(ts > 1.0, 0.7, 0.1)
    hi, lo = levels(x, 1.0, 0.5)
    assert final_rise_first_crossing(hi, lo, ts, gap=5) is None


def test_a_signal_that_ends_low_has_no_onset() -> None:
    ts = np.arange(0.0, 2.0, 0.01)
    x = np.where((ts > 0.5) & (ts < 1.0), 2.0, 0.1)
    hi, lo = levels(x, 1.0, 0.5)
    assert final_rise_first_crossing(hi, lo, ts, gap=5) is None


def test_mismatched_lengths_are_an_error() -> None:
    with pytest.raises(ValueError, match="same length"):
        final_rise_first_crossing(np.zeros(3, bool), np.zeros(4, bool), np.arange(3.0), gap=2)


@settings(max_examples=60, deadline=None)
@given(
    knee=st.floats(0.5, 3.0),
    slope=st.floats(0.5, 5.0),
    dips=st.lists(st.floats(0.0, 4.0), max_size=4),
)
def test_onset_is_the_first_crossing_of_a_rise_with_short_dips(knee: float, slope: float, dips: list[float]) -> None:
    """A ramp from ``knee`` with dips (to between the two levels, shorter than the gap) crosses the level
    first where the ramp does, whatever the dips do after it."""
    ts = np.arange(0.0, 5.0, 0.01)
    x = np.where(ts > knee, (ts - knee) * slope, 0.0)
    for d in dips:
        x[(ts >= d) & (ts < d + 0.05) & (x > 1.0)] = 0.7  # a precession dip under the level, above the low one
    hi, lo = levels(x, 1.0, 0.5)
    first = np.flatnonzero(x > 1.0)
    onset = final_rise_first_crossing(hi, lo, ts, gap=10)
    if first.size == 0:
        assert onset is None
    else:
        assert onset == pytest.approx(float(ts[first[0]]))


def test_the_largest_rise_wins_over_an_earlier_short_one() -> None:
    """A window that runs on into the quiet after the fall: a knock's short ring at its start, the wobble's
    long rise (with a dip) later, then quiet. The wobble's first crossing is the onset, not the knock's."""
    ts = np.arange(0.0, 8.0, 0.01)
    x = np.full(ts.size, 0.1)
    x[ts < 0.15] = 2.0  # the release knock's ring
    rise = (ts >= 5.0) & (ts < 6.2)
    x[rise] = 0.6 + 2.0 * (ts[rise] - 5.0)
    x[(ts >= 5.5) & (ts < 5.55)] = 0.3  # a short dip under the low level: the same rise
    hi, lo = levels(x, 1.0, 0.5)
    assert final_rise_first_crossing(hi, lo, ts, gap=10) is None  # nothing lasts to the end
    onset = largest_rise_first_crossing(hi, lo, ts, gap=10)
    assert onset == pytest.approx(float(ts[np.flatnonzero(rise & (x > 1.0))[0]]))
    # with a longer knock than any rise, the knock wins; runs under min_high never count
    assert largest_rise_first_crossing(hi, lo, ts, gap=10, min_high=500) is None


def test_no_rise_over_the_level_has_no_largest_rise() -> None:
    ts = np.arange(0.0, 2.0, 0.01)
    x = np.where(ts > 1.0, 0.7, 0.1)
    hi, lo = levels(x, 1.0, 0.5)
    assert largest_rise_first_crossing(hi, lo, ts, gap=5) is None
    with pytest.raises(ValueError, match="same length"):
        largest_rise_first_crossing(hi, lo[:-1], ts, gap=5)


@settings(max_examples=60, deadline=None)
@given(
    knee=st.floats(0.5, 3.0),
    slope=st.floats(1.0, 5.0),
    quiet_after=st.floats(0.0, 2.0),
)
def test_a_rise_that_ends_before_the_window_is_still_found(knee: float, slope: float, quiet_after: float) -> None:
    """However long the quiet after a rise, its first crossing is found, and it agrees with the final
    rise's when the rise lasts to the end."""
    ts = np.arange(0.0, 6.0, 0.01)
    stop = min(knee + 1.5 + quiet_after, 6.0)
    x = np.where((ts > knee) & (ts < stop), (ts - knee) * slope, 0.0)
    hi, lo = levels(x, 1.0, 0.5)
    first = np.flatnonzero(x > 1.0)
    onset = largest_rise_first_crossing(hi, lo, ts, gap=10)
    assert onset == pytest.approx(float(ts[first[0]]))
    final = final_rise_first_crossing(hi, lo, ts, gap=10)
    if final is not None:
        assert final == pytest.approx(onset)
