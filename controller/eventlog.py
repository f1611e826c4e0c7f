"""The crash-safe, append-only event log of a table (SQLite).

Every thing that changes a table's state is appended here before it is acted on, so a restart replays the
log to the same state and a judge's correction is a new event, never an edit.

Storage decisions (why):

- ``journal_mode=WAL`` with ``synchronous=FULL``: each append is one transaction whose commit fsyncs the WAL,
  so an event is durable on disk when :meth:`EventLog.append` returns, even if the process is SIGKILLed or the
  Pi loses power right after.
- ``seq`` counts **per table**: each table's stream is 1, 2, 3, ... with no gaps, so ``events(table, after=n)``
  is "everything since the n-th event of that table" and an export of one table is self-contained.
- The payload is stored as JSON text exactly as given. A payload is the replay-script vocabulary of DESIGN.md
  (``{"event": "spin", "letter": "gimel"}``) plus the correction and tournament events of
  ``controller.rules.events``; so a table's state is a fold over its payloads.
- Events that are not rules events (faults, judge logins, evidence notes, clock pauses) live in a separate
  namespace: their ``"event"`` starts with ``"note:"`` (see :func:`is_note`). Replay and ``log export`` leave
  them out.
- Actors are ``"machine"``, ``"clock"``, ``"judge:<id>"`` or ``"player:<name>"``; anything else is refused so
  the log never holds an unattributable event.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from controller.clock import Clock

#: Written into the log's ``meta`` table; a database without it is not a Sevivon event log.
LOG_FORMAT = 1

#: The prefix of the ``"event"`` name of events that are not rules events.
NOTE_PREFIX = "note:"

_FIXED_ACTORS = ("machine", "clock")
_ACTOR_PREFIXES = ("judge:", "player:")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sevivon_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    tbl     TEXT    NOT NULL,
    seq     INTEGER NOT NULL,
    t       REAL    NOT NULL,
    actor   TEXT    NOT NULL,
    spin_id TEXT,
    payload TEXT    NOT NULL,
    UNIQUE (tbl, seq)
);
"""


class EventLogError(Exception):
    """The log cannot be opened or an event cannot be appended; the message says what to fix."""


@dataclass(frozen=True)
class LoggedEvent:
    """One event as stored: its place in its table's stream, when, who, and what.

    ``t`` is the injected clock's ``wall()`` time at append. ``spin_id`` is the reference to the spin's
    evidence (frames, IMU trace, verdict) when the event came from a judged spin.
    """

    seq: int
    table: str
    t: float
    actor: str
    spin_id: str | None
    payload: dict[str, Any]

    @property
    def name(self) -> str:
        """The payload's ``"event"`` name."""
        return str(self.payload.get("event", ""))

    @property
    def is_note(self) -> bool:
        """True for events outside the rules (faults, logins, notes), which replay ignores."""
        return is_note(self.payload)


def is_note(payload: Mapping[str, object]) -> bool:
    """True when ``payload`` is a non-rules event (its ``"event"`` starts with ``"note:"``)."""
    name = payload.get("event")
    return isinstance(name, str) and name.startswith(NOTE_PREFIX)


def check_actor(actor: str) -> str:
    """Return ``actor`` if it is a valid actor, else raise :class:`EventLogError` naming the valid forms."""
    if actor in _FIXED_ACTORS:
        return actor
    for prefix in _ACTOR_PREFIXES:
        if actor.startswith(prefix) and actor[len(prefix) :].strip():
            return actor
    raise EventLogError(
        f"invalid actor {actor!r}: use 'machine', 'clock', 'judge:<id>' or 'player:<name>'"
    )


