"""Measure the spin judge and the letter recognizer on recordings from the alternative renderer.

This is what an unseen checker does: render recordings (bench/altsim) with held-out seeds, run
``sevivon analyze REC --json`` and ``sevivon classify IMAGE [--enroll DIR] --json`` as programs, and
compare with the truth. It prints issue 4's accuracy table broken down by case, and lists every
failure with its seed and a PNG of the moment that went wrong.

    .venv/bin/python bench/eval_unseen.py --n 16 --jobs 2 --out /tmp/altsim_eval

Rendering is the slow part (about a minute of CPU per spin); recordings already in ``--out`` are reused.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.altsim.record import AltTable, SessionSpec, record  # noqa: E402
from controller.rules.letters import Letter  # noqa: E402
from hardware.recording import RecordingReader  # noqa: E402
from hardware.sim.physics import SpinKind  # noqa: E402

#: the first seed of the tuning set: 700000-700099 were rendered, judged and looked at while tuning
SEED0 = 700_000
#: the first seed of the held-out set (fixed at the end of the forty-third session, after its set was judged; not rendered yet): never rendered or
#: judged while tuning. 760000-760015, 780000-780015, 800000-800015, 820000-820015, 840000-840015, 860000-860015, 880000-880015, 900000-900015, 920000-920015, 940000-940015, 960000-960015, 980000-980015, 1000000-1000015, 1020000-1020015, 1040000-1040015, 1060000-1060015, 1080000-1080015, 1100000-1100015, 1120000-1120015, 1140000-1140015, 1160000-1160015, 1180000-1180015, 1200000-1200015, 1220000-1220015, 1240000-1240015, 1260000-1260015, 1280000-1280015, 1300000-1300015, 1320000-1320015, 1340000-1340015, 1360000-1360015, 1380000-1380015, 1400000-1400015, 1420000-1420015, 1440000-1440015, 1460000-1460015, 1480000-1480015, 1500000-1500015, 1520000-1520015, 1540000-1540015, 1560000-1560015, 1580000-1580015, 1600000-1600015, 1620000-1620015, 1640000-1640015, 1660000-1660015, 1680000-1680015, 1700000-1700015, 1720000-1720015 and 1740000-1740015, earlier sessions'
#: held-out sets, were studied after they were judged and are tuning data now (``--seed0 760000`` and so on).
HELDOUT_SEED0 = 1_760_000
KINDS: tuple[SpinKind, ...] = (
    SpinKind.VALID, SpinKind.SHORT, SpinKind.NEAR_3S, SpinKind.WOBBLE_AT_ONCE,
    SpinKind.UPSIDE_DOWN, SpinKind.LEFT_TRAY, SpinKind.HAND_TOUCH, SpinKind.VALID, SpinKind.NO_RELEASE,
)
SEVIVON = ROOT / ".venv" / "bin" / "sevivon"
MATCH_S = 1.0  # a reported spin belongs to a true one when their releases are this close


def spec_for(i: int, spins: int, seed0: int = SEED0) -> SessionSpec:
    kinds = [KINDS[(spins * i + k) % len(KINDS)] for k in range(spins)]
    return SessionSpec.random(seed0 + i, spins, kinds)


def _render(args: tuple[int, int, str, int, int | None, tuple[tuple[str, int], ...]]) -> dict[str, Any]:
    i, spins, out, seed0, quality, copies = args
    rec = Path(out) / f"rec_{seed0 + i}"
    summary_path = rec / "summary.json"
    if summary_path.is_file():
        return dict(json.loads(summary_path.read_text()))
    todo = [(Path(d) / rec.name, q) for d, q in copies if not (Path(d) / rec.name / "summary.json").is_file()]
    summary = record(rec, spec_for(i, spins, seed0), jpeg_quality=quality, copies=todo)
    for d, q in todo:
        (d / "summary.json").write_text(json.dumps({**summary, "jpeg_quality": q}))
    if quality is not None:
        summary["jpeg_quality"] = quality
    summary_path.write_text(json.dumps(summary))
    return summary


def _quality_copy(text: str) -> tuple[str, int]:
    """``Q:DIR`` of ``--also-jpeg``."""
    q, _, d = text.partition(":")
    if not q.isdigit() or not 1 <= int(q) <= 100 or not d:
        raise argparse.ArgumentTypeError(f"give QUALITY:DIR with a quality of 1-100, not {text!r}")
    return d, int(q)


def _run(cmd: list[str]) -> tuple[dict[str, Any] | None, str]:
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
    try:
        return dict(json.loads(p.stdout)), ""
    except json.JSONDecodeError:
        return None, f"not JSON: {p.stdout[:120]!r}"


# -- matching and scoring -------------------------------------------------------------------------


@dataclass
class SpinResult:
    rec: str
    seed: int
    mode: str  # "imu" or "camera"
    truth: dict[str, Any]
    got: dict[str, Any] | None
    case: dict[str, Any]

    @property
    def kind(self) -> str:
        return str(self.truth["kind"])


@dataclass
class Failure:
    where: str
    what: str
    png: str = ""


@dataclass
class Tally:
    letters: list[bool] = field(default_factory=list)
    unreadable: int = 0
    verdicts: list[bool] = field(default_factory=list)
    reasons: list[bool] = field(default_factory=list)
    stable_err: list[float] = field(default_factory=list)
    rest_err: list[float] = field(default_factory=list)
    missed: int = 0
    invented: int = 0
    spins: int = 0


def match(truth: list[dict[str, Any]], got: list[dict[str, Any]]) -> tuple[list[dict[str, Any] | None], list[dict]]:
    """Pair each true spin with the reported spin whose release is nearest (within MATCH_S)."""
    pairs: list[tuple[float, int, int]] = []
    for i, t in enumerate(truth):
        for j, g in enumerate(got):
            if g.get("release_t") is None:
                continue
            d = abs(float(g["release_t"]) - float(t["release_t"]))
            if d <= MATCH_S:
                pairs.append((d, i, j))
    out: list[dict[str, Any] | None] = [None] * len(truth)
    used: set[int] = set()
    for _, i, j in sorted(pairs):
        if out[i] is None and j not in used:
            out[i] = got[j]
            used.add(j)
    return out, [g for j, g in enumerate(got) if j not in used]


def add(t: Tally, r: SpinResult, failures: list[Failure]) -> None:
    tr, g = r.truth, r.got
    t.spins += 1
    where = f"seed {r.seed} spin {tr['index']} ({r.kind}, {r.mode})"
    if g is None:
        t.missed += 1
        failures.append(Failure(where, "missed: no spin reported near the release"))
        return
    if tr["valid"]:
        ok = g.get("letter") == tr["letter"]
        t.letters.append(ok)
        if g.get("letter") is None:
            t.unreadable += 1
        if not ok:
            same_play = g.get("letter") is not None and (
                Letter.parse(str(g["letter"])).plays_as == Letter.parse(str(tr["letter"])).plays_as)
            failures.append(Failure(where, f"letter {tr['letter']} read as {g.get('letter')}"
                                           + (" (plays the same)" if same_play else "")))
    if abs(float(tr["stable_s"]) - 3.0) > 0.15:
        ok = bool(g.get("valid")) == bool(tr["valid"])
        t.verdicts.append(ok)
        if not ok:
            failures.append(Failure(where, f"verdict valid={g.get('valid')} {g.get('reasons')} but truth "
                                           f"valid={tr['valid']} {tr['reasons']} (stable {tr['stable_s']:.2f} s)"))
    if not tr["valid"]:
        # every reason the truth gives must be reported ("unreadable" and extras are allowed)
        ok = set(tr["reasons"]) <= set(g.get("reasons") or [])
        t.reasons.append(ok)
        if not ok:
            failures.append(Failure(where, f"reasons {g.get('reasons')}, truth {tr['reasons']}"))
    # a knock's stable time ends at the touch (truth's wobble_t is the touch): scored like any other, as
    # eval_judge.py scores the twin's
    if tr["wobble_t"] is not None and r.kind != "no_release" and g.get("stable_s") is not None:
        e = abs(float(g["stable_s"]) - float(tr["stable_s"]))
        t.stable_err.append(e)
        if e > 0.15:
            failures.append(Failure(where, f"stable {g['stable_s']:.2f} s, truth {tr['stable_s']:.2f} s"))
    if tr["in_picture"] and g.get("rest_t") is not None:
        e = abs(float(g["rest_t"]) - float(tr["rest_t"]))
        t.rest_err.append(e)
        if e > 0.3:
            failures.append(Failure(where, f"rest at {g['rest_t']:.2f} s, truth {tr['rest_t']:.2f} s"))


def row(name: str, t: Tally) -> str:
    def pct(xs: list[bool]) -> str:
        return f"{100 * sum(xs) / len(xs):5.1f}% ({sum(xs)}/{len(xs)})" if xs else "   -"

    def q(xs: list[float], p: float) -> str:
        return f"{np.percentile(xs, p):.3f}" if xs else "-"

    rest_ok = [e <= 0.3 for e in t.rest_err]
    return (f"{name:<22} {t.spins:>4}  {pct(t.letters):>17} {t.unreadable:>4}  {pct(t.verdicts):>17} "
            f"{pct(t.reasons):>17}  "
            f"{q(t.stable_err, 50):>6} {q(t.stable_err, 95):>6}  {pct(rest_ok):>17}  {t.missed:>3} {t.invented:>3}")


HEADER = (f"{'case':<22} {'spins':>4}  {'letters right (valid)':>17} {'unrd':>4}  {'verdict right':>17} "
          f"{'reasons right':>17}  "
          f"{'stab50':>6} {'stab95':>6}  {'rest <=0.3 s':>17}  {'mis':>3} {'inv':>3}")


# -- failure pictures --------------------------------------------------------------------------------


def failure_png(rec: Path, truth: dict[str, Any], got: dict[str, Any] | None, out: Path) -> str:
    """The frame just after the true rest (or the release for a missed spin), annotated, and a zoom."""
    reader = RecordingReader(rec)
    times = reader.frame_times()
    t = float(truth["rest_t"]) + 0.3
    k = int(min(np.searchsorted(times, t), len(times) - 1))
    for f in reader.frames():
        if f.index == k:
            img = f.image.copy()
            break
    else:
        return ""
    cx, cy = truth["rest_px"]
    L = float(truth["length_px"])
    x0, y0 = int(max(cx - L, 0)), int(max(cy - L, 0))
    crop = img[y0 : int(cy + L), x0 : int(cx + L)]
    text = f"truth {truth['letter']} {truth['kind']} | got {None if got is None else got.get('letter')}"
    cv2.putText(img, text, (8, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 2)
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), img)
    if crop.size:
        cv2.imwrite(str(out.with_name(out.stem + "_zoom.png")),
                    cv2.resize(crop, None, fx=4, fy=4, interpolation=cv2.INTER_NEAREST))
    return str(out)


# -- stills -------------------------------------------------------------------------------------------


def make_stills(i: int, spins: int, out: Path, seed0: int = SEED0) -> list[tuple[Path, str, Path | None, dict[str, Any]]]:
    """One still per letter of recording i's dreidel (the recording's own scene), with its enrol dir."""
    spec = spec_for(i, spins, seed0)
    table = AltTable(spec.seed, spec.size, spec.fps)
    rec = out / f"rec_{spec.seed}"
    enroll = rec / "enroll" if (rec / "enroll").is_dir() else None
    got = []
    for letter in table.dreidel.letters:
        p = out / "stills" / f"{spec.seed}_{letter.value}.png"
        meta = p.with_suffix(".json")
        if p.is_file() and meta.is_file():
            truth = json.loads(meta.read_text())
        else:
            p.parent.mkdir(parents=True, exist_ok=True)
            img, truth = table.still(letter, 77)
            cv2.imwrite(str(p), img)
            meta.write_text(json.dumps(truth))
        got.append((p, str(truth["letter"]), enroll, truth))
    return got


def classify(p: Path, enroll: Path | None) -> tuple[dict[str, Any] | None, str]:
    cmd = [str(SEVIVON), "classify", str(p), "--json"]
    if enroll is not None:
        cmd[3:3] = ["--enroll", str(enroll)]
    return _run(cmd)


# -- main ---------------------------------------------------------------------------------------------


def main(argv: Iterable[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=16, help="recordings (seeds SEED0 .. SEED0+n-1)")
    ap.add_argument("--spins", type=int, default=2, help="spins per recording")
    ap.add_argument("--jobs", type=int, default=2, help="recordings rendered at once")
    ap.add_argument("--out", type=Path, default=Path("/tmp/altsim_eval"))
    ap.add_argument("--render-only", action="store_true", help="only make the recordings and stills")
    ap.add_argument("--no-stills", action="store_true")
    ap.add_argument("--heldout", action="store_true",
                    help=f"the held-out seeds ({HELDOUT_SEED0}...) instead of the tuning seeds ({SEED0}...)")
    ap.add_argument("--seed0", type=int, default=SEED0,
                    help=f"first tuning seed (default {SEED0}); seeds from {HELDOUT_SEED0} on are held out")
    ap.add_argument("--jpeg-quality", type=int, default=None, metavar="Q",
                    help="write the recordings' video at this JPEG quality instead of each scene's own (55-90)")
    ap.add_argument("--also-jpeg", type=_quality_copy, action="append", default=[], metavar="Q:DIR",
                    help="also write each recording, from the same rendered frames, at quality Q into DIR")
    ap.add_argument("--only", type=lambda s: [int(x) for x in s.split(",")], default=None, metavar="SEED,...",
                    help="only these seeds of the set")
    args = ap.parse_args(list(argv) if argv is not None else None)
    if args.jpeg_quality is not None and not 1 <= args.jpeg_quality <= 100:
        ap.error(f"--jpeg-quality must be 1-100, not {args.jpeg_quality}")
    if not args.heldout and args.seed0 + args.n > HELDOUT_SEED0:
        ap.error(f"seeds from {HELDOUT_SEED0} on are the held-out set: pass --heldout to judge them")
    seed0 = HELDOUT_SEED0 if args.heldout else args.seed0
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)

    picked = [i for i in range(args.n) if args.only is None or seed0 + i in args.only]
    copies = tuple(args.also_jpeg)
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        summaries = list(pool.map(_render, [(i, args.spins, str(out), seed0, args.jpeg_quality, copies)
                                            for i in picked]))
    stills: list[tuple[Path, str, Path | None, dict[str, Any]]] = []
    if not args.no_stills:
        for i in picked:
            stills.extend(make_stills(i, args.spins, out, seed0))
    if args.render_only:
        print(f"{len(summaries)} recordings and {len(stills)} stills in {out}")
        return 0

    # -- the judge, as a program, with the IMU and without it
    jobs = []
    for s in summaries:
        rec = out / f"rec_{s['seed']}"
        jobs.append((s, rec, "imu" if s["imu"] else "camera", [str(SEVIVON), "analyze", str(rec), "--json"]))
        if s["imu"]:
            jobs.append((s, rec, "camera", [str(SEVIVON), "analyze", str(rec), "--json", "--no-imu"]))
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        outputs = list(pool.map(lambda j: _run(j[3]), jobs))
    results: list[SpinResult] = []
    tallies: dict[str, Tally] = defaultdict(Tally)
    failures: list[Failure] = []
    errors = []
    for (s, rec, mode, _), (res, err) in zip(jobs, outputs, strict=True):
        if res is None:
            errors.append(f"{rec.name} ({mode}): analyze failed: {err}")
            continue
        truth = s["truth"]
        matched, extra = match(truth, list(res.get("spins", [])))
        sc = s["scene"]
        case = {
            "size": sc["size"], "fps": f"{int(sc['fps'])} fps", "mode": mode, "enroll": "enroll" if s["enroll"] else
            "no enroll", "pe": "pe set" if sc["pe_set"] else "shin set", "finish": sc["finish"],
            "lettering": sc["lettering"], "font": sc["font"], "tray": sc["tray"] + " tray", "table": sc["table"] + " table",
        }
        for tr, g in zip(truth, matched, strict=True):
            r = SpinResult(rec.name, int(s["seed"]), mode, tr, g, case)
            results.append(r)
            keys = ["all", f"kind={r.kind}"] + [f"{k}={v}" for k, v in case.items()]
            if tr.get("hand_near_t") is not None:
                keys.append("kind=valid+hover")
            nf = len(failures)
            for key in keys:
                add(tallies[key], r, failures if key == "all" else [])
            for f in failures[nf:]:
                f.png = failure_png(rec, tr, g, out / "failures" / f"{rec.name}_{tr['index']}_{mode}.png")
        for g in extra:
            for key in ["all"] + [f"{k}={v}" for k, v in case.items()]:
                tallies[key].invented += 1
            failures.append(Failure(f"seed {s['seed']} ({mode})", f"invented spin: {json.dumps(g)[:160]}"))

    print(f"\nSpin judge on {len(summaries)} unseen recordings ({sum(len(s['truth']) for s in summaries)} spins; "
          f"with-IMU recordings judged twice, with and without --no-imu)\n")
    print(HEADER)
    order = sorted(tallies, key=lambda k: (k != "all", k.split("=")[0], k))
    for key in order:
        print(row(key, tallies[key]))
    for e in errors:
        print("ERROR", e)

    # -- the recognizer on stills, as a program
    if stills:
        jobs2 = [(p, want, None, tr) for p, want, _, tr in stills] + [
            (p, want, en, tr) for p, want, en, tr in stills if en is not None]
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            outs2 = list(pool.map(lambda j: classify(j[0], j[2]), jobs2))
        by: dict[str, list[bool]] = defaultdict(list)
        unread: dict[str, int] = defaultdict(int)
        wrong: dict[str, int] = defaultdict(int)
        # taught and generic compared on the same stills (only some dreidels have taught stills)
        taught_set = {p for p, _, en, _ in stills if en is not None}
        conf_right: list[float] = []
        conf_wrong: list[float] = []
        for (p, want, en, tr), (res, err) in zip(jobs2, outs2, strict=True):
            if res is None:
                errors.append(f"classify {p.name}: {err}")
                continue
            ok = res.get("letter") == want
            mode = "with enroll" if en is not None else "generic"
            keys = ["all " + mode, f"{mode} font={tr['font']}", f"{mode} finish={tr['finish']}",
                    f"{mode} lettering={tr['lettering']}", f"{mode} letter={want}"]
            if en is None and p in taught_set:
                keys.append("all generic, on the stills also judged with enroll")
            for key in keys:
                by[key].append(ok)
                if res.get("letter") is None:
                    unread[key] += 1
                elif not ok:
                    wrong[key] += 1
            (conf_right if ok else conf_wrong).append(float(res.get("confidence") or 0.0))
            if not ok:
                failures.append(Failure(f"still {p.name} ({mode})",
                                        f"{want} classified as {res.get('letter')} ({res.get('confidence')})", str(p)))
        print(f"\nLetter recognizer on {len(stills)} unseen stills (`sevivon classify`, generic and with --enroll)\n")
        print(f"{'case':<52} {'right':>17} {'unreadable':>10} {'wrong':>6}")
        for key in sorted(by):
            xs = by[key]
            print(f"{key:<52} {100 * sum(xs) / len(xs):5.1f}% ({sum(xs)}/{len(xs)}) {unread[key]:>10} {wrong[key]:>6}")
        if conf_right or conf_wrong:
            print(f"median confidence: right {np.median(conf_right) if conf_right else math.nan:.2f}, "
                  f"not right (unreadable or wrong) {np.median(conf_wrong) if conf_wrong else math.nan:.2f}")
        for e in errors:
            if e.startswith("classify"):
                print("ERROR", e)

    print(f"\nFailures ({len(failures)}):")
    for f in failures:
        print(f" - {f.where}: {f.what}" + (f"  [{f.png}]" if f.png else ""))
    (out / "report.json").write_text(json.dumps({
        "failures": [f.__dict__ for f in failures],
        "errors": errors,
        "results": [{"rec": r.rec, "mode": r.mode, "truth": r.truth, "got": r.got, "case": r.case} for r in results],
    }, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
