"""The camera's wobble onset against the simulators' truth, spin by spin, replayed on cached series.

    .venv/bin/python bench/bench_camera_onset.py                    # every tuning recording (twin + altsim)
    .venv/bin/python bench/bench_camera_onset.py --estimators judge,module
    .venv/bin/python bench/bench_camera_onset.py --worst 20 --plot 6 --out /tmp/h20/plots

Judging a recording takes the whole vision pipeline; the camera's onset is decided once per spin, at the
verdict, from the series the judge collected during the spin (:meth:`SpinJudge._wobble_onset`). So each
recording is judged once, camera only, with ``_wobble_onset`` wrapped to save what it was given (times,
centroid, blob area and elongation, the fall, the release, the frame rate and the lying dreidel's length
at rest) and what it answered, and the spin's verdict (cached as JSON in ``--contexts``). Candidate
estimators are then replayed on those series in seconds and scored against ``truth.json``.

Scores, per simulator: the stable-time error (onset or fall, minus release, against the true stable time)
over the spins that have a true wobble onset (the onset's own figure) and over every scored spin as
``eval_judge.py`` counts them, and how many valid/invalid calls of spins more than 0.15 s from 3 s the
estimator gets right (a touch, a left tray or a put-down keep their verdict). The cache holds the judge's
part: delete it after changing the vision or the judge's other moments (release, fall, rest).

Estimators: ``legacy`` (session 4: width-relative, first frame over 0.06); ``length, growth fit`` (session 5:
the radius as the 0.35 s window leaves it, against the length, dated on its fitted growth, here with
session 6's splitting of the path where the dreidel was unseen); ``period-corrected, first seen``
(session 6: the radius scaled for the precession's period, a spin over the level from its first frame
measured dated at that frame); the module (session 7: such a spin dated in the middle of the unseen
stretch before its first frame, see :mod:`controller.camera_wobble`); the geometric lever (session 8:
the module measuring the circling against ``sqrt(length x length_per_width x width)``).

The judge's series start once it has made sure of the release, some 0.35 s after it. A cache made by
a judge that keeps the frames seen while it made sure (``_Spin.lead_in``, always since the fourteenth
session) has them as ``lead``. ``--lead judge`` (the default) hands them over as the judge does since then
(:attr:`CameraTrack.lead`, asked only to date a spin that wobbled at once), ``--lead front`` puts them in
front of the track (the replays of sessions 6-13), ``--lead none`` leaves them out. ``--lead-and-shape`` makes
today's judge keep them while it judges (its verdicts do not change), and the tracked blob's shape per
frame (angle, length, width, elongation), which the judge does not keep:

    .venv/bin/python bench/bench_camera_onset.py --contexts /tmp/h34/ctx --lead-and-shape --jobs 1 --measures

``--measures`` prints each tilt measure at the true onset (its median and its scatter over the spins,
per simulator: the circling against the length, against the geometric lever, and the silhouette's
turning anisotropy) and the onset's signed error by the dreidel's length-to-width ratio. The eighth
session's finding: the silhouette's anisotropy at 6 degrees is a quarter of what a tilted box shows and
scatters more than the circling; the circling measured against the length is dated late on dreidels
long for their width, on both simulators, which the geometric lever (``length_weight`` 0.5) removes.

Both renderers define the truth the same way (``hardware.sim.physics``): ``wobble_t`` is the first moment
the axis' tilt reaches 6 degrees (``WOBBLE_TILT_DEG``); they differ in the dreidels, cameras and pictures.

Releases (ninth session). The camera-only stable time starts at the release the judge dates from the
releasing hand (:meth:`SpinJudge._release_from_hand`). ``--collect-releases LOG`` judges recordings
camera-only and logs every such dating's inputs (the hands seen in the 2 s before the dreidel, where and
when it was seen) with the truth, one JSON line per recording; ``--releases LOG`` replays the judge's own
method on them, and, for the spins of the
``--contexts`` cache whose release is in the log, scores the onset estimators from each release:

    .venv/bin/python bench/bench_camera_onset.py --collect-releases /tmp/h37/rel.jsonl --rec DIR ...
    .venv/bin/python bench/bench_camera_onset.py --releases /tmp/h37/rel.jsonl --contexts /tmp/h37/ctx_cam --cached-only

A context cached since the tenth session also holds the spin's release dating (``release_calls``, as
``--collect-releases`` logs it), so one judging serves both replays; the onset is replayed at the spin's own
frame rate (its frames' median spacing), as the judge computes it since the ninth session. ``--decompose``
splits the module's stable-time error into release and onset, per simulator, with the judge's release
(older caches: pass their log with ``--releases``); ``--plot N`` draws the N worst
spins' timelines (the circling as the window leaves it and scaled for the period, the fitted growth, the
level, the period measured on each frame, both releases, the true and the judged onset):

    .venv/bin/python bench/bench_camera_onset.py --contexts /tmp/h40/ctx --cached-only --decompose \
        --releases /tmp/h37/rel_all.jsonl --plot 10 --out /tmp/h40/plots/bench

The tenth session's finding (H40): the onset's spread, not a bias, is the camera's median. At the true onset
the period-scaled circling scatters by 0.23 (twin) and 0.32 (altsim) in log from spin to spin (``--measures``,
447 twin and 206 altsim spins); with the wobble growing at a median 1.8/s (twin) and 2.1/s (altsim), that
alone dates onsets about 0.1 s either way. On the twin most of it is within a recording (0.19: the same dreidel, camera and lying length,
whose own scatter is 0.03), so it is the spin's motion, not the dreidel's proportions; on altsim most of it
is between recordings (0.30, within 0.16). Nothing replayed narrowed it on both renderers:
hand_jitter_k 3-8 with hand_lag_s 0.08-0.11, levels 0.034-0.040, length_weight 0.6-1, min_gain 0.3-0.5 or
one fitted to the period measured over the final rise, or 0.2-0.3 where the measured period is steady, the
period measured over the final rise instead of frame by frame,
a moving average over the measured period itself (no period scaling), demodulating the circling at the
measured precession, longer growth fits and smoothing, hysteresis on the final rise, a threshold relative
to the spin's own noise floor, and the recording's median lying length.

The eleventh session (H45): the JPEG quality is not why altsim's camera-only stable time is worse. The same
rendered frames written at quality 92 and 55 (``eval_unseen.py --jpeg-quality 92 --also-jpeg 55:DIR``;
twin: ``bench/jpeg_twin_copies.py``) give per-spin stable times within 0.1 s of each other and the same
medians, on both renderers (``bench/jpeg_quality_compare.py``), and the circling timelines (``--plot``) lie on
top of each other. What is worse is the dreidels: ``--by-scene`` shows altsim's late onsets on dreidels long
for their width (length/width 2.2-3.3: the circling at the true onset is 0.028-0.036 of the length, under
the level 0.038) whose wobble grows slowly (under 1.5/s, so a small shortfall is a late date), and early or
late releases where a small dark dreidel stays hidden in the arm's shadow (920011). ``--decompose
--length-weight 0.5`` replays the geometric lever with the judge's release; with the release re-dated by
the judge's ``hand_jitter_k`` (a bar at 5 times the hand's own jitter) both medians stayed within 0.004 s of
today's, so that option was removed from the judge.

Goals (issue 4): stable-time error median <= 0.05 s, p95 <= 0.15 s.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.tuning_sets import UNSCORED, context_path, is_heldout, tuning_recordings  # noqa: E402
from controller.camera_wobble import CameraTrack, WobbleSettings, wobble_onset  # noqa: E402
from controller.imu_features import local_linear  # noqa: E402

#: verdict codes the stable time decides (the others: a touch, a left tray, a put-down, keep theirs)
TIMING_CODES = ("short", "wobbled_immediately", "unreadable")


def _blob_shape(tr: Any) -> list[float]:
    """The tracked blob's (angle deg, length px, width px, elongation, area px^2, merged) in full-resolution px."""
    d = tr.dreidel
    if d is None:
        return [math.nan] * 6
    return [d.angle_deg, d.length * tr.scale, d.width * tr.scale, d.elongation, d.area * tr.scale**2, float(tr.merged)]