def _check_payload(payload: Mapping[str, object]) -> str:
    """Validate a payload and return its canonical JSON text."""
    if not isinstance(payload, Mapping):
        raise EventLogError(f"an event payload must be a mapping, not {type(payload).__name__}")
    name = payload.get("event")
    if not isinstance(name, str) or not name:
        raise EventLogError(f"an event payload needs a non-empty string 'event' name: {dict(payload)!r}")
    try:
        # allow_nan=False: NaN/Infinity are not JSON and would break other readers of the export.
        return json.dumps(dict(payload), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise EventLogError(f"event payload {name!r} is not JSON-serialisable: {exc}") from None


class EventLog:
    """An append-only, per-table event log in one SQLite file.

    Thread-safe: one connection guarded by a lock, so the web server may append from request threads
    while the table session appends from its own. Use as a context manager or call :meth:`close`.
    """

    def __init__(self, path: str | Path, clock: Clock) -> None:
        self.path = Path(path)
        self._clock = clock
        self._lock = threading.Lock()
        if self.path.is_dir():
            raise EventLogError(f"{self.path} is a directory; give the path of the event-log file")
        if not self.path.parent.exists():
            raise EventLogError(f"the folder {self.path.parent} does not exist; create it first")
        existed = self.path.exists() and self.path.stat().st_size > 0
        try:
            # isolation_level=None: we issue BEGIN/COMMIT ourselves so each append is exactly one transaction.
            self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise EventLogError(f"cannot open event log {self.path}: {exc}") from None
        try:
            self._open(existed)
        except EventLogError:
            self._db.close()
            raise
        except sqlite3.Error as exc:
            self._db.close()
            raise EventLogError(
                f"{self.path} is damaged or not a Sevivon event log ({exc}); "
                "move it aside and start a new log, or restore it from a backup"
            ) from None
        self._closed = False

    def _open(self, existed: bool) -> None:
        db = self._db
        row = db.execute("PRAGMA quick_check").fetchone()
        if row is None or row[0] != "ok":
            raise EventLogError(
                f"{self.path} failed its integrity check ({row[0] if row else 'no answer'}); "
                "move it aside and restore it from a backup"
            )
        if existed:
            names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if "sevivon_meta" not in names or "events" not in names:
                raise EventLogError(
                    f"{self.path} is an SQLite database but not a Sevivon event log "
                    f"(it has tables {sorted(names)}); give the path of an event log or a new file"
                )
            fmt = db.execute("SELECT value FROM sevivon_meta WHERE key='format'").fetchone()
            if fmt is None or fmt[0] != str(LOG_FORMAT):
                raise EventLogError(
                    f"{self.path} is an event log of format {fmt[0] if fmt else 'unknown'}, "
                    f"this program reads format {LOG_FORMAT}"
                )
        mode = db.execute("PRAGMA journal_mode=WAL").fetchone()
        if mode is None or str(mode[0]).lower() != "wal":
            raise EventLogError(f"cannot switch {self.path} to WAL mode (got {mode}); is it on a read-only disk?")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(
                "INSERT OR IGNORE INTO sevivon_meta(key, value) VALUES ('format', ?)", (str(LOG_FORMAT),)
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    # -- writing --------------------------------------------------------------------------------------

    def append(
        self, table: str, payload: Mapping[str, object], actor: str, spin_id: str | None = None
    ) -> LoggedEvent:
        """Append one event to ``table``'s stream; it is durable on disk when this returns.

        Raises :class:`EventLogError` for an empty table id, an invalid actor, or a payload without an
        ``"event"`` name or that is not JSON.
        """
        if not isinstance(table, str) or not table.strip():
            raise EventLogError(f"a table id must be a non-empty string, not {table!r}")
        check_actor(actor)
        text = _check_payload(payload)
        if spin_id is not None and (not isinstance(spin_id, str) or not spin_id):
            raise EventLogError(f"spin_id must be a non-empty string or None, not {spin_id!r}")
        t = float(self._clock.wall())
        with self._lock:
            self._check_open()
            db = self._db
            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    (last,) = db.execute(
                        "SELECT COALESCE(MAX(seq), 0) FROM events WHERE tbl = ?", (table,)
                    ).fetchone()
                    seq = int(last) + 1
                    db.execute(
                        "INSERT INTO events(tbl, seq, t, actor, spin_id, payload) VALUES (?, ?, ?, ?, ?, ?)",
                        (table, seq, t, actor, spin_id, text),
                    )
                    db.execute("COMMIT")
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise EventLogError(f"cannot append to event log {self.path}: {exc}") from None
        return LoggedEvent(seq, table, t, actor, spin_id, json.loads(text))

    # -- reading --------------------------------------------------------------------------------------

    def events(self, table: str, after: int = 0) -> list[LoggedEvent]:
        """The events of ``table`` with ``seq > after``, in order (notes included; filter with ``is_note``)."""
        with self._lock:
            self._check_open()
            rows = self._db.execute(
                "SELECT seq, tbl, t, actor, spin_id, payload FROM events WHERE tbl = ? AND seq > ? ORDER BY seq",
                (table, after),
            ).fetchall()
        return [LoggedEvent(int(s), str(tb), float(t), str(a), sid, json.loads(p)) for s, tb, t, a, sid, p in rows]

    def tables(self) -> list[str]:
        """The ids of the tables that have at least one event, sorted."""
        with self._lock:
            self._check_open()
            rows = self._db.execute("SELECT DISTINCT tbl FROM events ORDER BY tbl").fetchall()
        return [str(r[0]) for r in rows]

    def last_seq(self, table: str) -> int:
        """The seq of ``table``'s latest event (0 when it has none)."""
        with self._lock:
            self._check_open()
            (last,) = self._db.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM events WHERE tbl = ?", (table,)
            ).fetchone()
        return int(last)

    # -- lifetime -------------------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise EventLogError(f"event log {self.path} is closed")

    def close(self) -> None:
        """Close the database. Safe to call twice."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._db.close()

    def __enter__(self) -> EventLog:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
