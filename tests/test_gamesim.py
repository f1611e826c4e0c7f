"""The fast game simulator: the issue's ground-truth figures, agreement with the plain loop and with the
rules engine, reproducibility, and ``sevivon simulate``."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from controller.cli import main
from controller.gamesim import (
    AnteSchedule,
    Dreidel,
    GameSetup,
    GameSimulator,
    GameState,
    PlainSimulator,
    SimulationError,
    format_duration,
    parse_duration,
)
from controller.rules.events import OpenTable, RaiseAnte, Spin, SpinOff, WildCard
from controller.rules.letters import Letter
from controller.rules.table import TableConfig, TableState, apply

SIM = GameSimulator()

# -- the issue's figures (fixed ante 1, 10 gelt each) -----------------------------------------------------
# Standard deviations of a game's length measured with 200,000 games: 2 players ~92, 3 ~220, 4 ~401 spins.
# With 40,000 games the standard errors are ~0.5, ~1.1 and ~2.0 spins, and seat 1's win rate has ~0.22 pp.
# The tolerance is 4 standard errors, computed from the sample itself.
GAMES = 40_000


@pytest.mark.parametrize("players, expected", [(2, 115.7), (3, 306.9), (4, 579.5)])
def test_reproduces_the_issue_game_lengths(players: int, expected: float) -> None:
    s = SIM.simulate(GameSetup(players, 10), GAMES, seed=2026).summary()
    assert abs(s.mean_spins - expected) < 4 * s.stderr_spins, (s.mean_spins, s.stderr_spins)
    assert s.stderr_spins < 0.006 * expected  # the test is sharp enough to notice a wrong rule reading


def test_seat_one_wins_26_3_percent_with_four_players() -> None:
    s = SIM.simulate(GameSetup(4, 10), GAMES, seed=77).summary()
    p = 0.263
    se = math.sqrt(p * (1 - p) / GAMES)
    assert abs(s.win_rate_by_seat[0] - p) < 4 * se
    assert sum(s.win_rate_by_seat) == pytest.approx(1.0)
    # Spinning first is an advantage: seat 1 wins clearly more often than seat 4.
    assert s.win_rate_by_seat[0] - s.win_rate_by_seat[3] > 6 * se


# -- the compiled kernel against the plain Python loop --------------------------------------------------

setups = st.builds(
    GameSetup,
    players=st.integers(2, 7),
    stack=st.integers(1, 12),
    schedule=st.builds(
        AnteSchedule,
        start=st.just(1),
        every_s=st.sampled_from([None, 15.0, 25.0, 60.0, 95.5]),
        step=st.integers(1, 3),
    ),
    spin_seconds=st.sampled_from([7.0, 10.0, 12.5]),
    wild_cards=st.integers(0, 2),
    dreidel=st.sampled_from([Dreidel(), Dreidel(302, 109, 200, 189), Dreidel(1, 0, 1, 1)]),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=setups, seed=st.integers(0, 2**63))
def test_kernel_and_plain_loop_agree_game_for_game(setup: GameSetup, seed: int) -> None:
    if setup.schedule.every_s is None and setup.players * setup.stack > 40:
        setup = GameSetup(
            setup.players, 6, setup.schedule, setup.spin_seconds, setup.wild_cards
        )  # keep it fast
    fast = SIM.simulate(setup, 12, seed, first_game=5)
    plain = PlainSimulator().simulate(setup, 12, seed, first_game=5)
    assert fast.spins.tolist() == plain.spins.tolist()
    assert fast.winner.tolist() == plain.winner.tolist()


def test_a_game_is_the_same_whatever_batch_it_is_played_in() -> None:
    setup = GameSetup(5, 8, AnteSchedule(every_s=120))
    whole = SIM.simulate(setup, 100, seed=9)
    part = SIM.simulate(setup, 10, seed=9, first_game=40)
    assert part.spins.tolist() == whole.spins[40:50].tolist()
    assert part.winner.tolist() == whole.winner[40:50].tolist()
    other_seed = SIM.simulate(setup, 100, seed=10)
    assert other_seed.spins.tolist() != whole.spins.tolist()


def test_rising_antes_shorten_games_and_bias_changes_them() -> None:
    fixed = SIM.simulate(GameSetup(4, 10), 4000, seed=1).summary()
    rising = SIM.simulate(GameSetup(4, 10, AnteSchedule(every_s=180, step=1)), 4000, seed=1).summary()
    steep = SIM.simulate(GameSetup(4, 10, AnteSchedule(every_s=60, step=2)), 4000, seed=1).summary()
    assert fixed.mean_spins > rising.mean_spins > steep.mean_spins
    # A Shin-heavy dreidel drains the players into the pot: games are much shorter.
    shin_heavy = SIM.simulate(GameSetup(4, 10, dreidel=Dreidel(1, 1, 1, 3)), 4000, seed=1).summary()
    assert shin_heavy.mean_spins < 0.7 * fixed.mean_spins


def test_a_one_letter_dreidel_is_refused() -> None:
    # Its spin-offs could never be decided, and a Nun-only game with a fixed ante would never end.
    with pytest.raises(SimulationError, match="at least two letters"):
        Dreidel(1, 0, 0, 0)
    with pytest.raises(SimulationError, match="at least two letters"):
        Dreidel.parse("shin=5")


def test_halftime_leaders_replay_the_same_games() -> None:
    setup = GameSetup(4, 10, AnteSchedule(every_s=60))
    res = SIM.simulate(setup, 300, seed=4)
    masks = SIM.leaders_at(res, np.maximum(res.spins // 2, 1))
    assert (masks > 0).all()  # every game was still running at half time
    assert (masks < (1 << 4)).all()
    # At the very end the "leader" is gone: stopping at the last spin finds the game already over.
    at_end = SIM.leaders_at(res, res.spins)
    assert (at_end == 0).all()
    # Leaders win more often than a random player would (1 in 4).
    led = [(int(m) >> int(w)) & 1 for m, w in zip(masks, res.winner, strict=True)]
    assert np.mean(led) > 0.35


# -- worked examples through play_letters ---------------------------------------------------------------


def letters(*names: str) -> list[Letter]:
    return [Letter(n) for n in names]


def test_exact_ante_keeps_a_player_in_at_zero_until_the_next_ante() -> None:
    # 2 x 1 gelt: the opening all-ante leaves both at 0 with the pot at 2 (> ante, no all-ante).
    state = SIM.play_letters(GameSetup(2, 1), letters("nun", "nun"))
    assert (state.stacks, state.alive, state.pot, state.winner) == ([0, 0], [True, True], 2, None)
    # Then seat 0 spins Shin and cannot post: out, seat 1 wins.
    state = SIM.play_letters(GameSetup(2, 1), letters("nun", "nun", "shin"))
    assert state.winner == 1 and state.spins == 3 and state.next_seat is None


def test_hey_rounds_up_and_gimel_empties_the_pot_into_an_all_ante() -> None:
    # 3 x 5: pot 3 after the opening; Hey takes 2 (pot 1 <= ante): all-ante, everyone pays 1.
    state = SIM.play_letters(GameSetup(3, 5), letters("hey"))
    assert state.stacks == [5, 3, 3] and state.pot == 4
    state = SIM.play_letters(GameSetup(3, 5), letters("hey", "gimel"))
    assert state.stacks == [4, 6, 2] and state.pot == 3 and state.next_seat == 2


def test_survivor_rule_with_a_spin_off() -> None:
    # 2 x 3, ante 1, +5 every 10 s at 10 s a spin: the raise announced during spin 1 makes the ante 6 for
    # spin 2. Opening: stacks 2, 2, pot 2. Spin 1 Nun (ante 1); spin 2 Nun: pot 2 <= 6, an all-ante nobody
    # can post. The stacks tie at 2, so they spin off: Hey/Hey, then Gimel/Nun: seat 0 survives.
    setup = GameSetup(2, 3, AnteSchedule(every_s=10, step=5))
    state = SIM.play_letters(setup, letters("nun", "nun", "hey", "hey", "gimel", "nun"))
    assert state.winner == 0 and state.stacks == [2, 0] and state.pot == 4 and state.spins == 2
    # The same game with the spin-off cut short is unfinished.
    state = SIM.play_letters(setup, letters("nun", "nun", "hey", "hey"))
    assert state.winner is None and state.next_seat is None


# -- against the rules engine (controller.rules.table) --------------------------------------------------


def engine_play(setup: GameSetup, seq: list[Letter]) -> tuple[TableState, int]:
    """Drive the rules engine with the same letters and the same clock-driven raises and wild cards."""
    names = [f"p{i}" for i in range(setup.players)]
    cfg = TableConfig(starting_stack=setup.stack, ante=setup.schedule.start, max_players=64,
                      wild_card_multiple=setup.wild_stack_antes)  # fmt: skip
    state = apply(None, OpenTable(tuple(names)), cfg)
    wild_left = setup.wild_cards
    wild_no = setup.players
    if wild_left and state.winner is None:
        state = apply(state, WildCard(f"p{wild_no}"), cfg)
        wild_no, wild_left = wild_no + 1, wild_left - 1
    raises = 0
    used = 0
    spin_ms = setup._spin_ms()
    every_ms = setup._every_ms()
    while used < len(seq) and state.winner is None:
        if state.spin_off is not None:
            tied = state.spin_off
            if used + len(tied) > len(seq):
                break
            state = apply(state, SpinOff(dict(zip(tied, seq[used : used + len(tied)], strict=True))), cfg)
            used += len(tied)
            continue
        if every_ms:
            due = ((state.spins + 1) * spin_ms) // every_ms
            while raises < due:
                raises += 1
                state = apply(state, RaiseAnte(by=setup.schedule.step), cfg)
                if wild_left:
                    state = apply(state, WildCard(f"p{wild_no}"), cfg)
                    wild_no, wild_left = wild_no + 1, wild_left - 1
        state = apply(state, Spin(seq[used]), cfg)
        used += 1
    return state, used


def assert_same(fast: GameState, engine: TableState) -> None:
    names = [f"p{i}" for i in fast.ids]
    assert names == [p.name for p in engine.players]
    assert fast.stacks == [p.stack for p in engine.players]
    assert fast.alive == [p.in_play for p in engine.players]
    assert fast.pot == engine.pot
    assert fast.spins == engine.spins
    assert (None if fast.winner is None else f"p{fast.winner}") == engine.winner
    if engine.winner is None and engine.spin_off is None:
        assert fast.ante == engine.ante
        assert fast.next_seat is not None and names[fast.next_seat] == engine.current


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    setup=st.builds(
        GameSetup,
        players=st.integers(2, 6),
        stack=st.integers(1, 6),
        schedule=st.builds(
            AnteSchedule, every_s=st.sampled_from([None, 10.0, 20.0, 35.0]), step=st.integers(1, 4)
        ),
        spin_seconds=st.just(10.0),
        wild_cards=st.integers(0, 2),
    ),
    seq=st.lists(st.sampled_from(list(Letter)), min_size=1, max_size=120),
)
# A spin-off cut short: the smaller stacks are already out while the tied ones wait to spin.
@example(setup=GameSetup(2, 2, AnteSchedule(every_s=10.0, step=2), 10.0, wild_cards=2), seq=[Letter.NUN] * 2)
def test_kernel_matches_the_rules_engine_for_any_letters(setup: GameSetup, seq: list[Letter]) -> None:
    engine, used = engine_play(setup, seq)
    fast = SIM.play_letters(setup, seq[:used])
    assert fast.letters_used == used
    assert_same(fast, engine)


def test_engine_cross_check_reaches_finished_games() -> None:
    rng = np.random.default_rng(5)
    finished = 0
    for _ in range(30):
        setup = GameSetup(4, 4, AnteSchedule(every_s=30, step=1), wild_cards=1)
        seq = [Letter(x) for x in rng.choice(["nun", "gimel", "hey", "shin"], size=400)]
        engine, used = engine_play(setup, seq)
        fast = SIM.play_letters(setup, seq[:used])
        assert_same(fast, engine)
        finished += engine.winner is not None
    assert finished == 30


# -- validation and durations -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"players": 1, "stack": 5}, "at least 2 players"),
        ({"players": 3, "stack": 0}, "stack"),
        ({"players": 3, "stack": 2, "schedule": AnteSchedule(start=3)}, "larger than the stack"),
        ({"players": 3, "stack": 5, "spin_seconds": 0}, "per spin"),
        ({"players": 80, "stack": 5}, "at most"),
    ],
)
def test_impossible_setups_are_refused(kwargs: dict, match: str) -> None:
    with pytest.raises(SimulationError, match=match):
        GameSetup(**kwargs)


def test_schedule_and_dreidel_validation() -> None:
    with pytest.raises(SimulationError, match="interval"):
        AnteSchedule(every_s=0)
    with pytest.raises(SimulationError, match="step"):
        AnteSchedule(every_s=60, step=0)
    with pytest.raises(SimulationError, match="not all 0"):
        Dreidel(0, 0, 0, 0)
    assert Dreidel.parse("nun=302, gimel=109, pe=100, shin=89") == Dreidel(302, 109, 0, 189)
    with pytest.raises(SimulationError, match="unknown letter"):
        Dreidel.parse("nun=1,zayin=2")
    with pytest.raises(SimulationError, match="letter=weight"):
        Dreidel.parse("nun")


@pytest.mark.parametrize(
    "text, seconds", [("45m", 2700), ("1h30m", 5400), ("90s", 90), ("600", 600), ("2h", 7200), ("1.5m", 90)]
)
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "0", "-5", "m", "30m1h", "5x", "1h1h", "nan"])
def test_parse_duration_refuses_nonsense(text: str) -> None:
    with pytest.raises(SimulationError):
        parse_duration(text)


def test_format_duration() -> None:
    assert [format_duration(s) for s in (5400, 45, 150, 0)] == ["1h30m", "45s", "2m30s", "0s"]
    # H56 read "32h12s" as 32 h 12 min: the minutes are written when there are hours and seconds
    assert [format_duration(s) for s in (115212, 3600, 3660)] == ["32h0m12s", "1h", "1h1m"]
    assert parse_duration(format_duration(115212)) == 115212


# -- sevivon simulate -------------------------------------------------------------------------------------


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, ["simulate", *args])
    return r.exit_code, r.stdout, r.stderr


def test_simulate_json_reports_the_contract_fields() -> None:
    code, out, _ = run("--players", "3", "--stack", "10", "--games", "4000", "--seed", "5", "--json")
    assert code == 0
    data = json.loads(out)
    for key in ("mean_spins", "median_spins", "p90_spins", "win_rate_by_seat", "mean_minutes"):
        assert key in data
    assert len(data["win_rate_by_seat"]) == 3
    assert data["mean_minutes"] == pytest.approx(data["mean_spins"] * 10 / 60)
    assert data["median_spins"] <= data["p90_spins"]
    assert abs(data["mean_spins"] - 306.9) < 4 * data["stderr_spins"]
    again = json.loads(run("--players", "3", "--stack", "10", "--games", "4000", "--seed", "5", "--json")[1])
    assert again == data


def test_simulate_ante_schedule_and_readable_output() -> None:
    code, out, _ = run("--players", "10", "--ante-every", "3m", "--ante-step", "2", "--games", "500")
    assert code == 0
    assert "ante 1, +2 every 3m" in out and "seat 10" in out and "median" in out
    quick = json.loads(run("--players", "10", "--ante-every", "60", "--games", "500", "--json")[1])
    slow = json.loads(run("--players", "10", "--ante-every", "10m", "--games", "500", "--json")[1])
    assert quick["mean_spins"] < slow["mean_spins"]
    assert quick["ante_every_s"] == 60 and quick["ante_step"] == 1


@pytest.mark.parametrize(
    "args, match",
    [
        (["--players", "1"], "at least 2 players"),
        (["--players", "3", "--ante-step", "2"], "needs --ante-every"),
        (["--players", "3", "--ante-every", "soon"], "cannot read duration"),
        (["--players", "3", "--games", "0"], "--games"),
        (["--players", "3", "--bias", "nun=x"], "not a number"),
    ],
)
def test_simulate_bad_input_exits_2_with_a_reason(args: list[str], match: str) -> None:
    code, _, err = run(*args)
    assert code == 2
    assert match in err
