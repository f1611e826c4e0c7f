"""Speed of the spin judge (issue 4): per-frame tracking + judging, and ``analyze`` against real time.

    .venv/bin/python bench/bench_judge.py [--repeats 3] [--cache /tmp/sevivon-bench]
    .venv/bin/python bench/bench_judge.py --repeats 5 --against /tmp/base   # alternately with other code

- **per frame**: the lores (320x240) pictures of a simulated recording are decoded beforehand; the
  clock runs only around ``SpinJudge.feed_small`` (tracking, observation, the state machine, IMU
  features; no letter reading, no evidence). Goal: <= 1.5 ms per frame on one core.
- **analyze**: ``analyze_recording`` on a simulated recording with its IMU, from the files on disk,
  letters read when the recognizer's model is installed. Goal: >= 5x faster than real time. ``analyze``
  decodes the next JPEG frames on a helper thread (OpenCV decodes without Python's lock; a Pi 5 has four
  cores) while the judge works on one core, so three figures are printed: the video's length over the
  judge's own CPU time (the main thread, ``time.thread_time``), over the CPU time of the whole process
  (judge + decoder), and over the wall-clock time (what a person waits; on a shared machine it also holds
  everyone else's load).

Times are CPU times (``time.process_time``) with OpenCV limited to one thread, so other work on a shared
machine disturbs them less; medians of ``--repeats`` runs are printed.

``--against TREE`` measures this code and the code in TREE (e.g. an older commit unpacked with
``git archive REV | tar -x -C TREE``) in turns, one fresh process per run, so that both see the same
minutes of a shared machine; it prints both medians and their ratio. ``--tree TREE`` measures TREE's code.

``--rec REC`` times a recording on disk instead of the simulated one (a second-renderer recording whose felt
is thresholded apart from the picture, ``DreidelTracker.thresholds``, shows that path's cost).

``--against TREE --interleaved`` compares the per-frame cost more finely: one process imports both trees
(each its own copy of the modules) and feeds every frame to TREE's judge and to this one in turns, so both
see the same milliseconds of the machine; it prints both means, their ratio, and the mean of each frame's
cheapest of ``--repeats`` passes (the least disturbed figure).
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

HERE = Path(__file__).resolve()


def _code_from(tree: Path) -> None:
    """Import the project from ``tree`` (before anything of it is imported)."""
    if not (tree / "vision" / "tracker.py").is_file():
        raise SystemExit(f"{tree} holds no Sevivon source tree (vision/tracker.py is missing)")
    sys.path.insert(0, str(tree.resolve()))


if __name__ == "__main__" and "--tree" in sys.argv:
    _code_from(Path(sys.argv[sys.argv.index("--tree") + 1]))
else:
    sys.path.insert(0, str(HERE.parents[1]))

from controller.analyze_cli import MjpegAvi, analyze_recording  # noqa: E402
from controller.judge import SpinJudge  # noqa: E402
from hardware.recording import RecordingReader  # noqa: E402


def recording(cache: Path, seed: int = 77) -> Path:
    out = cache / f"bench_seed{seed}"
    if not (out / "truth.json").is_file():
        from hardware.sim.physics import SpinKind
        from hardware.sim.recorder import record_session

        record_session(out, spins=2, seed=seed, fps=60.0, kinds=[SpinKind.VALID, SpinKind.SHORT])
    return out


class _Decoded:
    """A recording's frames decoded beforehand: JPEG bytes, lores pictures, times, IMU."""

    def __init__(self, rec: Path) -> None:
        reader = RecordingReader(rec)
        self.size = reader.size
        avi = MjpegAvi(rec / "video.avi")
        self.times = reader.frame_times()
        self.jpgs = [np.frombuffer(avi.jpeg(i), np.uint8) for i in range(len(self.times))]
        self.smalls = [cv2.imdecode(j, cv2.IMREAD_REDUCED_COLOR_2) for j in self.jpgs]
        self.imu = reader.imu()
        # the first second learns the tray (and decodes full pictures for it): the judging frames follow
        self.first = int(reader.fps) + 5