def _record_lead_and_shape(judge_mod: Any) -> Callable[[], None]:
    """Make the judge keep, on each spin, the frames seen while its release was made sure of (``lead_in``:
    t, x, y, area; ``lead_shape``) and the blob's shape on each frame of its series (``shape``); the
    verdicts do not change. Returns the undo."""
    cls = judge_mod.SpinJudge
    idle, spinning = cls._idle, cls._spinning

    def idle_rec(self: Any, frame: Any, tr: Any, obs: Any, events: Any) -> None:
        before, candidate = self._spin, self._candidate_t
        idle(self, frame, tr, obs, events)
        buf = self.__dict__.setdefault("_bench_lead", [])
        seen = obs.present and obs.x is not None
        if before is None and self._spin is not None:
            if seen:
                buf.append((frame.t, obs.x, obs.y, obs.area, *_blob_shape(tr)))
            self._spin.lead_in = [b[:4] for b in buf]
            self._spin.lead_shape = [list(b[4:]) for b in buf]
            buf.clear()
        elif self._spin is None and self._candidate_t is not None:
            if candidate != self._candidate_t:
                buf.clear()  # a new candidate release
            if seen:
                buf.append((frame.t, obs.x, obs.y, obs.area, *_blob_shape(tr)))
        else:
            buf.clear()

    def spinning_rec(self: Any, frame: Any, tr: Any, obs: Any, events: Any) -> None:
        spin = self._spin
        n = len(spin.t_obs)
        spinning(self, frame, tr, obs, events)
        if len(spin.t_obs) > n:
            spin.__dict__.setdefault("shape", []).append(_blob_shape(tr))

    cls._idle, cls._spinning = idle_rec, spinning_rec

    def undo() -> None:
        cls._idle, cls._spinning = idle, spinning

    return undo


def collect(args: tuple[str, str, bool]) -> str:
    """Judge one recording camera-only (no letters), saving each spin's onset inputs and its verdict
    (with ``args[2]``, also the lead-in frames and the blob's shape, see :func:`_record_lead_and_shape`)."""
    rec, out, lead_and_shape = args
    import cv2

    from controller import judge as judge_mod
    from controller.analyze_cli import analyze_recording

    cv2.setNumThreads(1)
    undo = _record_lead_and_shape(judge_mod) if lead_and_shape else None
    spins: list[dict[str, Any]] = []
    objs: list[Any] = []
    original = judge_mod.SpinJudge._wobble_onset

    def recorded(self: Any, spin: Any, fall_t: float) -> Any:
        got = original(self, spin, fall_t)
        rest = spin.rest_obs
        last = spin.last_obs
        spins.append({
            "release_t": spin.release_t, "fall_t": fall_t, "fps": self._fps_est, "onset": got[0].onset,
            "jitter": got[0].jitter,
            "t": list(spin.t_obs), "x": list(spin.xs), "y": list(spin.ys), "area": list(spin.areas),
            "elong": list(spin.elong), "wobble": list(spin.wobble), "circling": list(spin.circling),
            "rest_length": None if rest is None else rest.length, "rest_area": None if rest is None else rest.area,
            "last_length": None if last is None else last.length,
            # the frames seen while the release was being confirmed (the judge's ``_Spin.lead_in``, when it has it)
            "lead": [list(f) for f in getattr(spin, "lead_in", [])],
            # the tracker blob's shape per frame of ``t`` and of ``lead`` (angle, length, width, elongation,
            # area, merged), when a collector records it (the judge does not keep it)
            "shape": [list(f) for f in getattr(spin, "shape", [])],
            "lead_shape": [list(f) for f in getattr(spin, "lead_shape", [])],
            "settings": {k: getattr(self.settings, k) for k in ("onset_skip_s", "circle_window_s", "circle_level",
                                                                  "circle_hold_s", "circle_gap_s")},
        })
        objs.append(spin)
        return got

    # the releases the judge dated from a hand, with their inputs (as --collect-releases logs them), so one
    # judging serves both the onset and the release replays
    calls: list[dict[str, Any]] = []
    original_release = judge_mod.SpinJudge._release_from_hand

    def logged(self: Any, seen_t: float, xy: tuple[float, float]) -> float:
        got = original_release(self, seen_t, xy)
        calls.append({"seen": seen_t, "xy": list(xy), "rel": got, "fps": self._fps_est,
                      "hands": [(t, h) for t, h in self._hands if seen_t - 2.0 <= t <= seen_t + 1e-9]})
        return got

    judge_mod.SpinJudge._wobble_onset = recorded  # type: ignore[method-assign]
    judge_mod.SpinJudge._release_from_hand = logged  # type: ignore[method-assign]
    try:
        verdicts, _ = analyze_recording(rec, use_imu=False, use_recognizer=False)
    finally:
        judge_mod.SpinJudge._wobble_onset = original  # type: ignore[method-assign]
        judge_mod.SpinJudge._release_from_hand = original_release  # type: ignore[method-assign]
        if undo is not None:
            undo()
    # the verdict asks for the onset first, then for the interference the watch saw (a touch that came
    # before the onset ends the stable spin): read it from the spin once all is judged
    for s, spin in zip(spins, objs, strict=True):
        ev = spin.interference.event if spin.interference is not None else None
        s["touch_t"] = None if ev is None else ev.t
    Path(out).write_text(json.dumps({"rec": rec, "verdicts": [v.to_json() for v in verdicts], "spins": spins,
                                     "release_calls": calls}))
    return out


