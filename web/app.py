"""The Flask app factory: the table display, the JSON API with its SSE stream, and the judge console.

``create_app(session, ...)`` serves one :class:`~controller.table_session.TableSession`. Everything it
needs is passed in (the session, the password store, the clock that times logins out), so tests build
an app around a session on fakes and the production server builds the same app around the real table.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify, request

from controller.clock import Clock, SystemClock
from web.auth import LoginLimiter, PasswordStore


def create_app(
    session: Any,
    *,
    passwords: PasswordStore,
    secret_key: bytes,
    clock: Clock | None = None,
    session_minutes: float = 30.0,
    login_attempts: int = 5,
    login_window_s: float = 300.0,
    secure_cookies: bool = False,
) -> Flask:
    """The web app of one table.

    ``clock`` times judge sessions out and rate-limits logins (real time, even on a fast simulated
    table: a judge's idle minutes are the judge's, not the simulation's).
    """
    app = Flask(__name__, static_folder="static", template_folder="templates")
    app.config.update(
        SECRET_KEY=secret_key,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_SECURE=secure_cookies,
        SESSION_COOKIE_NAME="sevivon_judge",
        PERMANENT_SESSION_LIFETIME=timedelta(minutes=session_minutes),
        # Set the cookie only when the session changed. Flask's default re-sends a permanent session's
        # cookie on every response, static files and the SSE stream included, each with the session as its
        # request saw it: one that arrives after a form's reply puts back the cookie without the form's
        # flash (or, during a login, without the login).
        SESSION_REFRESH_EACH_REQUEST=False,
        MAX_CONTENT_LENGTH=64 * 1024,
        JSON_SORT_KEYS=False,
    )
    app.extensions["sevivon"] = {
        "session": session,
        "passwords": passwords,
        "clock": clock or SystemClock(),
        "session_s": session_minutes * 60.0,
        "limiter": LoginLimiter(clock or SystemClock(), login_attempts, login_window_s),
    }

    from web.api import api
    from web.judge_views import judge

    app.register_blueprint(api)
    app.register_blueprint(judge)

    @app.after_request
    def security_headers(response: Response) -> Response:
        # Everything is served from here (no CDN), so the policy can be strict.
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
            "connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
        )
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response

    @app.errorhandler(404)
    def not_found(e: Exception) -> Any:
        if request.path.startswith("/api/") or request.path.startswith("/evidence/"):
            return jsonify(error=f"nothing at {request.path}"), 404
        return e

    @app.errorhandler(413)
    def too_large(e: Exception) -> Any:
        return jsonify(error="request too large (at most 64 KiB)"), 413

    return app


def static_dir() -> Path:
    """Where the shipped static files are."""
    return Path(__file__).parent / "static"
