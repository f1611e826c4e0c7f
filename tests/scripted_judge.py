"""Running a judge whose tracker is scripted: the tests' stand-in tracker decides what is seen on each frame, so
the pictures fed only need the right sizes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from controller.judge import JudgeEvent, SpinJudge, SpinVerdict
from vision.background import TrayRegion
from vision.tracker import Blob, TrackResult


@dataclass
class ScriptedTracker:
    """Stands in for the tracker: each frame's answer comes from ``track(index, t)``."""

    track: Callable[[int, float], TrackResult]
    scale: float = 2.0

    def process_small(self, index: int, t: float, small: np.ndarray, full: object = None) -> TrackResult:
        return self.track(index, t)

    def reset_track(self) -> None:
        pass


@dataclass
class LearnedBackground:
    """Stands in for a background model that has learned the empty tray; ``tray`` is the outline it found (None:
    none found)."""

    tray: TrayRegion | None = None
    ready: bool = True
    full_image: None = None

    def update_full(self, full_bgr: np.ndarray, weight: float = 0.3) -> None:
        pass


def scripted_judge(track: Callable[[int, float], TrackResult], tray: TrayRegion | None = None,
                   scale: float = 2.0, evidence_dir: Path | None = None) -> SpinJudge:
    """A judge without a letter reader whose tracker answers from ``track`` and whose background has learned the
    empty tray (outline ``tray``); ``evidence_dir``: where it writes each spin's evidence."""
    judge = SpinJudge(None, evidence_dir=evidence_dir)
    judge.tracker = ScriptedTracker(track, scale)  # type: ignore[assignment]
    judge.background = LearnedBackground(tray)  # type: ignore[assignment]
    return judge


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


def one_verdict(track: Callable[[int, float], TrackResult], tray: TrayRegion, scale: float, end_t: float,
                fps: float, small_hw: tuple[int, int]) -> SpinVerdict:
    """The one verdict of a scripted judge on ``track`` seen inside ``tray``, fed tracking pictures ``small_hw`` and
    full-resolution ones ``scale`` times larger; fails unless it judged exactly one spin."""
    h, w = small_hw
    full_hw = (int(scale * h), int(scale * w))
    verdicts = verdicts_of(run_judge(scripted_judge(track, tray, scale), end_t, fps, small_hw, full_hw))
    assert len(verdicts) == 1, verdicts
    return verdicts[0]


def free_blob(x: float, y: float, area: float, length: float, elongation: float, angle_deg: float = 0.0) -> Blob:
    """A dreidel seen clear of any hand at (x, y), in a square box as long as the dreidel, away from the picture's
    edge."""
    half = length / 2
    return Blob(x=x, y=y, area=area, bbox=(int(x - half), int(y - half), int(2 * half), int(2 * half)),
                elongation=elongation, angle_deg=angle_deg, length=length, width=length / elongation, edge=False,
                skin=0.0, is_hand=False, tray_overlap=0.0)
