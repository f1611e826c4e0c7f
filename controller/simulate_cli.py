"""``sevivon simulate``: play many games of one table and report how long they last and who wins."""

from __future__ import annotations

import json
from typing import NoReturn

import click

from controller.gamesim import (
    AnteSchedule,
    Dreidel,
    GameSetup,
    GameSimulator,
    SimSummary,
    SimulationError,
    format_duration,
    parse_duration,
)

#: Seconds per spin when not given: a spin must last 3 s to be valid, plus resting, reading, paying and
#: passing the dreidel on; 10 s is a brisk but realistic table (also the planner's default).
DEFAULT_SPIN_SECONDS = 10.0


@click.command()
@click.option("--players", type=int, required=True, help="Players at the table (seat 1 spins first).")
@click.option("--stack", type=int, default=18, show_default=True, help="Starting gelt per player.")
@click.option("--ante", type=int, default=1, show_default=True, help="The starting ante.")
@click.option(
    "--ante-every",
    default=None,
    help="Raise the ante this often (e.g. 3m, 90s, 1h, or seconds). Without it the ante never rises.",
)
@click.option(
    "--ante-step", type=int, default=None, help="How much each raise adds (default 1; needs --ante-every)."
)
@click.option(
    "--spin-seconds",
    type=float,
    default=DEFAULT_SPIN_SECONDS,
    show_default=True,
    help="Average table time per spin, handling and re-spins included.",
)
@click.option("--games", type=int, default=10_000, show_default=True, help="How many games to play.")
@click.option("--seed", type=int, default=1, show_default=True, help="Random seed (game i is reproducible).")
@click.option(
    "--bias", default=None, help="A biased dreidel's letter weights, e.g. nun=302,gimel=109,hey=200,shin=189."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
def simulate(
    players: int,
    stack: int,
    ante: int,
    ante_every: str | None,
    ante_step: int | None,
    spin_seconds: float,
    games: int,
    seed: int,
    bias: str | None,
    as_json: bool,
) -> None:
    """Simulate GAMES games of one table under the tournament rules (RULES.md) and report their length.

    The ante rises on a clock that counts SPIN_SECONDS per spin: a raise announced during a spin takes
    effect when the turn passes after it.
    """
    try:
        if ante_step is not None and ante_every is None:
            raise SimulationError("--ante-step needs --ante-every (without it the ante never rises)")
        every = None if ante_every is None else parse_duration(ante_every)
        schedule = AnteSchedule(start=ante, every_s=every, step=1 if ante_step is None else ante_step)
        dreidel = Dreidel() if bias is None else Dreidel.parse(bias)
        setup = GameSetup(players, stack, schedule, spin_seconds, dreidel=dreidel)
        if games < 1:
            raise SimulationError(f"--games must be at least 1, got {games}")
        summary = GameSimulator().simulate(setup, games, seed).summary()
    except SimulationError as exc:
        _fail(str(exc))
    if as_json:
        click.echo(json.dumps(_to_json(setup, seed, summary)))
    else:
        click.echo(_readable(setup, summary))


def _to_json(setup: GameSetup, seed: int, s: SimSummary) -> dict[str, object]:
    return {
        "players": setup.players,
        "stack": setup.stack,
        "ante": setup.schedule.start,
        "ante_every_s": setup.schedule.every_s,
        "ante_step": setup.schedule.step if setup.schedule.every_s is not None else None,
        "spin_seconds": setup.spin_seconds,
        "games": s.games,
        "seed": seed,
        "mean_spins": s.mean_spins,
        "stderr_spins": s.stderr_spins,
        "median_spins": s.median_spins,
        "p90_spins": s.p90_spins,
        "win_rate_by_seat": s.win_rate_by_seat,
        "mean_minutes": s.mean_minutes,
    }


def _readable(setup: GameSetup, s: SimSummary) -> str:
    dreidel = "fair dreidel" if setup.dreidel.fair else "biased dreidel"
    lines = [
        f"{s.games} games: {setup.players} players x {setup.stack} gelt, {setup.schedule.describe()}, "
        f"{setup.spin_seconds:g} s a spin, {dreidel}",
        f"  spins     mean {s.mean_spins:.1f} (+/- {s.stderr_spins:.1f})   median {s.median_spins:g}   "
        f"90% within {s.p90_spins:g}",
        f"  duration  mean {format_duration(s.mean_minutes * 60)}   median "
        f"{format_duration(s.median_spins * setup.spin_seconds)}   90% within "
        f"{format_duration(s.p90_spins * setup.spin_seconds)}",
        "  wins by seat (seat 1 spins first):",
    ]
    lines += [f"    seat {i + 1:>2}  {rate * 100:5.1f}%" for i, rate in enumerate(s.win_rate_by_seat)]
    return "\n".join(lines)


def _fail(message: str) -> NoReturn:
    click.echo(f"sevivon simulate: {message}", err=True)
    raise SystemExit(2)
