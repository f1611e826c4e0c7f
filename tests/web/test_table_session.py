"""The live table session on fakes: verdicts, judges, degraded modes, the clock, restarts."""

from __future__ import annotations

from pathlib import Path

import pytest
from table_fakes import FakeWorld, Phase, Verdict, make_session, run

from controller.clock import FakeClock
from controller.rules.events import parse_event
from controller.rules.letters import Letter
from controller.rules.table import replay, state_to_json
from controller.table_session import CommandError, Stage


def replayed(session) -> dict:  # type: ignore[no-untyped-def]
    events = [parse_event(e.payload) for e in session.log.events(session.table) if not e.is_note]
    return state_to_json(replay(events, session.rules_config))


def test_opening_spin_tip_direction_picks_the_first_spinner(tmp_path: Path, clock: FakeClock) -> None:
    session, world = make_session(tmp_path, clock)
    world.next_verdicts = [Verdict(True, Letter.NUN, tip_bearing_deg=35.0)]  # 125 from the top: Ben (120)
    assert session.stage is Stage.CHOOSING_FIRST
    run(session, clock, 20)
    assert world.launches >= 1
    assert session.stage is Stage.PLAYING
    assert session.state is not None and session.state.current == "Ben"
    assert any(e.name == "set_first" and e.actor == "machine" for e in session.log.events(session.table))


def test_without_a_tip_reading_a_judge_picks(tmp_path: Path, clock: FakeClock) -> None:
    session, world = make_session(tmp_path, clock, "[table]\n" if False else "", sim=False)
    world.launch()  # a person spins the opening spin
    session.step()
    snap = session.snapshot()
    assert snap["phase"] == "judge_needed" and snap["awaiting_judge"]["purpose"] == "first"
    with pytest.raises(CommandError, match="not seated"):
        session.command("first", {"player": "Zed"}, "judge:ann")
    session.command("first", {"player": "Cy"}, "judge:ann")
    assert session.state is not None and session.state.current == "Cy"
    assert session.snapshot()["awaiting_judge"] is None


def test_simulated_table_plays_itself_to_a_winner(tmp_path: Path, clock: FakeClock) -> None:
    session, world = make_session(tmp_path, clock)
    letters = [Letter.GIMEL, Letter.SHIN, Letter.HEY, Letter.NUN, Letter.SHIN, Letter.GIMEL] * 30
    world.next_verdicts = [Verdict(True, x) for x in letters]
    world.next_verdicts.insert(3, Verdict(False, None, ["short"], stable_s=2.1))
    for _ in range(4000):
        clock.advance(0.1)
        session.step()
        if session.stage is Stage.FINISHED:
            break
    assert session.stage is Stage.FINISHED
    snap = session.snapshot()
    assert snap["winner"] is not None and snap["phase"] == "finished"
    assert {k: snap[k] for k in replayed(session)} == replayed(session)
    names = [e.name for e in session.log.events(session.table)]
    assert "invalid_spin" in names and names.count("spin") == snap["spins"]


def test_invalid_verdict_asks_the_same_spinner_to_respin(tmp_path: Path, clock: FakeClock) -> None:
    session, world = make_session(tmp_path, clock, '[table]\nfirst = "Ann"\n', sim=False)
    world.next_verdicts = [Verdict(False, None, ["short"], stable_s=2.4)]
    world.launch()
    run(session, clock, 2)
    snap = session.snapshot()
    assert snap["next"] == "Ann" and snap["invalid_spins"] == 1
    assert snap["message"] == "Ann: spin again" and snap["recent"][0]["reason_text"] == "too short"


