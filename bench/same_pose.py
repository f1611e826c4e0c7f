#!/usr/bin/env python3
"""Does a change to the resting pose keep its outlines? Old and new ``find_resting_dreidel`` on the same stills.

The pose's outlines are the letter model's training and calibration data, so a speed-up must give the same
outline: the same dreidel found (or none), face corners, tip and handle within ``--tol`` px (0.01), on every
still. Two steps:

    # 1. a corpus of tuning stills, each as the pose is asked for it (picture, empty tray, tray mask)
    .venv/bin/python bench/same_pose.py collect --out /tmp/h26/corpus
    # 2. the old pose (a git revision's vision/pose.py, or a file) against the work tree's, still by still
    .venv/bin/python bench/same_pose.py compare --corpus /tmp/h26/corpus --against 7e06225 --repeats 3

``collect`` draws tuning stills only (never the held-out ranges, see common brief):
  twin     the digital twin's stills (hardware.sim.recorder.render_still), seeds 7_300_000+, a third of them in a
           scene drawn at 1280x720 or 800x600 (as bench_pose.py draws them), without an empty tray (bench_letters.py)
  synth    the recognizer's own renderer (vision.letter_synth), seeds 91_000_000+
  altsim   the rendered altsim stills of the tuning recordings' folders (/tmp/tune-alt-*/stills, seeds 760000+)
  judge    what the judge asks for while it judges tuning recordings (with its empty-tray model and its disc
           mask around the resting dreidel, and the enrolment stills it reads), ``--per-recording`` calls each

``compare`` loads both pose modules into one process and runs them in turns on each still (``--repeats``
times each, one thread), then prints the count of stills whose outline differs (and lists them), and the
CPU ms of the pose per still: the medians over stills of each still's median over repeats, and the median of
the per-still ratio old/new (both measured in the same minutes, so the ratio survives a busy machine).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from tuning_sets import is_heldout  # noqa: E402

TWIN_SEED0 = 7_300_000
SYNTH_SEED0 = 91_000_000
#: the rendered altsim tuning stills (seeds 760000-1759999; 1760000 on is held out)
ALT_STILL_GLOBS = ("/tmp/tune-alt-760/stills", "/tmp/tune-alt-780/stills", "/tmp/tune-alt-800/stills",
                   "/tmp/tune-alt-820/stills", "/tmp/tune-alt-840/stills", "/tmp/tune-alt-860/stills",
                   "/tmp/tune-alt-880/stills", "/tmp/tune-alt-900/stills",
                   "/tmp/tune-alt-920/stills", "/tmp/tune-alt-940/stills", "/tmp/tune-alt-960/stills",
                   "/tmp/tune-alt-980/stills", "/tmp/tune-alt-1000/stills",
                   "/tmp/tune-alt-1020/stills", "/tmp/tune-alt-1040/stills",
                   "/tmp/tune-alt-1060/stills", "/tmp/tune-alt-1080/stills",
                   "/tmp/tune-alt-1100/stills", "/tmp/tune-alt-1120/stills",
                   "/tmp/tune-alt-1140/stills", "/tmp/tune-alt-1160/stills",
                   "/tmp/tune-alt-1180/stills", "/tmp/tune-alt-1200/stills",
                   "/tmp/tune-alt-1220/stills", "/tmp/tune-alt-1240/stills",
                   "/tmp/tune-alt-1260/stills", "/tmp/tune-alt-1280/stills",
                   "/tmp/tune-alt-1300/stills", "/tmp/tune-alt-1320/stills",
                   "/tmp/tune-alt-1340/stills", "/tmp/tune-alt-1360/stills",
                   "/tmp/tune-alt-1380/stills", "/tmp/tune-alt-1400/stills",
                   "/tmp/tune-alt-1420/stills", "/tmp/tune-alt-1440/stills",
                   "/tmp/tune-alt-1460/stills", "/tmp/tune-alt-1480/stills",
                   "/tmp/tune-alt-1500/stills",
                   "/tmp/tune-alt-1520/stills",
                   "/tmp/tune-alt-1540/stills",
                   "/tmp/tune-alt-1560/stills",
                   "/tmp/tune-alt-1580/stills",
                   "/tmp/tune-alt-1600/stills",
                   "/tmp/tune-alt-1620/stills",
                   "/tmp/tune-alt-1640/stills",
                   "/tmp/tune-alt-1660/stills",
                   "/tmp/tune-alt-1680/stills",
                   "/tmp/tune-alt-1700/stills",
                   "/tmp/tune-alt-1720/stills",
                   "/tmp/tune-alt-1740/stills")
ALT_HELDOUT_FLOOR = 1_760_000
#: recordings whose judge calls are collected by default (tuning twin and altsim, both sizes of fps)
DEFAULT_RECORDINGS = ("/tmp/tune-twin-550/seed55005_n9_fps60", "/tmp/tune-twin-530/seed53002_n9_fps60",
                      "/tmp/tune-twin-540/seed54007_n9_fps60", "/tmp/tune-alt-840/rec_840002",
                      "/tmp/tune-alt-800/rec_800000", "/tmp/tune-alt-820/rec_820003",
                      "/tmp/tune-alt-780/rec_780005")


@dataclass(frozen=True)
class Case:
    """One call of the pose: the picture and what the caller passed with it."""

    name: str
    image: np.ndarray
    background: np.ndarray | None
    mask: np.ndarray | None


def save_case(folder: Path, case: Case) -> None:
    arrays: dict[str, np.ndarray] = {"image": case.image}
    if case.background is not None:
        arrays["background"] = case.background
    if case.mask is not None:
        arrays["mask"] = case.mask
    safe = case.name.replace("/", "_").replace(" ", "_")
    part = folder / f"{safe}.part"  # renamed when whole: a compare running meanwhile never reads half a file
    with part.open("wb") as fh:
        np.savez_compressed(fh, name=np.array(case.name), **arrays)
    part.rename(folder / f"{safe}.npz")


def load_corpus(folder: Path) -> list[Case]:
    files = sorted(folder.glob("*.npz"))
    if not files:
        raise SystemExit(f"no stills in {folder}: run `same_pose.py collect --out {folder}` first")
    out = []
    for f in files:
        with np.load(f) as z:
            out.append(Case(str(z["name"]), z["image"], z.get("background"),
                            z.get("mask")))
    return out


def twin_cases(n: int) -> Iterator[Case]:
    from hardware.sim.dreidel import resolve_style
    from hardware.sim.recorder import render_still
    from hardware.sim.render import Scene

    sizes = ((1280, 720), (800, 600))
    for i in range(n):
        seed = TWIN_SEED0 + i
        style = resolve_style(None, seed)
        scene = Scene.random(seed, *sizes[i % 2]) if i % 3 == 2 else None
        image, _ = render_still(style, style.letters[i % 4], seed, scene=scene)
        yield Case(f"twin {seed} {image.shape[1]}x{image.shape[0]}", image, None, None)


def synth_cases(n: int) -> Iterator[Case]:
    from controller.rules.letters import Letter
    from vision.letter_synth import DreidelStyle, hebrew_fonts, render_still

    fonts = hebrew_fonts()
    letters = list(Letter)
    for i in range(n):
        rng = np.random.default_rng(SYNTH_SEED0 + i)
        s = render_still(DreidelStyle.random(rng, fonts), letters[i % 4], rng)
        yield Case(f"synth {SYNTH_SEED0 + i}", s.image, None, None)


def alt_cases(n: int) -> Iterator[Case]:
    pngs = sorted(p for g in ALT_STILL_GLOBS for p in Path(g).glob("*.png")
                  if int(p.name.split("_")[0]) < ALT_HELDOUT_FLOOR)
    step = max(1, len(pngs) // max(1, n))
    for p in pngs[::step][:n]:
        image = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if image is not None:
            yield Case(f"altsim {p.stem}", image, None, None)


def judge_cases(recordings: list[Path], per_recording: int) -> Iterator[Case]:
    """The pose calls the judge makes while judging ``recordings`` (IMU mode, letters read)."""
    from controller import analyze_cli
    from vision import pose as pose_mod

    original = pose_mod.find_resting_dreidel
    calls: list[tuple[np.ndarray, np.ndarray | None, np.ndarray | None]] = []

    def recorded(image: np.ndarray, background_bgr: np.ndarray | None = None,
                 mask: np.ndarray | None = None) -> Any:
        calls.append((image.copy(), None if background_bgr is None else background_bgr.copy(),
                      None if mask is None else mask.copy()))
        return original(image, background_bgr=background_bgr, mask=mask)

    pose_mod.find_resting_dreidel = recorded  # type: ignore[assignment]
    try:
        for rec in recordings:
            if is_heldout(rec):
                raise SystemExit(f"{rec} is held out: never judge it here")
            calls.clear()
            analyze_cli.analyze_recording(rec, use_imu=True, use_recognizer=True)
            step = max(1, len(calls) // per_recording)
            print(f"  {rec.name}: {len(calls)} pose calls, keeping every {step}th", flush=True)
            for k, (image, bg, mask) in enumerate(calls[::step][:per_recording]):
                kind = "judge" if mask is not None else "enrol"
                yield Case(f"{kind} {rec.name} {k * step}", image, bg, mask)
    finally:
        pose_mod.find_resting_dreidel = original  # type: ignore[assignment]


def collect(args: argparse.Namespace) -> None:
    args.out.mkdir(parents=True, exist_ok=True)
    recs = [Path(r) for r in (args.recordings or DEFAULT_RECORDINGS) if Path(r).is_dir()]
    sources: list[tuple[str, Iterator[Case]]] = [
        ("twin", twin_cases(args.twin)), ("synth", synth_cases(args.synth)), ("altsim", alt_cases(args.alt)),
        ("judge", judge_cases(recs, args.per_recording))]
    for label, cases in sources:
        k = 0
        for case in cases:
            save_case(args.out, case)
            k += 1
        print(f"{label}: {k} stills", flush=True)


def load_pose_module(source: str, label: str) -> ModuleType:
    """vision/pose.py of a git revision (or a file path) as a module of its own. It is loaded from a copy
    in a fresh folder: numba's cache beside a source file must not learn it under another module's name."""
    path = Path(source)
    text = path.read_text() if path.is_file() else subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{source}:vision/pose.py"], check=True, capture_output=True,
        text=True).stdout
    path = Path(tempfile.mkdtemp(prefix="same_pose_")) / f"pose_{label}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(f"pose_{label}", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path} as a module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while building the class
    spec.loader.exec_module(module)
    return module


def outline(pose: Any) -> np.ndarray | None:
    """The numbers that must match: face corners, tip, handle, centre (None: no dreidel)."""
    if pose is None:
        return None
    quad = np.full((4, 2), np.nan) if pose.face_quad is None else np.asarray(pose.face_quad, np.float64)
    return np.concatenate([quad.ravel(), pose.tip, pose.handle, pose.center])


def difference(a: np.ndarray | None, b: np.ndarray | None) -> float:
    """The largest coordinate difference (px) of two outlines; inf when one is missing."""
    if a is None or b is None:
        return 0.0 if a is None and b is None else math.inf
    both_nan = np.isnan(a) & np.isnan(b)
    return float(np.max(np.where(both_nan, 0.0, np.abs(a - b))))


def timed(fn: Callable[..., Any], case: Case) -> tuple[Any, float]:
    t0 = time.process_time()
    pose = fn(case.image, background_bgr=case.background, mask=case.mask)
    return pose, 1000.0 * (time.process_time() - t0)


def compare(args: argparse.Namespace) -> None:
    cv2.setNumThreads(1)
    old = load_pose_module(args.against, "old")
    if args.tree:
        new = load_pose_module(args.tree, "new")
    else:
        from vision import pose as new
    cases = load_corpus(args.corpus)
    if args.only:
        cases = [c for c in cases if c.name.split()[0] in args.only.split(",")]
    rows = []
    for case in cases:
        t_old, t_new = [], []
        a = b = None
        for _ in range(args.repeats):
            a, ms = timed(old.find_resting_dreidel, case)
            t_old.append(ms)
            b, ms = timed(new.find_resting_dreidel, case)
            t_new.append(ms)
        oa, ob = outline(a), outline(b)
        rows.append({"name": case.name, "diff": difference(oa, ob), "old_ms": float(np.median(t_old)),
                     "new_ms": float(np.median(t_new)), "old": None if oa is None else oa.tolist(),
                     "new": None if ob is None else ob.tolist()})
    kinds = sorted({r["name"].split()[0] for r in rows})
    print(f"old: {args.against}   new: {args.tree or 'work tree'}   tolerance {args.tol} px, {args.repeats} repeats")
    for kind in [*kinds, "all"]:
        sel = [r for r in rows if kind == "all" or r["name"].split()[0] == kind]
        changed = [r for r in sel if r["diff"] > args.tol]
        found = sum(r["old"] is not None for r in sel), sum(r["new"] is not None for r in sel)
        old_ms = np.array([r["old_ms"] for r in sel])
        new_ms = np.array([r["new_ms"] for r in sel])
        print(f"{kind:7s} n={len(sel):4d} found old/new {found[0]}/{found[1]}  outlines changed {len(changed):3d} | "
              f"pose ms median old {np.median(old_ms):5.1f} new {np.median(new_ms):5.1f} (p90 "
              f"{np.percentile(old_ms, 90):5.1f} / {np.percentile(new_ms, 90):5.1f}), "
              f"median ratio old/new {np.median(old_ms / np.maximum(new_ms, 1e-3)):4.2f}")
    for r in rows:
        if r["diff"] > args.tol or args.list:
            print(f"  {'CHANGED' if r['diff'] > args.tol else 'same   '} {r['diff']:9.4f} px  {r['name']}"
                  f"  ({r['old_ms']:.1f} -> {r['new_ms']:.1f} ms)")
    if args.json:
        args.json.write_text(json.dumps(rows))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="render and gather the tuning stills")
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--twin", type=int, default=120)
    c.add_argument("--synth", type=int, default=100)
    c.add_argument("--alt", type=int, default=120)
    c.add_argument("--per-recording", type=int, default=16, help="judge calls kept per recording")
    c.add_argument("--recordings", nargs="*", help="tuning recordings to judge (default: a few twin and altsim)")
    m = sub.add_parser("compare", help="old pose against new on the corpus")
    m.add_argument("--corpus", type=Path, required=True)
    m.add_argument("--against", default="HEAD", help="git revision or pose.py file of the old pose")
    m.add_argument("--tree", default="", help="pose.py file of the new pose (default: the work tree's)")
    m.add_argument("--repeats", type=int, default=3)
    m.add_argument("--tol", type=float, default=0.01, help="px a coordinate may move")
    m.add_argument("--only", default="", help="comma-separated kinds: twin, synth, altsim, judge, enrol")
    m.add_argument("--list", action="store_true", help="list every still")
    m.add_argument("--json", type=Path, help="write every still's outlines and times here")
    args = ap.parse_args()
    if args.cmd == "collect":
        collect(args)
    else:
        compare(args)


if __name__ == "__main__":
    main()
