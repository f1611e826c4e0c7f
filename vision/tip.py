"""Where the tip of a resting dreidel points, and which seat that is (RULES.md: the first spinner).

Bearings are image angles in degrees in [0, 360): ``atan2(dy, dx)`` with x to the right and y down,
so 0 points to the picture's right edge and 90 to its bottom edge (clockwise on screen). Seat
bearings are calibrated in the same frame: the bearing from the tray's centre to each seat, e.g.
measured with :func:`vision.pose.bearing_deg` on points clicked in the camera picture.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from vision.pose import RestPose, bearing_deg


class SeatMappingError(ValueError):
    """The seat calibration cannot answer (no seats, or a bearing that is not a number)."""


def tip_bearing_deg(pose: RestPose) -> float:
    """The image bearing of the direction the tip points: from the handle end through the tip.

    Using the whole body (handle -> tip) rather than centre -> tip keeps the direction steady when
    the tip's few pixels are noisy.
    """
    return bearing_deg(pose.handle, pose.tip)


def angular_distance(a: float, b: float) -> float:
    """The smaller angle between two bearings, in degrees (0-180)."""
    d = (a - b) % 360.0
    return min(d, 360.0 - d)


def seat_for_bearing(bearing: float, seat_bearings: Mapping[str, float]) -> str:
    """The seat whose calibrated bearing is nearest to ``bearing`` (ties go to the first seat listed)."""
    if not seat_bearings:
        raise SeatMappingError("no seat directions are calibrated: calibrate the seats, or let a judge pick")
    if not math.isfinite(bearing):
        raise SeatMappingError(f"tip bearing {bearing!r} is not a finite angle")
    best_name, best_d = "", math.inf
    for name, seat in seat_bearings.items():
        if not math.isfinite(seat):
            raise SeatMappingError(f"seat {name!r} has bearing {seat!r}: recalibrate it")
        d = angular_distance(bearing, seat)
        if d < best_d:
            best_name, best_d = name, d
    return best_name


def seat_margin_deg(bearing: float, seat_bearings: Mapping[str, float]) -> float:
    """How far (degrees) the bearing is from being as near to another seat as to the chosen one.

    Near 0 the tip points between two seats, and a judge should confirm the first spinner.
    """
    if len(seat_bearings) < 2:
        return 180.0
    ds = sorted(angular_distance(bearing, s) for s in seat_bearings.values())
    return (ds[1] - ds[0]) / 2.0