def test_judge_needed_waits_then_the_judge_confirms_or_rejects(tmp_path: Path, clock: FakeClock) -> None:
    session, world = make_session(tmp_path, clock, '[table]\nfirst = "Ann"\n', sim=False)
    world.next_verdicts = [Verdict(True, None, ["unreadable"], needs_judge=True),
                           Verdict(True, Letter.HEY, ["low_confidence"], needs_judge=True, confidence=0.4)]
    world.launch()
    run(session, clock, 50)  # nobody decides: it keeps waiting
    a = session.snapshot()["awaiting_judge"]
    assert a is not None and a["player"] == "Ann" and a["letter"] is None
    with pytest.raises(CommandError, match="say which letter"):
        session.command("confirm", {"spin_id": a["spin_id"]}, "judge:zoe")
    with pytest.raises(CommandError, match="not waiting"):
        session.command("confirm", {"spin_id": "nope", "letter": "gimel"}, "judge:zoe")
    session.command("confirm", {"spin_id": a["spin_id"], "letter": "gimel"}, "judge:zoe")
    snap = session.snapshot()
    assert snap["last_spin"]["letter"] == "gimel" and snap["last_spin"]["player"] == "Ann"
    assert snap["next"] == "Ben"
    world.launch()
    run(session, clock, 2)
    b = session.snapshot()["awaiting_judge"]
    assert b["letter"] == "hey"
    session.command("reject", {"spin_id": b["spin_id"], "reason": "hand in the tray"}, "judge:zoe")
    snap = session.snapshot()
    assert snap["next"] == "Ben" and snap["invalid_spins"] == 1 and snap["awaiting_judge"] is None
    actors = {e.actor for e in session.log.events(session.table) if not e.is_note}
    assert "judge:zoe" in actors


def test_camera_failure_means_manual_entry_and_recovers(tmp_path: Path, clock: FakeClock) -> None:
    session, world = make_session(tmp_path, clock, '[table]\nfirst = "Ann"\n', sim=False)
    run(session, clock, 2)
    assert session.snapshot()["banner"] == "no IMU: judging by camera only"
    world.camera_broken = True
    run(session, clock, 2)
    snap = session.snapshot()
    assert snap["phase"] == "manual" and "camera not working" in snap["banner"]
    assert snap["health"]["camera"]["status"] == "failed"
    assert any(f.device == "camera" and not f.recovered for f in session.faults())
    session.command("spin", {"letter": "shin"}, "judge:zoe")
    assert session.snapshot()["last_spin"]["letter"] == "shin"
    world.camera_broken = False
    run(session, clock, 30)  # retried every 2 s
    snap = session.snapshot()
    assert snap["health"]["camera"]["status"] == "ok" and snap["phase"] == "ready"
    assert any(f.device == "camera" and f.recovered for f in session.faults())
    assert any(e.name == "note:fault" for e in session.log.events(session.table))


def test_bad_commands_change_nothing(tmp_path: Path, clock: FakeClock) -> None:
    session, _ = make_session(tmp_path, clock, '[table]\nfirst = "Ann"\n', sim=False)
    before = len(session.log.events(session.table))
    for action, params, needle in [
        ("spin", {"letter": "aleph"}, "unknown letter"),
        ("spin", {"letter": "nun", "player": "Ben"}, "Ann's turn"),
        ("void", {"reason": "x"}, "no spin to void"),
        ("void", {}, "reason is required"),
        ("adjust_stack", {"player": "Ann", "delta": "lots", "reason": "r"}, "whole number"),
        ("adjust_stack", {"player": "Ann", "delta": "-50", "reason": "r"}, "has only"),
        ("raise_ante", {}, "exactly one"),
        ("away", {"player": "Zed"}, "not seated"),
        ("clock", {"do": "explode"}, "pause"),
        ("explode", {}, "unknown action"),
    ]:
        with pytest.raises(CommandError, match=needle):
            session.command(action, params, "judge:zoe")
    with pytest.raises(CommandError, match="invalid actor"):
        session.command("away", {"player": "Ann"}, "hacker")
    assert len(session.log.events(session.table)) == before


def test_ante_clock_raises_and_pauses(tmp_path: Path, clock: FakeClock) -> None:
    session, _ = make_session(tmp_path, clock, '[table]\nfirst = "Ann"\n[ante_clock]\ninterval_s = 10\n', sim=False)
    run(session, clock, 101)
    raises = [e for e in session.log.events(session.table) if e.name == "raise_ante"]
    assert raises and all(e.actor == "clock" for e in raises)
    assert session.snapshot()["ante_after_turn"] == 2
    session.command("clock", {"do": "pause"}, "judge:zoe")
    run(session, clock, 300)
    assert len([e for e in session.log.events(session.table) if e.name == "raise_ante"]) == len(raises)
    assert session.snapshot()["clock"]["status"] == "paused"


