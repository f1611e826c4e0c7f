"""A lying shape that lasts for seconds before the rest is not a fall: a judge times the spin (second renderer
1620006 spin 1).

A yellow dreidel spun on its handle on yellow-green felt under a lamp for 4.5 s. Its top read as a light shadow and
the tracker followed its deep cast shadow, which is lying-shaped, from 0.37 s after the release to the rest. Camera
only, the judge took the start of that run for the fall and called a valid spin "wobbled immediately", with no
judge asked. A dreidel falls and comes to rest within about a second (the longest run on 369 tuning spins was
0.90 s), so a longer run goes to a judge with the machine's call as the suggestion. The scene is given as the
tracker's answers frame by frame (lores px, 2 full px each), as in test_judge_tray_edge.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest
from scripted_judge import free_blob, one_verdict

from controller.judge import JudgeSettings, SpinVerdict
from vision.background import TrayRegion
from vision.tracker import Blob, TrackResult

FPS = 60.0
SCALE = 2.0
W, H = 320, 240
TRAY = (160.0, 120.0, 100.0)  # centre and radius (lores px)
RELEASE_T = 1.0  # a launcher drops it: no hand
REST_T = 6.0  # it lies still from here on
END_T = 9.0


@dataclass
class Scene:
    """The dreidel is seen upright from the release until ``lying_from`` (after the release), then lying-shaped
    (elongation 1.9, its shadow's) while it drifts slowly, until ``REST_T``; then it lies still."""

    lying_from: float

    def track(self, index: int, t: float) -> TrackResult:
        dreidel: Blob | None = None
        motion = 0.0
        if RELEASE_T <= t < RELEASE_T + self.lying_from:
            dreidel = free_blob(TRAY[0], TRAY[1], 300.0, 20.0, 1.05)
            motion = 3.0
        elif t >= RELEASE_T + self.lying_from:
            # a shape that drifts 2 px a second while the top spins (the shadow moves with it), then stops
            k = min(t, REST_T) - (RELEASE_T + self.lying_from)
            dreidel = free_blob(TRAY[0] + 2.0 * k, TRAY[1] + 0.5 * math.sin(3.0 * k), 500.0, 32.0, 1.9)
            motion = 3.0 if t < REST_T else 0.0
        return TrackResult(index=index, t=t, dreidel=dreidel, hands=(), merged=False, motion=motion,
                           in_tray=True, scale=SCALE)


def judge(scene: Scene) -> SpinVerdict:
    return one_verdict(scene.track, TrayRegion.from_circle(*TRAY, (W, H)), SCALE, END_T, FPS, (H, W))


@pytest.mark.parametrize("lying_from", [0.37, 1.5, 2.5])
def test_a_lying_shape_for_seconds_before_the_rest_goes_to_a_judge(lying_from: float) -> None:
    v = judge(Scene(lying_from))
    assert v.needs_judge
    assert any("lying shape" in n and "a judge times the spin" in n for n in v.notes), v.notes
    assert v.rest_t is not None and abs(v.rest_t - REST_T) < 0.5
    assert v.rest_t - (RELEASE_T + lying_from) > JudgeSettings().longest_fall_s
    # the machine's call, from the start of the run, stays the suggestion
    assert not v.valid
    assert v.stable_s is not None and abs(v.stable_s - lying_from) < 0.2


@pytest.mark.parametrize("lying_from", [4.2, 4.6])
def test_a_fall_that_comes_to_rest_within_a_second_is_the_machines_call(lying_from: float) -> None:
    """A valid spin that falls 4.2-4.6 s after its release and lies still 0.4-0.8 s later."""
    v = judge(Scene(lying_from))
    assert not any("lying shape" in n for n in v.notes), v.notes
    assert v.valid
    assert v.stable_s is not None and abs(v.stable_s - lying_from) < 0.2
    # (this judge reads no letters: a valid spin goes to a judge for its letter)