def collect_all(recs: list[Path], contexts: Path, jobs: int, lead_and_shape: bool = False) -> None:
    """Judge (once) every recording whose context is not cached yet."""
    contexts.mkdir(parents=True, exist_ok=True)
    twin = [r for r in recs if "alt" not in r.parent.name]
    alt = [r for r in recs if "alt" in r.parent.name]
    # alternate the simulators, so that an early look at the cache sees both
    order = [r for pair in zip(alt, twin, strict=False) for r in pair]
    order += alt[len(twin):] + twin[len(alt):]
    todo = [(str(r), str(context_path(contexts, r)), lead_and_shape) for r in order
            if not context_path(contexts, r).is_file()]
    if not todo:
        return
    print(f"judging {len(todo)} recordings once (camera only) to record the onset inputs ...", flush=True)
    with ProcessPoolExecutor(jobs) as ex:
        for out in ex.map(collect, todo):
            print("  ", out, flush=True)




@dataclass
class Case:
    """One judged spin paired with its truth: the onset's inputs and what the verdict made of them."""

    sim: str
    rec: str
    spin: int
    kind: str
    track: CameraTrack
    judged_onset: float | None
    touch_t: float | None
    verdict: dict[str, Any]
    true_release: float
    true_onset: float | None
    true_stable: float
    true_valid: bool
    #: the blob's shape per frame of ``track`` (angle deg, length, width, elongation, area, merged), NaN
    #: where the cache has none
    shape: np.ndarray | None = None
    #: the judge's dating of this spin's release from the hand (its inputs, as ``--collect-releases`` logs
    #: them), when the cache has it: :func:`replay_release` re-dates it under other settings
    release_call: dict[str, Any] | None = None


#: how a replay is given the frames seen while the release was being confirmed (see the module docstring)
LEAD_MODES = ("judge", "front", "none")


def load_cases(recs: list[Path], contexts: Path, lead_mode: str = "judge") -> list[Case]:
    """Every scored spin of the cached recordings, paired with its truth (release within 0.5 s).

    ``lead_mode``: ``judge``, the frames seen while the release was being confirmed (when the cache has them)
    go in as :attr:`CameraTrack.lead`, as the judge hands them over; ``front``, they come first in the track;
    ``none``, left out (the track starts where the judge's spin did).
    """
    if lead_mode not in LEAD_MODES:
        raise ValueError(f"lead_mode must be one of {LEAD_MODES}, not {lead_mode!r}")
    cases: list[Case] = []
    for r in recs:
        ctx = json.loads(context_path(contexts, r).read_text())
        truth = json.loads((r / "truth.json").read_text())
        sim = "altsim" if "alt" in r.parent.name else "twin"
        for s in ctx["spins"]:
            verdict = min(ctx["verdicts"], key=lambda v: abs(v["release_t"] - s["release_t"]))
            if abs(verdict["release_t"] - s["release_t"]) > 0.01 or "no_release" in verdict["reasons"]:
                continue  # a put-down: the onset is not asked
            tr = min(truth, key=lambda q: abs(q["release_t"] - s["release_t"]))
            stable = tr.get("stable_s")
            if stable is None and tr.get("wobble_t") is not None:
                stable = tr["wobble_t"] - tr["release_t"]
            if abs(tr["release_t"] - s["release_t"]) > 0.5 or tr["kind"] in UNSCORED or stable is None:
                continue
            kept = np.asarray(s.get("lead") or np.empty((0, 4)), float).reshape(-1, 4)
            lead = kept if lead_mode == "front" else np.empty((0, 4))
            track = CameraTrack(
                t=np.concatenate([lead[:, 0], np.asarray(s["t"], float)]),
                x=np.concatenate([lead[:, 1], np.asarray(s["x"], float)]),
                y=np.concatenate([lead[:, 2], np.asarray(s["y"], float)]),
                area=np.concatenate([lead[:, 3], np.asarray(s["area"], float)]),
                release_t=s["release_t"], fall_t=s["fall_t"], fps=_spin_fps(s), body_length=s["rest_length"],
                lead=kept if lead_mode == "judge" else None,
            )
            call = next((q for q in ctx.get("release_calls", []) if abs(q["rel"] - s["release_t"]) < 0.005), None)
            cases.append(Case(sim, f"{r.parent.name}/{r.name}", tr["index"], tr["kind"], track, s["onset"],
                              s["touch_t"], verdict, tr["release_t"], tr.get("wobble_t"), float(stable),
                              bool(tr["valid"]), _shape_of(s, lead.shape[0], track.t.size), call))
    return cases


def _spin_fps(s: dict[str, Any]) -> float:
    """The frame rate the judge gives the onset: the median spacing of the spin's own frames (as
    :meth:`SpinJudge._wobble_onset` does since the ninth session), the cached running estimate without."""
    steps = np.diff(np.asarray(s["t"], float))
    steps = steps[steps > 0]
    return max(1.0 / float(np.median(steps)), 1.0) if steps.size else float(s["fps"])


