"""Does a speed change keep every verdict? Judge recordings with two source trees and compare.

    # judge with each tree (each run imports the project from --tree, not from the installed package)
    .venv/bin/python bench/same_verdicts.py run --tree /tmp/h24/base --out /tmp/h24/base.json REC...
    .venv/bin/python bench/same_verdicts.py run --tree /tmp/h24/mine --out /tmp/h24/mine.json REC...
    .venv/bin/python bench/same_verdicts.py compare /tmp/h24/base.json /tmp/h24/mine.json
    .venv/bin/python bench/same_verdicts.py score /tmp/h24/base.json /tmp/h24/mine.json

``run`` analyzes each recording twice, with its IMU and camera-only (``--no-imu``), exactly as
``sevivon analyze --json`` does, and keeps each spin's JSON and, for every frame, what the tracker
returned (the dreidel's blob, the hands, merged, motion, in tray, lost at the edge). ``compare`` says
whether the two are identical; where they are not, it lists the spins whose verdict, reasons or letter
differ and the largest time difference, and how many frames' tracking differs and by how much.
``score`` measures a behaviour change instead: each output against the recordings' ``truth.json`` (the
accuracy table of ``bench/eval_unseen.py``), and with two outputs every true spin judged differently.

Build the "after" tree as the "before" tree with only the changed files copied over it, so that other
people's work in progress does not enter the comparison. Never pass held-out recordings.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tuning_sets import is_heldout  # noqa: E402

#: the verdict fields that are times (seconds): compared by their difference
TIME_FIELDS = ("release_t", "wobble_t", "rest_t", "stable_s")


def _blob(b: Any) -> list[Any] | None:
    if b is None:
        return None
    return [b.x, b.y, b.area, list(b.bbox), b.elongation, b.angle_deg, b.length, b.width, b.edge, b.skin,
            b.is_hand, b.tray_overlap]


def run(tree: Path, out: Path, recs: list[Path], letters: bool) -> None:
    """Judge ``recs`` with the project imported from ``tree``; write spins and per-frame tracking to ``out``."""
    sys.path.insert(0, str(tree.resolve()))
    import cv2

    from controller import analyze_cli
    from vision import tracker as tracker_mod

    if not Path(tracker_mod.__file__).resolve().is_relative_to(tree.resolve()):
        raise SystemExit(f"the tracker was imported from {tracker_mod.__file__}, not from {tree}")
    cv2.setNumThreads(1)
    trace: list[list[Any]] = []
    original = tracker_mod.DreidelTracker.process_small

    def traced(self: Any, index: int, t: float, small: Any, full: Any = None) -> Any:
        tr = original(self, index, t, small, full)
        if tr is not None:
            trace.append([tr.index, _blob(tr.dreidel), [_blob(h) for h in tr.hands], tr.merged, tr.motion,
                          tr.in_tray, tr.lost_at_edge])
        return tr

    tracker_mod.DreidelTracker.process_small = traced  # type: ignore[method-assign]
    results = []
    for rec in recs:
        if is_heldout(rec):
            raise SystemExit(f"{rec} is held out: never judge it here")
        for use_imu in (True, False):
            trace.clear()
            t0 = time.process_time()
            verdicts, facts = analyze_cli.analyze_recording(rec, use_imu=use_imu, use_recognizer=letters)
            cpu = time.process_time() - t0
            results.append({"rec": str(rec), "imu": use_imu, "cpu_s": cpu, "facts": facts,
                            "spins": [v.to_json() for v in verdicts], "trace": list(trace)})
            print(f"{rec.name} imu={use_imu}: {len(verdicts)} spins, {len(trace)} frames, {cpu:.1f} s CPU", flush=True)
    out.write_text(json.dumps({"tree": str(tree), "letters": letters, "results": results}))


def _num_diff(a: Any, b: Any) -> float:
    """The largest difference between two equally shaped nests of numbers (inf if their shapes differ)."""
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return math.inf
        return max((_num_diff(x, y) for x, y in zip(a, b, strict=True)), default=0.0)
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return 0.0 if a == b else math.inf
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(float(a) - float(b))
    return 0.0 if a == b else math.inf


def compare(a_path: Path, b_path: Path) -> bool:
    """Print the differences between two ``run`` outputs; True when they are identical."""
    a, b = json.loads(a_path.read_text()), json.loads(b_path.read_text())
    ra = {(r["rec"], r["imu"]): r for r in a["results"]}
    rb = {(r["rec"], r["imu"]): r for r in b["results"]}
    same = True
    cpu_a = cpu_b = 0.0
    for key in sorted(set(ra) & set(rb)):
        x, y = ra[key], rb[key]
        cpu_a += x["cpu_s"]
        cpu_b += y["cpu_s"]
        name = f"{Path(key[0]).name} {'imu' if key[1] else 'camera'}"
        tx, ty = x["trace"], y["trace"]
        frames_diff = sum(1 for p, q in zip(tx, ty, strict=False) if p != q) + abs(len(tx) - len(ty))
        worst = max((_num_diff(p, q) for p, q in zip(tx, ty, strict=False) if p != q), default=0.0)
        if x["spins"] == y["spins"] and frames_diff == 0:
            print(f"{name}: identical ({len(x['spins'])} spins, {len(tx)} frames)")
            continue
        same = False
        print(f"{name}: DIFFERENT: tracking differs on {frames_diff} of {len(tx)} frames (largest number difference "
              f"{worst:.3g}); spins {len(x['spins'])} -> {len(y['spins'])}")
        for i, (s, t) in enumerate(zip(x["spins"], y["spins"], strict=False)):
            if s == t:
                continue
            dt = max((abs((s[f] or 0.0) - (t[f] or 0.0)) for f in TIME_FIELDS), default=0.0)
            changed = [k for k in s if k not in TIME_FIELDS and s[k] != t.get(k)]
            print(f"   spin {i + 1}: largest time difference {dt * 1000:.2f} ms; other fields changed: {changed or 'none'}")
    missing = set(ra) ^ set(rb)
    if missing:
        same = False
        print(f"only in one of the two: {sorted(missing)}")
    print(f"{'IDENTICAL' if same else 'NOT IDENTICAL'}: {len(set(ra) & set(rb))} judgings; "
          f"CPU {cpu_a:.1f} s ({a_path.name}) vs {cpu_b:.1f} s ({b_path.name})")
    return same


def _scored(path: Path) -> dict[tuple[str, bool], tuple[list[Any], list[Any], list[Any]]]:
    """Each judging of a ``run`` output matched with its recording's truth: (truth, matched verdicts, invented)."""
    from eval_unseen import match

    out = {}
    for r in json.loads(path.read_text())["results"]:
        truth = json.loads((Path(r["rec"]) / "truth.json").read_text())
        got, invented = match(truth, r["spins"])
        out[(r["rec"], r["imu"])] = (truth, got, invented)
    return out


