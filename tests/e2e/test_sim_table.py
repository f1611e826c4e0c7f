"""End to end: a whole simulated table, played by ``sevivon run`` at high speed until it has a winner.

At ``--sim-speed 20`` the twin's time waits for the table, so the machine judge sees every frame and
decides every spin itself, however busy the machine running the test is.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from table_process import (
    REPLAY_KEYS,
    SMALL_TABLE,
    TableProcess,
    replay_of_log,
    spins_without_a_machine_verdict,
)


def test_simulated_table_plays_to_a_winner_and_matches_the_log(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(SMALL_TABLE.format(seed=11).replace("stack = 2", "stack = 1"))  # a few spins: every frame costs
    table = TableProcess(tmp_path / "data", config, speed=20)
    try:
        final = table.wait_for(lambda s: s["winner"] is not None, wall_timeout=150)
        spins = table.get("/api/spins")["spins"]
    finally:
        table.stop()
    assert final["stage"] == "finished" and final["phase"] == "finished"
    expected = replay_of_log(tmp_path / "data", config, final["table"])
    assert {k: final[k] for k in REPLAY_KEYS} == expected
    places = sorted(p["place"] for p in final["players"])
    assert places[0] == 1 and all(p is not None for p in places)
    assert [s["name"] for s in final["standings"]][0] == final["winner"]
    assert spins, "every judged spin is listed with its verdict"
    assert spins_without_a_machine_verdict(tmp_path / "data", final["table"]) == [], \
        "the machine judge decided every spin: no judge had to enter one it missed"
    assert 0 < final["clock"]["speed"] <= 20  # the display counts down at the rate the table achieves
    # the exported log replays through the command-line tools to the same standings
    export = subprocess.run([sys.executable, "-m", "controller.cli", "log", "export", str(tmp_path / "data" / "events.sqlite"),
                             "--table", final["table"]], capture_output=True, text=True, check=True).stdout
    replayed = subprocess.run([sys.executable, "-m", "controller.cli", "replay", "-", "--json"], input=export,
                              capture_output=True, text=True, check=True).stdout
    assert json.loads(replayed) == expected
