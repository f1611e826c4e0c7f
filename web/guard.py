"""Who is asking: the judge's session, its idle timeout and the CSRF check, for every view."""

from __future__ import annotations

from typing import Any

from flask import current_app, request, session

from web.auth import csrf_matches, new_csrf_token


def ext() -> dict[str, Any]:
    """The objects ``create_app`` was given."""
    return current_app.extensions["sevivon"]  # type: ignore[no-any-return]


def table() -> Any:
    """The table session."""
    return ext()["session"]


def now() -> float:
    """Wall time on the app's clock."""
    return float(ext()["clock"].wall())


def csrf_token() -> str:
    """This browser session's CSRF token (made on first use)."""
    token = session.get("csrf")
    if not token:
        token = new_csrf_token()
        session["csrf"] = token
    return str(token)


def current_judge(active: bool = True) -> str | None:
    """The logged-in judge's name, or None. A login idle for too long has expired.

    ``active``: this request is the judge's doing (a page, a form), so it keeps the login alive. A passive
    one (the console's live picture, reloaded every 2 s by the page itself) only checks the login: it must
    neither keep an unattended console logged in forever nor rewrite the session cookie. A response that
    rewrites the cookie carries the session as it was when its request was sent; arriving after a form's
    reply, it would put back the cookie without the form's flash message (the void's "voided" vanished so
    under load in the browser test).
    """
    name = session.get("judge")
    if not name:
        return None
    seen = float(session.get("seen", 0.0))
    if now() - seen > ext()["session_s"]:
        if active:
            session.pop("judge", None)
            session.pop("seen", None)
        return None
    if active:
        session["seen"] = now()
    return str(name)


def csrf_ok() -> bool:
    """The request carries this session's CSRF token (form field or ``X-CSRF-Token`` header)."""
    given = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token")
    if given is None and request.is_json:
        body = request.get_json(silent=True)
        if isinstance(body, dict):
            given = body.get("csrf_token")
    return csrf_matches(session.get("csrf"), given)


def wants_json() -> bool:
    """The client asked for JSON (an API call), not an HTML page (a form)."""
    if request.is_json:
        return True
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return best == "application/json" and request.accept_mimetypes[best] > request.accept_mimetypes["text/html"]
