"""End to end: a whole simulated table, played by ``sevivon run`` at high speed until it has a winner."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from table_process import REPLAY_KEYS, SMALL_TABLE, TableProcess, replay_of_log


def test_simulated_table_plays_to_a_winner_and_matches_the_log(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(SMALL_TABLE.format(seed=11))
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
    # the exported log replays through the command-line tools to the same standings
    export = subprocess.run([sys.executable, "-m", "controller.cli", "log", "export", str(tmp_path / "data" / "events.sqlite"),
                             "--table", final["table"]], capture_output=True, text=True, check=True).stdout
    replayed = subprocess.run([sys.executable, "-m", "controller.cli", "replay", "-", "--json"], input=export,
                              capture_output=True, text=True, check=True).stdout
    assert json.loads(replayed) == expected
