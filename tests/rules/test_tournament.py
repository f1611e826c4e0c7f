"""The tournament fold: tables, the final table, the wild-card raffle, the champion and the prizes."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.errors import PlayerOut, TournamentError
from controller.rules.events import Event, OpenTable, RaiseAnte, Spin, SpinOff, WildCard
from controller.rules.letters import Letter
from controller.rules.table import TableConfig
from controller.rules.tournament import (
    FINAL,
    OpenFinal,
    SeatTables,
    TablePlay,
    TournamentConfig,
    TournamentEvent,
    TournamentState,
    WildCardDraw,
    apply_tournament,
    draw_wild_card,
    parse_tournament_event,
    replay_tournament,
    seat_players,
    tournament_event_to_json,
)

G, N, S = Letter.GIMEL, Letter.NUN, Letter.SHIN
CONFIG = TournamentConfig(table=TableConfig(starting_stack=2), table_size=3)


class FixedRandom:
    """A random source that always picks the same index (to show the draw uses the injected source)."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.calls: list[int] = []

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        self.calls.append(start)
        return self.index


def plays(table: str, *events: Event) -> list[TournamentEvent]:
    return [TablePlay(table, e) for e in events]


def finished_tables() -> list[TournamentEvent]:
    """T1 (A, B, C) won by C, T2 (D, E) won by E; A, B and D are out."""
    return [
        SeatTables({"T1": ("A", "B", "C"), "T2": ("D", "E")}),
        # T1: 1 1 1, pot 3; three Shins leave everybody at 0; A then B go out; C wins with 0.
        *plays("T1", OpenTable(("A", "B", "C")), Spin(S), Spin(S), Spin(S), Spin(S), Spin(S)),
        # T2: 1 1, pot 2; D posts his last; E's Gimel empties the pot; the all-ante knocks D out.
        *plays("T2", OpenTable(("E", "D"), first="D"), Spin(S), Spin(G)),
    ]


def test_seat_players_splits_evenly_and_shuffles_with_the_injected_source() -> None:
    names = [f"P{i}" for i in range(23)]
    seating = seat_players(names, TournamentConfig())
    assert [len(t) for t in seating.tables.values()] == [8, 8, 7]
    assert list(seating.tables) == ["T1", "T2", "T3"]
    assert sum(seating.tables.values(), ()) == tuple(names)
    shuffled = seat_players(names, TournamentConfig(), random.Random(7))
    assert sorted(sum(shuffled.tables.values(), ())) == sorted(names)
    assert sum(shuffled.tables.values(), ()) != tuple(names)
    assert shuffled == seat_players(
        names, TournamentConfig(), random.Random(7)
    )  # deterministic given the source
    assert [len(t) for t in seat_players(names[:10], TournamentConfig()).tables.values()] == [10]


def test_tables_then_the_final_with_two_wild_cards_a_champion_and_prizes() -> None:
    state = replay_tournament(finished_tables(), CONFIG)
    assert state.tables_finished and state.table_winners() == ("C", "E")
    assert state.wild_card_entrants() == ("A", "B", "D")

    # First draw, before the final opens; the injected source picks index 1.
    rng = FixedRandom(1)
    first = draw_wild_card(state.wild_card_entrants(), rng)
    assert first == WildCardDraw(("A", "B", "D"), "B") and rng.calls == [3]
    state = apply_tournament(state, first, CONFIG)
    with pytest.raises(TournamentError, match="the next draw comes with the next ante raise"):
        apply_tournament(state, draw_wild_card(state.wild_card_entrants(), FixedRandom(0)), CONFIG)

    state = apply_tournament(state, OpenFinal(first="C"), CONFIG)
    final = state.final
    assert final is not None
    # Fresh stacks of 2, ante 1: C and E post 1; B joins after C (the current spinner) with 2 x 1.
    assert [(p.name, p.stack, p.wild_card) for p in final.players] == [
        ("C", 1, False),
        ("B", 2, True),
        ("E", 1, False),
    ]
    assert final.pot == 2 and final.current == "C" and final.gelt_in == 6

    # A raise at the final allows the second draw; B cannot win twice.
    state = apply_tournament(state, TablePlay(FINAL, RaiseAnte(by=1)), CONFIG)
    assert state.wild_card_entrants() == ("A", "D")
    second = draw_wild_card(state.wild_card_entrants(), FixedRandom(1))
    state = apply_tournament(state, second, CONFIG)
    assert state.final is not None
    # D joins after C with 2 x the ante in force (1: the raise takes effect when C's turn ends).
    assert [(p.name, p.stack) for p in state.final.players] == [("C", 1), ("D", 2), ("B", 2), ("E", 1)]
    state = apply_tournament(state, TablePlay(FINAL, RaiseAnte(by=1)), CONFIG)
    with pytest.raises(TournamentError, match="the raffle is over: all 2 draws have been held"):
        apply_tournament(state, WildCardDraw(("A",), "A"), CONFIG)

    # Play the final out with Shins: C posts 1 (the old ante) and keeps 0; then at ante 3, D, B and E
    # cannot pay and go out one by one; C wins with 0.
    for _ in range(4):
        state = apply_tournament(state, TablePlay(FINAL, Spin(S)), CONFIG)
    final = state.final
    assert final is not None and final.winner == "C" and state.champion == "C"
    assert [(p.name, p.place) for p in final.standings()] == [("C", 1), ("E", 2), ("B", 3), ("D", 4)]
    assert final.total_gelt == final.gelt_in == 2 * 2 + 2 + 2
    assert dict(state.prizes(CONFIG)) == {"C": 600, "E": 100}