class _Feed:
    """One judge fed a recording's lores pictures frame by frame, as bench's per-frame figure times it."""

    def __init__(self, judge_class: Any, rec: _Decoded) -> None:
        self.rec = rec
        self.judge = judge_class(None, imu=rec.imu is not None)
        self.judge.tracker.set_full_size(*rec.size)
        self.pos = 0

    def frame(self, i: int) -> float:
        """Judge frame ``i``; its CPU seconds (IMU batch included)."""
        rec, judge, imu = self.rec, self.judge, self.rec.imu
        t = float(rec.times[i])
        j = rec.jpgs[i]
        t0 = time.process_time()
        if imu is not None and (self.pos >= imu.shape[0] or imu[self.pos, 0] <= t - 0.1):
            # IMU batches of a tenth of a second, as the live driver reads its FIFO
            end = int(np.searchsorted(imu[:, 0], t, side="right"))
            judge.feed_imu_array(imu[self.pos : end])
            self.pos = end
        judge.feed_small(i, t, rec.smalls[i], lambda j=j: cv2.imdecode(j, cv2.IMREAD_COLOR))
        return time.process_time() - t0


def per_frame(rec: Path) -> tuple[float, float, int]:
    """(mean ms, p95 ms, frames) of feed_small over the whole recording."""
    decoded = _Decoded(rec)
    feed = _Feed(SpinJudge, decoded)
    costs = [feed.frame(i) for i in range(len(decoded.times))]
    c = np.array(costs[decoded.first :]) * 1000
    return float(c.mean()), float(np.percentile(c, 95)), len(c)


def analyze_speed(rec: Path) -> dict[str, float]:
    """analyze_recording's speed, x real time: by the judge's CPU time (the main thread), by the whole
    process's CPU time (judge + decoding thread) and by the wall clock."""
    meta = json.loads((rec / "meta.json").read_text())
    video = len(RecordingReader(rec).frame_times()) / float(meta["fps"])
    wall, cpu, judge = time.perf_counter(), time.process_time(), time.thread_time()
    analyze_recording(rec)
    return {"analyze_judge": video / (time.thread_time() - judge), "analyze": video / (time.process_time() - cpu),
            "analyze_wall": video / (time.perf_counter() - wall)}


def measure(rec: Path, repeats: int, analyze: bool) -> dict[str, list[float]]:
    """Per-frame mean and p95 (ms) and, with ``analyze``, analyze's speeds (x real time), one entry per run."""
    out: dict[str, list[float]] = {"mean": [], "p95": [], "analyze": [], "analyze_judge": [], "analyze_wall": []}
    for _ in range(repeats):
        mean, p95, _n = per_frame(rec)
        out["mean"].append(mean)
        out["p95"].append(p95)
    if analyze:
        for _ in range(repeats):
            for key, value in analyze_speed(rec).items():
                out[key].append(value)
    return out


def _judge_class_from(tree: Path) -> Any:
    """SpinJudge as ``tree``'s code defines it, imported afresh: the project's modules are dropped from
    ``sys.modules`` first, so that its imports resolve in ``tree``. Classes imported before keep theirs
    (the judge's one late import, the pose for a letter, is not reached without a recognizer)."""
    tree = tree.resolve()
    if not (tree / "vision" / "tracker.py").is_file():
        raise SystemExit(f"{tree} holds no Sevivon source tree (vision/tracker.py is missing)")
    for name in [m for m in sys.modules if m.split(".")[0] in ("controller", "vision", "hardware")]:
        del sys.modules[name]
    sys.path.insert(0, str(tree))
    try:
        judge_class = importlib.import_module("controller.judge").SpinJudge
        tracker_file = Path(importlib.import_module("vision.tracker").__file__ or "")
    finally:
        sys.path.remove(str(tree))
    if not tracker_file.resolve().is_relative_to(tree):
        raise SystemExit(f"the tracker came from {tracker_file}, not from {tree}")
    return judge_class


def interleaved(base: Path, rec: Path, repeats: int) -> None:
    """Per-frame cost of this code and ``base``'s in one process, frame by frame in turns."""
    decoded = _Decoded(rec)
    classes = {"this": SpinJudge, "base": _judge_class_from(base)}
    n = len(decoded.times)
    costs = {name: np.zeros((repeats, n)) for name in classes}
    for r in range(repeats):
        feeds = {name: _Feed(cls, decoded) for name, cls in classes.items()}
        for i in range(n):
            # who goes first alternates, so that neither always meets the caches the other left
            for name in (("this", "base") if (i + r) % 2 else ("base", "this")):
                costs[name][r, i] = feeds[name].frame(i)
    ms = {name: c[:, decoded.first :] * 1000 for name, c in costs.items()}
    mean = {name: float(c.mean()) for name, c in ms.items()}
    least = {name: float(c.min(axis=0).mean()) for name, c in ms.items()}
    print(f"interleaved, {repeats} passes of {ms['this'].shape[1]} judging frames: this {mean['this']:.3f} ms/frame, "
          f"base ({base}) {mean['base']:.3f} ms/frame, ratio {mean['this'] / mean['base']:.3f}; each frame's "
          f"cheapest pass: this {least['this']:.3f}, base {least['base']:.3f}, ratio {least['this'] / least['base']:.3f}")