def test_launcher_and_helpers_spin_for_nominated_players(tmp_path: Path, clock: FakeClock) -> None:
    session, world = make_session(
        tmp_path, clock, '[table]\nfirst = "Ann"\nspun_by = { Ann = "launcher", Ben = "Dana" }\n')
    world.next_verdicts = [Verdict(True, Letter.NUN), Verdict(True, Letter.NUN)]
    run(session, clock, 60)
    spins = [e.payload for e in session.log.events(session.table) if e.name == "spin"]
    assert spins[0]["player"] == "Ann" and spins[0]["spun_by"] == "launcher"
    assert spins[1]["player"] == "Ben" and spins[1]["spun_by"] == "Dana"
    assert session.launcher.launches >= 1  # type: ignore[union-attr]


def test_restart_restores_state_waiting_verdict_nominees_and_paused_clock(tmp_path: Path, clock: FakeClock) -> None:
    session, world = make_session(tmp_path, clock, '[table]\nfirst = "Ann"\n', sim=False)
    world.launch()
    run(session, clock, 2)
    session.command("nominate", {"player": "Cy", "spun_by": "launcher"}, "judge:zoe")
    session.command("clock", {"do": "pause"}, "judge:zoe")
    world.next_verdicts = [Verdict(True, Letter.HEY, ["low_confidence"], needs_judge=True)]
    world.launch()
    run(session, clock, 2)
    before = session.snapshot()
    counter = session._spin_counter  # noqa: SLF001
    session.log.close()
    again, _ = make_session(tmp_path, clock, '[table]\nfirst = "Ann"\n', sim=False, world=FakeWorld(clock))
    after = again.snapshot()
    for key in ("players", "pot", "ante", "next", "spins", "awaiting_judge", "nominees"):
        if key == "awaiting_judge":
            assert after[key]["spin_id"] == before[key]["spin_id"]
        else:
            assert after[key] == before[key], key
    assert again._spin_counter == counter  # noqa: SLF001 - spin ids continue where they stopped
    assert after["clock"]["status"] == "paused"
    assert after["clock"]["remaining_s"] == pytest.approx(before["clock"]["remaining_s"], abs=0.01)


def test_a_spin_the_judge_missed_is_entered_by_the_simulated_judge_once(tmp_path: Path, clock: FakeClock) -> None:
    session, world = make_session(tmp_path, clock, '[table]\nfirst = "Ann"\n')
    world.judge_blind = True
    world.next_verdicts = [Verdict(True, Letter.GIMEL)]
    for _ in range(400):
        clock.advance(0.1)
        session.step()
        if session.snapshot()["spins"]:
            break
    snap = session.snapshot()
    assert snap["spins"] == 1 and snap["last_spin"]["letter"] == "gimel" and snap["last_spin"]["player"] == "Ann"
    assert any("gave no verdict" in f.message for f in session.faults())
    entered = [e for e in session.log.events(session.table) if e.name == "spin"]
    assert entered[0].actor == "judge:sim"
    world.judge_blind = False
    world.pending.append(Verdict(True, Letter.NUN, release_t=clock.monotonic() - 8))  # the machine, too late
    session.step()
    assert session.snapshot()["spins"] == 1 and session.snapshot()["next"] == "Ben"


def test_imu_loss_switches_the_judge_to_camera_only_and_back(tmp_path: Path, clock: FakeClock) -> None:
    from table_fakes import FakeImu

    from controller.devices import ImuSlot

    imu = FakeImu()
    session, world = make_session(tmp_path, clock, '[table]\nfirst = "Ann"\n', sim=False)
    session.imu = ImuSlot(lambda: imu, clock, retry_s=1.0, on_change=session._device_changed)  # noqa: SLF001
    session._judge_dirty = True  # noqa: SLF001
    run(session, clock, 3)
    assert session._judge.setup.imu is True and session.snapshot()["banner"] is None  # noqa: SLF001
    imu.healthy = False
    run(session, clock, 3)
    snap = session.snapshot()
    assert snap["banner"] == "IMU not answering: judging by camera only"
    assert session._judge.setup.imu is False  # noqa: SLF001 - rebuilt camera-only
    imu.healthy = True
    run(session, clock, 3)
    assert session.snapshot()["banner"] is None and session._judge.setup.imu is True  # noqa: SLF001
    assert [f.recovered for f in session.faults() if f.device == "imu"] == [False, True]


