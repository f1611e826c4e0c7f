"""Benchmark: the compiled simulator behind ``sevivon simulate`` against a plain pure-Python loop.

Workload (the issue's): 4 players x 10 gelt, a fixed ante of 1, 200,000 games on one core. The plain loop
(``controller.gamesim.PlainSimulator``: the same rules, lists and ints, the same random stream) plays a
smaller number of the same games and its time is scaled up; both must give identical games.

Also measured: the kernel's first-call compile time (in a fresh process with an empty numba cache), the
warm start of the ``sevivon simulate`` command (cache loaded from disk), and a typical ``sevivon plan``.
The machine may be shared, so every figure is the median of several repeats, and CPU time is shown
beside wall time (CPU time is what one core actually spent).

    .venv/bin/python bench/bench_simulate.py [--games 200000] [--plain-games 2000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.gamesim import GameSetup, GameSimulator, PlainSimulator  # noqa: E402


def timed(fn) -> tuple[float, float, object]:  # type: ignore[no-untyped-def]
    """(wall seconds, CPU seconds of this process, result)."""
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w, time.process_time() - c, out


def compile_time() -> dict[str, float]:
    """Compile the kernel in a fresh process with an empty cache; return its import and compile times."""
    code = (
        "import time,json;w=time.perf_counter();c=time.process_time();"
        "from controller.gamesim import GameSimulator,GameSetup;"
        "w1=time.perf_counter();c1=time.process_time();"
        "GameSimulator().simulate(GameSetup(4,10),10,1);"
        "print(json.dumps({'import_wall':w1-w,'compile_wall':time.perf_counter()-w1,"
        "'compile_cpu':time.process_time()-c1}))"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
        )
    return json.loads(out.stdout)


def cli_time(args: list[str], repeats: int) -> tuple[float, float]:
    """Median wall and CPU (children) seconds of a ``sevivon`` command."""
    sevivon = str(Path(sys.executable).with_name("sevivon"))
    walls, cpus = [], []
    for _ in range(repeats):
        before = os.times()
        w = time.perf_counter()
        subprocess.run([sevivon, *args], cwd=ROOT, check=True, capture_output=True)
        walls.append(time.perf_counter() - w)
        after = os.times()
        cpus.append(
            (after.children_user + after.children_system) - (before.children_user + before.children_system)
        )
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--plain-games", type=int, default=2_000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    setup = GameSetup(4, 10)
    fast, plain = GameSimulator(), PlainSimulator()

    comp = compile_time()
    print(
        f"cold start: import {comp['import_wall']:.2f} s, first-call compile {comp['compile_wall']:.2f} s wall "
        f"({comp['compile_cpu']:.2f} s CPU); later runs load the compiled kernel from numba's cache"
    )
    fast.simulate(setup, 10, seed=0)  # warm (load from cache or compile once here)

    # Same games both ways: identical lengths and winners.
    check_fast = fast.simulate(setup, 300, seed=11)
    check_plain = plain.simulate(setup, 300, seed=11)
    same = (
        check_fast.spins.tolist() == check_plain.spins.tolist()
        and check_fast.winner.tolist() == check_plain.winner.tolist()
    )
    print(f"kernel and plain loop agree on 300 games: {same}")

    fast_w, fast_c, plain_w, plain_c = [], [], [], []
    result = None
    for r in range(args.repeats):
        w, c, result = timed(lambda r=r: fast.simulate(setup, args.games, seed=r))
        fast_w.append(w)
        fast_c.append(c)
        w, c, _ = timed(lambda r=r: plain.simulate(setup, args.plain_games, seed=r))
        scale = args.games / args.plain_games
        plain_w.append(w * scale)
        plain_c.append(c * scale)
    assert result is not None
    s = result.summary()  # type: ignore[attr-defined]
    fw, fc = statistics.median(fast_w), statistics.median(fast_c)
    pw, pc = statistics.median(plain_w), statistics.median(plain_c)
    print(
        f"workload: {args.games} games of 4 players x 10 gelt, fixed ante 1 "
        f"(mean {s.mean_spins:.1f} spins, {s.mean_spins * args.games / 1e6:.0f} M spins); medians of {args.repeats}"
    )
    print(
        f"  compiled kernel : {fw:6.2f} s wall  {fc:6.2f} s CPU   ({fc / (s.mean_spins * args.games) * 1e9:.1f} ns CPU a spin)"
    )
    print(f"  plain Python    : {pw:6.1f} s wall  {pc:6.1f} s CPU   (scaled from {args.plain_games} games)")
    print(
        f"  speed-up        : {pc / fc:6.1f}x by CPU time, {pw / fw:.1f}x by wall time   (goal >= 30x; < 3 s)"
    )

    sim_args = [
        "simulate",
        "--players",
        "4",
        "--stack",
        "10",
        "--games",
        str(args.games),
        "--seed",
        "1",
        "--json",
    ]
    w, c = cli_time(sim_args, max(1, args.repeats // 2))
    print(f"sevivon {' '.join(sim_args)}: {w:.2f} s wall, {c:.2f} s CPU (process start and import included)")
    plan_args = ["plan", "--players", "60", "--table-size", "10", "--stack", "18", "--spin-seconds", "10",
                 "--table-target", "45m", "--final-target", "30m"]  # fmt: skip
    w, c = cli_time(plan_args, max(1, args.repeats // 2))
    print(f"sevivon {' '.join(plan_args)}: {w:.2f} s wall, {c:.2f} s CPU")


if __name__ == "__main__":
    main()
