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


def final_rise_first_crossing(high: np.ndarray, low: np.ndarray, ts: np.ndarray, gap: int) -> float | None:
    """When a rise that lasts first reached the high level: hysteresis on the final run.

    ``low`` marks samples over a lower level, ``high`` those over the level that defines the event. The
    final run of ``low`` (dips shorter than ``gap`` ignored) is the rise that lasts to the end; the onset
    is the first ``high`` sample in it. A slowly growing wobble hovers about its level for a while
    before it runs away: its onset is the first time it got there, not where it last dipped below,
    while a blip that died down to the low level before the rise is still not it. None when the final
    run of ``low`` never reaches ``high``, or when there is no final run.
    """
    if high.shape != low.shape or high.shape != ts.shape:
        raise ValueError("high, low and ts must be arrays of the same length")
    start = final_run_start(low | high, ts, gap)
    if start is None:
        return None
    i0 = int(np.searchsorted(ts, start))
    hits = np.flatnonzero(high[i0:])
    if hits.size == 0:
        return None
    return float(ts[i0 + int(hits[0])])


def largest_rise_first_crossing(high: np.ndarray, low: np.ndarray, ts: np.ndarray, gap: int,
                                min_high: int = 1) -> float | None:
    """When the run that spent longest over the high level first reached it (hysteresis, as above).

    For a signal that does not end high (a window that runs on past the event, into the quiet after it):
    the runs of ``low`` (dips shorter than ``gap`` ignored) are candidates, and the one with the most
    ``high`` samples wins (the latest on a tie). A wobble rocks the tray for the best part of a second
    up to the fall; a knock's ring is over within a fraction of one, so it loses to the wobble however
    early it came. Runs with fewer than ``min_high`` high samples do not count. None without any.
    """
    if high.shape != low.shape or high.shape != ts.shape:
        raise ValueError("high, low and ts must be arrays of the same length")
    idx = np.flatnonzero(low | high)
    if idx.size == 0:
        return None
    breaks = np.flatnonzero(np.diff(idx) > gap)
    starts = np.concatenate([[idx[0]], idx[breaks + 1]])
    ends = np.concatenate([idx[breaks], [idx[-1]]])
    best: tuple[int, int] | None = None  # (high samples, index of the first)
    for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
        n_high = int(high[a : b + 1].sum())
        if n_high >= max(min_high, 1) and (best is None or n_high >= best[0]):
            best = (n_high, a + int(np.argmax(high[a : b + 1])))
    return float(ts[best[1]]) if best is not None else None
