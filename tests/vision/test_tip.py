"""Tip direction and the seat it points at."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vision.pose import RestPose
from vision.tip import SeatMappingError, angular_distance, seat_for_bearing, seat_margin_deg, tip_bearing_deg

SEATS = {"Ann": 0.0, "Ben": 90.0, "Cy": 180.0, "Dee": 270.0}


def pose_pointing(tip: tuple[float, float], handle: tuple[float, float]) -> RestPose:
    centre = ((tip[0] + handle[0]) / 2, (tip[1] + handle[1]) / 2)
    axis = math.degrees(math.atan2(handle[1] - tip[1], handle[0] - tip[0])) % 360
    return RestPose(center=centre, axis_deg=axis, length_px=math.dist(tip, handle), tip=tip, handle=handle,
                    face_quad=None, upside_down=None, confidence=1.0)


def test_tip_bearing_follows_image_axes() -> None:
    assert tip_bearing_deg(pose_pointing((200, 100), (100, 100))) == pytest.approx(0.0)  # tip to the right
    assert tip_bearing_deg(pose_pointing((100, 200), (100, 100))) == pytest.approx(90.0)  # tip down
    assert tip_bearing_deg(pose_pointing((0, 100), (100, 100))) == pytest.approx(180.0)
    assert tip_bearing_deg(pose_pointing((100, 0), (100, 100))) == pytest.approx(270.0)


def test_nearest_seat_wins_across_zero() -> None:
    assert seat_for_bearing(100.0, SEATS) == "Ben"
    assert seat_for_bearing(359.0, SEATS) == "Ann"
    assert seat_for_bearing(-30.0, SEATS) == "Ann"
    assert seat_for_bearing(316.0, SEATS) == "Ann"
    assert seat_for_bearing(314.0, SEATS) == "Dee"


def test_margin_is_small_between_two_seats() -> None:
    assert seat_margin_deg(45.0, SEATS) == pytest.approx(0.0)
    assert seat_margin_deg(90.0, SEATS) == pytest.approx(45.0)


def test_uncalibrated_or_broken_seats_are_refused() -> None:
    with pytest.raises(SeatMappingError, match="no seat directions"):
        seat_for_bearing(10.0, {})
    with pytest.raises(SeatMappingError, match="recalibrate"):
        seat_for_bearing(10.0, {"Ann": float("nan")})
    with pytest.raises(SeatMappingError, match="not a finite"):
        seat_for_bearing(float("inf"), SEATS)


@given(seats=st.lists(st.floats(0, 360, allow_nan=False), min_size=1, max_size=10, unique=True),
       pick=st.integers(0, 9), jitter=st.floats(-0.4, 0.4))
def test_a_bearing_at_a_seat_picks_that_seat(seats: list[float], pick: int, jitter: float) -> None:
    names = {f"seat{i}": b for i, b in enumerate(seats)}
    target = f"seat{pick % len(seats)}"
    bearing = names[target] + jitter
    chosen = seat_for_bearing(bearing, names)
    # the chosen seat is at least as near as the target (ties between equally near seats are fine)
    assert angular_distance(bearing, names[chosen]) <= angular_distance(bearing, names[target]) + 1e-9


@given(a=st.floats(-720, 720), b=st.floats(-720, 720))
def test_angular_distance_is_a_symmetric_angle(a: float, b: float) -> None:
    d = angular_distance(a, b)
    assert 0 <= d <= 180
    assert d == pytest.approx(angular_distance(b, a), abs=1e-9)
    assert angular_distance(a, a + 360) == pytest.approx(0.0, abs=1e-6)


def test_tip_bearing_on_a_found_dreidel() -> None:
    from dataclasses import replace

    from controller.rules.letters import Letter
    from vision.letter_synth import DreidelStyle, hebrew_fonts, render_still
    from vision.pose import bearing_deg, find_resting_dreidel

    rng = np.random.default_rng(7)
    style = replace(DreidelStyle.random(rng, hebrew_fonts()), body_bgr=(60, 60, 200), letter_bgr=(240, 240, 240),
                    handle_bgr=(60, 60, 200), tip_len=0.8, tip_power=1.0, handle_width=0.2, glossy=False)
    s = render_still(style, Letter.HEY, rng, size=(480, 360), length_px=100)
    pose = find_resting_dreidel(s.image)
    assert pose is not None
    truth = bearing_deg(s.handle, s.tip)
    assert angular_distance(tip_bearing_deg(pose), truth) < 12
    assert np.isfinite(tip_bearing_deg(pose))
