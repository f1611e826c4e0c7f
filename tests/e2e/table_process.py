"""Run ``sevivon run`` as a child process on 127.0.0.1 and talk to it over HTTP (for the e2e tests)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from controller.clock import SystemClock
from controller.config import load_config
from controller.eventlog import EventLog
from controller.rules.events import parse_event
from controller.rules.table import TableConfig, replay, state_to_json

PASSWORD = "e2e-judge-password"

#: a small, fast table: 3 players with 2 gelt end in a few spins. The twin's time waits for the judge, so
#: every frame is rendered and judged: 20 fps (seed 11's whole game gets the same verdicts at 20 and 30 fps)
#: keeps a whole game within the tests' wall timeouts on a starved CPU.
SMALL_TABLE = """
[table]
players = ["Ann", "Ben", "Cy"]
stack = 2
[sim]
seed = {seed}
pause_s = 1.0
judge_delay_s = 2.0
new_table_after_s = 0
[camera]
fps = 20
"""

REPLAY_KEYS = ("players", "pot", "ante", "next", "winner", "spins", "pending")


class TableProcess:
    """One ``sevivon run`` child. ``wall_timeout`` bounds every wait, so a broken table fails the test."""

    def __init__(self, data: Path, config: Path, speed: float = 20.0, sim: bool = True) -> None:
        self.data = data
        self.config = config
        env = dict(os.environ, SEVIVON_JUDGE_PASSWORD=PASSWORD, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "run", "--config", str(config),
             *(["--sim", "--sim-speed", str(speed)] if sim else []),
             "--host", "127.0.0.1", "--port", "0", "--data", str(data)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=env)
        self.url = self._address()

    def _address(self) -> str:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            m = re.search(r"Display:\s+(http://127\.0\.0\.1:\d+)/", line)
            if m:
                return m.group(1)
        err = self.proc.stderr.read() if self.proc.stderr else ""
        raise AssertionError(f"sevivon run did not start: {err[-2000:]}")

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=10) as r:
            return json.loads(r.read())

    def wait_for(self, predicate: Any, wall_timeout: float = 60.0, poll: float = 0.05) -> dict[str, Any]:
        """Poll /api/state until ``predicate(state)`` holds; returns that state."""
        end = time.monotonic() + wall_timeout
        seen: list[dict[str, Any]] = []
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise AssertionError(f"sevivon run exited with {self.proc.returncode}: {self.proc.stderr.read()[-2000:]}")
            state = self.get("/api/state")
            seen.append(state)
            if predicate(state):
                return state
            time.sleep(poll)  # real time between HTTP polls of a real server (the table's clock is its own)
        raise AssertionError(f"timed out; last state: {seen[-1] if seen else None}")

    def kill(self) -> None:
        """SIGKILL: no clean-up at all, like a power cut."""
        self.proc.kill()
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM and wait for a clean exit."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


def replay_of_log(data: Path, config: Path, table: str) -> dict[str, Any]:
    """The replay output of the table's event log, read from the database file."""
    cfg = load_config(config)
    with EventLog(data / "events.sqlite", SystemClock()) as log:
        events = [parse_event(e.payload) for e in log.events(table) if not e.is_note]
    state = replay(events, TableConfig(starting_stack=cfg.table.stack, ante=cfg.table.ante))
    return state_to_json(state)


def spins_without_a_machine_verdict(data: Path, table: str) -> list[str]:
    """The table's settled spins (opening spin, spins, invalid spins) that no verdict of the machine judge
    stands behind: the ones a judge entered by hand because the machine gave no verdict."""
    with EventLog(data / "events.sqlite", SystemClock()) as log:
        events = log.events(table)
    judged = {e.spin_id for e in events if e.name == "note:verdict" and e.actor == "machine" and e.spin_id}
    return [f"{e.name} by {e.actor}" for e in events
            if e.name in ("set_first", "spin", "invalid_spin") and e.spin_id not in judged]


def spin_ids_in_log(data: Path, table: str) -> set[str]:
    """Every spin id that a rules event of the table refers to."""
    with EventLog(data / "events.sqlite", SystemClock()) as log:
        return {e.spin_id for e in log.events(table) if e.spin_id and not e.is_note}
