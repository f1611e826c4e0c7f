"""``sevivon replay SCRIPT [--json]``: play a table script (JSON lines) through the rules engine.

A script has one event per line (see DESIGN.md "Contracts"). Blank lines and lines starting with ``#``
are ignored, and so is a ``#`` comment after an event's JSON. ``SCRIPT`` may be ``-`` for stdin.
A script that breaks the rules exits with status 2 and names the line and the reason on stderr.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import TextIO

import click

from controller.rules.errors import RuleError, ScriptError
from controller.rules.events import Event, parse_event
from controller.rules.table import TableConfig, TableState, apply, state_to_json


def read_script(lines: Iterable[str]) -> Iterator[tuple[int, Event]]:
    """Yield ``(line number, event)`` for each event line; raise ``ScriptError`` with the line number."""
    decoder = json.JSONDecoder()
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        try:
            obj, end = decoder.raw_decode(text)
        except json.JSONDecodeError as exc:
            raise ScriptError(f"bad JSON: {exc.msg} (column {exc.colno})", line=number) from None
        rest = text[end:].strip()
        if rest and not rest.startswith("#"):
            raise ScriptError(f"unexpected text after the event: {rest[:40]!r}", line=number)
        if not isinstance(obj, dict):
            raise ScriptError(f"an event must be a JSON object, not {type(obj).__name__}", line=number)
        try:
            yield number, parse_event(obj)
        except ScriptError as exc:
            raise ScriptError(exc.reason, line=number) from None


def replay_lines(lines: Iterable[str], config: TableConfig | None = None) -> TableState:
    """Replay a script's lines; any problem is a ``ScriptError`` that names the line."""
    state: TableState | None = None
    last_line = 0
    for number, event in read_script(lines):
        last_line = number
        try:
            state = apply(state, event, config)
        except ScriptError as exc:
            raise ScriptError(exc.reason, line=number) from None
        except RuleError as exc:
            raise ScriptError(str(exc), line=number) from None
    if state is None:
        raise ScriptError(
            'the script has no events; it must start with an "open" event', line=last_line or None
        )
    return state


def format_state(state: TableState) -> str:
    """A table for people: seats, stacks and places, then pot, ante and whose turn it is."""
    rows = [("seat", "player", "stack", "status", "place")]
    for seat, p in enumerate(state.players, start=1):
        marker = " *" if p.name == state.current else ""
        rows.append(
            (
                str(seat),
                p.name + marker,
                str(p.stack),
                p.status.value,
                "" if p.place is None else str(p.place),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = [
        "  ".join(
            cell.ljust(w) if i in (1, 3) else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    ]
    lines.append("")
    lines.append(f"pot {state.pot}   ante {state.ante}   spins {state.spins}")
    if state.pending_raise:
        lines.append(f"announced raise: +{state.pending_raise} when this turn ends")
    if state.winner is not None:
        lines.append(f"winner: {state.winner}")
    elif state.spin_off is not None:
        lines.append(f"spin-off pending between: {', '.join(state.spin_off)}")
    elif state.current is not None:
        lines.append(f"next to spin: {state.current}")
    else:
        lines.append("nobody may spin: every player still in is away")
    lines.append(
        "standings: "
        + ", ".join(f"{p.place if p.place is not None else '-'} {p.name}" for p in state.standings())
    )
    return "\n".join(lines)


@click.command("replay")
@click.argument("script", type=click.File("r", encoding="utf-8"))
@click.option(
    "--json", "as_json", is_flag=True, help="Print the final state as JSON (DESIGN.md's replay output)."
)
def replay(script: TextIO, as_json: bool) -> None:
    """Play the table script SCRIPT (JSON lines, or - for stdin) and print the final state.

    Exits 2 naming the line if the script is not valid or breaks the rules.
    """
    try:
        state = replay_lines(script)
    except ScriptError as exc:
        click.echo(f"{script.name}: {exc}", err=True)
        raise SystemExit(2) from None
    if as_json:
        click.echo(json.dumps(state_to_json(state), ensure_ascii=False))
    else:
        click.echo(format_state(state))