def _shape_of(s: dict[str, Any], n_lead: int, n: int) -> np.ndarray | None:
    """The cached blob shape aligned with the track (lead-in frames first), or None when not cached.
    A spin re-released after a regrip keeps its series but not the shapes before: those rows are NaN."""
    body = np.asarray(s.get("shape") or np.empty((0, 6)), float).reshape(-1, 6)
    if body.shape[0] == 0:
        return None
    lead = np.asarray(s.get("lead_shape") or np.empty((0, 6)), float).reshape(-1, 6)[:n_lead]
    lead = np.vstack([np.full((n_lead - lead.shape[0], 6), np.nan), lead])
    body = body[-(n - n_lead):] if n > n_lead else body[:0]
    body = np.vstack([np.full((n - n_lead - body.shape[0], 6), np.nan), body])
    return np.vstack([lead, body])


def stable_of(case: Case, onset: float | None) -> float:
    """The verdict's stable time had the judge found ``onset`` (camera only: the rest of _verdict as is)."""
    tk = case.track
    wobble_t = onset if onset is not None and onset < tk.fall_t else None
    touch = case.touch_t
    if touch is not None and touch <= (wobble_t if wobble_t is not None else tk.fall_t):
        wobble_t = max(touch, tk.release_t)
    end = wobble_t if wobble_t is not None else tk.fall_t
    return max(0.0, end - tk.release_t)


def valid_of(case: Case, stable: float) -> bool:
    other = [c for c in case.verdict["reasons"] if c not in TIMING_CODES]
    return not other and stable >= 3.0


Estimator = Callable[[CameraTrack], "float | None"]


def legacy(tk: CameraTrack) -> float | None:
    """The judge's onset before this bench (session 4's ``SpinJudge._wobble_onset``), re-computed: the
    circling relative to the upright blob's sqrt(area), first sustained run over 0.06. That is the module
    with the length unknown, one width to a length and no growth fit."""
    return wobble_onset(replace(tk, body_length=None),
                        WobbleSettings(level=0.06, length_per_width=1.0, fit_s=0.0, unseen_share=0.0))


def score(name: str, cases: list[Case], est: Estimator, worst: int = 0) -> dict[str, Any]:
    """Stable-time errors and valid/invalid calls of ``est`` on ``cases``, printed per simulator."""
    out: dict[str, Any] = {}
    rows = []
    for c in cases:
        on = est(c.track)
        st = stable_of(c, on)
        rows.append((c, on, st - c.true_stable, valid_of(c, st)))
    for sim in ("twin", "altsim", "all"):
        sel = [r for r in rows if sim in ("all", r[0].sim)]
        if not sel:
            continue
        e_on = np.abs([r[2] for r in sel if r[0].true_onset is not None])
        e_all = np.abs([r[2] for r in sel])
        # the onset's own error (the fall when none was found), apart from the release's
        e_onset = np.abs([(r[1] if r[1] is not None and r[1] < r[0].track.fall_t else r[0].track.fall_t)
                          - r[0].true_onset for r in sel if r[0].true_onset is not None and r[0].touch_t is None])
        clear = [r for r in sel if abs(r[0].true_stable - 3.0) > 0.15]
        right = sum(r[3] == r[0].true_valid for r in clear)
        out[sim] = (float(np.median(e_on)), float(np.percentile(e_on, 95)))
        print(f"{name:<28} {sim:<6} stable err, spins with a true onset {e_on.size:>3}: median {np.median(e_on):.3f}"
              f" p95 {np.percentile(e_on, 95):.3f} | all {e_all.size:>3}: {np.median(e_all):.3f} / "
              f"{np.percentile(e_all, 95):.3f} | >0.15 s {int((e_all > 0.15).sum()):>3} | onset err "
              f"{np.median(e_onset):.3f} / {np.percentile(e_onset, 95):.3f} | valid/invalid {right}/{len(clear)}")
    if worst:
        for c, on, err, _ in sorted(rows, key=lambda r: -abs(r[2]))[:worst]:
            print(f"    {c.rec:<40} spin {c.spin} {c.kind:<15} err {err:+.3f}  onset "
                  f"{'-' if on is None else f'{on - c.track.release_t:.2f}'} true "
                  f"{'-' if c.true_onset is None else f'{c.true_onset - c.true_release:.2f}'} fall "
                  f"{c.track.fall_t - c.track.release_t:.2f}")
    return out


def _at(t: np.ndarray, v: np.ndarray, t0: float, half_s: float = 0.2) -> float:
    """``v`` at ``t0`` from a straight line through its log within ``half_s`` (NaN with too few values)."""
    ok = np.isfinite(v) & (v > 0) & (np.abs(t - t0) <= half_s)
    if ok.sum() < 6:
        return math.nan
    return float(np.exp(np.polyval(np.polyfit(t[ok] - t0, np.log(v[ok]), 1), 0.0)))


def silhouette_anisotropy(case: Case, settings: WobbleSettings) -> tuple[np.ndarray, np.ndarray]:
    """``(t, a)``: the part of the blob's second-moment anisotropy that turns with the precession,
    times width over length (a tilted box of that length and width shows ``sin(tilt)`` of it).

    The anisotropy ``(e^2 - 1) / (e^2 + 1)`` of the elongation ``e``, as a vector at twice the major
    axis' angle, less its centred moving average (the picture's perspective stretches a standing dreidel
    too, but that does not turn with the precession), smoothed like the circling. Needs a cache with
    the blob's shape (``--lead-and-shape``)."""
    from controller.camera_wobble import _pieces, smooth, upright_width

    tk, shp = case.track, case.shape
    assert shp is not None
    keep = (tk.t >= tk.release_t + settings.skip_s) & (tk.t <= tk.fall_t) & np.isfinite(shp[:, 3])
    t, e, ang = tk.t[keep], shp[keep, 3], np.radians(shp[keep, 0])
    vec = (e * e - 1) / (e * e + 1) * np.exp(2j * ang)
    out = np.full(t.size, np.nan)
    n = max(3, int(round(settings.window_s * tk.fps)))
    m = max(3, int(round(settings.smooth_s * tk.fps)))
    for piece in _pieces(t, settings.blind_s, tk.fps):
        if piece.size < 8:
            continue
        k = min(n, piece.size)
        v = vec[piece]
        out[piece] = smooth(np.abs(v - (smooth(v.real, k) + 1j * smooth(v.imag, k))), m)
    area = tk.area[tk.t >= tk.release_t + settings.skip_s]
    width = upright_width(area if area.size else tk.area)
    length = tk.body_length if tk.body_length is not None else settings.length_per_width * width
    return t, out * width / length


