"""The judge's session cookie: only a change of the session rewrites it, and a passive request does not.

A browser keeps the cookie of whichever response came last. A request sent before a form's reply but answered
after it (the console's script, its SSE stream, the live picture reloading every 2 s) must not put back the
cookie as it was before the form: that cookie lacks the form's flash message ("voided", "Not done: ...").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from table_fakes import Verdict, make_session, run
from test_web_routes import PASSWORD, judge_token

from controller.clock import FakeClock
from controller.rules.letters import Letter
from controller.table_session import TableSession
from web.app import create_app
from web.auth import PasswordStore

COOKIE = "sevivon_judge"


@pytest.fixture
def table(tmp_path: Path, clock: FakeClock) -> TableSession:
    session, world = make_session(tmp_path, clock, '[table]\nfirst = "Ann"\n', sim=False)
    world.next_verdicts = [Verdict(True, Letter.GIMEL)]
    world.launch()
    run(session, clock, 3)
    return session


@pytest.fixture
def app(table: TableSession, tmp_path: Path, clock: FakeClock) -> Flask:
    store = PasswordStore(tmp_path / "judge.pw")
    store.set(PASSWORD)
    app = create_app(table, passwords=store, secret_key=b"k" * 32, clock=clock, session_minutes=30)
    app.testing = True
    return app


def cookie_of(client: FlaskClient) -> str:
    c = client.get_cookie(COOKIE)
    assert c is not None
    return c.value


def late_reply(app: Flask, cookie: str, path: str) -> str | None:
    """The cookie that the reply to ``path``, sent with ``cookie``, tells the browser to keep (None: no change).

    A second client stands for the same browser's request in flight: it is sent with the cookie of that moment.
    """
    other = app.test_client()
    other.set_cookie(COOKIE, cookie)
    r = other.get(path, buffered=False)  # the SSE stream never ends: its headers are the reply that matters
    sets = any(h.startswith(COOKIE + "=") for h in r.headers.getlist("Set-Cookie"))
    r.close()
    return cookie_of(other) if sets else None


@pytest.mark.parametrize("path", ["/static/judge.js", "/static/judge.css", "/api/events", "/api/state",
                                  "/judge/camera.jpg"])
def test_a_late_reply_does_not_wipe_a_forms_flash(app: Flask, table: TableSession, path: str) -> None:
    c = app.test_client()
    token = judge_token(c)
    before = cookie_of(c)  # the console was loaded: its script, stream and picture go out with this cookie
    r = c.post("/api/actions/void", data={"csrf_token": token, "reason": "the dreidel hit a cup"})
    assert r.status_code == 303
    late = late_reply(app, before, path)
    if late is not None:  # the browser would keep the late reply's cookie
        c.set_cookie(COOKIE, late)
    page = c.get("/judge").get_data(as_text=True)
    assert '<p class="flash flash-ok" role="status">spin of Ann voided' in page
    assert table.snapshot()["spins"] == 0


def test_the_live_picture_does_not_keep_an_idle_console_logged_in(app: Flask, clock: FakeClock) -> None:
    c = app.test_client()
    judge_token(c)
    for _ in range(31 * 60 // 2):  # the console reloads the picture every 2 s, for 31 minutes
        clock.advance(2.0)
        r = c.get("/judge/camera.jpg")
        if r.status_code != 200:
            break
    assert r.status_code == 401  # the picture stops once the login has expired
    assert c.get("/judge").status_code == 303  # the console asks for the password again


def test_pages_and_forms_keep_the_login_alive(app: Flask, clock: FakeClock) -> None:
    c = app.test_client()
    token = judge_token(c)
    for _ in range(4):
        clock.advance(20 * 60)
        assert c.get("/judge/camera.jpg").status_code == 200
        r = c.post("/api/actions/away", data={"csrf_token": token, "player": "Cy"})
        assert r.status_code == 303 and r.headers["Location"].endswith("/judge")
    assert c.get("/judge").status_code == 200