def test_results_are_spoken(tmp_path: Path, clock: FakeClock) -> None:
    from controller.speech import Speaker

    said: list[str] = []
    session, world = make_session(tmp_path, clock, '[table]\nfirst = "Ann"\n', sim=False)
    session.speaker = Speaker(runner=lambda argv: said.append(argv[-1]) or 0, program="espeak-ng")
    world.next_verdicts = [Verdict(False, None, ["short"]), Verdict(True, Letter.GIMEL)]
    world.launch()
    run(session, clock, 2)
    world.launch()
    run(session, clock, 2)
    session.speaker.close()
    assert said == ["Ann, spin again: too short.", "Ann, gimel: takes 3."]


def test_spin_off_is_played_through_verdicts(tmp_path: Path, clock: FakeClock) -> None:
    # two players with 1 gelt left each: an all-ante at 2 would knock both out -> spin-off
    session, world = make_session(tmp_path, clock, "", sim=True, players='"Ann", "Ben"', stack=2)
    session.command("first", {"player": "Ann"}, "judge:zoe")
    session.command("raise_ante", {"to": "2"}, "judge:zoe")
    session.command("spin", {"letter": "nun"}, "judge:zoe")
    session.command("spin", {"letter": "nun"}, "judge:zoe")
    assert session.stage is Stage.SPIN_OFF and session.snapshot()["pending"] == {"spin_off": ["Ann", "Ben"]}
    world.next_verdicts = [Verdict(False, None, ["short"]), Verdict(True, Letter.GIMEL), Verdict(True, Letter.NUN)]
    for _ in range(600):
        clock.advance(0.1)
        session.step()
        if session.stage is Stage.FINISHED:
            break
    snap = session.snapshot()
    assert snap["winner"] == "Ann"
    assert [e.payload for e in session.log.events(session.table) if e.name == "spin_off"] == [
        {"event": "spin_off", "letters": {"Ann": "gimel", "Ben": "nun"}}]
    assert not [f for f in session.faults() if f.device == "table"]


def test_teach_and_calibrate_rebuild_the_judge(tmp_path: Path, clock: FakeClock) -> None:
    session, world = make_session(tmp_path, clock, '[table]\nfirst = "Ann"\n', sim=False)
    with pytest.raises(CommandError, match="no live camera picture"):
        session.command("enroll", {"letter": "gimel"}, "judge:zoe")
    run(session, clock, 2)
    assert session.command("enroll", {"letter": "gimel"}, "judge:zoe") == "learned gimel (1 still)"
    assert session.command("enroll", {"letter": "gimel"}, "judge:zoe") == "learned gimel (2 stills)"
    assert sorted(p.name for p in (tmp_path / "enroll").iterdir()) == ["gimel_1.png", "gimel_2.png"]
    with pytest.raises(CommandError, match="tray centre must lie in the 64x48 picture"):
        session.command("calibrate", {"tray_cx": "500", "tray_cy": "10", "tray_r": "20"}, "judge:zoe")
    with pytest.raises(CommandError, match="'Zed' is not seated"):
        session.command("calibrate", {"seat_Zed": "10"}, "judge:zoe")
    session.command("calibrate", {"tray_cx": "32", "tray_cy": "24", "tray_r": "20", "seat_Ben": "-90"}, "judge:zoe")
    run(session, clock, 2)
    judge = session._judge  # noqa: SLF001
    assert judge.setup.tray == (32.0, 24.0, 20.0) and judge.setup.enroll_dir == tmp_path / "enroll"
    assert judge.setup.frame_size == (64, 48)
    assert session.calibration.seats["Ben"] == 270.0
    saved = (tmp_path / "calibration.json").read_text()
    assert '"Ben": 270.0' in saved
    names = [e.name for e in session.log.events(session.table)]
    assert names.count("note:enroll") == 2 and "note:calibrate" in names


