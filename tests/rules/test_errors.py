"""Each refused event raises its specific error, with a message a judge can act on, and changes nothing."""

from __future__ import annotations

import re

import pytest

from controller.rules import errors
from controller.rules.events import (
    AdjustStack,
    Away,
    Back,
    Event,
    InvalidSpin,
    OpenTable,
    RaiseAnte,
    ReplaceLetter,
    SetFirst,
    Spin,
    SpinOff,
    VoidSpin,
    WildCard,
    parse_event,
)
from controller.rules.letters import Letter
from controller.rules.table import TableConfig, TableState, apply, replay

G, N, S = Letter.GIMEL, Letter.NUN, Letter.SHIN


def table(*events: Event, players: tuple[str, ...] = ("Ann", "Ben", "Cy"), stack: int = 18) -> TableState:
    return replay([OpenTable(players, stack=stack), *events])


# A table where Ben is out (Shin at 0) and it is Cy's turn.
BEN_OUT = (Spin(N), Spin(S), Spin(N), Spin(N), Spin(S))
# A table whose all-ante needs a spin-off between A, B and C.
SPIN_OFF = (RaiseAnte(to=5), Spin(N), Spin(N))


@pytest.mark.parametrize(
    ("state", "event", "error", "message"),
    [
        (
            None,
            Spin(N),
            errors.NotOpen,
            'the table is not open yet: the script must start with an "open" event',
        ),
        (table(), OpenTable(("X", "Y")), errors.AlreadyOpen, "the table is already open"),
        (None, OpenTable(("Ann",)), errors.BadPlayers, "a table seats 2 to 10 players, not 1"),
        (None, OpenTable(tuple("ABCDEFGHIJK")), errors.BadPlayers, "a table seats 2 to 10 players, not 11"),
        (
            None,
            OpenTable(("Ann", "Ben", "Ann")),
            errors.BadPlayers,
            "each player sits once; listed twice: Ann",
        ),
        (None, OpenTable(("Ann", " ")), errors.BadPlayers, "a player's name must not be empty"),
        (
            None,
            OpenTable(("Ann", "Ben"), stack=1, ante=2),
            errors.ConfigError,
            "a starting stack of 1 cannot post the opening ante of 2",
        ),
        (
            None,
            OpenTable(("Ann", "Ben"), first="Zed"),
            errors.UnknownPlayer,
            "the first spinner 'Zed' is not among the players (Ann, Ben)",
        ),
        (table(stack=2), Spin(N, player="Ben"), errors.WrongSpinner, "it is Ann's turn, not Ben's"),
        (table(*BEN_OUT, stack=2), Spin(N, player="Ben"), errors.PlayerOut, "Ben is out; Ben cannot spin"),
        (table(*BEN_OUT, stack=2), Away("Ben"), errors.PlayerOut, "Ben is out; Ben cannot be marked away"),
        (
            table(),
            Away("Zed"),
            errors.UnknownPlayer,
            "'Zed' is not seated at this table (players: Ann, Ben, Cy)",
        ),
        (table(Away("Ben")), Away("Ben"), errors.BadStatus, "Ben is already away"),
        (table(), Back("Ben"), errors.BadStatus, "Ben is not away"),
        (
            table(Away("Ann"), Away("Ben"), Away("Cy")),
            Spin(N),
            errors.NoSpinner,
            "nobody may spin: every player still in is away; mark a player back first",
        ),
        (
            table(Away("Ann"), Away("Ben"), Away("Cy")),
            InvalidSpin("short"),
            errors.NoSpinner,
            "nobody may spin",
        ),
        (
            table(Spin(S), Spin(G), players=("Ann", "Ben"), stack=2),
            Spin(N),
            errors.TableFinished,
            "the table is finished: Ben has won it",
        ),
        (
            table(*SPIN_OFF, players=("A", "B", "C"), stack=3),
            Spin(G),
            errors.SpinOffPending,
            "a spin-off between A, B, C must decide the table first: send a spin_off round",
        ),
        (
            table(*SPIN_OFF, players=("A", "B", "C"), stack=3),
            SpinOff({"A": G, "B": N}),
            errors.NoSpinOffPending,
            "the spin-off is between A, B, C; the round has letters for A, B",
        ),
        (table(), SpinOff({"Ann": G, "Ben": N}), errors.NoSpinOffPending, "no tie is waiting for a spin-off"),
        (table(), RaiseAnte(by=0), errors.BadRaise, "an ante raise must be by at least 1, not 0"),
        (
            table(RaiseAnte(by=2)),
            RaiseAnte(to=3),
            errors.BadRaise,
            "the ante is already 3 (after this turn); a raise to 3 is not a raise",
        ),
        (table(), VoidSpin("x"), errors.NothingToVoid, "there is no spin to void"),
        (
            table(Spin(N), VoidSpin("x")),
            VoidSpin("again"),
            errors.NothingToVoid,
            "correct older spins with adjust_stack",
        ),
        (table(), ReplaceLetter(G, "x"), errors.NothingToVoid, "there is no spin to re-settle"),
        (table(), AdjustStack("Ben", 0, "x"), errors.BadAdjustment, "an adjustment of 0 changes nothing"),
        (
            table(),
            AdjustStack("Ben", -18, "x"),
            errors.BadAdjustment,
            "Ben has only 17; cannot move 18 to the pot",
        ),
        (
            table(),
            AdjustStack("Ben", 4, "x"),
            errors.BadAdjustment,
            "the pot holds only 3; cannot give 4 to Ben",
        ),
        (
            table(*BEN_OUT, stack=2),
            AdjustStack("Ben", 1, "x"),
            errors.BadAdjustment,
            "Ben is out; a stack adjustment cannot bring a player back",
        ),
        (
            table(Spin(N)),
            SetFirst("Cy"),
            errors.TooLate,
            "the first spinner can only be chosen before the first spin",
        ),
        (table(Away("Cy")), SetFirst("Cy"), errors.BadStatus, "Cy is away; mark Cy back"),
        (table(), WildCard("Ben"), errors.BadPlayers, "Ben is already seated at this table"),
    ],
)
def test_refused_events(
    state: TableState | None, event: Event, error: type[errors.RuleError], message: str
) -> None:
    before = state
    with pytest.raises(error, match=re.escape(message)):
        apply(state, event)
    assert (
        state == before
    )  # nothing changed (states are immutable, and the refusal happens before any change)