def _outcome(truth: dict[str, Any], got: dict[str, Any] | None) -> str:
    """What the judge said about one true spin, in the words a change list needs."""
    if got is None:
        return "missed"
    stable = "-" if got.get("stable_s") is None else f"{got['stable_s']:.3f}"
    rest = "-" if got.get("rest_t") is None else f"{got['rest_t']:.2f}"
    return (f"valid={got.get('valid')} {','.join(got.get('reasons') or []) or '-'} letter={got.get('letter')} "
            f"stable={stable} rest={rest}")


def score(paths: list[Path]) -> None:
    """Print the accuracy table (``bench/eval_unseen.py``'s) of each ``run`` output against the recordings'
    ``truth.json``, by renderer and mode; with two outputs, also every true spin whose outcome differs."""
    from eval_unseen import HEADER, SpinResult, Tally, add, row

    runs = [_scored(p) for p in paths]
    for p, scored in zip(paths, runs, strict=True):
        print(f"{p.name}\n{HEADER}")
        tallies: dict[str, Tally] = {}
        for (rec, imu), (truth, got, invented) in sorted(scored.items()):
            group = f"{'twin' if Path(rec).name.startswith('seed') else 'altsim'} {'imu' if imu else 'camera'}"
            for key in (group, "all"):
                t = tallies.setdefault(key, Tally())
                t.invented += len(invented)
                for tr, g in zip(truth, got, strict=True):
                    add(t, SpinResult(rec, 0, "imu" if imu else "camera", tr, g, {}), [])
        for key in sorted(tallies, key=lambda k: (k == "all", k)):
            print(row(key, tallies[key]))
    if len(runs) == 2:
        print("true spins judged differently (truth: first -> second)")
        a, b = runs
        for key in sorted(set(a) & set(b)):
            (truth, ga, ia), (_, gb, ib) = a[key], b[key]
            name = f"{Path(key[0]).name} {'imu' if key[1] else 'camera'}"
            for tr, x, y in zip(truth, ga, gb, strict=True):
                if _outcome(tr, x) != _outcome(tr, y):
                    print(f"  {name} spin {tr['index']} ({tr['kind']}, valid={tr['valid']} "
                          f"{','.join(tr['reasons']) or '-'} letter={tr['letter']} stable={tr['stable_s']:.3f} "
                          f"rest={tr['rest_t']:.2f}):\n      {_outcome(tr, x)}\n   -> {_outcome(tr, y)}")
            if len(ia) != len(ib):
                print(f"  {name}: invented {len(ia)} -> {len(ib)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="judge recordings with one source tree")
    r.add_argument("--tree", type=Path, required=True, help="the source tree to import the project from")
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--no-letters", action="store_true", help="skip letter reading (faster; tracking and times only)")
    r.add_argument("recs", type=Path, nargs="+")
    c = sub.add_parser("compare", help="compare two run outputs")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    sc = sub.add_parser("score", help="score run outputs against the recordings' truth (two: list what changed)")
    sc.add_argument("runs", type=Path, nargs="+")
    args = ap.parse_args()
    if args.cmd == "run":
        run(args.tree, args.out, args.recs, letters=not args.no_letters)
    elif args.cmd == "score":
        if len(args.runs) > 2:
            ap.error("score takes one or two run outputs")
        score(args.runs)
    else:
        sys.exit(0 if compare(args.a, args.b) else 1)


if __name__ == "__main__":
    main()
