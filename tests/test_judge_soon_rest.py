"""A rest judged sooner after the release than a spun dreidel can fall and settle goes to a judge (second renderer
1640012 spin 0, camera only).

An orange top slept upright in its own lamp shadow. Its outline flickered between the top alone (round) and the top
merged with its shadow (long, centred off to one side), and nothing changed in its box from frame to frame: the
smoothly blurred top looks the same on every frame. The flicker's jumps read as a fall, and the long frames as a
dreidel lying pinned in place, so the judge put it at rest 0.37 s after the release and called a spin untouched for
3.6 s "wobbled immediately", with no judge asked. On 727 tuning spins no dreidel came to rest sooner than 0.69 s
after its release, so such a rest goes to a judge (``JudgeSettings.shortest_rest_s``). The scene is given as the
tracker's answers frame by frame (lores px, 2 full px each), as in test_judge_tray_edge.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from scripted_judge import free_blob, one_verdict

from controller.judge import JudgeSettings, SpinVerdict
from vision.background import TrayRegion
from vision.tracker import TrackResult

FPS = 120.0
SCALE = 2.0
W, H = 320, 240
TRAY = (160.0, 120.0, 100.0)  # centre and radius (lores px)
RELEASE_T = 1.0  # a launcher drops it: no hand
END_T = 8.0


@dataclass
class SleepingInItsShadow:
    """From the release the top sleeps upright at the tray's centre, seen round; on one frame in ``every`` it is
    seen merged with its shadow, long and centred ``shift`` px to the left. Nothing changes in its box."""

    every: int = 4
    shift: float = 12.0

    def track(self, index: int, t: float) -> TrackResult:
        dreidel = None
        if t >= RELEASE_T:
            if index % self.every == 0:
                dreidel = free_blob(TRAY[0] - self.shift, TRAY[1], 480.0, 48.0, 2.3)
            else:
                dreidel = free_blob(TRAY[0], TRAY[1], 300.0, 20.0, 1.05)
        return TrackResult(index=index, t=t, dreidel=dreidel, hands=(), merged=False, motion=0.0,
                           in_tray=True, scale=SCALE)


@dataclass
class QuickFall:
    """A launcher's spin that wobbles at once: upright for ``upright_s``, then it slides 30 px over
    ``fall_s`` while it tips over, and lies still, long."""

    upright_s: float = 0.15
    fall_s: float = 0.5

    def track(self, index: int, t: float) -> TrackResult:
        dreidel = None
        motion = 3.0
        if RELEASE_T <= t < RELEASE_T + self.upright_s:
            dreidel = free_blob(TRAY[0], TRAY[1], 300.0, 20.0, 1.05)
        elif t >= RELEASE_T + self.upright_s:
            k = min(1.0, (t - RELEASE_T - self.upright_s) / self.fall_s)
            dreidel = free_blob(TRAY[0] + 30.0 * k, TRAY[1], 300.0 + 180.0 * k, 20.0 + 12.0 * k, 1.05 + 0.85 * k)
            motion = 3.0 if k < 1.0 else 0.0
        return TrackResult(index=index, t=t, dreidel=dreidel, hands=(), merged=False, motion=motion,
                           in_tray=True, scale=SCALE)


def judge(track: Callable[[int, float], TrackResult]) -> SpinVerdict:
    return one_verdict(track, TrayRegion.from_circle(*TRAY, (W, H)), SCALE, END_T, FPS, (H, W))


@pytest.mark.parametrize("every", [3, 4, 5])
def test_a_top_sleeping_in_its_shadow_judged_at_rest_at_once_goes_to_a_judge(every: int) -> None:
    v = judge(SleepingInItsShadow(every).track)
    assert v.rest_t is not None and v.rest_t - v.release_t < JudgeSettings().shortest_rest_s
    assert v.needs_judge
    assert any("judged at rest" in n and "a judge decides the spin" in n for n in v.notes), v.notes


def test_a_spin_that_falls_at_once_and_settles_is_the_machines_call() -> None:
    v = judge(QuickFall().track)
    assert v.rest_t is not None and v.rest_t - v.release_t >= JudgeSettings().shortest_rest_s
    assert not any("judged at rest" in n for n in v.notes), v.notes
    assert not v.valid and "wobbled_immediately" in v.reasons
