"""``sevivon replay``: stdin, comments, the human table and exit status 2 with the line named."""

from __future__ import annotations

import json

from click.testing import CliRunner

from controller.cli import main

SCRIPT = """
# a comment line, then a blank line

{"event": "open", "players": ["Ann", "Ben"], "stack": 2}   # trailing comments are fine
{"event": "spin", "letter": "shin"}
{"event": "spin", "letter": "gimel", "spun_by": "launcher"}
"""


def test_replay_reads_stdin_and_prints_the_contract_json() -> None:
    result = CliRunner().invoke(main, ["replay", "-", "--json"], input=SCRIPT)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert list(out) == ["players", "pot", "ante", "next", "winner", "spins", "pending"]
    assert out["winner"] == "Ben" and out["next"] is None and out["spins"] == 2
    assert out["players"] == [
        {"name": "Ann", "stack": 0, "status": "out", "place": 2},
        {"name": "Ben", "stack": 3, "status": "in", "place": 1},
    ]


def test_replay_without_json_prints_a_table_for_people() -> None:
    result = CliRunner().invoke(main, ["replay", "-"], input=SCRIPT)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["seat", "player", "stack", "status", "place"]
    assert lines[1].split() == ["1", "Ann", "0", "out", "2"]
    assert lines[2].split() == ["2", "Ben", "3", "in", "1"]
    assert "pot 1   ante 1   spins 2" in result.stdout
    assert "winner: Ben" in result.stdout
    assert "standings: 1 Ben, 2 Ann" in result.stdout


def test_text_after_an_event_is_an_error_naming_the_line() -> None:
    script = '{"event": "open", "players": ["Ann", "Ben"]}\n{"event": "spin", "letter": "nun"} nun\n'
    result = CliRunner().invoke(main, ["replay", "-", "--json"], input=script)
    assert result.exit_code == 2
    assert result.stderr.strip() == "<stdin>: line 2: unexpected text after the event: 'nun'"


def test_an_empty_script_exits_2() -> None:
    result = CliRunner().invoke(main, ["replay", "-", "--json"], input="# nothing\n\n")
    assert result.exit_code == 2
    assert 'the script has no events; it must start with an "open" event' in result.stderr


def test_a_json_value_that_is_not_an_object_exits_2() -> None:
    result = CliRunner().invoke(main, ["replay", "-"], input='["open"]\n')
    assert result.exit_code == 2
    assert "line 1: an event must be a JSON object, not list" in result.stderr
