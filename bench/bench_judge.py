"""Speed of the spin judge (issue 4): per-frame tracking + judging, and ``analyze`` against real time.

    .venv/bin/python bench/bench_judge.py [--repeats 3] [--cache /tmp/sevivon-bench]
    .venv/bin/python bench/bench_judge.py --repeats 5 --against /tmp/base   # alternately with other code

- **per frame**: the lores (320x240) pictures of a simulated recording are decoded beforehand; the
  clock runs only around ``SpinJudge.feed_small`` (tracking, observation, the state machine, IMU
  features; no letter reading, no evidence). Goal: <= 1.5 ms per frame on one core.
- **analyze**: ``analyze_recording`` on a simulated recording with its IMU, from the files on disk,
  letters read when the recognizer's model is installed. Goal: >= 5x faster than real time.

Times are CPU times of this process (``time.process_time``) with OpenCV limited to one thread, so other
work on a shared machine disturbs them less; medians of ``--repeats`` runs are printed.

``--against TREE`` measures this code and the code in TREE (e.g. an older commit unpacked with
``git archive REV | tar -x -C TREE``) in turns, one fresh process per run, so that both see the same
minutes of a shared machine; it prints both medians and their ratio. ``--tree TREE`` measures TREE's code.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

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


def per_frame(rec: Path) -> tuple[float, float, int]:
    """(mean ms, p95 ms, frames) of feed_small over the whole recording."""
    reader = RecordingReader(rec)
    w, h = reader.size
    avi = MjpegAvi(rec / "video.avi")
    times = reader.frame_times()
    jpgs = [np.frombuffer(avi.jpeg(i), np.uint8) for i in range(len(times))]
    smalls = [cv2.imdecode(j, cv2.IMREAD_REDUCED_COLOR_2) for j in jpgs]
    imu = reader.imu()
    judge = SpinJudge(None, imu=imu is not None)
    judge.tracker.set_full_size(w, h)
    pos = 0
    costs = []
    for i, (t, small) in enumerate(zip(times, smalls, strict=True)):
        t = float(t)
        j = jpgs[i]
        t0 = time.process_time()
        if imu is not None and (pos >= imu.shape[0] or imu[pos, 0] <= t - 0.1):
            # IMU batches of a tenth of a second, as the live driver reads its FIFO
            end = int(np.searchsorted(imu[:, 0], t, side="right"))
            judge.feed_imu_array(imu[pos:end])
            pos = end
        judge.feed_small(i, t, small, lambda j=j: cv2.imdecode(j, cv2.IMREAD_COLOR))
        costs.append(time.process_time() - t0)
    # the first second learns the tray (and decodes full pictures for it): report the judging frames
    c = np.array(costs[int(reader.fps) + 5 :]) * 1000
    return float(c.mean()), float(np.percentile(c, 95)), len(c)


def analyze_speed(rec: Path) -> tuple[float, float]:
    """(CPU seconds, video seconds) of analyze_recording."""
    meta = json.loads((rec / "meta.json").read_text())
    n = len(RecordingReader(rec).frame_times())
    t0 = time.process_time()
    analyze_recording(rec)
    return time.process_time() - t0, n / float(meta["fps"])


def measure(rec: Path, repeats: int, analyze: bool) -> dict[str, list[float]]:
    """Per-frame mean and p95 (ms) and, with ``analyze``, analyze's speed (x real time), one entry per run."""
    out: dict[str, list[float]] = {"mean": [], "p95": [], "analyze": []}
    for _ in range(repeats):
        mean, p95, _n = per_frame(rec)
        out["mean"].append(mean)
        out["p95"].append(p95)
    if analyze:
        for _ in range(repeats):
            cpu, video = analyze_speed(rec)
            out["analyze"].append(video / cpu)
    return out


def against(base: Path, args: argparse.Namespace) -> None:
    """This code and ``base``'s in turns, a fresh process for each run; medians and ratios."""
    trees = {"this": HERE.parents[1], "base": base.resolve()}
    runs: dict[str, dict[str, list[float]]] = {k: {"mean": [], "p95": [], "analyze": []} for k in trees}
    for r in range(args.repeats):
        for name in (("base", "this") if r % 2 == 0 else ("this", "base")):
            cmd = [sys.executable, str(HERE), "--tree", str(trees[name]), "--repeats", "1", "--cache", str(args.cache),
                   "--json"] + ([] if args.analyze else ["--no-analyze"])
            got = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
            for key, values in got.items():
                runs[name][key] += values
            print(f"run {r + 1} {name}: " + ", ".join(f"{k} {v[0]:.3f}" for k, v in got.items() if v), flush=True)
    med = {name: {k: statistics.median(v) for k, v in d.items() if v} for name, d in runs.items()}
    for key, unit in (("mean", "ms/frame"), ("p95", "ms/frame"), ("analyze", "x real time")):
        if key in med["this"] and key in med["base"]:
            # the two runs of a round share their minutes of the machine: their ratio is the steadier figure
            pairs = [a / b for a, b in zip(runs["this"][key], runs["base"][key], strict=True)]
            print(f"{key:8s} median of {args.repeats}: this {med['this'][key]:.3f} {unit}, base ({base}) "
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
    args = ap.parse_args()
    cv2.setNumThreads(1)
    args.cache.mkdir(parents=True, exist_ok=True)
    rec = recording(args.cache)
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
        print(f"analyze {video:.1f} s recording: median {statistics.median(runs['analyze']):.1f}x real time "
              f"(runs: {', '.join(f'{r:.1f}x' for r in runs['analyze'])}; goal >= 5x)")


if __name__ == "__main__":
    main()
