"""Timing of the IMU's release knock and wobble onset, against the simulators' truth, spin by spin.

    .venv/bin/python bench/bench_imu_timing.py                      # every tuning recording with an IMU
    .venv/bin/python bench/bench_imu_timing.py --plot 6 --out /tmp/h14/plots
    .venv/bin/python bench/bench_imu_timing.py --fusion camera-fall            # the window before session 3
    .venv/bin/python bench/bench_imu_timing.py --rec DIR ...        # any recordings with imu.csv and truth.json

Judging a recording takes the whole vision pipeline; the IMU's part of a verdict is only three queries of
:class:`~controller.imu_features.ImuFeatureExtractor` (the release knock near the camera's release, the
rocking onset and, failing it, the chatter onset, between the release and the camera's fall). So the judge
is run once per recording (``--contexts``, cached as JSON) with those queries recorded: their arguments and
how far the IMU had been fed when they were asked. The bench then replays the recording's ``imu.csv``
through the current extractor, fed in the same chunks, and asks the same questions at the same moments.
A change to ``controller/imu_features.py`` is measured in seconds, not minutes.

The cache holds the camera's part (its release sighting, its fall, its rest): delete it (or pass another
``--contexts``) after changing the judge or the vision. The default ``--fusion imu-fall`` replays the window
the judge uses since session 3: the IMU's fall knock (or the end of its rocking) can end it when the camera
dated the fall earlier (see ``replay``); ``camera-fall`` (formerly ``judge``) ends it at the camera's fall.

It prints, per simulator, the errors of the release, of the wobble onset and of the stable time
(onset or fall, minus release) for the recorded judge and for the replay; then the replay's stable-time
error by renderer and spin kind and by renderer and IMU sample rate, signed (a bias shows as a signed
median away from 0) and as the share of spins within the goal's 0.15 s; and the worst spins with which
end is off. ``--plot N`` draws the IMU features around the true onsets of the N worst spins.

Goals (issue 4): stable-time error median <= 0.05 s, p95 <= 0.15 s.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.tuning_sets import UNSCORED, context_path, is_heldout, tuning_recordings  # noqa: E402
from controller.imu_features import ImuFeatureExtractor, smooth  # noqa: E402

QUERIES = ("release_impact", "rocking_onset", "chatter_onset")


def collect(args: tuple[str, str]) -> str:
    """Judge one recording with the IMU (no letters), recording the IMU queries each verdict made."""
    rec, out = args
    import cv2

    from controller import imu_features
    from controller.analyze_cli import analyze_recording

    cv2.setNumThreads(1)
    log: list[dict[str, Any]] = []
    cls = imu_features.ImuFeatureExtractor
    originals = {name: getattr(cls, name) for name in QUERIES}

    def wrap(name: str) -> Any:
        fn = originals[name]

        def recorded(self: Any, *a: Any, **kw: Any) -> Any:
            got = fn(self, *a, **kw)
            value = got.t if hasattr(got, "t") else got
            log.append({"q": name, "args": list(a), "kw": kw, "last_t": self.last_t, "got": value})
            return got

        return recorded

    for name in QUERIES:
        setattr(cls, name, wrap(name))
    try:
        verdicts, _ = analyze_recording(rec, use_imu=True, use_recognizer=False)
    finally:
        for name, fn in originals.items():
            setattr(cls, name, fn)
    # each verdict with an IMU asks release_impact first: split the log there
    groups: list[list[dict[str, Any]]] = []
    for entry in log:
        if entry["q"] == "release_impact":
            groups.append([])
        if groups:
            groups[-1].append(entry)
    Path(out).write_text(json.dumps({"rec": rec, "verdicts": [v.to_json() for v in verdicts], "queries": groups}))
    return out


def judged_once(recs: list[Path] | None, contexts: Path) -> list[Path]:
    """The recordings (default: the tuning ones) that have an IMU, each judged once into ``contexts`` if it is not
    cached there yet (one at a time, saying so). Exits on a held-out recording: they are not for tuning."""
    recs = [r for r in (recs if recs else tuning_recordings("imu.csv")) if (r / "imu.csv").is_file()]
    for r in recs:
        if is_heldout(r):
            sys.exit(f"{r}: held-out recordings are not for tuning")
    contexts.mkdir(parents=True, exist_ok=True)
    for r in recs:
        if not context_path(contexts, r).is_file():
            print("judging once:", collect((str(r), str(context_path(contexts, r)))), flush=True)
    return recs


def frames_t(rec: Path) -> np.ndarray:
    rows = np.loadtxt(rec / "frames.csv", delimiter=",", skiprows=1, ndmin=2)
    return rows[:, 1]


def load_imu(rec: Path) -> np.ndarray:
    return np.loadtxt(rec / "imu.csv", delimiter=",", skiprows=1, ndmin=2)


@dataclass
class Replay:
    """One verdict's IMU answers, recorded (the judge's run) and replayed (the current code)."""

    release_hint: float
    fall_t: float
    judged_release: float | None
    judged_onset: float | None
    judged_source: str
    release: float | None
    onset: float | None
    source: str
    verdict: dict[str, Any]


def replay(rec: Path, ctx: dict[str, Any], make: Any = ImuFeatureExtractor,
           fusion: str = "imu-fall") -> tuple[list[Replay], ImuFeatureExtractor]:
    """Feed ``imu.csv`` as analyze does (0.1 s chunks as frames pass) and ask each verdict's queries again.

    ``fusion="imu-fall"`` asks what the judge asks today: the search window reaches the last rocking the IMU
    felt before the camera's rest when that is after the camera's fall; ``"camera-fall"`` ends it at the
    camera's fall (the judge before session 3).
    """
    imu = load_imu(rec)
    ft = frames_t(rec)
    ex = make()
    pos = 0
    groups = [g for g in ctx["queries"] if g]
    # when each group was asked: how far the IMU had been fed then
    pending = sorted(range(len(groups)), key=lambda k: groups[k][0]["last_t"] or 0.0)
    answers: dict[int, Replay] = {}

    def ask(k: int) -> None:
        g = groups[k]
        rel_q = g[0]
        hint = float(rel_q["args"][0])
        not_after = float(rel_q["kw"].get("not_after", math.inf))
        fall_t = not_after + 0.05
        rock = next((e for e in g if e["q"] == "rocking_onset"), None)
        chat = next((e for e in g if e["q"] == "chatter_onset"), None)
        judged_release = rel_q["got"]
        judged_onset, judged_source = None, "camera"
        if rock is not None and rock["got"] is not None:
            judged_onset, judged_source = rock["got"], "rocking"
        elif chat is not None and chat["got"] is not None:
            judged_onset, judged_source = chat["got"], "chatter"
        imp = ex.release_impact(hint, not_after=not_after)
        release = imp.t if imp is not None else hint
        # the judge's window: from just after the release to just after the camera's fall
        skip = (rock["args"][0] - (judged_release if judged_release is not None else hint)) if rock else 0.33
        verdict = min(ctx["verdicts"], key=lambda v: abs(v["release_t"] - (judged_release if judged_release is not None else hint)))
        end = fall_t
        if fusion == "imu-fall":
            rest = verdict["rest_t"] if verdict["rest_t"] is not None else fall_t + 1.0
            land = ex.landing_impact(release + 0.2, rest + 0.05)
            last = land.t if land is not None else ex.rocking_end(release + 0.2, rest + 0.05)
            if last is not None:
                end = max(end, min(last, rest))
        t0, t1 = release + skip, end + 0.1
        # as the judge: a rocking onset from the felt end on is no onset, and then the chatter's is asked,
        # in the window that ends at the camera's fall
        onset, source = ex.rocking_onset(t0, t1), "rocking"
        if onset is not None and onset >= end:
            onset = None
        if onset is None:
            onset, source = ex.chatter_onset(t0, fall_t + 0.1), "chatter"
            end = fall_t
        if onset is None:
            source = "camera"
        if onset is not None and onset >= end:
            onset = None
        if onset is None and judged_source == "camera":
            onset = verdict["wobble_t"]  # the camera's onset, which the replay does not change
        answers[k] = Replay(hint, fall_t, judged_release, judged_onset, judged_source, release, onset, source, verdict)

    for fi in ft:
        if pos < imu.shape[0] and imu[pos, 0] > fi - 0.1:
            pass
        else:
            end = int(np.searchsorted(imu[:, 0], fi, side="right"))
            if end > pos:
                ex.feed_array(imu[pos:end])
                pos = end
        while pending and (groups[pending[0]][0]["last_t"] or 0.0) <= (ex.last_t or -1.0):
            ask(pending.pop(0))
    if pos < imu.shape[0]:
        ex.feed_array(imu[pos:])
    while pending:
        ask(pending.pop(0))
    return [answers[k] for k in range(len(groups))], ex


def match_truth(truth: list[dict[str, Any]], reps: list[Replay]) -> list[tuple[dict[str, Any], Replay]]:
    """Pair each true spin with the replayed verdict whose release hint is nearest (within 1.5 s)."""
    out = []
    used: set[int] = set()
    for tr in truth:
        best, best_d = None, 1.5
        for k, r in enumerate(reps):
            d = abs(r.release_hint - tr["release_t"])
            if k not in used and d < best_d:
                best, best_d = k, d
        if best is not None:
            used.add(best)
            out.append((tr, reps[best]))
    return out


def stable(release: float | None, onset: float | None, fall_t: float, hint: float) -> float:
    rel = release if release is not None else hint
    end = onset if onset is not None else fall_t  # an onset after the fall was dropped already
    return max(0.0, end - rel)


def true_stable(tr: dict[str, Any]) -> float | None:
    if tr.get("stable_s") is not None:
        return float(tr["stable_s"])
    if tr.get("wobble_t") is not None:
        return float(tr["wobble_t"] - tr["release_t"])
    return None


def summarize(name: str, rows: list[dict[str, Any]]) -> None:
    if not rows:
        print(f"{name}: no spins")
        return
    for which in ("judged", "replay"):
        se = np.abs([r[f"{which}_stable_err"] for r in rows])
        re_ = np.abs([r[f"{which}_release_err"] for r in rows])
        oe = np.abs([r[f"{which}_onset_err"] for r in rows if r[f"{which}_onset_err"] is not None])
        print(
            f"{name:<7} {which:<7} spins {len(rows):>3}  stable err median {np.median(se):.3f} s  p95 {np.percentile(se, 95):.3f} s"
            f"  max {se.max():.3f} s | release med {np.median(re_):.3f} p95 {np.percentile(re_, 95):.3f}"
            f" | onset med {np.median(oe) if oe.size else math.nan:.3f} p95 {np.percentile(oe, 95) if oe.size else math.nan:.3f}"
            f" (n={oe.size})  >0.15 s: {int((se > 0.15).sum())}"
        )


def breakdown(rows: list[dict[str, Any]], key: str) -> None:
    """The replay's stable-time error per renderer and ``key`` (``kind`` or ``rate``): signed median (a bias),
    median and p95 of its size, and the share of spins within the goal's 0.15 s."""
    print(f"\nby renderer and {key}: n, signed median, |median|, |p95|, within 0.15 s")
    for sim in ("twin", "altsim"):
        for value in sorted({r[key] for r in rows if r["sim"] == sim}):
            e = np.array([r["replay_stable_err"] for r in rows if r["sim"] == sim and r[key] == value])
            a = np.abs(e)
            print(f"  {sim:<7} {value!s:<15} {e.size:>4}  {np.median(e):+.3f}  {np.median(a):.3f}"
                  f"  {np.percentile(a, 95):.3f}  {100.0 * float((a <= 0.15).mean()):5.1f}%")


