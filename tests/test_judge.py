"""The streaming spin judge on scripted synthetic spins whose truth is exact."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from controller.judge import JudgeEvent, PhaseChange, SpinJudge, SpinVerdict, TablePhase
from controller.rules.letters import Letter
from vision.synthetic import SceneRenderer, SceneStyle, ScriptedSpin, scene_imu

FPS = 30.0


@dataclass(frozen=True)
class FakeReading:
    letter: Letter | None
    confidence: float
    pose: Any = None


class FakeReader:
    """Reads a fixed letter; counts how often it was asked (it must be asked once per rest)."""

    def __init__(self, letter: Letter | None = Letter.GIMEL, confidence: float = 0.96) -> None:
        self.letter = letter
        self.confidence = confidence
        self.calls = 0

    def read(self, image_bgr: np.ndarray, pose: Any = None, background_bgr: np.ndarray | None = None) -> FakeReading:
        assert image_bgr.shape == (480, 640, 3)
        self.calls += 1
        return FakeReading(self.letter, self.confidence if self.letter else 0.2)


def run(
    spins: list[ScriptedSpin],
    duration: float,
    imu: bool = False,
    reader: FakeReader | None = None,
    fail_at: float | None = None,
    evidence_dir: Path | None = None,
) -> tuple[list[SpinVerdict], list[JudgeEvent]]:
    scene = SceneRenderer(spins, SceneStyle(), seed=7)
    judge = SpinJudge(reader if reader is not None else FakeReader(), imu=imu, evidence_dir=evidence_dir)
    trace = scene_imu(spins, duration) if imu else None
    events: list[JudgeEvent] = []
    pos = 0
    for frame in scene.frames(duration, FPS):
        if fail_at is not None and frame.t >= fail_at:
            events += judge.camera_failed(frame.t)
            break
        if trace is not None:
            end = int(np.searchsorted(trace[:, 0], frame.t, side="right"))
            events += judge.feed_imu_array(trace[pos:end])
            pos = end
        events += judge.feed_frame(frame)
    events += judge.finish()
    return [e for e in events if isinstance(e, SpinVerdict)], events


VALID = ScriptedSpin(release_t=1.5, stable_s=3.6, wobble_s=0.9)


def test_valid_spin_camera_only() -> None:
    reader = FakeReader()
    verdicts, events = run([VALID], 8.5, reader=reader)
    assert len(verdicts) == 1
    v = verdicts[0]
    assert v.valid and v.reasons == () and not v.needs_judge
    assert v.letter is Letter.GIMEL and reader.calls == 1
    assert v.release_t is not None and abs(v.release_t - VALID.release_t) < 0.1
    assert v.stable_s is not None and abs(v.stable_s - VALID.stable_s) < 0.4
    assert v.rest_t is not None and abs(v.rest_t - VALID.rest_t) < 0.2
    phases = [e.phase for e in events if isinstance(e, PhaseChange)]
    assert phases[:2] == [TablePhase.READY, TablePhase.HAND]
    for p in (TablePhase.SPINNING, TablePhase.WOBBLING, TablePhase.AT_REST):
        assert p in phases
    assert phases.index(TablePhase.SPINNING) < phases.index(TablePhase.WOBBLING) < phases.index(TablePhase.AT_REST)


def test_valid_spin_with_imu_is_sharper() -> None:
    verdicts, _ = run([VALID], 8.5, imu=True)
    assert len(verdicts) == 1
    v = verdicts[0]
    assert v.valid and v.imu_used
    assert v.release_t is not None and abs(v.release_t - VALID.release_t) < 0.02
    assert v.stable_s is not None and abs(v.stable_s - VALID.stable_s) < 0.25


def test_short_spin() -> None:
    spin = ScriptedSpin(release_t=1.5, stable_s=1.6, wobble_s=0.8)
    verdicts, _ = run([spin], 6.0, imu=True)
    assert len(verdicts) == 1
    assert not verdicts[0].valid
    assert verdicts[0].reasons == ("short",)
    assert verdicts[0].confidence > 0.9


def test_hand_touch_is_interference() -> None:
    spin = ScriptedSpin(release_t=1.5, stable_s=3.5, touch_t=3.2)
    verdicts, _ = run([spin], 8.0)
    assert len(verdicts) == 1
    assert not verdicts[0].valid
    assert "interference" in verdicts[0].reasons


def test_hand_passing_close_without_touching_is_not_interference() -> None:
    spin = ScriptedSpin(release_t=1.5, stable_s=3.8, hover_t=3.0)
    verdicts, _ = run([spin], 8.5)
    assert len(verdicts) == 1
    assert verdicts[0].valid and "interference" not in verdicts[0].reasons


def test_leaving_the_picture_is_left_tray() -> None:
    spin = ScriptedSpin(release_t=1.5, stable_s=3.2, wobble_s=0.5, x=470, y=240, slide=400.0, slide_deg=0.0,
                        rest_after_fall_s=0.7, drift=(0.0, 0.0), pickup=False)
    verdicts, _ = run([spin], 7.5)
    assert len(verdicts) == 1
    assert "left_tray" in verdicts[0].reasons and not verdicts[0].valid


def test_camera_failure_mid_spin_asks_a_judge() -> None:
    verdicts, events = run([VALID], 8.0, fail_at=3.0)
    assert len(verdicts) == 1
    v = verdicts[0]
    assert v.needs_judge and not v.valid and v.letter is None and v.confidence == 0.0
    assert "camera failed" in " ".join(v.notes)
    assert isinstance(events[-1], PhaseChange) and events[-1].phase is TablePhase.CAMERA_FAILED


def test_unreadable_letter_asks_a_judge() -> None:
    verdicts, _ = run([VALID], 8.5, reader=FakeReader(letter=None))
    assert len(verdicts) == 1
    v = verdicts[0]
    assert v.letter is None and v.needs_judge
    assert "unreadable" in v.reasons


def test_two_spins_with_pickup_in_between_no_invented_spins() -> None:
    second = ScriptedSpin(release_t=10.5, stable_s=1.2, x=280, y=220, wobble_s=0.7)
    verdicts, _ = run([VALID, second], 14.5)
    assert len(verdicts) == 2
    assert verdicts[0].valid and not verdicts[1].valid
    assert [v.spin_id for v in verdicts] == [1, 2]


def test_evidence_written(tmp_path: Path) -> None:
    verdicts, _ = run([VALID], 8.5, imu=True, evidence_dir=tmp_path)
    v = verdicts[0]
    assert v.evidence is not None
    paths = v.evidence.paths
    assert set(paths) == {"still", "timeline", "clip"}
    still = cv2.imread(str(paths["still"]))
    timeline = cv2.imread(str(paths["timeline"]))
    assert still.shape == (480, 640, 3) and timeline is not None
    cap = cv2.VideoCapture(str(paths["clip"]))
    n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    cap.release()
    # the clip runs from before the release to after the rest
    assert n >= (VALID.rest_t - VALID.release_t) * FPS / 2 * 0.8


def test_verdict_json_has_exactly_the_analyze_fields() -> None:
    verdicts, _ = run([VALID], 8.5)
    js = verdicts[0].to_json()
    assert list(js) == ["release_t", "wobble_t", "rest_t", "stable_s", "letter", "valid", "reasons", "confidence"]
    assert js["letter"] == "gimel" and js["valid"] is True and js["reasons"] == []


def test_recording_ending_mid_spin_asks_a_judge() -> None:
    verdicts, _ = run([VALID], 4.0)
    assert len(verdicts) == 1 and verdicts[0].needs_judge and verdicts[0].rest_t is None


def test_empty_tray_gives_no_verdicts() -> None:
    verdicts, events = run([], 3.0)
    assert verdicts == []
    assert [e.phase for e in events if isinstance(e, PhaseChange)] == [TablePhase.READY]


@pytest.mark.parametrize("stable", [0.2])
def test_wobbling_at_once(stable: float) -> None:
    spin = ScriptedSpin(release_t=1.5, stable_s=stable, wobble_s=0.8)
    verdicts, _ = run([spin], 5.0, imu=True)
    assert len(verdicts) == 1
    assert verdicts[0].reasons == ("wobbled_immediately",)
