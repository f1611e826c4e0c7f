"""The engine's rules reproduce the issue's exact expected game length (2 players, 10 gelt, fixed ante 1).

Every state reachable from the opening is enumerated with ``apply`` itself (each letter with probability
1/4), and the expected number of spins to a winner is solved exactly as a Markov chain. The issue's figure
is about 115.7 spins; any rule read differently (Hey rounding, the all-ante condition, who stays in at 0)
moves it.
"""

from __future__ import annotations

import numpy as np

from controller.rules.events import OpenTable, Spin
from controller.rules.letters import Letter
from controller.rules.table import TableState, apply

FAIR = (Letter.NUN, Letter.GIMEL, Letter.HEY, Letter.SHIN)


def _key(state: TableState) -> tuple[object, ...]:
    return (tuple((p.stack, p.status) for p in state.players), state.pot, state.current)


def exact_game(players: int, stack: int) -> tuple[float, np.ndarray]:
    """Expected spins and each seat's chance to win, for a fair dreidel and a fixed ante of 1."""
    names = tuple("ABCDEFGHIJ"[:players])
    start = apply(None, OpenTable(names, stack=stack))
    index = {_key(start): 0}
    states = [start]
    successors: list[list[int]] = []
    i = 0
    while i < len(states):
        row = []
        if states[i].winner is None:
            for letter in FAIR:
                nxt = apply(states[i], Spin(letter))
                row.append(index.setdefault(_key(nxt), len(states)))
                if row[-1] == len(states):
                    states.append(nxt)
        successors.append(row)
        i += 1
    n = len(states)
    # E = 1 + Q E on the transient states (Q: transition probabilities), i.e. (I - Q) E = 1.
    q = np.zeros((n, n))
    wins = np.zeros((n, players))
    for s, row in enumerate(successors):
        for t in row:
            q[s, t] += 0.25
        if states[s].winner is not None:
            wins[s, names.index(states[s].winner)] = 1.0
    transient = np.array([bool(row) for row in successors])
    a = np.eye(n) - q
    expected = np.linalg.solve(a[np.ix_(transient, transient)], np.ones(transient.sum()))
    # Win chances: P = Q P + W, with W the absorbing states' indicator columns.
    absorbing = ~transient
    p = np.linalg.solve(a[np.ix_(transient, transient)], q[np.ix_(transient, absorbing)] @ wins[absorbing])
    return float(expected[0]), p[0]


def test_two_players_with_ten_gelt_last_about_115_7_spins() -> None:
    expected, win = exact_game(2, 10)
    assert abs(expected - 115.7) < 0.05, expected
    assert abs(win.sum() - 1.0) < 1e-9
    assert 0.5 < win[0] < 0.51  # the first spinner's small edge