def measures(cases: list[Case]) -> None:
    """Each tilt measure at the true onset (fitted in log over 0.2 s either side), per simulator: its
    median and its scatter (sd of the log) over the spins; then the onset's signed error by the
    dreidel's length-to-width ratio, measured against the length and against the geometric lever."""
    from controller.camera_wobble import body_length, circling_level, upright_width

    by_len, by_geo = WobbleSettings(), WobbleSettings(length_weight=0.5)
    rows: list[tuple[str, float, float, float, float, float, float]] = []
    for c in cases:
        if c.true_onset is None or c.touch_t is not None:
            continue
        tk, on = c.track, c.true_onset
        t1, r1 = circling_level(tk, by_len)
        t2, r2 = circling_level(tk, by_geo)
        if t1.size < 10 or not t1[0] + 0.15 < on < t1[-1] - 0.05:
            continue
        an = _at(*silhouette_anisotropy(c, by_len), on) if c.shape is not None else math.nan
        area = tk.area[tk.t >= tk.release_t + by_len.skip_s]
        ratio = body_length(tk, area, by_len) / upright_width(area)
        errs = []
        for ws in (by_len, by_geo):
            got = wobble_onset(tk, ws)
            errs.append((got if got is not None and got < tk.fall_t else tk.fall_t) - on)
        rows.append((c.sim, _at(t1, r1, on), _at(t2, r2, on), an, ratio, errs[0], errs[1]))
    print("\nat the true onset: median (sd of the log) over the spins; 0.038 is the module's level")
    for sim in ("twin", "altsim"):
        sel = [r for r in rows if r[0] == sim]
        line = f"  {sim:<6} {len(sel):>3} spins"
        for j, name in ((1, "circling/length"), (2, "circling/geometric lever"), (3, "silhouette anisotropy")):
            v = np.log([r[j] for r in sel if np.isfinite(r[j]) and r[j] > 0])
            if v.size:
                line += f" | {name} {math.exp(float(np.median(v))):.4f} ({float(np.std(v)):.3f}, n {v.size})"
        print(line)
    print("onset's signed error (median, s) by length / width: against the length | the geometric lever")
    for sim in ("twin", "altsim"):
        for lo, hi in ((0.0, 1.6), (1.6, 1.8), (1.8, 2.1), (2.1, 2.4), (2.4, 9.0)):
            sel = [r for r in rows if r[0] == sim and lo <= r[4] < hi]
            if len(sel) >= 3:
                print(f"  {sim:<6} {lo:.1f}-{hi:.1f} {len(sel):>3} spins: {np.median([r[5] for r in sel]):+.3f} | "
                      f"{np.median([r[6] for r in sel]):+.3f}")


def _scene_of(rec: Path) -> dict[str, Any]:
    """An altsim recording's scene in a few words (its ``summary.json``) and the video's JPEG quality (the
    override the summary records, else the scene's own); {} for a twin recording (JPEG quality 92)."""
    summary = rec / "summary.json"
    if not summary.is_file():
        return {"jpeg_quality": 92}
    data = json.loads(summary.read_text())
    sc = dict(data.get("scene", {}))
    q = data.get("jpeg_quality")
    if q is None:
        from bench.altsim.record import AltTable

        size = tuple(int(v) for v in sc["size"].split("x"))
        q = AltTable(int(data["seed"]), size, float(sc["fps"])).scene.jpeg_quality  # type: ignore[arg-type]
    sc["jpeg_quality"] = int(q)
    return sc


def by_scene(cases: list[Case], recs: list[Path]) -> list[dict[str, Any]]:
    """H45: per spin with a true onset, what sets the onset's error: the circling level (against the
    length, scaled for the period) at the true onset against the module's 0.038, the circling's floor
    while the dreidel still slept (median level from 0.3 s after the release to 0.3 s before the true
    onset), the growth rate at the onset (1/s, of the fitted log level), the length in px, the
    length-to-width ratio, the frame rate, picture size, finish and the video's JPEG quality; and the
    signed release and onset errors (judge's release; the module's onset). Printed as a table, worst first."""
    from controller.camera_wobble import body_length, circling_level, upright_width

    ws = WobbleSettings()
    scenes = {f"{r.parent.name}/{r.name}": _scene_of(r) for r in recs}
    rows: list[dict[str, Any]] = []
    for c in cases:
        if c.true_onset is None or c.touch_t is not None:
            continue
        tk, on = c.track, c.true_onset
        t, lv = circling_level(tk, ws)
        area = tk.area[tk.t >= tk.release_t + ws.skip_s]
        length = body_length(tk, area, ws)
        at = _at(t, lv, on) if t.size >= 10 else math.nan
        early = (t >= c.true_release + 0.3) & (t <= on - 0.3) & np.isfinite(lv)
        floor = float(np.median(lv[early])) if early.sum() >= 10 else math.nan
        near = np.isfinite(lv) & (lv > 0) & (np.abs(t - on) <= 0.3)
        growth = float(np.polyfit(t[near], np.log(lv[near]), 1)[0]) if near.sum() >= 8 else math.nan
        got = wobble_onset(tk, ws)
        ended = got if got is not None and got < tk.fall_t else tk.fall_t
        sc = scenes.get(c.rec, {})
        rows.append({"rec": c.rec, "spin": c.spin, "kind": c.kind, "sim": c.sim,
                     "stable_err": stable_of(c, got) - c.true_stable, "release_err": tk.release_t - c.true_release,
                     "onset_err": ended - on, "level_at_onset": at, "floor": floor, "growth": growth,
                     "length_px": length, "ratio": length / upright_width(area), "fps": tk.fps,
                     "size": sc.get("size", "640x480"), "finish": sc.get("finish", "twin"),
                     "table": sc.get("table", "twin"), "jpeg": sc.get("jpeg_quality", 92)})
    rows.sort(key=lambda r: -abs(r["stable_err"]))
    print("\nby scene (spins with a true onset, worst stable error first; level = circling/length at the true onset, "
          "module's level 0.038)")
    print(f"  {'recording':<28}{'#':>2} {'kind':<15}{'stab':>6}{'rel':>6}{'ons':>6}  {'lvl@on':>6}{'floor':>6}"
          f"{'grow':>6}{'len':>6}{'L/W':>5}{'fps':>5} {'size':<9}{'finish':<8}{'table':<6}{'q':>3}")
    for r in rows:
        print(f"  {r['rec']:<28}{r['spin']:>2} {r['kind']:<15}{r['stable_err']:>+6.2f}{r['release_err']:>+6.2f}"
              f"{r['onset_err']:>+6.2f}  {r['level_at_onset']:>6.3f}{r['floor']:>6.3f}{r['growth']:>6.1f}"
              f"{r['length_px']:>6.0f}{r['ratio']:>5.2f}{r['fps']:>5.0f} {r['size']:<9}{r['finish']:<8}"
              f"{r['table']:<6}{r['jpeg']:>3}")
    return rows