def test_every_rule_error_is_a_value_error() -> None:
    assert issubclass(errors.RuleError, ValueError)
    for name in dir(errors):
        cls = getattr(errors, name)
        if isinstance(cls, type) and issubclass(cls, Exception) and cls is not errors.RuleError:
            assert issubclass(cls, errors.RuleError), name


def test_a_void_that_later_events_no_longer_fit_is_refused() -> None:
    # Adjustments made after a spin are played again when it is voided; one that no longer fits the
    # restored stacks (Ann has 2, not 3, before her Gimel) makes the void impossible, with a reason.
    state = table(players=("Ann", "Ben"), stack=3)  # 2 2, pot 2
    state = apply(state, Spin(G))  # Ann 4, pot 0 -> all-ante: 3 1, pot 2
    state = apply(state, AdjustStack("Ann", -3, "Ann's gelt fell in the pot"))  # Ann 0, pot 5
    state = apply(state, AdjustStack("Ben", 5, "the pot was Ben's"))  # Ben 6, pot 0
    with pytest.raises(errors.NothingToVoid, match="the later adjust_stack event no longer fits"):
        apply(state, VoidSpin("misread"))


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"letter": "nun"}, 'an event needs an "event" field'),
        ({"event": "dance"}, "unknown event 'dance': expected one of"),
        ({"event": "spin"}, 'spin: missing field "letter"'),
        ({"event": "spin", "letter": "nun", "by": 2}, "spin: unexpected field(s) by"),
        ({"event": "spin", "letter": 3}, 'spin "letter": a letter must be a string, not int'),
        (
            {"event": "spin", "letter": "alef"},
            "unknown letter 'alef': expected one of nun, gimel, hey, shin, pe",
        ),
        ({"event": "open", "players": "Ann"}, 'open "players" must be a list, not str'),
        ({"event": "open", "players": ["Ann", 2]}, 'open "players"[1] must be a string, not int'),
        (
            {"event": "open", "players": ["A", "B"], "stack": 2.5},
            'open "stack" must be a whole number, not float',
        ),
        (
            {"event": "open", "players": ["A", "B"], "stack": True},
            'open "stack" must be a whole number, not bool',
        ),
        ({"event": "away", "player": None}, 'away "player" must be a string, not null'),
        ({"event": "raise_ante"}, 'raise_ante needs exactly one of "to"'),
        ({"event": "raise_ante", "to": 2, "by": 1}, 'raise_ante needs exactly one of "to"'),
        ({"event": "spin_off", "letters": ["nun"]}, 'spin_off "letters" must be an object, not list'),
        ({"event": "spin_off", "letters": {"A": "x"}}, "spin_off \"letters\"['A']: unknown letter 'x'"),
    ],
)
def test_script_errors_name_the_problem(obj: dict[str, object], message: str) -> None:
    with pytest.raises(errors.ScriptError, match=re.escape(message)):
        parse_event(obj)


def test_config_rejects_unknown_options_and_bad_numbers() -> None:
    with pytest.raises(errors.ConfigError, match="unknown table config option"):
        TableConfig.from_mapping({"starting_stak": 18})
    with pytest.raises(errors.ConfigError, match="ante must be a whole number of at least 1"):
        TableConfig(ante=0)
    with pytest.raises(errors.ConfigError, match=re.escape("max_players (3) is below min_players (4)")):
        TableConfig(min_players=4, max_players=3)
    assert TableConfig.from_mapping({"starting_stack": 10, "max_players": 4}) == TableConfig(10, 1, 2, 4)