def cause(ex: ImuFeatureExtractor, row: dict[str, Any], ring_s: float = 0.45, hover_s: float = 0.1) -> str:
    """Why a spin's onset is off, as far as the IMU shows it (for spins outside the goal's 0.15 s).

    - ``knock ring``: dated early, within ``ring_s`` of the release, where the release knock still rings;
    - ``hover``: dated late, and the tray's averaged rocking (0.2 s, no fit) had already reached the level at
      least ``hover_s`` before the onset and fallen back under it: the lean grazed the rules' 6 degrees
      (the onset is its first touch) and the fitted growth, which follows the mean lean, crossed later;
    - ``late, no hover``, ``early``: neither (a grazing lean that never lifted the averaged rocking to the
      level, a burst of chatter, ...); ``no onset``: the IMU dated none.
    With ``track.csv`` (the twin's true tilt) the label says whether the lean dipped back under 6 degrees
    for 0.1 s between its first touch and the onset found (``, tilt dipped``).
    """
    on, true_on, rel = row["replay_onset"], row["true_onset"], row["true_release"]
    if on is None or true_on is None:
        return "no onset"
    err = on - true_on
    if err < 0:
        return "knock ring" if on - rel < ring_s else "early"
    label = "late, no hover"
    curve = ex.rocking_power(true_on - 0.1, on, fit_s=0.0)
    level2 = ex.rocking_level_dps ** 2
    if curve is not None:
        ts, power, _ = curve
        over = np.flatnonzero((power > level2) & (ts <= on - hover_s))
        if over.size and np.any(power[over[0]:][ts[over[0]:] < on] < level2):
            label = "hover"
    track = Path(row["rec"]) / "track.csv"
    if track.is_file():
        tr = np.genfromtxt(track, delimiter=",", names=True)
        keep = (tr["t"] >= true_on) & (tr["t"] < on)
        below = np.nan_to_num(tr["tilt_deg"][keep]) < 6.0
        dt = float(np.median(np.diff(tr["t"]))) if tr["t"].size > 1 else 1.0
        if below.sum() * dt >= 0.1:
            label += ", tilt dipped"
    return label


