"""Teaching the live table: a taught still the machine reads as another letter is kept with a plain warning,
and a judge can remove a taught still (H56 found any label accepted silently, and no way to remove one)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from table_fakes import make_session, run

from controller.clock import FakeClock
from controller.rules.letters import Letter
from controller.table_session import CommandError, TableSession
from vision.recognizer import NO_LETTER, TOO_SMALL, LetterReading


class FakeReader:
    """Stands in for the generic recognizer: says ``reading`` of every picture."""

    def __init__(self, reading: LetterReading) -> None:
        self.reading = reading
        self.pictures = 0

    def read(self, image: Any, pose: Any = None, background_bgr: Any = None) -> LetterReading:
        self.pictures += 1
        return self.reading


def reading(letter: Letter | None, confidence: float, reason: str = "", pose: Any = "pose") -> LetterReading:
    return LetterReading(letter, confidence, {}, pose, reason)


def taught_session(tmp_path: Path, clock: FakeClock, said: LetterReading):  # type: ignore[no-untyped-def]
    session, _ = make_session(tmp_path, clock, '[table]\nfirst = "Ann"\n', sim=False)
    run(session, clock, 2)
    session._enroll_reader = FakeReader(said)  # noqa: SLF001
    return session


def test_a_still_read_as_another_letter_is_kept_with_a_plain_warning(tmp_path: Path, clock: FakeClock) -> None:
    session = taught_session(tmp_path, clock, reading(Letter.PE, 0.982))
    reply = session.command("enroll", {"letter": "gimel"}, "judge:zoe")
    assert reply == ("learned gimel (1 still); note: the machine reads this picture as pe (0.98): "
                     "check the letter, or remove it (gimel_1.png)")
    assert (tmp_path / "enroll" / "gimel_1.png").is_file()
    note = [e.payload for e in session.log.events(session.table) if e.name == "note:enroll"][-1]
    assert note["machine_reads"] == "pe" and note["machine_confidence"] == 0.982


def test_a_still_with_no_dreidel_is_kept_with_a_warning(tmp_path: Path, clock: FakeClock) -> None:
    session = taught_session(tmp_path, clock, reading(None, 0.0, "no dreidel found", pose=None))
    reply = session.command("enroll", {"letter": "nun"}, "judge:zoe")
    assert reply == ("learned nun (1 still); note: the machine finds no dreidel in this picture: "
                     "check the letter, or remove it (nun_1.png)")


def test_a_still_whose_face_is_too_small_is_kept_with_a_warning(tmp_path: Path, clock: FakeClock) -> None:
    """The reader reads no letter on a face under the size it reads Nun and Gimel at: the judge is told why."""
    session = taught_session(tmp_path, clock, reading(None, 0.0, f"a face 12 px wide, under 14 px: {TOO_SMALL}"))
    reply = session.command("enroll", {"letter": "shin"}, "judge:zoe")
    assert reply == ("learned shin (1 still); note: the machine finds a face 12 px wide, under 14 px: too small to "
                     "read (a camera nearer the tray, or a larger dreidel, reads it): check the letter, or remove it "
                     "(shin_1.png)")


def test_a_still_whose_letter_is_too_faint_is_kept_with_a_warning(tmp_path: Path, clock: FakeClock) -> None:
    """The reader's own reason for a face under its contrast floor (a letter too faint, or none) names the warning."""
    session = taught_session(tmp_path, clock, reading(None, 0.0, NO_LETTER))
    reply = session.command("enroll", {"letter": "nun"}, "judge:zoe")
    assert reply == ("learned nun (1 still); note: the machine sees no letter, or one too faint to read, on this "
                     "picture's dreidel: check the letter, or remove it (nun_1.png)")
    assert (tmp_path / "enroll" / "nun_1.png").is_file()


@pytest.mark.parametrize("said", [reading(Letter.GIMEL, 0.99), reading(None, 0.6, "not sure enough")])
def test_a_clean_or_merely_unsure_still_keeps_the_plain_reply(tmp_path: Path, clock: FakeClock,
                                                               said: LetterReading) -> None:
    session = taught_session(tmp_path, clock, said)
    assert session.command("enroll", {"letter": "gimel"}, "judge:zoe") == "learned gimel (1 still)"
    assert session._enroll_reader.pictures == 1  # noqa: SLF001 - it was asked


