"""A hand setting a dreidel down spinning: the fingers' outline is no fall (twin 86016 spin 3, camera only).

While the hand held the dreidel, its outline merged with the fingers' and parted again, jumping from frame to
frame; the centroid speed, which compares positions a fifth of a second old, still said "falling" on the
frames right after the hand let go. The spin was marked as fallen, and the top then spinning upright, round
and smoothly blurred (nothing changing in its box), was taken for a dreidel lying still: a spin was invented
and the real one dated late. A fall counts only once its speed is measured from after the let-go.
"""

from __future__ import annotations

import math

from scripted_judge import run_judge, scripted_judge, verdicts_of

from controller.judge import SpinVerdict
from vision.tracker import Blob, TrackResult

FPS = 60.0
SCALE = 4.0
LET_GO_T, FALL_T, REST_T, END_T = 1.3, 4.5, 4.7, 8.0


def _blob(x: float, y: float, elongation: float, length: float, area: float) -> Blob:
    return Blob(x=x, y=y, area=area, bbox=(int(x - length / 2), int(y - 5), int(length), 10), elongation=elongation,
                angle_deg=10.0, length=length, width=length / elongation, edge=False, skin=0.0)


def setting_down(index: int, t: float) -> TrackResult:
    """A hand holds the dreidel beside its fingers from 0.3 s, its outline jumping over the last 0.15 s, lets
    go at ``LET_GO_T`` and withdraws; the top spins upright (round, nothing changing in its box, its centre
    circling by half a lores pixel) until ``FALL_T`` and lies still from ``REST_T``."""
    hands: tuple[Blob, ...] = ()
    if 0.3 <= t < LET_GO_T + 0.4:
        hx = 150.0 - (300.0 * (t - LET_GO_T) if t >= LET_GO_T else 0.0)
        hands = (Blob(x=hx, y=110.0, area=900.0, bbox=(int(hx) - 15, 95, 30, 30), elongation=1.5, angle_deg=0.0,
                      length=35.0, width=25.0, edge=False, skin=0.6),)
    dreidel: Blob | None = None
    motion = 0.0
    if 0.5 <= t < LET_GO_T:
        motion = 5.0
        if t >= LET_GO_T - 0.2:  # the fingers opening: the outline merges with theirs, parts and jumps
            dreidel = _blob(164.0 - 14.0 * (index % 2), 97.0 + 10.0 * (index % 2), 2.0, 14.0, 90.0)
        else:
            dreidel = _blob(164.0, 97.0, 1.1, 9.0, 60.0)
    elif LET_GO_T <= t < FALL_T:  # spinning upright: a round, smoothly blurred body, its tip circling a little
        a = 2.0 * math.pi * t / 0.5
        dreidel = _blob(170.0 + 0.5 * math.cos(a), 90.0 + 0.5 * math.sin(a), 1.02, 9.0, 62.0)
    elif FALL_T <= t < REST_T:
        u = (t - FALL_T) / (REST_T - FALL_T)
        dreidel = _blob(170.0 + 12.0 * u, 90.0, 2.2, 12.0, 40.0)
        motion = 12.0
    elif t >= REST_T:
        dreidel = _blob(182.0, 90.0, 2.4, 12.0, 40.0)
    return TrackResult(index=index, t=t, dreidel=dreidel, hands=hands, merged=False, motion=motion, in_tray=True,
                       scale=SCALE)


def judge() -> list[SpinVerdict]:
    return verdicts_of(run_judge(scripted_judge(setting_down, None, SCALE), END_T, FPS))


def test_a_top_set_down_spinning_is_one_spin_that_rests_after_its_fall() -> None:
    verdicts = judge()
    assert len(verdicts) == 1  # before: a spin "at rest" while the top still spun, then the real one
    v = verdicts[0]
    assert v.rest_t is not None and abs(v.rest_t - REST_T) < 0.15
    # not asked here: the release and the wobble are still dated from the frames in the hand (0.49 s and
    # 1.05 s; the twin's 86016 spin 3 the same): the spin is one, its timing is a judge's to check
