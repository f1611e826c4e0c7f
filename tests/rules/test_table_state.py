"""What the live table reads besides the replay JSON: the last spin, eliminations, standings, raises."""

from __future__ import annotations

from controller.rules.events import (
    OpenTable,
    RaiseAnte,
    ReplaceLetter,
    Spin,
    VoidSpin,
    event_to_json,
    parse_event,
)
from controller.rules.letters import Letter
from controller.rules.table import EliminationCause, PlayerStatus, SpinRecord, apply, replay


def test_last_spin_records_what_the_spin_moved() -> None:
    # 1 1 1, pot 3; Ann Nun; Ben and Cy post their last gelt on Shins (pot 5); then Ann's Gimel.
    opening = [
        OpenTable(("Ann", "Ben", "Cy"), stack=2),
        Spin(Letter.NUN),
        Spin(Letter.SHIN),
        Spin(Letter.SHIN),
    ]
    state = replay([*opening, Spin(Letter.GIMEL, spun_by="launcher", spin_id="s1")])
    assert state.last_spin == SpinRecord(
        number=4,
        player="Ann",
        letter=Letter.GIMEL,
        ante=1,
        spun_by="launcher",
        spin_id="s1",
        pot_before=5,
        pot_after=1,  # Ann took 5; the all-ante: Ann posts 1, Ben and Cy (0) are out
        stack_change=5,
        all_ante=True,
        knocked_out=("Ben", "Cy"),
    )
    assert state.winner == "Ann"
    assert [(e.player, e.place, e.stack_before, e.cause, e.after_spins) for e in state.eliminations] == [
        ("Ben", 2, 0, EliminationCause.ALL_ANTE, 4),
        ("Cy", 2, 0, EliminationCause.ALL_ANTE, 4),
    ]


def test_pe_is_recorded_as_pe_but_plays_as_shin() -> None:
    state = replay([OpenTable(("Ann", "Ben")), Spin(Letter.PE)])
    assert state.last_spin is not None
    assert state.last_spin.letter is Letter.PE and state.last_spin.stack_change == -1
    assert state.player("Ann").stack == 16 and state.pot == 3


def test_standings_list_the_latest_out_first() -> None:
    events = [OpenTable(("A", "B", "C", "D"), stack=2)]  # 1 each, pot 4
    events += [Spin(Letter.SHIN)] * 4  # everybody at 0, pot 8
    events += [Spin(Letter.SHIN)]  # A out (4th)
    events += [Spin(Letter.NUN), Spin(Letter.SHIN)]  # B; C out (3rd)
    state = replay(events)
    assert [(p.name, p.place) for p in state.standings()] == [("B", None), ("D", None), ("C", 3), ("A", 4)]
    assert [p.status for p in state.players] == [
        PlayerStatus.OUT,
        PlayerStatus.IN,
        PlayerStatus.OUT,
        PlayerStatus.IN,
    ]


def test_announced_raises_are_visible_before_they_take_effect() -> None:
    state = replay([OpenTable(("Ann", "Ben")), RaiseAnte(by=2), RaiseAnte(to=5)])
    assert (state.ante, state.pending_raise, state.ante_after_turn) == (1, 4, 5)
    state = apply(state, Spin(Letter.NUN))
    assert (state.ante, state.pending_raise) == (5, 0)


def test_corrections_are_counted_and_a_replaced_letter_can_be_voided() -> None:
    state = replay([OpenTable(("Ann", "Ben")), Spin(Letter.GIMEL), ReplaceLetter(Letter.HEY, "misread")])
    assert state.last_spin is not None and state.last_spin.letter is Letter.HEY
    assert state.corrections == 1 and state.spins == 1
    # Hey takes ceil(2 / 2) = 1: Ann 18, pot 1 <= 1 -> all-ante: Ann 17, Ben 16, pot 3.
    assert (state.player("Ann").stack, state.player("Ben").stack, state.pot) == (17, 16, 3)
    state = apply(state, VoidSpin("it left the tray"))
    assert state.corrections == 2 and state.spins == 0 and state.last_spin is None
    assert state.current == "Ann" and state.player("Ann").stack == 17


def test_a_plain_spin_is_exactly_event_and_letter_in_json() -> None:
    assert event_to_json(Spin(Letter.GIMEL)) == {"event": "spin", "letter": "gimel"}
    assert event_to_json(RaiseAnte(by=1)) == {"event": "raise_ante", "by": 1}
    assert parse_event({"event": "spin", "letter": "Gimel"}) == Spin(Letter.GIMEL)