def _periods(track: CameraTrack, settings: WobbleSettings) -> tuple[np.ndarray, np.ndarray]:
    """``(t, period)``: the precession period the module measures on each frame of ``track`` (NaN where it
    cannot tell), on the frames :func:`circling_level` returns."""
    from controller.camera_wobble import _pieces, precession_period, smooth

    keep = (track.t >= track.release_t + settings.skip_s) & (track.t <= track.fall_t)
    keep &= np.isfinite(track.x) & np.isfinite(track.y)
    t, x, y = track.t[keep], track.x[keep], track.y[keep]
    out = np.full(t.size, np.nan)
    n = max(3, int(round(settings.window_s * track.fps)))
    half = max(3, int(round(settings.period_fit_s * track.fps)))
    for piece in _pieces(t, settings.blind_s, track.fps):
        if piece.size >= 8:
            k = min(n, piece.size)
            z = (x[piece] - smooth(x[piece], k)) + 1j * (y[piece] - smooth(y[piece], k))
            out[piece] = precession_period(t[piece], z, half)
    return t, out


def plot_case(path: Path, case: Case, settings: WobbleSettings, title: str = "") -> None:
    """One spin's timeline (PNG): the circling against the length (log scale) as the window leaves it and
    scaled for the period, its fitted growth, the level; below, the precession period measured on each
    frame; the true and the judged release, the true onset, the module's onset and the fall."""
    from PIL import Image, ImageDraw

    from controller.camera_wobble import _levels

    tk = case.track
    t, raw, level = _levels(tk, settings)
    if int(np.isfinite(level).sum()) < 8:
        return
    fitted = np.exp(local_linear(t, np.log(np.maximum(np.nan_to_num(level, nan=1e-4), 1e-4)),
                                 max(2, int(round(settings.fit_s * tk.fps)))))
    _, period = _periods(tk, settings)
    w_, h_ = 1100, 560
    img = Image.new("RGB", (w_, h_), "white")
    d = ImageDraw.Draw(img)
    t0, t1 = min(float(t[0]), case.true_release) - 0.05, float(t[-1]) + 0.05
    lo, hi = math.log10(0.003), math.log10(max(0.3, float(np.nanmax(raw))))

    def px(tt: float) -> float:
        return 60 + (tt - t0) / max(t1 - t0, 1e-6) * (w_ - 80)

    def py(v: float) -> float:
        return 380 - (math.log10(max(v, 0.003)) - lo) / (hi - lo) * 340

    def pyp(p: float) -> float:  # the period panel: 0.2 .. 1.2 s
        return 540 - (min(max(p, 0.2), 1.2) - 0.2) * 140

    d.rectangle([60, 40, w_ - 20, 380], outline="gray")
    d.rectangle([60, 400, w_ - 20, 540], outline="gray")
    for v in (0.01, 0.03, 0.1):
        d.text((5, py(v) - 5), f"{v}", fill="gray")
    for p in (0.4, 0.55, 0.8, 1.0):
        d.line([(60, pyp(p)), (w_ - 20, pyp(p))], fill=(225, 225, 225))
        d.text((25, pyp(p) - 5), f"{p}", fill="gray")
    d.line([(60, py(settings.level)), (w_ - 20, py(settings.level))], fill="green")
    for series, colour, width in ((raw, (150, 150, 255), 1), (level, "blue", 1), (fitted, "purple", 2)):
        pts = [(px(float(a)), py(float(v))) for a, v in zip(t, series, strict=True) if np.isfinite(v)]
        if len(pts) > 1:
            d.line(pts, fill=colour, width=width)
    for a, p in zip(t, period, strict=True):
        if np.isfinite(p):
            d.point((px(float(a)), pyp(float(p))), fill="black")
    marks = ((case.true_release, "red", "true release"), (tk.release_t, "orange", "judged release"),
             (case.true_onset, "red", "true onset"), (wobble_onset(tk, settings), "purple", "module"),
             (tk.fall_t, "gray", "fall"))
    for k, (tt, colour, label) in enumerate(marks):
        if tt is not None and t0 <= tt <= t1:
            d.line([(px(tt), 40), (px(tt), 540)], fill=colour, width=2)
            d.text((px(tt) + 3, 45 + 12 * k), label, fill=colour)
    d.text((60, 5), f"{case.rec} spin {case.spin} ({case.kind}) {title}", fill="black")
    d.text((60, 20), f"circling / length (log): light blue as the window leaves it, blue scaled for the period, "
                     f"purple fitted growth, green level {settings.level}; below: the measured period (s)", fill="black")
    d.text((60, 385), f"t {t0:.2f} .. {t1:.2f} s, {tk.fps:.0f} fps", fill="black")
    img.save(path)


