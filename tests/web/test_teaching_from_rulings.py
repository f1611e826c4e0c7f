"""A judge's ruling teaches the table: when the machine could not read a valid spin's letter and the judge gives
it (``confirm`` with ``teach``), the spin's resting picture becomes a taught still of that letter, so the next time
that face lands the table reads it. Never a face the generic reader clearly reads as another letter, never past
``RULING_TEACHES_UP_TO`` stills of a letter, and only when the judge asks (the console's box is ticked)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from table_fakes import Verdict, make_session, run
from test_teaching import FakeReader, console_client, reading

from controller.clock import FakeClock
from controller.evidence import SpinEvidence
from controller.rules.letters import Letter
from controller.table_commands import RULING_TEACHES_UP_TO
from controller.table_session import TableSession
from vision.recognizer import LetterReading


def rest_picture(seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 255, (60, 80, 3), dtype=np.uint8)


def evidence(rest: np.ndarray | None) -> SpinEvidence:
    return SpinEvidence(still=None, timeline=np.zeros((10, 10, 3), np.uint8), rest_image=rest)


def unread_spin(session: TableSession, world, clock: FakeClock, rest: np.ndarray | None,  # type: ignore[no-untyped-def]
                letter: Letter | None = None) -> str:
    """A valid spin whose letter goes to a judge; returns its spin id."""
    world.next_verdicts = [Verdict(True, letter, ["unreadable"], needs_judge=True, evidence=evidence(rest))]
    world.launch()
    run(session, clock, 2)
    a = session.snapshot()["awaiting_judge"]
    assert a is not None and a["letter"] == (letter.value if letter else None)
    return str(a["spin_id"])


def session_with_world(tmp_path: Path, clock: FakeClock, said: LetterReading | None = None):  # type: ignore[no-untyped-def]
    """A table whose generic reader (the one that checks a taught still) says ``said`` of every picture (by
    default: not sure enough, as of a face it could not read)."""
    session, world = make_session(tmp_path, clock, '[table]\nfirst = "Ann"\n', sim=False)
    run(session, clock, 2)
    session._enroll_reader = FakeReader(said or reading(None, 0.7, "not sure enough"))  # noqa: SLF001
    return session, world


def taught_files(tmp_path: Path) -> list[str]:
    folder = tmp_path / "enroll"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def test_the_ruling_on_an_unread_letter_teaches_the_table_that_face(tmp_path: Path, clock: FakeClock) -> None:
    session, world = session_with_world(tmp_path, clock)
    rest = rest_picture()
    spin_id = unread_spin(session, world, clock, rest)
    reply = session.command("confirm", {"spin_id": spin_id, "letter": "nun", "teach": "yes"}, "judge:zoe")
    assert reply == "Ann: nun confirmed; learned nun from this spin (1 still; remove it under Teach: nun_1.png)"
    assert np.array_equal(cv2.imread(str(tmp_path / "enroll" / "nun_1.png")), rest)  # the picture, as taken
    note = [e for e in session.log.events(session.table) if e.name == "note:enroll"][-1]
    assert (note.actor, note.payload["letter"], note.payload["spin_id"]) == ("judge:zoe", "nun", spin_id)
    assert session.snapshot()["last_spin"]["letter"] == "nun"  # the ruling counts as before
    # the running judge is given the taught still before the next spin
    run(session, clock, 2)
    assert session._judge is not None and session._judge.setup.enroll_dir == tmp_path / "enroll"  # noqa: SLF001
    session.evidence.flush()
    assert np.array_equal(cv2.imread(str(tmp_path / "evidence" / spin_id / "rest.png")), rest)


def test_without_teach_the_ruling_only_settles_the_spin(tmp_path: Path, clock: FakeClock) -> None:
    session, world = session_with_world(tmp_path, clock)
    spin_id = unread_spin(session, world, clock, rest_picture())
    assert session.command("confirm", {"spin_id": spin_id, "letter": "nun"}, "judge:zoe") == "Ann: nun confirmed"
    assert taught_files(tmp_path) == []


def test_a_letter_the_machine_read_is_not_taught(tmp_path: Path, clock: FakeClock) -> None:
    """A verdict with the machine's letter (sent to a judge for its timing, say) keeps no resting picture."""
    session, world = session_with_world(tmp_path, clock)
    spin_id = unread_spin(session, world, clock, None, Letter.HEY)
    assert session.command("confirm", {"spin_id": spin_id, "teach": "yes"}, "judge:zoe") == "Ann: hey confirmed"
    assert taught_files(tmp_path) == []


def test_a_face_the_machine_reads_as_another_letter_is_not_taught(tmp_path: Path, clock: FakeClock) -> None:
    session, world = session_with_world(tmp_path, clock, reading(Letter.GIMEL, 0.991))
    spin_id = unread_spin(session, world, clock, rest_picture())
    reply = session.command("confirm", {"spin_id": spin_id, "letter": "nun", "teach": "on"}, "judge:zoe")
    assert reply == ("Ann: nun confirmed; not learned: the machine reads this picture as gimel (0.99); teach it under "
                     "Teach if you are sure")
    assert taught_files(tmp_path) == [] and session.snapshot()["last_spin"]["letter"] == "nun"


