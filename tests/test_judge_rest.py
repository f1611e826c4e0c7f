"""When a dreidel is at rest: a small, jittering outline that does not change the picture still rests.

The judge is fed a scripted track (what the tracker reports frame by frame), so the test controls the
one thing at stake: the centroid of a resting dreidel of which only a small piece is told from its
shadow (altsim 800002: the letter of a black dreidel on grey felt) jitters by a lores pixel from frame to
frame, while nothing in the picture moves.
"""

from __future__ import annotations

import numpy as np
import pytest

from controller.judge import SpinJudge, SpinVerdict
from vision.tracker import Blob, TrackResult

FPS = 60.0
SCALE = 4.0  # a 1280 px wide camera tracked at 320 px
RELEASE_T, FALL_T, REST_T, END_T = 1.0, 4.6, 4.8, 8.0


class ScriptedTracker:
    """Stands in for :class:`~vision.tracker.DreidelTracker`: a dreidel released at ``RELEASE_T`` that
    spins upright, falls at ``FALL_T`` and lies from ``REST_T`` as a small piece (25 lores px) whose
    centroid jitters by up to ``jitter`` lores px; ``rest_motion`` is the picture's change in its box."""

    scale = SCALE

    def __init__(self, jitter: float, rest_motion: float, seed: int = 3) -> None:
        self.jitter = jitter
        self.rest_motion = rest_motion
        self.rng = np.random.default_rng(seed)

    def reset_track(self) -> None:
        """Nothing to forget: the script is the track."""

    def process_small(self, index: int, t: float, small: np.ndarray, full: object = None) -> TrackResult:
        blob: Blob | None = None
        motion = 0.0
        if RELEASE_T <= t < FALL_T:  # upright and spinning: compact, the picture changes
            blob = Blob(x=160.0, y=90.0, area=60.0, bbox=(156, 86, 9, 9), elongation=1.1, angle_deg=0.0,
                        length=9.0, width=8.0, edge=False, skin=0.0)
            motion = 6.0
        elif FALL_T <= t < REST_T:  # falling and sliding
            u = (t - FALL_T) / (REST_T - FALL_T)
            blob = Blob(x=160.0 + 12.0 * u, y=90.0, area=40.0, bbox=(155, 86, 14, 8), elongation=2.2,
                        angle_deg=10.0, length=12.0, width=5.0, edge=False, skin=0.0)
            motion = 12.0
        elif t >= REST_T:
            dx, dy = self.rng.uniform(-self.jitter, self.jitter, 2)
            blob = Blob(x=172.0 + dx, y=90.0 + dy, area=25.0, bbox=(167, 87, 10, 6), elongation=2.4,
                        angle_deg=10.0, length=10.0, width=4.0, edge=False, skin=0.0)
            motion = self.rest_motion
        return TrackResult(index=index, t=t, dreidel=blob, hands=(), merged=False, motion=motion, in_tray=True,
                           scale=SCALE)


def judge_script(tracker: ScriptedTracker) -> list[SpinVerdict]:
    judge = SpinJudge(recognizer=None)
    judge.tracker = tracker  # type: ignore[assignment]
    small = np.zeros((180, 320, 3), np.uint8)
    full = np.zeros((720, 1280, 3), np.uint8)
    verdicts: list[SpinVerdict] = []
    for i in range(int(END_T * FPS)):
        verdicts += [e for e in judge.feed_small(i, i / FPS, small, lambda: full) if isinstance(e, SpinVerdict)]
    verdicts += [e for e in judge.finish() if isinstance(e, SpinVerdict)]
    return verdicts


@pytest.mark.parametrize("seed", [3, 4])
def test_a_small_jittering_piece_that_changes_nothing_comes_to_rest_where_it_stopped(seed: int) -> None:
    """The centroid's speed never settles, but the picture does not change and the positions stay within a
    lores pixel and a half: the dreidel is at rest, dated when it stopped, and the spin is judged (before
    the fix it never came to rest, and a hand picking it up later was a 'took the dreidel')."""
    verdicts = judge_script(ScriptedTracker(jitter=0.7, rest_motion=0.0, seed=seed))
    assert len(verdicts) == 1
    v = verdicts[0]
    assert v.rest_t is not None and abs(v.rest_t - REST_T) < 0.1
    assert v.release_t is not None and abs(v.release_t - RELEASE_T) < 0.05
    assert "interference" not in v.reasons


def test_a_jittering_piece_whose_picture_changes_is_not_at_rest() -> None:
    """The same small piece while the picture in its box keeps changing (a dreidel still sleeping on its tip,
    its shadow long): no rest, however long it stays in place."""
    verdicts = judge_script(ScriptedTracker(jitter=0.7, rest_motion=3.0))
    assert len(verdicts) == 1
    assert verdicts[0].rest_t is None and verdicts[0].needs_judge
