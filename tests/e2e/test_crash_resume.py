"""A crash test: SIGKILL ``sevivon run`` mid-game; the restarted table equals the replay of its log and
still has every spin that the display had shown."""

from __future__ import annotations

from pathlib import Path

from table_process import (
    REPLAY_KEYS,
    SMALL_TABLE,
    TableProcess,
    replay_of_log,
    spin_ids_in_log,
    spins_without_a_machine_verdict,
)


def test_sigkill_mid_game_then_resume(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(SMALL_TABLE.format(seed=5).replace("stack = 2", "stack = 6"))
    data = tmp_path / "data"
    first = TableProcess(data, config, speed=20)
    shown: set[str] = set()

    def watch(state: dict) -> bool:  # type: ignore[type-arg]
        for entry in state.get("recent", []):
            if entry.get("spin_id"):
                shown.add(entry["spin_id"])
        if state.get("last_spin") and state["last_spin"].get("spin_id"):
            shown.add(state["last_spin"]["spin_id"])
        return state["spins"] >= 2 and state["winner"] is None

    try:
        before = first.wait_for(watch, wall_timeout=150, poll=0.02)
    finally:
        first.kill()
    assert shown
    table = before["table"]
    second = TableProcess(data, config, speed=20)
    try:
        resumed = second.get("/api/state")
    finally:
        second.stop()
    expected = replay_of_log(data, config, table)
    assert resumed["table"] == table
    assert {k: resumed[k] for k in REPLAY_KEYS} == expected
    assert resumed["spins"] >= before["spins"]
    assert shown <= spin_ids_in_log(data, table), "a spin that was shown is never lost"
    assert spins_without_a_machine_verdict(data, table) == [], "the machine judge decided every spin"
