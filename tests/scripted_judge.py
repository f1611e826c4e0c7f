"""Running a judge whose tracker is scripted: the tests' stand-in tracker decides what is seen on each frame, so
the pictures fed only need the right sizes."""

from __future__ import annotations

import numpy as np

from controller.judge import JudgeEvent, SpinJudge, SpinVerdict


def run_judge(judge: SpinJudge, end_t: float, fps: float, small_hw: tuple[int, int] = (180, 320),
              full_hw: tuple[int, int] = (720, 1280)) -> list[JudgeEvent]:
    """Feed ``judge`` blank frames from t = 0 to ``end_t`` at ``fps`` (tracking pictures ``small_hw``, full
    resolution ``full_hw``), then finish it; every event it gave, in order."""
    small = np.zeros((*small_hw, 3), np.uint8)
    full = np.zeros((*full_hw, 3), np.uint8)
    events: list[JudgeEvent] = []
    for k in range(int(end_t * fps)):
        events += judge.feed_small(k, k / fps, small, lambda: full)
    events += judge.finish()
    return events


def verdicts_of(events: list[JudgeEvent]) -> list[SpinVerdict]:
    """The spin verdicts among a judge's events."""
    return [e for e in events if isinstance(e, SpinVerdict)]
