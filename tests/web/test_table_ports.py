"""Reading the judge's verdicts: what the table takes from them."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from controller.rules.letters import Letter
from controller.table_ports import VerdictView, phase_of, reason_text


@dataclass
class Evidence:
    still: np.ndarray | None
    timeline: np.ndarray
    clip: list = field(default_factory=list)  # type: ignore[type-arg]


@dataclass
class SpinVerdict:
    valid: bool
    letter: Letter | None
    reasons: tuple[str, ...]
    stable_s: float | None = 4.2
    confidence: float = 0.9
    needs_judge: bool = False
    spin_id: int = 3
    release_t: float | None = 10.0
    rest_t: float | None = 16.0
    evidence: Evidence | None = None
    tip_bearing_deg: float | None = None


def test_reason_text() -> None:
    assert reason_text(["short"]) == "too short"
    assert reason_text(["short", "unreadable"]) == "too short"  # a re-spin needs no letter
    assert reason_text(["unreadable"]) == "letter unreadable"
    assert reason_text(["left_tray", "interference"]) == "left the tray, touched during the spin"
    assert reason_text(["new_code"]) == "new code" and reason_text([]) == "no reason given"


def test_a_valid_spin_without_a_letter_goes_to_a_judge() -> None:
    v = VerdictView.from_any(SpinVerdict(True, None, ()))
    assert v.needs_judge and v.valid and v.letter is None


def test_verdict_fields_evidence_and_tip_direction() -> None:
    ev = Evidence(np.zeros((4, 4, 3), np.uint8), np.zeros((4, 4, 3), np.uint8))
    v = VerdictView.from_any(SpinVerdict(True, Letter.HEY, (), evidence=ev, tip_bearing_deg=270.0))
    assert v.letter is Letter.HEY and not v.needs_judge and v.stable_s == 4.2 and v.release_t == 10.0
    assert v.raw_evidence is ev and v.evidence == ()
    assert v.seat_bearing_deg == 0.0  # pointing up the picture
    assert VerdictView.from_any(SpinVerdict(True, Letter.HEY, (), tip_bearing_deg=0.0)).seat_bearing_deg == 90.0
    assert VerdictView.from_any(SpinVerdict(False, "gimel", ("short",))).letter is Letter.GIMEL  # type: ignore[arg-type]


def test_phase_of() -> None:
    @dataclass
    class PhaseChange:
        phase: object

    class Phase:
        value = "Wobbling"

    assert phase_of(PhaseChange(Phase())) == "wobbling" and phase_of(PhaseChange("at_rest")) == "at_rest"
    assert phase_of(object()) is None


def test_every_event_reads_as_words() -> None:
    from controller.event_words import describe_event

    cases = {
        "Ann spun gimel (spun by launcher)": {"event": "spin", "letter": "gimel", "player": "Ann", "spun_by": "launcher"},
        "Ben re-spins: too short": {"event": "invalid_spin", "reason": "short,unreadable", "player": "Ben"},
        "ante raised by 1": {"event": "raise_ante", "by": 1},
        "ante raised to 5": {"event": "raise_ante", "to": 5},
        "Cy is away": {"event": "away", "player": "Cy"},
        "spin-off round: Ann gimel, Ben nun": {"event": "spin_off", "letters": {"Ann": "gimel", "Ben": "nun"}},
        "last spin voided: hit a cup": {"event": "void_spin", "reason": "hit a cup"},
        "Ann stack -2: miscounted": {"event": "adjust_stack", "player": "Ann", "delta": -2, "reason": "miscounted"},
        "machine: Ann — hey, stable 4.1 s, valid": {"event": "note:verdict", "player": "Ann", "needs_judge": False,
                                                   "verdict": {"letter": "hey", "stable_s": 4.1, "valid": True}},
        "FAULT camera: cable pulled": {"event": "note:fault", "device": "camera", "message": "cable pulled"},
        "recognizer taught: nun (nun_2.png)": {"event": "note:enroll", "letter": "nun", "file": "nun_2.png"},
        "taught still removed: nun (nun_2.png)": {"event": "note:unenroll", "letter": "nun", "file": "nun_2.png"},
    }
    for text, payload in cases.items():
        assert describe_event(payload) == text
    assert describe_event({"event": "wild_card", "player": "Zed"}) == "wild_card"