def test_the_draw_must_list_exactly_the_eligible_players() -> None:
    state = replay_tournament(finished_tables(), CONFIG)
    with pytest.raises(TournamentError, match=r"entrants \(A, B\) are not the eligible players \(A, B, D\)"):
        apply_tournament(state, WildCardDraw(("A", "B"), "A"), CONFIG)
    with pytest.raises(TournamentError, match="Z was not in the draw"):
        apply_tournament(state, WildCardDraw(("A", "B", "D"), "Z"), CONFIG)


def test_no_draw_or_final_before_every_table_is_won() -> None:
    events = finished_tables()[:-1]  # T2's last spin missing
    state = replay_tournament(events, CONFIG)
    with pytest.raises(TournamentError, match="once every table has its winner"):
        apply_tournament(state, WildCardDraw(("A", "B"), "A"), CONFIG)
    with pytest.raises(TournamentError, match="still playing: T2"):
        apply_tournament(state, OpenFinal(), CONFIG)


def test_final_can_carry_stacks_and_the_ante() -> None:
    config = TournamentConfig(
        table=TableConfig(starting_stack=5), table_size=3, final_carry_stacks=True, final_carry_ante=True
    )
    events: list[TournamentEvent] = [
        SeatTables({"T1": ("A", "B"), "T2": ("C", "D")}),
        # T1: 4 4, pot 2; A's Gimel: 6, pot 0 -> all-ante: A 5, B 3, pot 2; ante raised to 4 in B's turn;
        # B's Nun; then A's Nun: pot 2 <= 4 -> all-ante 4: A 1, B out; A wins with 1.
        *plays("T1", OpenTable(("A", "B")), Spin(G), RaiseAnte(to=4), Spin(N), Spin(N)),
        # T2: 4 4, pot 2; C's Gimel -> C 5, D 3, pot 2; D's Shin: 2, pot 3; C's Gimel: 8 -> all-ante: C 7,
        # D 1, pot 2; D's Shin: 0, pot 3; C's Nun; D's Shin: D out; C wins with 7.
        *plays("T2", OpenTable(("C", "D")), Spin(G), Spin(S), Spin(G), Spin(S), Spin(N), Spin(S)),
    ]
    state = replay_tournament(events, config)
    assert state.table_winners() == ("A", "C")
    state = apply_tournament(state, OpenFinal(), config)
    final = state.final
    assert final is not None
    # The ante carried is the largest in force at any table (4, from T1); the stacks are A 1 and C 7.
    # A cannot post 4 at the opening all-ante and is out; C posts 4 and is the champion with 3.
    assert final.ante == 4 and final.pot == 5
    assert [(p.name, p.stack, p.place) for p in final.players] == [("A", 0, 2), ("C", 3, 1)]
    assert state.champion == "C"
    assert dict(state.prizes(config)) == {"A": 100, "C": 600}


def test_one_table_has_no_final_and_its_winner_is_the_champion() -> None:
    config = TournamentConfig(table=TableConfig(starting_stack=2), table_size=3)
    events: list[TournamentEvent] = [
        SeatTables({"T1": ("A", "B")}),
        *plays("T1", OpenTable(("A", "B")), Spin(S), Spin(G)),
    ]
    state = replay_tournament(events, config)
    assert state.champion == "B"
    assert dict(state.prizes(config)) == {"B": 600}
    with pytest.raises(TournamentError, match="no final table"):
        apply_tournament(state, OpenFinal(), config)
    with pytest.raises(TournamentError):
        apply_tournament(state, WildCardDraw(("A",), "A"), config)


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ([SeatTables({"T1": ("A", "B", "C", "D")})], "table T1 seats 4; a table seats 2 to 3"),
        ([SeatTables({"T1": ("A", "B"), "T2": ("B", "C")})], "B cannot sit at two tables"),
        ([SeatTables({FINAL: ("A", "B")})], "is the final table's id"),
        ([TablePlay("T1", OpenTable(("A", "B")))], "seat the players first"),
        ([SeatTables({"T1": ("A", "B")}), TablePlay("T9", Spin(N))], "there is no table 'T9'"),
        ([SeatTables({"T1": ("A", "B")}), TablePlay("T1", OpenTable(("A", "C")))], "its open lists A, C"),
        ([SeatTables({"T1": ("A", "B")}), TablePlay(FINAL, Spin(N))], "the final table is not open yet"),
        (
            [
                SeatTables({"T1": ("A", "B")}),
                TablePlay("T1", OpenTable(("A", "B"))),
                TablePlay("T1", WildCard("Z")),
            ],
            "wild cards join the final table only",
        ),
    ],
)
def test_tournament_errors(events: list[TournamentEvent], message: str) -> None:
    with pytest.raises(TournamentError, match=message):
        replay_tournament(events, CONFIG)