def collect_releases(rec: str) -> str:
    """Judge one recording camera-only (no letters), logging every release the judge dated from a hand:
    its inputs, its answer and the recording's truth, as one JSON line."""
    import cv2

    from controller.analyze_cli import analyze_recording
    from controller.judge import SpinJudge

    cv2.setNumThreads(1)
    calls: list[dict[str, Any]] = []
    original = SpinJudge._release_from_hand

    def logged(self: Any, seen_t: float, xy: tuple[float, float]) -> float:
        got = original(self, seen_t, xy)
        calls.append({"seen": seen_t, "xy": list(xy), "rel": got, "fps": self._fps_est,
                      "hands": [(t, h) for t, h in self._hands if seen_t - 2.0 <= t <= seen_t + 1e-9]})
        return got

    SpinJudge._release_from_hand = logged  # type: ignore[method-assign]
    try:
        analyze_recording(Path(rec), use_imu=False, use_recognizer=False)
    finally:
        SpinJudge._release_from_hand = original  # type: ignore[method-assign]
    truth = json.loads((Path(rec) / "truth.json").read_text())
    return json.dumps({"rec": rec, "calls": calls, "truth": truth})


def replay_release(call: dict[str, Any], settings: Any) -> float:
    """The judge's :meth:`SpinJudge._release_from_hand` on a logged call, under ``settings`` (it reads
    only the hands seen, the frame rate and the settings, so it runs on a stand-in for the judge)."""
    from types import SimpleNamespace

    from controller.judge import SpinJudge

    stand_in = SimpleNamespace(_hands=[(t, tuple(tuple(h) for h in hs)) for t, hs in call["hands"]],
                               _fps_est=call["fps"], settings=settings)
    return float(SpinJudge._release_from_hand(stand_in, call["seen"], tuple(call["xy"])))  # type: ignore[arg-type]


def releases(log: Path, cases: list[Case]) -> None:
    """Release errors, as the judge dates them, per simulator; then the onset estimators scored on the cached
    spins from the replayed release."""
    from controller.judge import JudgeSettings

    variants = {"judge": JudgeSettings()}
    logged: dict[str, list[dict[str, Any]]] = {}
    errs: dict[tuple[str, str], list[float]] = {}
    faithful = total = 0
    for line in log.read_text().splitlines():
        r = json.loads(line)
        if is_heldout(Path(r["rec"])):
            sys.exit(f"{r['rec']}: held-out recordings are not for tuning")
        logged[f"{Path(r['rec']).parent.name}/{Path(r['rec']).name}"] = r["calls"]
        sim = "altsim" if "alt" in Path(r["rec"]).parent.name else "twin"
        for c in r["calls"]:
            released = [q for q in r["truth"] if q.get("release_t") is not None]
            tr = min(released, key=lambda q: abs(q["release_t"] - c["rel"]), default=None)
            if tr is None or abs(tr["release_t"] - c["rel"]) > 1.0:
                continue
            for name, st in variants.items():
                got = replay_release(c, st)
                if name == "judge":
                    total += 1
                    faithful += abs(got - c["rel"]) < 1e-9
                errs.setdefault((sim, name), []).append(got - tr["release_t"])
    print(f"releases: {total} logged, the replay gives the judge's own answer on {faithful}")
    for (sim, name), e in sorted(errs.items()):
        a = np.asarray(e)
        print(f"  {sim:<7} {name:<18} n {a.size:>3}  signed median {np.median(a):+.3f} s  |median| {np.median(np.abs(a)):.3f}"
              f"  |p90| {np.percentile(np.abs(a), 90):.3f}  over 0.1 s: {int((np.abs(a) > 0.1).sum())}")
    # the onset estimators from each release, on the cached spins whose release is in the log
    pairs = []
    for c in cases:
        call = next((q for q in logged.get(c.rec, []) if abs(q["rel"] - c.track.release_t) < 0.005), None)
        if call is not None:
            pairs.append((c, call))
    print(f"\n{len(pairs)} of {len(cases)} cached spins have their release in the log")
    for name, st in variants.items():
        moved = [replace(c, track=replace(c.track, release_t=replay_release(call, st))) for c, call in pairs]
        for est_name, est in (("module", lambda tk: wobble_onset(tk)),
                              ("geometric lever (weight 0.5)", lambda tk: wobble_onset(tk, WobbleSettings(length_weight=0.5)))):
            score(f"{name}, {est_name}", moved, est)


def attach_release_calls(cases: list[Case], log: Path) -> list[Case]:
    """``cases`` with the release dating logged in ``log`` (``--collect-releases``) for the spins whose cache
    does not hold it (caches made before the context kept it)."""
    logged: dict[str, list[dict[str, Any]]] = {}
    for line in log.read_text().splitlines():
        r = json.loads(line)
        if is_heldout(Path(r["rec"])):
            sys.exit(f"{r['rec']}: held-out recordings are not for tuning")
        logged[f"{Path(r['rec']).parent.name}/{Path(r['rec']).name}"] = r["calls"]
    out = []
    for c in cases:
        if c.release_call is None:
            call = next((q for q in logged.get(c.rec, []) if abs(q["rel"] - c.track.release_t) < 0.005), None)
            c = replace(c, release_call=call)
        out.append(c)
    return out


