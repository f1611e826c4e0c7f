"""Runs of a boolean signal over time: where a rise that lasts began."""

from __future__ import annotations

import numpy as np


def final_run_start(above: np.ndarray, ts: np.ndarray, gap: int) -> float | None:
    """Start time of the run of ``above`` that lasts to the end, ignoring dips shorter than ``gap``.

    A wobble grows until the dreidel falls, so its onset is where the final rise began; an earlier
    blip (a shadow, a passing hand) that dies down again is not it. None when the signal is not
    above the level within ``gap`` samples of the end.
    """
    i = above.size - 1
    while i > 0 and not above[i] and above.size - 1 - i < gap:
        i -= 1
    if i < 0 or not above[i]:
        return None
    start, dip = i, 0
    for j in range(i, -1, -1):
        if above[j]:
            start, dip = j, 0
        else:
            dip += 1
            if dip >= gap:
                break
    return float(ts[start])