def test_a_picture_with_no_dreidel_is_not_taught(tmp_path: Path, clock: FakeClock) -> None:
    session, world = session_with_world(tmp_path, clock, reading(None, 0.0, "no dreidel found", pose=None))
    spin_id = unread_spin(session, world, clock, rest_picture())
    reply = session.command("confirm", {"spin_id": spin_id, "letter": "pe", "teach": True}, "judge:zoe")
    assert reply.endswith("not learned: the machine finds no dreidel in this picture; teach it under Teach if you "
                          "are sure")
    assert taught_files(tmp_path) == []


def test_rulings_teach_a_letter_up_to_a_few_stills(tmp_path: Path, clock: FakeClock) -> None:
    session, world = session_with_world(tmp_path, clock)
    (tmp_path / "enroll").mkdir()
    for k in range(1, RULING_TEACHES_UP_TO):
        cv2.imwrite(str(tmp_path / "enroll" / f"shin_{k}.png"), rest_picture(k))
    spin_id = unread_spin(session, world, clock, rest_picture(40))
    reply = session.command("confirm", {"spin_id": spin_id, "letter": "shin", "teach": "yes"}, "judge:zoe")
    assert reply.endswith(f"learned shin from this spin ({RULING_TEACHES_UP_TO} stills; remove it under Teach: "
                          f"shin_{RULING_TEACHES_UP_TO}.png)")
    spin_id = unread_spin(session, world, clock, rest_picture(41))
    reply = session.command("confirm", {"spin_id": spin_id, "letter": "shin", "teach": "yes"}, "judge:zoe")
    assert reply.endswith(f"not learned: {RULING_TEACHES_UP_TO} shin stills are taught already")
    assert len(taught_files(tmp_path)) == RULING_TEACHES_UP_TO


def test_after_a_restart_the_ruling_teaches_from_the_saved_picture(tmp_path: Path, clock: FakeClock) -> None:
    session, world = session_with_world(tmp_path, clock)
    rest = rest_picture(7)
    spin_id = unread_spin(session, world, clock, rest)
    session.evidence.flush()
    session._rest_picture = None  # noqa: SLF001 - what a restarted table holds in memory
    reply = session.command("confirm", {"spin_id": spin_id, "letter": "gimel", "teach": "yes"}, "judge:zoe")
    assert reply.endswith("learned gimel from this spin (1 still; remove it under Teach: gimel_1.png)")
    assert np.array_equal(cv2.imread(str(tmp_path / "enroll" / "gimel_1.png")), rest)
    # the evidence of a spin kept no resting picture: nothing to learn from, said so
    spin_id = unread_spin(session, world, clock, None)
    reply = session.command("confirm", {"spin_id": spin_id, "letter": "gimel", "teach": "yes"}, "judge:zoe")
    assert reply.endswith("not learned: this spin has no resting picture")


def test_the_console_offers_to_teach_only_an_unread_letter(tmp_path: Path, clock: FakeClock) -> None:
    from test_web_routes import judge_token

    session, world = session_with_world(tmp_path, clock)
    c = console_client(session, tmp_path, clock)
    token = judge_token(c)
    spin_id = unread_spin(session, world, clock, rest_picture())
    page = c.get("/judge").get_data(as_text=True)
    assert 'name="teach" value="yes" checked' in page
    r = c.post("/api/actions/confirm", data={"csrf_token": token, "spin_id": spin_id, "letter": "hey",
                                             "teach": "yes", "next": "/judge"})
    assert r.status_code == 303 and taught_files(tmp_path) == ["hey_1.png"]
    assert '<p class="flash flash-ok" role="status">Ann: hey confirmed; learned hey' in c.get("/judge").get_data(as_text=True)
    unread_spin(session, world, clock, None, Letter.HEY)
    assert 'name="teach"' not in c.get("/judge").get_data(as_text=True)
    # a face not taught is said in amber, as a taught still the machine doubts
    session._enroll_reader = FakeReader(reading(Letter.PE, 0.97))  # noqa: SLF001
    session.command("confirm", {"letter": "hey"}, "judge:zoe")
    spin_id = unread_spin(session, world, clock, rest_picture(2))
    c.post("/api/actions/confirm", data={"csrf_token": token, "spin_id": spin_id, "letter": "gimel", "teach": "yes",
                                         "next": "/judge"})
    assert '<p class="flash flash-warn" role="status">Cy: gimel confirmed; not learned: the machine reads this ' \
        'picture as pe (0.97)' in c.get("/judge").get_data(as_text=True)


def test_a_ruling_stands_when_its_face_cannot_be_written(tmp_path: Path, clock: FakeClock) -> None:
    """The spin is settled before the face is taught: a taught still that cannot be written costs only the teaching."""
    session, world = session_with_world(tmp_path, clock)
    spin_id = unread_spin(session, world, clock, rest_picture())
    (tmp_path / "enroll").write_text("not a folder")  # the enroll folder cannot be made
    reply = session.command("confirm", {"spin_id": spin_id, "letter": "nun", "teach": "yes"}, "judge:zoe")
    assert reply.startswith("Ann: nun confirmed; not learned: ")
    snap = session.snapshot()
    assert snap["last_spin"]["letter"] == "nun" and snap["awaiting_judge"] is None
