"""The event log: per-table sequence numbers, durability across reopen, validation, threads, integrity."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.clock import FakeClock
from controller.eventlog import EventLog, EventLogError, LoggedEvent, is_note


def test_append_numbers_each_table_from_one_and_stamps_clock_time(tmp_path: Path, clock: FakeClock) -> None:
    with EventLog(tmp_path / "log.db", clock) as log:
        a1 = log.append("t1", {"event": "open", "players": ["Ann", "Ben"], "stack": 18}, "judge:7")
        clock.advance(2.5)
        b1 = log.append("t2", {"event": "spin", "letter": "nun"}, "machine", spin_id="s-1")
        a2 = log.append("t1", {"event": "spin", "letter": "gimel"}, "machine", spin_id="s-2")
        assert (a1.seq, a2.seq, b1.seq) == (1, 2, 1)
        assert b1.t - a1.t == pytest.approx(2.5)
        assert a1.t == pytest.approx(clock.wall() - 2.5)
        assert log.tables() == ["t1", "t2"]
        assert [e.payload["event"] for e in log.events("t1")] == ["open", "spin"]
        assert log.events("t1", after=1) == [a2]
        assert log.events("t2") == [b1]
        assert log.events("nope") == []
        assert log.last_seq("t1") == 2


def test_events_survive_reopen_and_seq_continues(tmp_path: Path, clock: FakeClock) -> None:
    path = tmp_path / "log.db"
    with EventLog(path, clock) as log:
        first = log.append("t1", {"event": "spin", "letter": "hey"}, "player:Ann")
    with EventLog(path, clock) as log:
        again = log.events("t1")
        nxt = log.append("t1", {"event": "note:fault", "device": "imu"}, "machine")
    assert again == [first]
    assert nxt.seq == 2


def test_payload_round_trips_unicode_and_nesting(tmp_path: Path, clock: FakeClock) -> None:
    payload = {"event": "spin_off", "letters": {"שרה": "gimel", "Ben": "nun"}, "x": [1, 2.5, None, True]}
    with EventLog(tmp_path / "log.db", clock) as log:
        log.append("t", payload, "machine")
        assert log.events("t")[0].payload == payload


@pytest.mark.parametrize("actor", ["", "robot", "judge:", "player:  ", "Judge:1"])
def test_invalid_actor_is_refused(tmp_path: Path, clock: FakeClock, actor: str) -> None:
    with EventLog(tmp_path / "log.db", clock) as log:
        with pytest.raises(EventLogError, match="actor"):
            log.append("t", {"event": "spin", "letter": "nun"}, actor)
        assert log.events("t") == []


@pytest.mark.parametrize(
    "payload, match",
    [
        ({"letter": "nun"}, "'event' name"),
        ({"event": ""}, "'event' name"),
        ({"event": 3}, "'event' name"),
        ({"event": "spin", "x": object()}, "not JSON"),
        ({"event": "spin", "x": float("nan")}, "not JSON"),
    ],
)
def test_invalid_payload_is_refused(tmp_path: Path, clock: FakeClock, payload: dict, match: str) -> None:
    with EventLog(tmp_path / "log.db", clock) as log:
        with pytest.raises(EventLogError, match=match):
            log.append("t", payload, "machine")
        assert log.tables() == []


def test_empty_table_id_is_refused(tmp_path: Path, clock: FakeClock) -> None:
    with EventLog(tmp_path / "log.db", clock) as log, pytest.raises(EventLogError, match="table id"):
        log.append("  ", {"event": "spin", "letter": "nun"}, "machine")


def test_uses_wal_and_full_sync(tmp_path: Path, clock: FakeClock) -> None:
    path = tmp_path / "log.db"
    with EventLog(path, clock) as log:
        log.append("t", {"event": "spin", "letter": "nun"}, "machine")
        assert log._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert log._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_garbage_file_is_a_clear_error(tmp_path: Path, clock: FakeClock) -> None:
    path = tmp_path / "log.db"
    path.write_bytes(b"this is not a database at all, just some words\n" * 100)
    with pytest.raises(EventLogError, match="damaged or not a Sevivon event log"):
        EventLog(path, clock)


def test_other_sqlite_database_is_not_a_log(tmp_path: Path, clock: FakeClock) -> None:
    path = tmp_path / "other.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE recipes (name TEXT)")
    con.commit()
    con.close()
    with pytest.raises(EventLogError, match="not a Sevivon event log"):
        EventLog(path, clock)


def test_corrupted_log_fails_start_up_check(tmp_path: Path, clock: FakeClock) -> None:
    path = tmp_path / "log.db"
    with EventLog(path, clock) as log:
        for i in range(400):
            log.append("t", {"event": "note:filler", "i": i, "pad": "x" * 200}, "machine")
    # Fold the WAL into the main file, then scribble over a page in the middle of it.
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) > 8 * page
    data[3 * page : 5 * page] = b"\xa5" * (2 * page)
    path.write_bytes(bytes(data))
    with pytest.raises(EventLogError, match="integrity check|damaged"):
        EventLog(path, clock)


def test_missing_folder_and_directory_path_are_clear_errors(tmp_path: Path, clock: FakeClock) -> None:
    with pytest.raises(EventLogError, match="does not exist"):
        EventLog(tmp_path / "no" / "log.db", clock)
    with pytest.raises(EventLogError, match="directory"):
        EventLog(tmp_path, clock)


def test_closed_log_refuses_use(tmp_path: Path, clock: FakeClock) -> None:
    log = EventLog(tmp_path / "log.db", clock)
    log.close()
    log.close()
    with pytest.raises(EventLogError, match="closed"):
        log.append("t", {"event": "spin", "letter": "nun"}, "machine")


def test_concurrent_appends_from_threads_get_unique_gapless_seqs(tmp_path: Path, clock: FakeClock) -> None:
    got: list[LoggedEvent] = []
    got_lock = threading.Lock()
    with EventLog(tmp_path / "log.db", clock) as log:

        def worker(n: int) -> None:
            for i in range(25):
                e = log.append("t", {"event": "note:req", "worker": n, "i": i}, f"judge:{n}")
                with got_lock:
                    got.append(e)

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        stored = log.events("t")
    assert sorted(e.seq for e in got) == list(range(1, 101))
    assert [e.seq for e in stored] == list(range(1, 101))
    # Each worker's own events are stored in the order it appended them.
    for n in range(4):
        assert [e.payload["i"] for e in stored if e.payload["worker"] == n] == list(range(25))


def test_is_note() -> None:
    assert is_note({"event": "note:fault"})
    assert not is_note({"event": "spin", "letter": "nun"})
    assert not is_note({"event": 5})


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b", "c"]), st.sampled_from(["nun", "gimel", "hey", "shin"])),
        max_size=30,
    )
)
def test_each_table_stream_is_gapless_and_ordered(
    tmp_path_factory: pytest.TempPathFactory, ops: list
) -> None:
    path = tmp_path_factory.mktemp("log") / "log.db"
    with EventLog(path, FakeClock()) as log:
        for table, letter in ops:
            log.append(table, {"event": "spin", "letter": letter}, "machine")
        for table in log.tables():
            stream = log.events(table)
            assert [e.seq for e in stream] == list(range(1, len(stream) + 1))
            assert [e.payload["letter"] for e in stream] == [lt for tb, lt in ops if tb == table]
        assert log.tables() == sorted({tb for tb, _ in ops})


# -- sevivon log export -------------------------------------------------------------------------------


def _export(*args: str) -> tuple[int, str, str]:
    from click.testing import CliRunner

    from controller.cli import main

    result = CliRunner().invoke(main, ["log", "export", *args])
    return result.exit_code, result.stdout, result.stderr


def test_export_prints_rules_events_as_json_lines_without_notes(tmp_path: Path, clock: FakeClock) -> None:
    import json

    path = tmp_path / "log.db"
    with EventLog(path, clock) as log:
        log.append(
            "t1",
            {"event": "open", "players": ["Ann", "Ben"], "stack": 18, "ante": 1, "first": "Ann"},
            "judge:1",
        )
        log.append("t1", {"event": "note:judge_login", "judge": "1"}, "judge:1")
        log.append("t1", {"event": "spin", "letter": "gimel"}, "machine", spin_id="s1")
        log.append("t1", {"event": "raise_ante", "by": 1}, "clock")
    code, out, _ = _export(str(path))
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert [e["event"] for e in lines] == ["open", "spin", "raise_ante"]
    assert lines[1] == {"event": "spin", "letter": "gimel"}


def test_export_with_several_tables_needs_table_option(tmp_path: Path, clock: FakeClock) -> None:
    path = tmp_path / "log.db"
    with EventLog(path, clock) as log:
        log.append("A", {"event": "spin", "letter": "nun"}, "machine")
        log.append("B", {"event": "spin", "letter": "hey"}, "machine")
    code, out, err = _export(str(path))
    assert code == 2
    assert out == ""
    assert "A, B" in err and "--table" in err
    code, out, _ = _export(str(path), "--table", "B")
    assert code == 0 and out == '{"event": "spin", "letter": "hey"}\n'
    code, _, err = _export(str(path), "--table", "C")
    assert code == 2 and "no table 'C'" in err


def test_export_of_missing_or_foreign_file_exits_2(tmp_path: Path) -> None:
    code, _, err = _export(str(tmp_path / "none.db"))
    assert code == 2 and "no event log" in err
    bad = tmp_path / "bad.db"
    bad.write_text("hello\n" * 1000)
    code, _, err = _export(str(bad))
    assert code == 2 and "not a Sevivon event log" in err


def test_export_is_a_script_that_replay_accepts_and_folds_to_the_logged_state(
    tmp_path: Path, clock: FakeClock
) -> None:
    import json

    from click.testing import CliRunner

    from controller.cli import main
    from controller.rules.events import (
        AdjustStack,
        Away,
        Back,
        OpenTable,
        RaiseAnte,
        ReplaceLetter,
        Spin,
        VoidSpin,
        event_to_json,
        parse_event,
    )
    from controller.rules.table import replay, state_to_json

    events = [
        OpenTable(("Ann", "Ben", "Cy"), stack=6, ante=1, first="Ann"),
        Spin("gimel"),
        Spin("shin"),
        RaiseAnte(by=1),
        Spin("hey"),
        Away("Ben"),
        Spin("nun"),
        VoidSpin("the dreidel hit a hand"),
        Spin("shin"),
        ReplaceLetter("gimel", "misread"),
        Back("Ben"),
        AdjustStack("Cy", 1, "miscounted gelt"),
        Spin("nun"),
    ]
    path = tmp_path / "log.db"
    with EventLog(path, clock) as log:
        for i, event in enumerate(events):
            log.append("t1", event_to_json(event), "judge:1" if i % 3 else "machine")
            log.append("t1", {"event": "note:verdict", "i": i, "valid": True}, "machine", spin_id=f"s{i}")
            log.append("t2", {"event": "spin", "letter": "nun"}, "machine")  # another table's stream
        folded = replay(parse_event(e.payload) for e in log.events("t1") if not e.is_note)
    code, script, err = _export(str(path), "--table", "t1")
    assert code == 0, err
    assert len(script.splitlines()) == len(events)
    result = CliRunner().invoke(main, ["replay", "-", "--json"], input=script)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == state_to_json(folded)
    assert folded.spins == 5 and folded.corrections == 3  # void, replace and adjust all took effect