def test_table_rule_errors_name_the_table() -> None:
    events = finished_tables()
    state: TournamentState = replay_tournament(events[:-4], CONFIG)  # T1: A is out, B to spin
    with pytest.raises(PlayerOut, match="table T1: A is out; A cannot spin"):
        apply_tournament(state, TablePlay("T1", Spin(N, player="A")), CONFIG)


def test_tournament_events_round_trip_through_json() -> None:
    events: list[TournamentEvent] = [
        *finished_tables(),
        WildCardDraw(("A", "B", "D"), "D"),
        OpenFinal(),
        OpenFinal(first="C"),
        TablePlay(FINAL, RaiseAnte(to=3)),
    ]
    for event in events:
        again = parse_tournament_event(json.loads(json.dumps(tournament_event_to_json(event))))
        assert again == event


def test_config_from_mapping_checks_keys() -> None:
    config = TournamentConfig.from_mapping({"table": {"starting_stack": 10}, "champion_prize": 1000})
    assert config.table.starting_stack == 10 and config.champion_prize == 1000
    with pytest.raises(ValueError, match="unknown tournament config option"):
        TournamentConfig.from_mapping({"champion_prise": 1})


@settings(max_examples=40, deadline=None)
@given(
    players=st.integers(4, 9),
    seed=st.integers(0, 2**32 - 1),
    draws=st.integers(0, 3),
)
def test_random_tournaments_crown_one_champion_and_draw_fairly(players: int, seed: int, draws: int) -> None:
    """Whole tournaments with random letters, clock raises and raffle draws: the champion comes from the
    final table, nobody is drawn twice or drawn while a table winner, and the final's gelt is its fresh
    stacks plus exactly what the wild cards brought."""
    rng = random.Random(seed)
    config = TournamentConfig(table=TableConfig(starting_stack=3), table_size=3, wild_card_draws=draws)
    state = apply_tournament(None, seat_players([f"P{i}" for i in range(players)], config, rng), config)
    letters = list(Letter)
    for table_id, seated in state.seating:
        state = apply_tournament(state, TablePlay(table_id, OpenTable(seated)), config)
        for spin in range(10_000):
            table = state.table(table_id)
            assert table is not None
            if table.winner is not None:
                break
            if table.spin_off is not None:
                state = apply_tournament(
                    state,
                    TablePlay(table_id, SpinOff({n: rng.choice(letters) for n in table.spin_off})),
                    config,
                )
            else:
                if spin % 7 == 6:
                    state = apply_tournament(state, TablePlay(table_id, RaiseAnte(by=1)), config)
                state = apply_tournament(state, TablePlay(table_id, Spin(rng.choice(letters))), config)
    winners = state.table_winners()
    assert len(winners) == len(state.seating)
    if len(winners) == 1:
        assert state.champion == winners[0]
        return
    drawn: list[str] = []
    brought = 0
    if state.draws_allowed(config):
        draw = draw_wild_card(state.wild_card_entrants(), rng)
        state = apply_tournament(state, draw, config)
        drawn.append(draw.winner)
    state = apply_tournament(state, OpenFinal(), config)
    assert state.final is not None
    for name in drawn:  # joined right after the opening all-ante, with 2 x the opening ante
        assert state.final.player(name).stack == 2 * config.table.ante
        brought += 2 * config.table.ante
    for spin in range(10_000):
        final = state.final
        assert final is not None
        if final.winner is not None:
            break
        if final.spin_off is not None:
            event: Event = SpinOff({n: rng.choice(letters) for n in final.spin_off})
        elif spin % 5 == 4:
            event = RaiseAnte(by=1)
        else:
            event = Spin(rng.choice(letters))
        state = apply_tournament(state, TablePlay(FINAL, event), config)
        if isinstance(event, RaiseAnte) and state.draws_allowed(config) and state.wild_card_entrants():
            entrants = state.wild_card_entrants()
            assert not set(entrants) & set(winners) and not set(entrants) & set(drawn)
            draw = draw_wild_card(entrants, rng)
            ante = state.final.ante if state.final is not None else 0
            state = apply_tournament(state, draw, config)
            assert state.final is not None and state.final.player(draw.winner).stack == 2 * ante
            brought += 2 * ante
            drawn.append(draw.winner)
    final = state.final
    assert final is not None and final.winner is not None and state.champion == final.winner
    assert len(drawn) == len(set(drawn)) <= draws
    assert set(final.names()) == set(winners) | set(drawn)
    assert final.total_gelt == final.gelt_in == 3 * len(winners) + brought
    assert sum(state.prizes(config).values()) == 100 * len(winners) + 500
