"""The display page, the JSON API, the SSE stream, evidence files and the one door for every write."""

from __future__ import annotations

import re
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    send_from_directory,
)

from controller.table_session import CommandError
from web.guard import csrf_ok, current_judge, table, wants_json

api = Blueprint("api", __name__)

_SAFE = re.compile(r"[A-Za-z0-9_.-]+")


@api.get("/")
def display() -> str:
    """The table display: seats, stacks, pot, ante countdown, last spin, phase and standings."""
    return render_template("display.html", state=table().snapshot())


@api.get("/api/state")
def state() -> Response:
    """The replay output of the table plus the spin phase, the clock, hardware health and more."""
    return jsonify(table().snapshot())


@api.get("/api/events")
def events() -> Response:
    """Server-Sent Events: a ``state`` message with the whole table on every change."""
    session = table()
    sub = session.broker.subscribe()
    first = session.broker.message("state", session.snapshot())
    response = Response(sub.messages(first=first), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@api.get("/api/spins")
def spins() -> Response:
    """Every judged spin of the table, newest first, with its verdict and evidence file names."""
    return jsonify(spins=table().spins())


@api.get("/api/spins/<spin_id>")
def spin(spin_id: str) -> Response:
    """One spin: its verdict, evidence and the events it caused."""
    if not _SAFE.fullmatch(spin_id):
        return jsonify(error="a spin id has only letters, digits, '-', '_' and '.'"), 400  # type: ignore[return-value]
    found = table().spin(spin_id)
    if found is None:
        return jsonify(error=f"no spin {spin_id} at this table"), 404  # type: ignore[return-value]
    return jsonify(found)


@api.get("/api/fairness")
def fairness() -> Response:
    """Letter counts per dreidel with the chi-square test."""
    return jsonify(dreidels=[r.to_json() for r in table().fairness()])


@api.get("/evidence/<spin_id>/<name>")
def evidence(spin_id: str, name: str) -> Response:
    """An evidence file (still, clip, timeline) of a spin."""
    if not _SAFE.fullmatch(spin_id) or not _SAFE.fullmatch(name) or name.startswith("."):
        abort(404)
    folder = table().evidence_dir / spin_id
    if not (folder / name).is_file():
        abort(404)
    return send_from_directory(folder, name, max_age=3600)


@api.get("/api/log")
def who_did_what() -> Response:
    """The log of who did what (judges only)."""
    if current_judge() is None:
        return jsonify(error="log in as a judge to read the log"), 401  # type: ignore[return-value]
    entries = [{"seq": e.seq, "t": e.t, "actor": e.actor, "spin_id": e.spin_id, "payload": e.payload}
               for e in table().log_entries(500)]
    return jsonify(table=table().table, events=entries)


@api.post("/api/actions/<action>")
def act(action: str) -> Any:
    """Every write: judge session (401 without), CSRF token (403 without), then the table's command."""
    judge = current_judge()
    as_json = wants_json()
    if judge is None:
        if as_json:
            return jsonify(error="log in as a judge first"), 401
        return render_template("message.html", title="Not logged in",
                               text="Your judge session has ended. Log in again.", link="/judge/login"), 401
    if not csrf_ok():
        if as_json:
            return jsonify(error="missing or wrong CSRF token: reload the judge page"), 403
        return render_template("message.html", title="Form expired",
                               text="This form is stale (missing or wrong CSRF token). Reload the judge page.",
                               link="/judge"), 403
    if request.is_json:
        body = request.get_json(silent=True)
        if not isinstance(body, dict):
            return jsonify(error="send a JSON object"), 400
        params = {k: v for k, v in body.items() if k != "csrf_token"}
    else:
        params = {k: v for k, v in request.form.items() if k not in ("csrf_token", "next")}
    try:
        result = table().command(action, params, f"judge:{judge}")
    except CommandError as e:
        if as_json:
            return jsonify(error=str(e)), 400
        flash(f"Not done: {e}", "error")
        return redirect(_back(), code=303)
    if as_json:
        return jsonify(ok=True, result=result, state=table().snapshot())
    # a command that was carried out but wants the judge to check something (a taught still the machine reads
    # as another letter, a ruling's face not taught) says "; note: ..." or "; not learned: ...": shown in amber,
    # not in the green of a plain "done"
    flash(result, "warn" if "; note: " in result or "; not learned: " in result else "ok")
    return redirect(_back(), code=303)


def _back() -> str:
    target = request.form.get("next", "/judge")
    return target if target.startswith("/judge") and "//" not in target else "/judge"
