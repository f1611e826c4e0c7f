"""``sevivon analyze``: JSON exactly as DESIGN.md, the readable table, evidence, bad recordings."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

import controller.analyze_cli as analyze_cli
from controller.analyze_cli import MjpegAvi, analyze, analyze_recording
from controller.judge import SpinVerdict
from controller.rules.letters import Letter
from hardware.imu import ImuSample
from hardware.recording import RecordingWriter
from hardware.sim.physics import SpinKind
from hardware.sim.recorder import record_session
from vision.synthetic import SceneRenderer, SceneStyle, ScriptedSpin, scene_imu

SPIN = ScriptedSpin(release_t=1.5, stable_s=3.6, wobble_s=0.9)
SHORT = ScriptedSpin(release_t=10.0, stable_s=1.3, wobble_s=0.8, x=300, y=220)


@dataclass(frozen=True)
class _Reading:
    letter: Letter | None
    confidence: float
    pose: Any = None


class _Reader:
    def read(self, image_bgr: np.ndarray, pose: Any = None, background_bgr: np.ndarray | None = None) -> _Reading:
        return _Reading(Letter.HEY, 0.95)


@pytest.fixture(scope="module")
def synthetic_rec(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("rec") / "synthetic"
    fps, duration = 30.0, 13.5
    scene = SceneRenderer([SPIN, SHORT], SceneStyle(), seed=4)
    with RecordingWriter(out, fps, 640, 480, "synthetic", imu={"chip": "synthetic", "rate_hz": 833.0}) as w:
        for f in scene.frames(duration, fps):
            w.write_frame(f.image, f.t)
        arr = scene_imu([SPIN, SHORT], duration)
        w.write_imu(ImuSample(*map(float, row)) for row in arr)
    return out


@pytest.fixture
def fake_recognizer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analyze_cli, "load_recognizer", lambda enroll: (_Reader(), "test reader"))


def test_json_output_is_exactly_the_contract(synthetic_rec: Path, fake_recognizer: None) -> None:
    result = CliRunner().invoke(analyze, [str(synthetic_rec), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert list(data) == ["spins"]
    spins = data["spins"]
    assert len(spins) == 2
    for s in spins:
        assert list(s) == ["release_t", "wobble_t", "rest_t", "stable_s", "letter", "valid", "reasons", "confidence"]
    first, second = spins
    assert first["valid"] is True and first["letter"] == "hey" and first["reasons"] == []
    assert abs(first["release_t"] - SPIN.release_t) < 0.05
    assert abs(first["stable_s"] - SPIN.stable_s) < 0.2
    assert abs(first["rest_t"] - SPIN.rest_t) < 0.2
    assert second["valid"] is False and second["reasons"] == ["short"]


def test_readable_table_and_evidence(synthetic_rec: Path, fake_recognizer: None, tmp_path: Path) -> None:
    ev = tmp_path / "ev"
    result = CliRunner().invoke(analyze, [str(synthetic_rec), "--evidence", str(ev)])
    assert result.exit_code == 0, result.output
    assert "camera + IMU" in result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip().startswith(("1 ", "2 "))]
    assert len(lines) == 2 and " yes " in lines[0] and "short" in lines[1]
    for k in (1, 2):
        for part in ("still.png", "timeline.png", "clip.avi"):
            assert (ev / f"spin_{k:03d}_{part}").is_file()


def test_no_imu_flag_judges_with_the_camera_alone(synthetic_rec: Path, fake_recognizer: None) -> None:
    verdicts, facts = analyze_recording(synthetic_rec, use_imu=False, recognizer=_Reader())
    assert facts["imu"] is False
    assert len(verdicts) == 2 and not any(v.imu_used for v in verdicts)


def test_missing_recording_exits_2_with_a_clear_message(tmp_path: Path) -> None:
    result = CliRunner().invoke(analyze, [str(tmp_path / "nope"), "--json"])
    assert result.exit_code == 2
    assert "not a recording directory" in result.output


def test_recording_without_meta_exits_2(tmp_path: Path) -> None:
    (tmp_path / "video.avi").write_bytes(b"")
    result = CliRunner().invoke(analyze, [str(tmp_path)])
    assert result.exit_code == 2
    assert "meta.json" in result.output


def test_truncated_frames_csv_exits_2(synthetic_rec: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    for name in ("meta.json", "video.avi"):
        (bad / name).write_bytes((synthetic_rec / name).read_bytes())
    (bad / "frames.csv").write_text("index,t\n0,0.0\n1,oops\n")
    result = CliRunner().invoke(analyze, [str(bad), "--json"])
    assert result.exit_code == 2
    assert "frames.csv" in result.output


def test_mjpeg_reader_matches_opencv(synthetic_rec: Path) -> None:
    avi = MjpegAvi(synthetic_rec / "video.avi")
    cap = cv2.VideoCapture(str(synthetic_rec / "video.avi"))
    for i in (0, 5, 77):
        cap.set(cv2.CAP_PROP_POS_FRAMES, i)
        ok, ref = cap.read()
        assert ok
        mine = cv2.imdecode(np.frombuffer(avi.jpeg(i), np.uint8), cv2.IMREAD_COLOR)
        assert float(np.abs(mine.astype(int) - ref.astype(int)).mean()) < 1.0
    cap.release()
    assert len(avi) == int(13.5 * 30)


def test_analyze_a_twin_recording(tmp_path: Path) -> None:
    rec = record_session(tmp_path / "twin", spins=1, seed=5, fps=30.0, kinds=[SpinKind.VALID])
    truth = json.loads((rec / "truth.json").read_text())
    verdicts, _ = analyze_recording(rec, recognizer=_Reader())
    assert len(verdicts) == 1
    v, t = verdicts[0], truth[0]
    assert v.valid == t["valid"]
    assert v.rest_t is not None and abs(v.rest_t - t["rest_t"]) < 0.3
    assert v.release_t is not None and abs(v.release_t - t["release_t"]) < 0.1


def test_the_readable_table_marks_a_spin_sent_to_a_judge_as_a_suggestion() -> None:
    lost = SpinVerdict(spin_id=3, release_t=22.26, wobble_t=27.82, rest_t=28.33, stable_s=5.56, letter=None,
                       valid=True, reasons=(), confidence=0.0, needs_judge=True,
                       notes=("the dreidel went out of sight without leaving the tray",))
    sure = SpinVerdict(spin_id=4, release_t=32.76, wobble_t=33.62, rest_t=34.13, stable_s=0.85, letter=Letter.HEY,
                       valid=False, reasons=("short",), confidence=1.0, needs_judge=False)
    rows = analyze_cli._table([lost, sure]).splitlines()[2:]
    assert rows[0].split()[6] == "yes?" and "JUDGE NEEDED: the dreidel went out of sight" in rows[0]
    assert rows[1].split()[6] == "no" and "JUDGE NEEDED" not in rows[1]
