"""SIGKILL a writer at random moments: every append that returned is still there, and the log opens cleanly."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from controller.clock import FakeClock
from controller.eventlog import EventLog

# The child appends forever and prints each seq only after append() has returned (i.e. after the commit).
_WRITER = """
import sys
from controller.clock import SystemClock
from controller.eventlog import EventLog
log = EventLog(sys.argv[1], SystemClock())
print("ready", flush=True)
i = 0
while True:
    i += 1
    e = log.append("t1", {"event": "note:crash-test", "i": i, "pad": "x" * (i % 97)}, "machine", spin_id=f"s{i}")
    print(e.seq, flush=True)
"""

KILLS = 30


def _run_and_kill(db: Path, rng: random.Random) -> list[int]:
    """Start a writer, let it confirm a random number of appends, SIGKILL it; return every seq it confirmed."""
    child = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert child.stdout is not None
    try:
        first = child.stdout.readline()
        assert first.strip() == "ready", first + (child.stderr.read() if child.stderr else "")
        confirmed: list[int] = []
        wanted = rng.randint(0, 12)
        while len(confirmed) < wanted:
            line = child.stdout.readline()
            assert line, "writer died on its own: " + (child.stderr.read() if child.stderr else "")
            confirmed.append(int(line))
        # Kill it wherever it is now: usually in the middle of the next append.
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        # Whatever it managed to print before dying was confirmed too.
        confirmed += [int(x) for x in child.stdout.read().split()]
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()
        if child.stderr:
            child.stderr.close()
    assert child.returncode == -signal.SIGKILL
    return confirmed


def test_sigkill_loses_no_confirmed_event_and_leaves_a_clean_log(tmp_path: Path) -> None:
    db = tmp_path / "crash.db"
    rng = random.Random(20261121)
    all_confirmed: list[int] = []
    for _ in range(KILLS):
        all_confirmed += _run_and_kill(db, rng)

    assert len(all_confirmed) > KILLS  # the test exercised real appends, not only start-ups
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    con.close()
    with EventLog(db, FakeClock()) as log:  # its own start-up check passes too
        stored = log.events("t1")
    seqs = [e.seq for e in stored]
    assert set(all_confirmed) <= set(seqs)
    # The stream is gapless: a killed append either committed whole or not at all.
    assert seqs == list(range(1, len(seqs) + 1))
    # Each stored event is intact (payload matches what the writer built for it).
    for e in stored:
        assert e.spin_id == f"s{e.payload['i']}"
        assert e.payload["pad"] == "x" * (e.payload["i"] % 97)
