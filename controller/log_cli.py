"""``sevivon log``: read the event log. ``sevivon log export DB`` prints a table as a replay script."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import NoReturn

import click

from controller.clock import SystemClock
from controller.eventlog import EventLog, EventLogError


@click.group()
def log() -> None:
    """Read a Sevivon event log (an SQLite file written by a table)."""


@log.command("export")
@click.argument("db", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--table", "table", default=None, help="The table id to export (needed when the log holds several).")
def export(db: Path, table: str | None) -> None:
    """Print one table's events as a replay script (JSON lines) for ``sevivon replay``.

    Notes (events named ``note:...``: faults, logins, evidence notes) are left out; they are not rules events.
    """
    if not db.exists():
        _fail(f"no event log at {db}")
    try:
        with EventLog(db, SystemClock()) as event_log:
            tables = event_log.tables()
            if not tables:
                _fail(f"{db} holds no events")
            if table is None:
                if len(tables) > 1:
                    _fail(f"{db} holds {len(tables)} tables: {', '.join(tables)}; choose one with --table ID")
                table = tables[0]
            elif table not in tables:
                _fail(f"{db} has no table {table!r}; it holds: {', '.join(tables)}")
            events = event_log.events(table)
    except EventLogError as exc:
        _fail(str(exc))
    out = sys.stdout
    for event in events:
        if not event.is_note:
            out.write(json.dumps(event.payload, ensure_ascii=False) + "\n")


def _fail(message: str) -> NoReturn:
    click.echo(f"sevivon log: {message}", err=True)
    raise SystemExit(2)
