"""Property: whatever judges do (allowed or refused), the table shown equals the replay of its log."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from table_fakes import make_session

from controller.clock import FakeClock
from controller.rules.events import parse_event
from controller.rules.table import replay, state_to_json
from controller.table_session import CommandError

PLAYERS = ["Ann", "Ben", "Cy"]
letters = st.sampled_from(["nun", "gimel", "hey", "shin", "pe", "aleph"])
players = st.sampled_from([*PLAYERS, "Zed"])
commands = st.one_of(
    st.tuples(st.just("spin"), st.fixed_dictionaries({"letter": letters})),
    st.tuples(st.just("respin"), st.fixed_dictionaries({"reason": st.sampled_from(["short", ""])})),
    st.tuples(st.just("void"), st.fixed_dictionaries({"reason": st.just("hit a cup")})),
    st.tuples(st.just("replace"), st.fixed_dictionaries({"letter": letters, "reason": st.just("misread")})),
    st.tuples(st.sampled_from(["away", "back"]), st.fixed_dictionaries({"player": players})),
    st.tuples(st.just("raise_ante"), st.fixed_dictionaries({"by": st.integers(-1, 3)})),
    st.tuples(st.just("adjust_stack"), st.fixed_dictionaries(
        {"player": players, "delta": st.integers(-5, 5), "reason": st.just("count")})),
    st.tuples(st.just("clock"), st.fixed_dictionaries({"do": st.sampled_from(["pause", "resume"])})),
    st.tuples(st.just("nominate"), st.fixed_dictionaries({"player": players, "spun_by": st.sampled_from(["launcher", ""])})),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(commands, min_size=1, max_size=25))
def test_the_table_is_always_the_replay_of_its_log(script: list[tuple[str, dict[str, object]]]) -> None:
    clock = FakeClock()
    # a TemporaryDirectory, not tmp_path: hypothesis runs the body many times per test, and each example
    # needs a fresh log (mkdtemp left one folder per example behind in /tmp)
    with tempfile.TemporaryDirectory(prefix="sevivon-prop-") as data:
        _play(script, clock, Path(data))


def _play(script: list[tuple[str, dict[str, object]]], clock: FakeClock, data: Path) -> None:
    session, _ = make_session(data, clock, '[table]\nfirst = "Ann"\n', sim=False)
    try:
        for action, params in script:
            before = session.snapshot()
            n = len(session.log.events(session.table))
            try:
                session.command(action, params, "judge:prop")
            except CommandError:
                after = session.snapshot()
                assert len(session.log.events(session.table)) == n, f"refused {action} logged something"
                assert {k: after[k] for k in ("players", "pot", "ante", "next", "spins")} == \
                    {k: before[k] for k in ("players", "pot", "ante", "next", "spins")}
            events = [parse_event(e.payload) for e in session.log.events(session.table) if not e.is_note]
            expected = state_to_json(replay(events, session.rules_config))
            snap = session.snapshot()
            assert {k: snap[k] for k in expected} == expected
            assert sum(p["stack"] for p in snap["players"]) + snap["pot"] == 9  # gelt is conserved
    finally:
        session.log.close()