def imu_rate(rec: Path) -> int:
    """The IMU's sample rate (Hz, rounded) from the first samples of ``imu.csv``."""
    head = np.loadtxt(rec / "imu.csv", delimiter=",", skiprows=1, max_rows=200, ndmin=2)
    return int(round(1.0 / float(np.median(np.diff(head[:, 0])))))


def plot_spin(path: Path, ex: ImuFeatureExtractor, row: dict[str, Any]) -> None:
    """The gyro's RMS and the energy around the true onset, with the true and found marks (PNG)."""
    from PIL import Image, ImageDraw

    t_true = row["true_onset"] if row["true_onset"] is not None else row["true_end"]
    t0, t1 = t_true - 2.0, t_true + 1.2
    wins = ex.windows_between(t0, t1)
    if len(wins) < 5:
        return
    ts = np.array([w.t for w in wins])
    track = Path(row["rec"]) / "track.csv"
    tilt = None
    if track.is_file():
        tr = np.genfromtxt(track, delimiter=",", names=True)
        keep = (tr["t"] >= t0) & (tr["t"] <= t1)
        tilt = (tr["t"][keep], np.nan_to_num(tr["tilt_deg"][keep]))
    w_, h_ = 1000, 760
    img = Image.new("RGB", (w_, h_), "white")
    d = ImageDraw.Draw(img)

    def x(t: float) -> float:
        return 50 + (t - t0) / (t1 - t0) * (w_ - 70)

    panels = (
        ("gyro RMS deg/s (log)", np.array([w.gyro for w in wins]), ex.gyro_floor(), 20, 240),
        ("accel energy g (log)", np.array([w.energy for w in wins]), ex.noise_floor(), 270, 490),
    )
    for label, vals, floor, top, bot in panels:
        lv = np.log10(np.maximum(vals, 1e-5))
        lo, hi = float(lv.min()), float(max(lv.max(), lv.min() + 0.5))

        def y(v: float, lo: float = lo, hi: float = hi, top: int = top, bot: int = bot) -> float:
            return bot - (v - lo) / (hi - lo) * (bot - top)

        d.rectangle([50, top, w_ - 20, bot], outline="gray")
        d.text((55, top + 2), f"{label}  floor {floor:.4f}" + ("  red: 0.2 s power average, purple: fitted growth"
                                                              if label.startswith("gyro") else ""), fill="black")
        pts = [(x(float(t)), y(float(v))) for t, v in zip(ts, lv, strict=True)]
        d.line(pts, fill="blue", width=1)
        if label.startswith("gyro"):
            # what rocking_onset compares: the power-averaged RMS, against the level over the noise
            p2 = smooth(vals * vals, 20)
            sm = np.log10(np.maximum(np.sqrt(p2), 1e-5))
            d.line([(x(float(t)), y(float(v))) for t, v in zip(ts, sm, strict=True)], fill="red", width=2)
            # and the growth rocking_onset fits through its log (the module's own curve), noise added back
            noise = ex.gyro_noise_power()
            curve = ex.rocking_power(t0, t1)
            if curve is not None:
                fl = np.log10(np.sqrt(curve[1] + noise))
                d.line([(x(float(t)), y(float(v))) for t, v in zip(curve[0], fl, strict=True)], fill="purple", width=2)
            for lev, colour in ((0.2, "red"), (0.1, "orange")):
                yl = y(0.5 * math.log10(lev * lev + noise))
                d.line([(50, yl), (w_ - 20, yl)], fill=colour)
        d.line([(50, y(math.log10(max(floor, 1e-5)))), (w_ - 20, y(math.log10(max(floor, 1e-5))))], fill="green")
    if tilt is not None and tilt[0].size > 2:
        top, bot = 520, 740
        lo, hi = 0.0, max(float(tilt[1].max()), 8.0)
        d.rectangle([50, top, w_ - 20, bot], outline="gray")
        d.text((55, top + 2), f"true tilt deg (0..{hi:.0f}); lines at 2.5 and 6", fill="black")
        for v in (2.5, 6.0):
            d.line([(50, bot - v / hi * (bot - top)), (w_ - 20, bot - v / hi * (bot - top))], fill="green")
        d.line([(x(float(t)), bot - float(v) / hi * (bot - top)) for t, v in zip(*tilt, strict=True)], fill="blue")
    marks = (
        (row["true_release"], "black", "true release"),
        (row["true_onset"], "red", "true onset"),
        (row["judged_onset"], "orange", "judged onset"),
        (row["replay_onset"], "purple", "replay onset"),
        (row["fall_t"], "gray", "camera fall"),
    )
    for k, (t, colour, label) in enumerate(marks):
        if t is not None and t0 <= t <= t1:
            d.line([(x(t), 20), (x(t), h_ - 20)], fill=colour, width=2)
            d.text((x(t) + 3, 25 + 12 * k), label, fill=colour)
    d.text((50, 497), f"{row['rec']} spin {row['spin']} ({row['kind']})  t {t0:.2f}..{t1:.2f} s", fill="black")
    img.save(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rec", type=Path, nargs="*", default=None, help="recordings (default: the tuning ones)")
    ap.add_argument("--contexts", type=Path, default=Path("/tmp/h14/contexts"), help="cache of the judge's queries")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--worst", type=int, default=15, help="list this many worst spins")
    ap.add_argument("--plot", type=int, default=0, help="draw the IMU features of this many worst spins")
    ap.add_argument("--out", type=Path, default=Path("/tmp/h14/plots"))
    ap.add_argument("--fusion", choices=("imu-fall", "camera-fall"), default="imu-fall",
                    help="the judge's window (ended by the IMU's landing knock when later), or the camera's fall")
    args = ap.parse_args()
    recs = args.rec if args.rec else tuning_recordings("imu.csv")
    for r in recs:
        if is_heldout(r):
            sys.exit(f"{r}: held-out recordings are not for tuning")
    args.contexts.mkdir(parents=True, exist_ok=True)
    todo = [(str(r), str(context_path(args.contexts, r))) for r in recs if not context_path(args.contexts, r).is_file()]
    if todo:
        print(f"judging {len(todo)} recordings once to record the IMU queries ...", flush=True)
        with ProcessPoolExecutor(args.jobs) as ex:
            for out in ex.map(collect, todo):
                print("  ", out, flush=True)
    rows: list[dict[str, Any]] = []
    extractors: dict[str, ImuFeatureExtractor] = {}
    for r in recs:
        ctx = json.loads(context_path(args.contexts, r).read_text())
        truth = json.loads((r / "truth.json").read_text())
        reps, ex = replay(r, ctx, fusion=args.fusion)
        extractors[str(r)] = ex
        sim = "altsim" if "alt" in r.parent.name else "twin"
        rate = imu_rate(r)
        for tr, rp in match_truth(truth, reps):
            s_true = true_stable(tr)
            if tr["kind"] in UNSCORED or s_true is None:
                continue
            t_onset = tr.get("wobble_t")
            row: dict[str, Any] = {
                "sim": sim, "rec": str(r), "spin": tr["index"], "kind": tr["kind"], "true_release": tr["release_t"],
                "true_onset": t_onset, "true_end": tr["release_t"] + s_true, "fall_t": rp.fall_t,
                "judged_onset": rp.verdict["wobble_t"], "replay_onset": rp.onset, "source": rp.source,
                "judged_source": rp.judged_source, "rate": rate,
            }
            v = rp.verdict
            for which, rel, on in (("judged", v["release_t"], v["wobble_t"]), ("replay", rp.release, rp.onset)):
                if which == "judged":
                    row["judged_stable_err"] = v["stable_s"] - s_true
                else:
                    row["replay_stable_err"] = stable(rel, on, rp.fall_t, rp.release_hint) - s_true
                row[f"{which}_release_err"] = (rel if rel is not None else rp.release_hint) - tr["release_t"]
                row[f"{which}_onset_err"] = (on - t_onset) if on is not None and t_onset is not None else None
            rows.append(row)
    for sim in ("twin", "altsim"):
        summarize(sim, [r for r in rows if r["sim"] == sim])
    summarize("all", rows)
    breakdown(rows, "kind")
    breakdown(rows, "rate")
    off = [r for r in rows if abs(r["replay_stable_err"]) > 0.15]
    for r in off:
        r["cause"] = cause(extractors[r["rec"]], r)
    print(f"\nspins off by more than 0.15 s, by cause (see cause()): {len(off)}")
    for sim in ("twin", "altsim"):
        for label in sorted({r["cause"] for r in off if r["sim"] == sim}):
            group = [r for r in off if r["sim"] == sim and r["cause"] == label]
            kinds = ", ".join(f"{k} {sum(r['kind'] == k for r in group)}" for k in sorted({r["kind"] for r in group}))
            print(f"  {sim:<7} {label:<28} {len(group):>3}  ({kinds})")
    worst = sorted(rows, key=lambda r: -abs(r["replay_stable_err"]))[: args.worst]
    print("\nworst spins (replay): stable err = release part + onset part")
    for r in worst:
        oe = r["replay_onset_err"]
        print(
            f"  {Path(r['rec']).name:<20} spin {r['spin']} {r['kind']:<15} stable {r['replay_stable_err']:+.3f}"
            f" release {r['replay_release_err']:+.3f} onset {'' if oe is None else f'{oe:+.3f}':>7} ({r['source']})"
            f"  judged {r['judged_stable_err']:+.3f}"
        )
    if args.plot:
        args.out.mkdir(parents=True, exist_ok=True)
        for r in worst[: args.plot]:
            p = args.out / f"{Path(r['rec']).name}_spin{r['spin']}.png"
            plot_spin(p, extractors[r["rec"]], r)
            print("plot:", p)


if __name__ == "__main__":
    main()