def decompose(cases: list[Case], settings: WobbleSettings | None = None) -> dict[str, Any]:
    """The camera-only stable-time error split into its release and its onset, per simulator, with the
    judge's release (the spins whose release dating is cached; see :class:`Case`'s ``release_call``), the
    onset from the module under ``settings``.

    Per simulator, over the spins with a true onset: the stable-time error's median and p95 (|judged -
    true|) and its signed median, the signed medians of the release's and the onset's errors and the
    onset's |median|, the spins off by more than 0.15 s, and the valid/invalid calls right (spins more
    than 0.15 s from 3 s). A bias in the release offsets one in the onset: each is unbiased only when
    both signed medians are near 0.
    """

    ws = settings if settings is not None else WobbleSettings()
    dated = [c for c in cases if c.release_call is not None]
    print(f"\ndecomposition: {len(dated)} of {len(cases)} spins have their release dating cached")
    out: dict[str, Any] = {}
    name = "judge's release"
    for sim in ("twin", "altsim"):
        rows = []
        for c in dated:
            if c.sim != sim:
                continue
            on = wobble_onset(c.track, ws)
            stable = stable_of(c, on)
            ended = on if on is not None and on < c.track.fall_t else c.track.fall_t
            rows.append((c, stable - c.true_stable, c.track.release_t - c.true_release,
                         None if c.true_onset is None or c.touch_t is not None else ended - c.true_onset,
                         valid_of(c, stable) == c.true_valid if abs(c.true_stable - 3.0) > 0.15 else None))
        timed = [r for r in rows if r[0].true_onset is not None]
        if not timed:
            continue
        err = np.array([r[1] for r in timed])
        onset = np.array([r[3] for r in timed if r[3] is not None])
        calls = [r[4] for r in rows if r[4] is not None]
        out[f"{name}/{sim}"] = (float(np.median(np.abs(err))), float(np.percentile(np.abs(err), 95)))
        print(f"  {name:<18} {sim:<6} n {err.size:>3}  stable {np.median(np.abs(err)):.3f} / "
              f"{np.percentile(np.abs(err), 95):.3f} (signed {np.median(err):+.3f})  release {np.median([r[2] for r in timed]):+.3f}"
              f"  onset {np.median(onset):+.3f} (|{np.median(np.abs(onset)):.3f}|)  >0.15 s {int((np.abs(err) > 0.15).sum()):>3}"
              f"  valid/invalid {sum(calls)}/{len(calls)}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rec", type=Path, nargs="*", default=None, help="recordings (default: the tuning ones)")
    ap.add_argument("--contexts", type=Path, default=Path("/tmp/h20/ctx"), help="cache of the onset inputs")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--worst", type=int, default=0, help="list this many worst spins per estimator")
    ap.add_argument("--cached-only", action="store_true", help="score the recordings already cached, judge none")
    ap.add_argument("--lead", choices=LEAD_MODES, default="judge",
                    help="the frames seen while the release was made sure of: as the judge hands them over "
                         "(default), in front of the track, or left out")
    ap.add_argument("--lead-and-shape", action="store_true",
                    help="when judging, also keep the lead-in frames and the blob's shape (see _record_lead_and_shape)")
    ap.add_argument("--measures", action="store_true", help="each tilt measure at the true onset, per simulator")
    ap.add_argument("--plot", type=int, default=0, help="draw the circling of this many worst spins (module)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/h20/plots"))
    ap.add_argument("--collect-releases", type=Path, default=None,
                    help="judge --rec camera-only and append each release dating's inputs to this JSON-lines log")
    ap.add_argument("--releases", type=Path, default=None,
                    help="replay the judge's release dating on this log (see --collect-releases)")
    ap.add_argument("--length-weight", type=float, default=None,
                    help="WobbleSettings.length_weight for --decompose (default: the module's)")
    ap.add_argument("--by-scene", type=Path, default=None, metavar="JSON",
                    help="per spin: the level at the true onset, the floor, growth, the dreidel and the JPEG quality "
                         "(printed, and written to JSON)")
    ap.add_argument("--decompose", action="store_true",
                    help="the module's stable-time error split into release and onset, per simulator (see decompose)")
    args = ap.parse_args()
    if args.collect_releases is not None:
        for r in args.rec or []:
            if is_heldout(r):
                sys.exit(f"{r}: held-out recordings are not for tuning")
        with ProcessPoolExecutor(args.jobs) as pool, args.collect_releases.open("a") as out:
            for line in pool.map(collect_releases, [str(r) for r in args.rec or []]):
                out.write(line + "\n")
                out.flush()
        return
    recs = args.rec if args.rec else tuning_recordings("truth.json")
    for r in recs:
        if is_heldout(r):
            sys.exit(f"{r}: held-out recordings are not for tuning")
    if args.cached_only:
        recs = [r for r in recs if context_path(args.contexts, r).is_file()]
    else:
        collect_all(recs, args.contexts, args.jobs, args.lead_and_shape)
    cases = load_cases(recs, args.contexts, lead_mode=args.lead)
    # a faithful replay: the module as the judge calls it gives the onset the judge recorded (with
    # --lead judge, on a cache made by a judge of the same code)
    same = sum(1 for c in cases if wobble_onset(c.track) == c.judged_onset)
    print(f"{len(cases)} spins; the module's replayed onset equals the judge's on {same}"
          f"{'' if args.lead == 'judge' else f' (the lead-in frames: {args.lead}; --lead judge to check)'}")
    score("judge (recorded)", cases, lambda tk: next(c.judged_onset for c in cases if c.track is tk), args.worst)
    for name, est in candidates().items():
        score(name, cases, est, args.worst)
    if args.measures:
        measures(cases)
    if args.releases is not None:
        cases = attach_release_calls(cases, args.releases)
        releases(args.releases, cases)
    if args.decompose:
        decompose(cases, None if args.length_weight is None
                  else WobbleSettings(length_weight=args.length_weight))
    if args.by_scene is not None:
        args.by_scene.write_text(json.dumps(by_scene(cases, recs), indent=1))
    if args.plot:
        args.out.mkdir(parents=True, exist_ok=True)
        ws = WobbleSettings()
        worst = sorted(cases, key=lambda c: -abs(stable_of(c, wobble_onset(c.track, ws)) - c.true_stable))
        for c in worst[: args.plot]:
            p = args.out / f"{c.rec.replace('/', '__')}_spin{c.spin}.png"
            plot_case(p, c, ws, f"stable-time error {stable_of(c, wobble_onset(c.track, ws)) - c.true_stable:+.3f} s")
            print("plot:", p)


def candidates() -> dict[str, Estimator]:
    """The estimators compared (name -> onset of a track)."""
    def with_settings(**kw: Any) -> Estimator:
        ws = WobbleSettings(**kw)
        return lambda tk: wobble_onset(tk, ws)

    return {
        "legacy": legacy,
        "length, first frame": with_settings(fit_s=0.0, period_correction=False, unseen_share=0.0),
        "length, growth fit": with_settings(period_correction=False, unseen_share=0.0),
        "period-corrected, first seen": with_settings(unseen_share=0.0),
        "unseen middle (module)": with_settings(),
        "geometric lever (weight 0.5)": with_settings(length_weight=0.5),
    }


if __name__ == "__main__":
    main()
