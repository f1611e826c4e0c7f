"""``sevivon plan``: recommend ante schedules so that a tournament ends in time."""

from __future__ import annotations

import json
from typing import NoReturn

import click

from controller.gamesim import Dreidel, SimulationError, format_duration, parse_duration
from controller.plan import Distribution, PhasePlan, Plan, PlanError, Planner, PlanRequest


@click.command()
@click.option("--players", type=int, required=True, help="Players in the tournament.")
@click.option(
    "--table-size", type=int, default=10, show_default=True, help="Most players per table (2 to 10)."
)
@click.option("--stack", type=int, default=18, show_default=True, help="Starting gelt per player.")
@click.option(
    "--spin-seconds", type=float, default=10.0, show_default=True, help="Average table time per spin."
)
@click.option(
    "--table-target", default="45m", show_default=True, help="Time for the table phase (45m, 1h30m, 600)."
)
@click.option("--final-target", default="30m", show_default=True, help="Time for the final table.")
@click.option(
    "--risk",
    type=float,
    default=0.1,
    show_default=True,
    help="Accepted chance of overrunning a target (0-1).",
)
@click.option(
    "--wild-cards", type=int, default=2, show_default=True, help="Wild-card draws for the final table."
)
@click.option(
    "--trials", type=int, default=2000, show_default=True, help="Simulated tournaments behind the figures."
)
@click.option("--seed", type=int, default=1, show_default=True, help="Random seed.")
@click.option(
    "--bias", default=None, help="A biased dreidel's letter weights, e.g. nun=302,gimel=109,hey=200,shin=189."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
def plan(
    players: int,
    table_size: int,
    stack: int,
    spin_seconds: float,
    table_target: str,
    final_target: str,
    risk: float,
    wild_cards: int,
    trials: int,
    seed: int,
    bias: str | None,
    as_json: bool,
) -> None:
    """Recommend how often and by how much to raise the ante, for the table phase and the final table,
    and predict how long each phase and the whole tournament take.

    Tables play in parallel (the phase ends with its slowest table); the final table seats the table
    winners and the wild cards, with fresh stacks and the ante back at 1.
    """
    try:
        request = PlanRequest(
            players=players,
            table_size=table_size,
            stack=stack,
            spin_seconds=spin_seconds,
            table_target_s=parse_duration(table_target),
            final_target_s=parse_duration(final_target),
            max_overrun=risk,
            wild_cards=wild_cards,
            trials=trials,
            seed=seed,
            dreidel=Dreidel() if bias is None else Dreidel.parse(bias),
        )
        result = Planner().plan(request)
    except (PlanError, SimulationError) as exc:
        _fail(str(exc))
    if as_json:
        click.echo(json.dumps(plan_to_json(result), indent=2))
    else:
        click.echo(readable(result))


def _dist_json(d: Distribution) -> dict[str, float]:
    return {
        "p10_s": d.p10_s,
        "p50_s": d.p50_s,
        "p90_s": d.p90_s,
        "mean_s": d.mean_s,
        "target_s": d.target_s,
        "overrun_chance": d.overrun_chance,
    }


def _phase_json(p: PhasePlan) -> dict[str, object]:
    return {
        "ante_every_s": p.schedule.every_s,
        "ante_step": p.schedule.step,
        "ante_start": p.schedule.start,
        "tables": p.tables,
        "wild_cards": p.wild_cards,
        "meets_target": p.met_target,
        "schedules_tried": p.candidates,
        "duration": _dist_json(p.duration),
    }


def plan_to_json(result: Plan) -> dict[str, object]:
    """The plan as a JSON-ready dict (durations in seconds, chances as fractions)."""
    r = result.request
    return {
        "players": r.players,
        "table_size": r.table_size,
        "stack": r.stack,
        "spin_seconds": r.spin_seconds,
        "risk": r.max_overrun,
        "trials": r.trials,
        "seed": r.seed,
        "table_phase": _phase_json(result.table_phase),
        "final_table": None if result.final_table is None else _phase_json(result.final_table),
        "tournament": _dist_json(result.tournament),
        "leader_at_half_wins": result.leader_at_half_wins,
        "lottery_chance": result.lottery_chance,
    }


def _row(name: str, d: Distribution) -> str:
    return (
        f"  {name:<13} {format_duration(d.p10_s):>8} {format_duration(d.p50_s):>8} {format_duration(d.p90_s):>8}"
        f"   {format_duration(d.target_s):>7}   {d.overrun_chance * 100:5.1f}%"
    )


def _schedule_line(name: str, p: PhasePlan, risk: float) -> str:
    s = p.schedule
    assert s.every_s is not None
    verdict = "" if p.met_target else f"   (cannot keep the overrun chance within {risk * 100:g}%)"
    return f"  {name:<13} +{s.step} every {format_duration(s.every_s)} (ante starts at {s.start}){verdict}"


def readable(result: Plan) -> str:
    """The plan as a table for people."""
    r = result.request
    t = result.table_phase
    n_tables = len(t.tables)
    seats = ", ".join(str(x) for x in t.tables)
    lines = [
        f"{r.players} players at {n_tables} table{'s' if n_tables > 1 else ''} ({seats}), {r.stack} gelt each, "
        f"{r.spin_seconds:g} s a spin; {r.trials} simulated tournaments",
        "",
        "Recommended ante schedule:",
        _schedule_line("table phase", t, r.max_overrun),
    ]
    if result.final_table is not None:
        f = result.final_table
        lines.append(_schedule_line("final table", f, r.max_overrun))
        lines.append(f"  (final table: {f.tables[0]} table winners + up to {f.wild_cards} wild cards)")
    else:
        lines.append("  (one table: its winner is the champion, there is no final table)")
    lines += ["", f"  {'duration':<13} {'p10':>8} {'p50':>8} {'p90':>8}   {'target':>7}   overrun"]
    lines.append(_row("table phase", t.duration))
    if result.final_table is not None:
        lines.append(_row("final table", result.final_table.duration))
        lines.append(_row("tournament", result.tournament))
    lines += [
        "",
        f"Chip leader at a table's half time wins it: {result.leader_at_half_wins * 100:.0f}% "
        f"(a pure lottery: {result.lottery_chance * 100:.0f}%)",
    ]
    return "\n".join(lines)


def _fail(message: str) -> NoReturn:
    click.echo(f"sevivon plan: {message}", err=True)
    raise SystemExit(2)
