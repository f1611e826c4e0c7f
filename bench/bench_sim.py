"""How fast the digital twin renders: a 15 s recording at 60 fps with IMU, on one core.

    .venv/bin/python bench/bench_sim.py [--repeats 3] [--seconds 15] [--fps 60]

Prints the median (over repeats, different seeds) of the wall time and CPU time it takes to render
and write ``--seconds`` of recording, and their ratio to real time. The goal (issue 3): under 1.0x,
i.e. a 15 s recording in under 15 s. OpenCV is held to one thread so that it is one core's work.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import cv2

from hardware.imu import ImuSample
from hardware.recording import RecordingWriter
from hardware.sim.recorder import plan_session
from hardware.sim.world import SimWorld


def render_recording(out: Path, seed: int, seconds: float, fps: float) -> tuple[float, float, int]:
    """Render ``seconds`` of a session (spins back to back) with IMU; returns (wall s, cpu s, frames)."""
    w0, c0 = time.perf_counter(), time.process_time()
    world = SimWorld(seed=seed, fps=fps, history_s=None)
    plan_session(world, spins=3, kinds=None, seed=seed)
    n = int(seconds * fps)
    with RecordingWriter(out, fps, 640, 480, "sim-bench", imu={"chip": "sim", "rate_hz": world.imu.rate_hz}) as w:
        for k in range(n):
            w.write_frame(world.frame_at(k / fps), k / fps)
        w.write_imu(ImuSample(*(float(v) for v in row)) for row in world.imu_array(0.0, n / fps))
        w.write_truth([t.to_json() for t in world.truths])
    return time.perf_counter() - w0, time.process_time() - c0, n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--fps", type=float, default=60.0)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    walls, cpus = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeats):
            wall, cpu, n = render_recording(Path(tmp) / f"rec{r}", seed=100 + r, seconds=args.seconds, fps=args.fps)
            walls.append(wall)
            cpus.append(cpu)
            print(f"run {r}: {n} frames, wall {wall:.2f} s, cpu {cpu:.2f} s")
    wall, cpu = statistics.median(walls), statistics.median(cpus)
    print(
        f"median over {args.repeats}: {args.seconds:.0f} s at {args.fps:.0f} fps with IMU -> "
        f"wall {wall:.2f} s ({wall / args.seconds:.2f}x real time), cpu {cpu:.2f} s ({cpu / args.seconds:.2f}x)"
    )


if __name__ == "__main__":
    main()