def test_a_judge_that_cannot_start_means_manual_entry_not_a_stall(tmp_path: Path, clock: FakeClock) -> None:
    session, world = make_session(tmp_path, clock, '[table]\nfirst = "Ann"\n')

    def broken(setup: object) -> object:
        raise RuntimeError("letter model missing")

    session._judge_builder = broken  # noqa: SLF001
    session._judge_dirty = True  # noqa: SLF001
    world.next_verdicts = [Verdict(True, Letter.HEY)]
    for _ in range(300):
        clock.advance(0.1)
        session.step()
        if session.snapshot()["spins"]:
            break
    snap = session.snapshot()
    assert snap["banner"].startswith("no spin judge: a judge enters spins by hand")
    assert snap["spins"] == 1 and snap["last_spin"]["letter"] == "hey"  # the simulated judge entered it
    assert any("could not start (letter model missing)" in f.message for f in session.faults())


def test_status_led_follows_the_table(tmp_path: Path, clock: FakeClock) -> None:
    shown: list[str] = []

    class Led:
        def show(self, state: str) -> None:
            shown.append(state)

    session, world = make_session(tmp_path, clock, '[table]\nfirst = "Ann"\n', sim=False)
    session.indicator = Led()
    world.next_verdicts = [Verdict(False, None, ["short"]), Verdict(True, Letter.NUN),
                           Verdict(True, None, ["unreadable"], needs_judge=True)]
    for _ in range(3):
        world.launch()
        run(session, clock, 2)
    world.camera_broken = True
    run(session, clock, 2)
    assert shown == ["spinning", "respin", "spinning", "valid", "spinning", "judge_needed", "fault"]


def test_a_judge_that_trips_is_replaced_and_reported_once(tmp_path: Path, clock: FakeClock) -> None:
    session, world = make_session(tmp_path, clock, '[table]\nfirst = "Ann"\n', sim=False)
    run(session, clock, 2)
    first = session._judge  # noqa: SLF001

    def explode(frame: object) -> list[object]:
        raise ZeroDivisionError("bad frame")

    first.feed_frame = explode  # type: ignore[union-attr]
    run(session, clock, 5)
    assert session._judge is not None and session._judge is not first  # noqa: SLF001
    tripped = [f for f in session.faults() if f.device == "judge"]
    assert len(tripped) == 1 and "ZeroDivisionError: bad frame" in tripped[0].message
    world.next_verdicts = [Verdict(True, Letter.GIMEL)]
    world.launch()
    run(session, clock, 2)
    assert session.snapshot()["last_spin"]["letter"] == "gimel"  # the table went on


def test_the_simulated_judge_waits_longer_while_a_person_judges(tmp_path: Path, clock: FakeClock) -> None:
    session, world = make_session(tmp_path, clock, '[table]\nfirst = "Ann"\n')  # judge_delay_s = 2
    session.wall_clock = clock
    session.note_login("judge:zoe", True, "127.0.0.1")
    world.next_verdicts = [Verdict(True, None, ["unreadable"], needs_judge=True)]
    run(session, clock, 20)  # launched and judged; waiting
    assert session.snapshot()["awaiting_judge"] is not None
    run(session, clock, 50)  # 5 s: the simulated judge would have decided by now, but a person is here
    assert session.snapshot()["awaiting_judge"] is not None
    run(session, clock, 100)  # 12 s = 6 x 2 s
    assert session.snapshot()["awaiting_judge"] is None


def test_the_display_does_not_ask_for_the_launcher_button_while_the_spin_is_under_way(tmp_path: Path,
                                                                                       clock: FakeClock) -> None:
    """H56: at 800x480 "Dov: press the button for the launcher" showed while the pill said WOBBLING."""
    session, _ = make_session(tmp_path, clock, '[table]\nfirst = "Ann"\nspun_by = { Ann = "launcher" }\n', sim=False)
    run(session, clock, 1)
    assert session.snapshot()["message"] == "Ann: press the button for the launcher"
    session._handle_judge_events([Phase("wobbling")])  # noqa: SLF001 - what the judge reports mid-spin
    snap = session.snapshot()
    assert snap["phase"] == "wobbling" and snap["message"] == "Ann is spinning (the launcher)"
    session._handle_judge_events([Phase("ready")])  # noqa: SLF001
    assert session.snapshot()["message"] == "Ann: press the button for the launcher"
