"""Simulated-table pacing benchmark: does the machine judge see every frame at any ``--sim-speed``?

It runs one whole small table (3 players, the e2e tests' settings) in process, the way ``sevivon run
--sim`` wires it (``run_cli.build_session``), until it has a winner, once per clock and speed:

- ``scaled``: the clock ``sevivon run --sim`` used before: real time times the speed
  (:class:`~controller.clock.ScaledClock`); the camera skips the frames the table was too slow for;
- ``paced``: :class:`~controller.clock.PacedClock`: simulated time passes only while the table waits
  for its next frame, at most ``speed`` times real time.

For each run it prints the frames judged out of the frames the camera's frame times went through,
who decided the spins (the machine judge, or the simulated judge stepping in for it), the faults
"the spin judge gave no verdict", the simulated and the real time, the rate achieved, and a
fingerprint of the game (its rules events and who made them), which is the same for the same seed
when the game does not depend on the host's speed.

``--hog N`` runs N busy processes (``while 1: pass``, nice 0) during the runs, to play on a starved CPU.

Usage: .venv/bin/python bench/bench_sim_table.py [--clock scaled,paced] [--speeds 2,5,20] [--seed 11]
       [--stack 2] [--fps 30] [--wall-limit 300] [--hog 0]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.tuning_sets import HELDOUT_TWIN  # noqa: E402
from controller.clock import Clock, PacedClock, ScaledClock  # noqa: E402
from controller.config import Config, parse_config  # noqa: E402
from controller.run_cli import build_session  # noqa: E402
from hardware.camera import Frame  # noqa: E402

TABLE = """
[table]
players = ["Ann", "Ben", "Cy"]
stack = {stack}
[sim]
seed = {seed}
pause_s = 1.0
judge_delay_s = 2.0
new_table_after_s = 0
[camera]
fps = {fps}
"""

#: rules events that settle a spin (the machine judge's verdicts or a judge's entries)
SETTLING = ("set_first", "spin", "invalid_spin")


@dataclass
class Run:
    """What one whole table did."""

    clock: str
    speed: float
    finished: bool
    frames_judged: int
    frames_due: int
    sim_s: float
    wall_s: float
    by_machine: int
    by_sim_judge: int
    no_verdict_faults: int
    spins: int
    fingerprint: str

    def line(self) -> str:
        """One table row."""
        ratio = self.frames_judged / self.frames_due if self.frames_due else 0.0
        rate = self.sim_s / self.wall_s if self.wall_s > 0 else 0.0
        return (f"{self.clock:>6} {self.speed:>5g} {'yes' if self.finished else 'NO':>8} "
                f"{self.frames_judged:>6}/{self.frames_due:<6} {ratio:>6.1%} {self.by_machine:>7} "
                f"{self.by_sim_judge:>9} {self.no_verdict_faults:>9} {self.spins:>5} {self.sim_s:>7.1f} "
                f"{self.wall_s:>7.1f} {rate:>6.2f} {self.fingerprint}")


HEADER = (f"{'clock':>6} {'speed':>5} {'finished':>8} {'judged/frames':>13} {'ratio':>6} {'machine':>7} "
          f"{'sim-judge':>9} {'no-verdct':>9} {'spins':>5} {'sim s':>7} {'wall s':>7} {'rate':>6} game")


def make_clock(kind: str, speed: float) -> Clock:
    """The table clock of one run."""
    if kind == "scaled":
        return ScaledClock(speed)
    if kind == "paced":
        return PacedClock(speed)
    raise SystemExit(f"--clock: 'scaled' or 'paced', not {kind!r}")


def fingerprint(events: list[Any]) -> str:
    """A short hash of the rules events (what happened and who decided it), notes left out."""
    text = json.dumps([(e.name, e.actor, e.payload) for e in events if not e.is_note], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def run_table(config: Config, kind: str, speed: float, wall_limit: float) -> Run:
    """Play one table to its winner (or until ``wall_limit`` real seconds) and count."""
    clock = make_clock(kind, speed)
    with tempfile.TemporaryDirectory(prefix="bench-sim-table-") as tmp:
        session = build_session(config, Path(tmp), clock, speed)
        frames: list[int] = []  # the index of every frame the table took
        read = session.camera.read

        def counting_read() -> Frame | None:
            frame = read()
            if frame is not None:
                frames.append(frame.index)
            return frame

        session.camera.read = counting_read  # type: ignore[method-assign]
        start = time.monotonic()
        session.start()
        try:
            while time.monotonic() - start < wall_limit:
                state = session.state
                if state is not None and state.finished:
                    break
                time.sleep(0.1)  # real time: this bench watches a table running on its own thread
        finally:
            wall = time.monotonic() - start
            session.stop()
        sim_s = clock.monotonic()
        events = session.log.events(session.table)
        actors = Counter(e.actor for e in events if e.name in SETTLING)
        faults = sum(1 for e in events if e.name == "note:fault" and "gave no verdict" in str(e.payload.get("message")))
        state = session.state
        session.log.close()
    due = frames[-1] + 1 if frames else 0
    return Run(kind, speed, bool(state and state.finished), len(frames), due, sim_s, wall,
               actors.get("machine", 0), actors.get("judge:sim", 0), faults, state.spins if state else 0,
               fingerprint(events))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clock", default="scaled,paced", help="comma-separated: scaled, paced")
    ap.add_argument("--speeds", default="2,5,20", help="comma-separated --sim-speed values")
    ap.add_argument("--seed", type=int, default=11, help="the twin's seed (the e2e table plays 11)")
    ap.add_argument("--stack", type=int, default=2)
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--wall-limit", type=float, default=300.0, help="real seconds per table at most")
    ap.add_argument("--hog", type=int, default=0, help="busy processes to run meanwhile")
    args = ap.parse_args()
    if args.seed >= HELDOUT_TWIN:
        raise SystemExit(f"twin seeds >= {HELDOUT_TWIN} are held out: pick another --seed")
    config = parse_config(TABLE.format(stack=args.stack, seed=args.seed, fps=args.fps), "<bench>")
    config = replace(config, speech=replace(config.speech, enabled=False))
    hogs = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(args.hog)]
    try:
        print(f"seed {args.seed}, 3 players, stack {args.stack}, {args.fps:g} fps, {args.hog} busy processes")
        print(HEADER, flush=True)
        for kind in args.clock.split(","):
            for speed in (float(s) for s in args.speeds.split(",")):
                print(run_table(config, kind.strip(), speed, args.wall_limit).line(), flush=True)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


if __name__ == "__main__":
    main()