def against(base: Path, args: argparse.Namespace) -> None:
    """This code and ``base``'s in turns, a fresh process for each run; medians and ratios."""
    trees = {"this": HERE.parents[1], "base": base.resolve()}
    keys = ("mean", "p95", "analyze", "analyze_judge", "analyze_wall")
    runs: dict[str, dict[str, list[float]]] = {k: {key: [] for key in keys} for k in trees}
    for r in range(args.repeats):
        for name in (("base", "this") if r % 2 == 0 else ("this", "base")):
            cmd = [sys.executable, str(HERE), "--tree", str(trees[name]), "--repeats", "1", "--cache", str(args.cache),
                   "--json"] + ([] if args.analyze else ["--no-analyze"]) + ([] if args.rec is None else ["--rec", str(args.rec)])
            got = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
            for key, values in got.items():
                runs[name][key] += values
            print(f"run {r + 1} {name}: " + ", ".join(f"{k} {v[0]:.3f}" for k, v in got.items() if v), flush=True)
    med = {name: {k: statistics.median(v) for k, v in d.items() if v} for name, d in runs.items()}
    for key, unit in (("mean", "ms/frame"), ("p95", "ms/frame"), ("analyze_judge", "x real time (judge CPU)"),
                      ("analyze", "x real time (process CPU)"), ("analyze_wall", "x real time (wall)")):
        if key in med["this"] and key in med["base"]:
            # the two runs of a round share their minutes of the machine: their ratio is the steadier figure
            pairs = [a / b for a, b in zip(runs["this"][key], runs["base"][key], strict=True)]
            print(f"{key:13s} median of {args.repeats}: this {med['this'][key]:.3f} {unit}, base ({base}) "
                  f"{med['base'][key]:.3f} {unit}: ratio of medians {med['this'][key] / med['base'][key]:.3f}, "
                  f"median ratio within a round {statistics.median(pairs):.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/sevivon-bench"))
    ap.add_argument("--against", type=Path, default=None, help="also measure the code in this tree, in turns")
    ap.add_argument("--tree", type=Path, default=None, help="measure the code in this tree")
    ap.add_argument("--no-analyze", dest="analyze", action="store_false", help="per frame only")
    ap.add_argument("--json", action="store_true", help="print the runs as JSON")
    ap.add_argument("--rec", type=Path, default=None,
                    help="time this recording instead of the simulated one (e.g. altsim 1040003, where the tracker "
                         "thresholds the felt apart from the picture)")
    ap.add_argument("--interleaved", action="store_true",
                    help="with --against: per frame only, both trees in one process, frame by frame in turns")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    args.cache.mkdir(parents=True, exist_ok=True)
    rec = recording(args.cache) if args.rec is None else args.rec
    if not (rec / "video.avi").is_file():
        raise SystemExit(f"{rec} is no recording (video.avi is missing)")
    if args.interleaved:
        if args.against is None:
            raise SystemExit("--interleaved compares with another tree: give it --against TREE")
        interleaved(args.against, rec, args.repeats)
        return
    if args.against is not None:
        against(args.against, args)
        return
    runs = measure(rec, args.repeats, args.analyze)
    if args.json:
        print(json.dumps(runs))
        return
    n = args.repeats
    print(f"per-frame tracking+judging at 320x240: median of {n} runs: mean {statistics.median(runs['mean']):.3f} "
          f"ms/frame, p95 {statistics.median(runs['p95']):.3f} ms (goal <= 1.5 ms)")
    if runs["analyze"]:
        video = len(RecordingReader(rec).frame_times()) / RecordingReader(rec).fps
        for key, what in (("analyze_judge", "the judge's CPU (one core)"),
                          ("analyze", "the process's CPU (judge + decoding thread)"), ("analyze_wall", "wall clock")):
            print(f"analyze {video:.1f} s recording, by {what}: median {statistics.median(runs[key]):.1f}x real "
                  f"time (runs: {', '.join(f'{r:.1f}x' for r in runs[key])}; goal >= 5x)")


if __name__ == "__main__":
    main()
