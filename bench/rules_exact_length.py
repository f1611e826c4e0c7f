"""Exact expected game length of a table, computed with the rules engine itself (not the simulator).

Every state reachable from the opening is enumerated with ``controller.rules.table.apply`` (each letter of
a fair dreidel with probability 1/4, fixed ante), then the expected number of spins and each seat's chance
to win are found by value iteration on that Markov chain. The issue quotes about 115.7 (2 players), 306.9
(3 players) and 579.5 (4 players) spins for 10 gelt each; 4 players has about half a million states and
takes long in pure Python.

    .venv/bin/python bench/rules_exact_length.py --players 3 --stack 10
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from controller.rules.events import OpenTable, Spin
from controller.rules.letters import Letter
from controller.rules.table import TableState, apply

FAIR = (Letter.NUN, Letter.GIMEL, Letter.HEY, Letter.SHIN)


def _key(state: TableState) -> tuple[object, ...]:
    return (tuple((p.stack, p.status) for p in state.players), state.pot, state.current)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--stack", type=int, default=10)
    parser.add_argument("--tolerance", type=float, default=1e-9)
    args = parser.parse_args()
    t0 = time.perf_counter()
    names = tuple(f"P{i + 1}" for i in range(args.players))
    start = apply(None, OpenTable(names, stack=args.stack))
    index = {_key(start): 0}
    states = [start]
    rows: list[list[int]] = []
    i = 0
    while i < len(states):
        row = []
        if states[i].winner is None:
            for letter in FAIR:
                nxt = apply(states[i], Spin(letter))
                j = index.setdefault(_key(nxt), len(states))
                if j == len(states):
                    states.append(nxt)
                row.append(j)
        rows.append(row if row else [i] * 4)
        i += 1
    t1 = time.perf_counter()
    succ = np.array(rows)
    done = np.array([s.winner is not None for s in states])
    wins = np.array([[1.0 if s.winner == n else 0.0 for n in names] for s in states])
    spins = np.zeros(len(states))
    chance = wins.copy()
    for _ in range(1_000_000):
        new_spins = np.where(done, 0.0, 1.0 + spins[succ].mean(axis=1))
        new_chance = np.where(done[:, None], wins, chance[succ].mean(axis=1))
        change = max(np.abs(new_spins - spins).max(), np.abs(new_chance - chance).max())
        spins, chance = new_spins, new_chance
        if change < args.tolerance:
            break
    t2 = time.perf_counter()
    print(f"{args.players} players x {args.stack} gelt, fixed ante 1: {len(states)} states")
    print(f"expected spins: {spins[0]:.2f}")
    print("win chance by seat (seat 1 spins first): " + ", ".join(f"{c:.4f}" for c in chance[0]))
    print(f"enumeration {t1 - t0:.1f} s, solve {t2 - t1:.1f} s")


if __name__ == "__main__":
    main()
