"""The live table's vocabulary: what it waits for, what waits for a judge, faults, calibration.

Shared by :mod:`controller.table_session` and its parts (:mod:`controller.table_commands`,
:mod:`controller.sim_people`), and by the web app.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from controller.table_ports import JudgePort, VerdictView, reason_text

#: judge phases during which no new spin may start
BUSY_PHASES = ("spinning", "wobbling", "falling", "release", "released")


class CommandError(ValueError):
    """A judge's command that cannot be done now; the message says why. Nothing was changed."""


class Stage(StrEnum):
    """What the table is waiting for."""

    CHOOSING_FIRST = "choosing_first"
    PLAYING = "playing"
    SPIN_OFF = "spin_off"
    FINISHED = "finished"


@dataclass(frozen=True)
class JudgeSetup:
    """What a new spin judge is built with."""

    imu: bool
    enroll_dir: Path | None
    tray: tuple[float, float, float] | None
    #: (width, height) of the camera's pictures, when known
    frame_size: tuple[int, int] | None = None


#: builds a spin judge for a setup
JudgeBuilder = Callable[[JudgeSetup], JudgePort]


@dataclass(frozen=True)
class Fault:
    """A device problem (or its recovery) for the judge page."""

    t: float
    device: str
    message: str
    recovered: bool

    def to_json(self) -> dict[str, object]:
        """For ``/api/state``'s ``faults``."""
        return {"t": self.t, "device": self.device, "message": self.message, "recovered": self.recovered}


@dataclass(frozen=True)
class Awaiting:
    """A verdict waiting for a judge."""

    spin_id: str
    player: str | None
    spun_by: str | None
    purpose: str  # "spin", "first" (an opening spin) or "spin_off"
    verdict: dict[str, Any]
    since: float  # monotonic

    def to_json(self) -> dict[str, object]:
        """For ``/api/state``'s ``awaiting_judge``."""
        return {"spin_id": self.spin_id, "player": self.player, "spun_by": self.spun_by,
                "purpose": self.purpose, **self.verdict}


@dataclass(frozen=True)
class Calibration:
    """Where the tray is in the picture and which way each seat lies from its centre."""

    tray: tuple[float, float, float] | None  # cx, cy, r in pixels
    seats: Mapping[str, float]  # player -> bearing in degrees (0 = top of the picture, clockwise)

    def to_json(self) -> dict[str, object]:
        """As stored in ``calibration.json``."""
        return {"tray": list(self.tray) if self.tray else None, "seats": dict(self.seats)}


def even_seat_bearings(players: tuple[str, ...]) -> dict[str, float]:
    """Seats spaced evenly clockwise from the top of the picture (the simulated table's layout)."""
    return {p: round(360.0 * i / len(players), 1) for i, p in enumerate(players)}


def verdict_json(v: VerdictView) -> dict[str, Any]:
    return {
        "letter": v.letter.value if v.letter else None,
        "hebrew": v.letter.hebrew if v.letter else None,
        "valid": v.valid,
        "reasons": list(v.reasons),
        "reason_text": reason_text(v.reasons) if v.reasons else "",
        "stable_s": None if v.stable_s is None else round(v.stable_s, 2),
        "confidence": round(v.confidence, 3),
        "needs_judge": v.needs_judge,
        "release_t": None if v.release_t is None else round(v.release_t, 3),
        "notes": list(v.notes),
        "close_call": v.close_call,
    }
