"""Speed of the spin judge (issue 4): per-frame tracking + judging, and ``analyze`` against real time.

    .venv/bin/python bench/bench_judge.py [--repeats 3] [--cache /tmp/sevivon-bench]

- **per frame**: the lores (320x240) pictures of a simulated recording are decoded beforehand; the
  clock runs only around ``SpinJudge.feed_small`` (tracking, observation, the state machine, IMU
  features; no letter reading, no evidence). Goal: <= 1.5 ms per frame on one core.
- **analyze**: ``analyze_recording`` on a simulated recording with its IMU, from the files on disk,
  letters read when the recognizer's model is installed. Goal: >= 5x faster than real time.

Times are CPU times of this process (``time.process_time``) with OpenCV limited to one thread, so other
work on a shared machine disturbs them less; medians of ``--repeats`` runs are printed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/sevivon-bench"))
    args = ap.parse_args()
    cv2.setNumThreads(1)
    args.cache.mkdir(parents=True, exist_ok=True)
    rec = recording(args.cache)
    means, p95s = [], []
    for _ in range(args.repeats):
        mean, p95, n = per_frame(rec)
        means.append(mean)
        p95s.append(p95)
    print(f"per-frame tracking+judging at 320x240: median of {args.repeats} runs: mean {statistics.median(means):.3f} ms/frame, "
          f"p95 {statistics.median(p95s):.3f} ms ({n} frames; goal <= 1.5 ms)")
    ratios = []
    for _ in range(args.repeats):
        cpu, video = analyze_speed(rec)
        ratios.append(video / cpu)
    print(f"analyze {video:.1f} s recording: median {statistics.median(ratios):.1f}x real time "
          f"(runs: {', '.join(f'{r:.1f}x' for r in ratios)}; goal >= 5x)")


if __name__ == "__main__":
    main()
