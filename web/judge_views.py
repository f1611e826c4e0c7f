"""The judge console: login, the console page, the evidence view, calibration and the live picture."""

from __future__ import annotations

import math
from typing import Any

from flask import Blueprint, Response, jsonify, redirect, render_template, request, session

from controller.event_words import describe_event
from controller.rules.letters import Letter
from web.guard import csrf_ok, csrf_token, current_judge, ext, now, table

judge = Blueprint("judge", __name__)

LETTERS = [letter for letter in Letter]


@judge.app_context_processor
def inject() -> dict[str, Any]:
    """Every template gets the CSRF token and the judge's name."""
    return {"csrf_token": csrf_token, "judge_name": session.get("judge"), "letters": LETTERS,
            "describe": describe_event}


def _login_page(error: str | None = None, status: int = 200) -> Any:
    return render_template("login.html", error=error, password_set=ext()["passwords"].is_set()), status


@judge.get("/judge/login")
def login_form() -> Any:
    """The login form (or how to set the password when none is set)."""
    return _login_page()


@judge.post("/judge/login")
def login() -> Any:
    """Check the password, rate-limited per address; a new session on success."""
    addr = request.remote_addr or "?"
    limiter = ext()["limiter"]
    verdict = limiter.check(addr)
    if not verdict.allowed:
        page, _ = _login_page(f"Too many failed logins. Try again in {math.ceil(verdict.retry_after_s)} s.")
        return page, 429, {"Retry-After": str(math.ceil(verdict.retry_after_s))}
    if not csrf_ok():
        return _login_page("The form expired; please try again.", 403)
    name = request.form.get("name", "").strip()
    password = request.form.get("password", "")
    if not ext()["passwords"].is_set():
        return _login_page("No judge password is set yet.", 403)
    if not name or len(name) > 30 or not all(c.isalnum() or c in " -_." for c in name):
        return _login_page("Give your name (letters, digits, spaces; at most 30 characters).", 400)
    if not ext()["passwords"].check(password):
        limiter.failed(addr)
        table().note_login(f"judge:{name}", False, addr)
        return _login_page("Wrong password.", 401)
    limiter.succeeded(addr)
    session.clear()
    session.permanent = True
    session["judge"] = name
    session["seen"] = now()
    csrf_token()
    table().note_login(f"judge:{name}", True, addr)
    return redirect("/judge", code=303)


@judge.post("/judge/logout")
def logout() -> Any:
    """End the judge's session."""
    if csrf_ok():
        session.clear()
    return redirect("/judge/login", code=303)


def _require(active: bool = True) -> Any | None:
    if current_judge(active) is None:
        if request.path.endswith(".jpg"):
            return jsonify(error="log in as a judge"), 401
        return redirect("/judge/login", code=303)
    return None


@judge.get("/judge")
def console() -> Any:
    """The judge console."""
    if (r := _require()) is not None:
        return r
    t = table()
    return render_template(
        "judge.html", s=t.snapshot(), spins=t.spins()[:20], log=t.log_entries(60), faults=t.faults()[-30:],
        fairness=[f.to_json() for f in t.fairness()], calibration=t.calibration.to_json(),
        has_launcher=t.launcher is not None, taught=t.taught_stills())


@judge.get("/judge/spin/<spin_id>")
def spin_view(spin_id: str) -> Any:
    """One spin's evidence: still, clip, timeline, verdict and what was done with it."""
    if (r := _require()) is not None:
        return r
    found = table().spin(spin_id) if all(c.isalnum() or c in "-_." for c in spin_id) else None
    if found is None:
        return render_template("message.html", title="No such spin", text=f"No spin {spin_id} at this table.",
                               link="/judge"), 404
    return render_template("spin.html", spin=found, s=table().snapshot())


@judge.get("/judge/calibrate")
def calibrate() -> Any:
    """Calibrate the tray and the seat directions on the live camera picture."""
    if (r := _require()) is not None:
        return r
    t = table()
    frame = t.camera.last_frame
    size = (frame.image.shape[1], frame.image.shape[0]) if frame is not None else None
    return render_template("calibrate.html", s=t.snapshot(), calibration=t.calibration.to_json(), size=size)


@judge.get("/judge/camera.jpg")
def camera_jpg() -> Any:
    """The live camera picture (judges only)."""
    if (r := _require(active=False)) is not None:
        return r
    data = table().camera_jpeg()
    if data is None:
        return jsonify(error="no camera picture"), 404
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@judge.get("/judge/enroll/<name>")
def taught_still(name: str) -> Any:
    """A taught still of the data folder's enroll/ (judges only), to check its letter before removing it."""
    if (r := _require()) is not None:
        return r
    t = table()
    if name not in {s["file"] for s in t.taught_stills()}:
        return jsonify(error="no such taught still"), 404
    data = (t.enroll_dir / name).read_bytes()
    return Response(data, mimetype="image/png", headers={"Cache-Control": "no-store"})