def test_a_taught_still_can_be_removed_and_the_judge_is_taught_again(tmp_path: Path, clock: FakeClock) -> None:
    session = taught_session(tmp_path, clock, reading(Letter.GIMEL, 0.99))
    for _ in range(2):
        session.command("enroll", {"letter": "gimel"}, "judge:zoe")
    session.command("enroll", {"letter": "nun"}, "judge:zoe")
    assert [s["file"] for s in session.taught_stills()] == ["gimel_1.png", "gimel_2.png", "nun_1.png"]
    for bad, why in [("../events.sqlite", "not a taught still"), ("gimel_9.png", "no taught still gimel_9.png"),
                     ("", "file is required"), ("shin_x.png", "not a taught still")]:
        with pytest.raises(CommandError, match=why):
            session.command("unenroll", {"file": bad}, "judge:zoe")
    assert session.command("unenroll", {"file": "gimel_1.png"}, "judge:zoe") == "removed gimel_1.png (1 gimel still left)"
    assert sorted(p.name for p in (tmp_path / "enroll").iterdir()) == ["gimel_2.png", "nun_1.png"]
    removed = [e for e in session.log.events(session.table) if e.name == "note:unenroll"]
    assert [(e.actor, e.payload["file"], e.payload["letter"]) for e in removed] == [("judge:zoe", "gimel_1.png", "gimel")]
    # the next still does not overwrite the kept gimel_2.png
    assert session.command("enroll", {"letter": "gimel"}, "judge:zoe") == "learned gimel (2 stills)"
    assert sorted(p.name for p in (tmp_path / "enroll").iterdir()) == ["gimel_2.png", "gimel_3.png", "nun_1.png"]
    # removing every still: the judge is taught again, now with none
    for name in ("gimel_2", "gimel_3.png", "nun_1.png"):
        session.command("unenroll", {"file": name}, "judge:zoe")
    run(session, clock, 2)
    assert session._judge is not None and session._judge.setup.enroll_dir is None  # noqa: SLF001


def console_client(session: TableSession, tmp_path: Path, clock: FakeClock) -> Any:
    """A test client of the table's web app, with the judge password of ``test_web_routes`` (not logged in)."""
    from test_web_routes import PASSWORD

    from web.app import create_app
    from web.auth import PasswordStore

    store = PasswordStore(tmp_path / "judge.pw")
    store.set(PASSWORD)
    app = create_app(session, passwords=store, secret_key=b"k" * 32, clock=clock, session_minutes=30,
                     login_attempts=3, login_window_s=60)
    app.testing = True
    return app.test_client()


def test_the_console_lists_taught_stills_shows_them_and_removes_one(tmp_path: Path, clock: FakeClock) -> None:
    from test_web_routes import judge_token

    session = taught_session(tmp_path, clock, reading(Letter.PE, 0.98))
    session.command("enroll", {"letter": "gimel"}, "judge:zoe")
    c = console_client(session, tmp_path, clock)
    assert c.get("/judge/enroll/gimel_1.png").status_code in (302, 303)  # judges only
    token = judge_token(c)
    page = c.get("/judge").get_data(as_text=True)
    assert 'href="/judge/enroll/gimel_1.png"' in page and 'value="gimel_1.png"' in page
    r = c.get("/judge/enroll/gimel_1.png")
    assert r.status_code == 200 and r.mimetype == "image/png" and r.data[:4] == b"\x89PNG"
    assert c.get("/judge/enroll/events.sqlite").status_code == 404
    r = c.post("/api/actions/unenroll", data={"csrf_token": token, "file": "gimel_1.png", "next": "/judge"})
    assert r.status_code == 303
    assert not (tmp_path / "enroll" / "gimel_1.png").exists()
    assert "removed gimel_1.png" in c.get("/judge").get_data(as_text=True)
