"""The ante planner: the schedules it recommends meet their targets, and its figures hang together."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from controller.cli import main
from controller.gamesim import AnteSchedule, GameSetup, GameSimulator
from controller.plan import PlanError, Planner, PlanRequest

# Small trial counts keep these tests quick; the figures' shape, not their third digit, is under test.
PLANNER = Planner(search_trials=120)


def request(**kw: object) -> PlanRequest:
    base: dict[str, object] = {
        "players": 30,
        "table_size": 10,
        "stack": 18,
        "spin_seconds": 10.0,
        "table_target_s": 45 * 60,
        "final_target_s": 30 * 60,
        "trials": 300,
    }
    base.update(kw)
    return PlanRequest(**base)  # type: ignore[arg-type]


def test_tables_are_as_few_and_as_even_as_possible() -> None:
    assert request(players=60).table_sizes == [10] * 6
    assert request(players=65).table_sizes == [10, 10, 9, 9, 9, 9, 9]
    assert request(players=7).table_sizes == [7]
    assert request(players=11, table_size=5).table_sizes == [4, 4, 3]
    assert request(players=11, table_size=5).final_wild_cards == 2
    assert request(players=7).final_wild_cards == 0  # one table: no final table, no raffle


def test_recommended_schedule_meets_the_target_and_is_the_gentlest_on_the_grid() -> None:
    plan = PLANNER.plan(request())
    t = plan.table_phase
    assert t.met_target and t.duration.overrun_chance <= 0.1
    assert t.schedule.step == 1  # a +1 schedule can meet 45 minutes for tables of 10
    assert t.duration.p10_s <= t.duration.p50_s <= t.duration.p90_s
    # Check it independently: simulate the three tables with the recommended schedule.
    sim = GameSimulator()
    setup = GameSetup(10, 18, t.schedule, 10.0)
    res = sim.simulate(setup, 3 * 400, seed=99)
    slowest = res.spins.reshape(400, 3).max(axis=1) * 10.0
    assert (slowest > 45 * 60).mean() < 0.2
    # Raising less often would overrun too often (otherwise the planner would have chosen it).
    assert t.schedule.every_s is not None
    slower = GameSetup(10, 18, AnteSchedule(1, t.schedule.every_s + 45, 1), 10.0)
    res = sim.simulate(slower, 3 * 400, seed=99)
    slowest = res.spins.reshape(400, 3).max(axis=1) * 10.0
    assert (slowest > 45 * 60).mean() > 0.1


def test_phases_add_up_and_the_half_time_leader_beats_a_lottery() -> None:
    plan = PLANNER.plan(request())
    assert plan.final_table is not None
    f = plan.final_table
    assert f.tables == [3] and f.wild_cards == 2
    assert f.met_target
    total = plan.tournament
    assert total.target_s == 75 * 60
    assert total.p50_s == pytest.approx(plan.table_phase.duration.p50_s + f.duration.p50_s, rel=0.15)
    assert total.p10_s < total.p50_s < total.p90_s
    assert plan.lottery_chance == pytest.approx(0.1)
    assert 0.2 < plan.leader_at_half_wins < 0.8


def test_tighter_targets_need_faster_antes() -> None:
    loose = PLANNER.plan(request(table_target_s=60 * 60)).table_phase
    tight = PLANNER.plan(request(table_target_s=20 * 60)).table_phase
    assert loose.schedule.every_s is not None and tight.schedule.every_s is not None
    loose_rate = loose.schedule.step / loose.schedule.every_s
    tight_rate = tight.schedule.step / tight.schedule.every_s
    assert tight_rate > loose_rate
    assert tight.duration.p50_s < loose.duration.p50_s


def test_an_impossible_target_is_reported_not_hidden() -> None:
    # Ten spins of 10 s cannot finish a 10-player table, whatever the ante does.
    plan = PLANNER.plan(request(players=10, table_target_s=100))
    assert not plan.table_phase.met_target
    assert plan.table_phase.duration.overrun_chance > 0.9
    assert plan.final_table is None


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"table_size": 11}, "2 to 10"),
        ({"table_size": 1}, "2 to 10"),
        ({"players": 1}, "at least 2 players"),
        ({"table_target_s": 0}, "table target"),
        ({"final_target_s": -5}, "final target"),
        ({"max_overrun": 0}, "between 0 and 1"),
        ({"stack": 0}, "stack"),
        ({"trials": 10}, "trials"),
        ({"table_target_s": 5}, "shorter than one spin"),
    ],
)
def test_impossible_requests_are_refused(kw: dict, match: str) -> None:
    with pytest.raises(PlanError, match=match):
        request(**kw)


def invoke(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, ["plan", *args])
    return r.exit_code, r.stdout, r.stderr


def test_plan_cli_json_and_table() -> None:
    args = ["--players", "20", "--table-target", "40m", "--final-target", "20m", "--trials", "200"]
    code, out, _ = invoke(*args, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["table_phase"]["tables"] == [10, 10]
    assert data["table_phase"]["duration"]["target_s"] == 2400
    assert data["final_table"]["duration"]["target_s"] == 1200
    for phase in ("table_phase", "final_table"):
        d = data[phase]["duration"]
        assert d["p10_s"] <= d["p50_s"] <= d["p90_s"]
        assert data[phase]["ante_every_s"] > 0 and data[phase]["ante_step"] >= 1
    assert 0 <= data["tournament"]["overrun_chance"] <= 1
    code, out, _ = invoke(*args)
    assert code == 0
    assert "table phase" in out and "final table" in out and "tournament" in out and "half time" in out


@pytest.mark.parametrize(
    "args, match",
    [
        (["--players", "40", "--table-size", "12"], "2 to 10"),
        (["--players", "40", "--table-target", "soon"], "cannot read duration"),
        (["--players", "40", "--final-target", "0"], "more than zero"),
        (["--players", "40", "--risk", "1.5"], "between 0 and 1"),
    ],
)
def test_plan_cli_bad_input_exits_2(args: list[str], match: str) -> None:
    code, _, err = invoke(*args)
    assert code == 2 and match in err


def test_plan_error_is_a_value_error() -> None:
    assert issubclass(PlanError, ValueError)
