"""Property tests: random event sequences, including ones the rules refuse, never break the invariants."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.rules.errors import RuleError
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
    event_to_json,
    parse_event,
)
from controller.rules.letters import Letter
from controller.rules.table import PlayerStatus, TableState, apply, replay, state_to_json

NAMES = ("Ann", "Ben", "Cy", "Dee", "Eli", "Fay")
WILD = ("Gus", "Hal")
LETTERS = st.sampled_from(list(Letter))
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_valid_places(state: TableState) -> None:
    """Places are a competition ranking: the players out occupy the ranks below those still in."""
    in_play = len(state.in_play)
    placed = sorted(p.place for p in state.players if p.place is not None and p.status is PlayerStatus.OUT)
    for j, place in enumerate(placed):
        assert place == in_play + j + 1 or (j > 0 and place == placed[j - 1]), (placed, in_play)
    if state.winner is not None:
        assert in_play == 1
        assert state.player(state.winner).place == 1
        # A finished table ranks everybody: 1, then the out players from 2 on.
        assert [1, *placed] == sorted(p.place for p in state.players if p.place is not None)


def assert_invariants(state: TableState, gelt_in: int) -> None:
    assert state.total_gelt == state.gelt_in == gelt_in, "gelt was created or destroyed"
    assert state.pot >= 0
    assert state.ante >= 1 and state.pending_raise >= 0
    for p in state.players:
        assert p.stack >= 0, f"{p.name} has a negative stack"
        if p.status is PlayerStatus.OUT:
            assert p.stack == 0 and p.place is not None
        elif p.name != state.winner:
            assert p.place is None
    if state.current is not None:
        assert state.player(state.current).status is PlayerStatus.IN
        assert state.winner is None and state.spin_off is None
    elif state.winner is None and state.spin_off is None:
        assert all(p.status is not PlayerStatus.IN for p in state.players), (
            "a present player but nobody spins"
        )
    if state.spin_off is not None:
        assert len(state.spin_off) >= 2 and all(state.player(n).in_play for n in state.spin_off)
    assert_valid_places(state)


@st.composite
def next_event(draw: st.DrawFn, state: TableState, wild_left: list[str]) -> Event:
    names = list(state.names()) + ["Zed"]
    kind = draw(
        st.sampled_from(
            ["spin"] * 8
            + [
                "invalid",
                "raise",
                "away",
                "back",
                "back",
                "spin_off",
                "spin_off",
                "void",
                "replace",
                "adjust",
            ]
            + ["wild", "first"]
        )
    )
    if kind == "spin":
        return Spin(draw(LETTERS), player=draw(st.sampled_from([None, None, None, *names])))
    if kind == "invalid":
        return InvalidSpin("short", player=draw(st.sampled_from([None, *names])))
    if kind == "raise":
        if draw(st.booleans()):
            return RaiseAnte(by=draw(st.integers(-1, 3)))
        return RaiseAnte(to=draw(st.integers(0, 8)))
    if kind == "away":
        present = [p.name for p in state.players if p.status is PlayerStatus.IN]
        return Away(draw(st.sampled_from(present or names)))
    if kind == "back":
        away = [p.name for p in state.players if p.status is PlayerStatus.AWAY]
        return Back(draw(st.sampled_from(away + names[:1] if away else names)))
    if kind == "spin_off":
        players = state.spin_off if state.spin_off is not None and draw(st.integers(0, 9)) else names[:2]
        return SpinOff({n: draw(LETTERS) for n in players})
    if kind == "void":
        return VoidSpin("judge")
    if kind == "replace":
        return ReplaceLetter(draw(LETTERS), "judge")
    if kind == "adjust":
        return AdjustStack(draw(st.sampled_from(names)), draw(st.integers(-4, 4)), "judge")
    if kind == "wild":
        return WildCard(wild_left[0] if wild_left else "Ann")
    return SetFirst(draw(st.sampled_from(names)))


@SETTINGS
@given(
    data=st.data(),
    players=st.integers(2, 6),
    stack=st.integers(1, 6),
    ante=st.integers(1, 2),
    steps=st.integers(1, 70),
)
def test_random_event_sequences_keep_the_invariants(
    data: st.DataObject, players: int, stack: int, ante: int, steps: int
) -> None:
    stack = max(stack, ante)
    opening = OpenTable(
        NAMES[:players], stack=stack, ante=ante, first=data.draw(st.sampled_from(NAMES[:players]))
    )
    state = apply(None, opening)
    gelt_in = players * stack
    accepted: list[Event] = [opening]
    wild_left = list(WILD)
    assert_invariants(state, gelt_in)
    for _ in range(steps):
        event = data.draw(next_event(state, wild_left))
        try:
            new = apply(state, event)
        except RuleError:
            continue  # refused: the (immutable) state is unchanged
        if isinstance(event, WildCard):
            gelt_in += new.player(event.player).stack
            wild_left.remove(event.player)
        state = new
        accepted.append(event)
        assert_invariants(state, gelt_in)
    # The state is a fold over the log: replaying the accepted events, also through JSON, gives the same state.
    assert replay(accepted) == state
    assert replay(parse_event(json.loads(json.dumps(event_to_json(e)))) for e in accepted) == state


@SETTINGS
@given(
    letters=st.lists(LETTERS, min_size=1, max_size=400),
    players=st.integers(2, 6),
    stack=st.integers(1, 8),
    raise_every=st.integers(3, 12),
)
def test_a_game_of_spins_and_clock_raises_ranks_every_player(
    letters: list[Letter], players: int, stack: int, raise_every: int
) -> None:
    """Spins with an ante clock always end in one winner and a full competition ranking 1..n (with spin-offs)."""
    state = apply(None, OpenTable(NAMES[:players], stack=stack))
    i = 0
    while state.winner is None:
        letter = letters[i % len(letters)]
        i += 1
        if state.spin_off is not None:
            # Rotate the letters between the tied players so that some round is always decisive.
            state = apply(
                state,
                SpinOff(
                    {
                        n: letters[(i + k) % len(letters)] if k else Letter.GIMEL
                        for k, n in enumerate(state.spin_off)
                    }
                ),
            )
            continue
        if i % raise_every == 0:
            state = apply(state, RaiseAnte(by=1))
        state = apply(state, Spin(letter))
        assert_invariants(state, players * stack)
    places = sorted(p.place for p in state.players if p.place is not None)
    assert len(places) == players and places[0] == 1
    for j in range(1, players):
        assert places[j] == places[j - 1] or places[j] == j + 1
    assert state_to_json(state)["next"] is None


def _event_strategy() -> st.SearchStrategy[Event]:
    name = st.text(min_size=1, max_size=6)
    opt_name = st.none() | name
    small = st.integers(-5, 30)
    return st.one_of(
        st.builds(
            OpenTable,
            st.lists(name, min_size=1, max_size=5).map(tuple),
            st.none() | small,
            st.none() | small,
            opt_name,
            st.none() | st.dictionaries(name, small, max_size=3),
        ),
        st.builds(Spin, LETTERS, opt_name, opt_name, opt_name),
        st.builds(InvalidSpin, name, opt_name, opt_name),
        st.builds(RaiseAnte, to=small) | st.builds(RaiseAnte, by=small),
        st.builds(Away, name),
        st.builds(Back, name),
        st.builds(SpinOff, st.dictionaries(name, LETTERS, max_size=4)),
        st.builds(VoidSpin, name),
        st.builds(ReplaceLetter, LETTERS, name),
        st.builds(AdjustStack, name, small, name),
        st.builds(SetFirst, name),
        st.builds(
            WildCard, name, st.none() | st.lists(name, max_size=3).map(tuple), st.none() | small, opt_name
        ),
    )


@settings(max_examples=300, deadline=None)
@given(event=_event_strategy())
def test_every_event_round_trips_through_json(event: Event) -> None:
    as_json = event_to_json(event)
    assert as_json["event"] == event.KIND
    assert None not in as_json.values()
    again = parse_event(json.loads(json.dumps(as_json)))
    assert again == event
    assert hash(again) == hash(event)


@SETTINGS
@given(
    players=st.integers(2, 5),
    actions=st.lists(
        st.tuples(st.sampled_from(["spin", "away", "back", "raise"]), st.integers(0, 4)),
        min_size=1,
        max_size=60,
    ),
)
def test_turns_and_raises_follow_a_simple_model(players: int, actions: list[tuple[str, int]]) -> None:
    """With Nun spins only (no money moves), who spins and which ante applies match a direct model of RULES.md:
    clockwise to the next present player, away players skipped, raises effective when the turn ends."""
    names = NAMES[:players]
    state = apply(None, OpenTable(names, stack=50))
    away = [False] * players
    current: int | None = 0
    ante, pending = 1, 0
    for action, who in actions:
        who %= players
        if action == "spin":
            if current is None:
                continue
            assert state.current == names[current] and state.ante == ante
            state = apply(state, Spin(Letter.NUN, player=names[current]))
            ante, pending = ante + pending, 0
            current = next(
                (current + k) % players for k in range(1, players + 1) if not away[(current + k) % players]
            )
        elif action == "away":
            if away[who]:
                continue
            state = apply(state, Away(names[who]))
            away[who] = True
            if current == who:
                nxt = [(who + k) % players for k in range(1, players) if not away[(who + k) % players]]
                if nxt:
                    current, ante, pending = nxt[0], ante + pending, 0
                else:
                    current, stopped = None, who
        elif action == "back":
            if not away[who]:
                continue
            state = apply(state, Back(names[who]))
            away[who] = False
            if current is None:
                if who != stopped:
                    ante, pending = ante + pending, 0
                current = who
        else:
            state = apply(state, RaiseAnte(by=who + 1))
            pending += who + 1
        assert state.current == (None if current is None else names[current])
        assert state.ante == ante and state.pending_raise == pending
