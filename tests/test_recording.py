from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from controller.rules.letters import Letter
from hardware.imu import ImuSample
from hardware.recording import RecordingError, RecordingReader, RecordingWriter


def _frame(i: int) -> np.ndarray:
    img = np.zeros((48, 64, 3), np.uint8)
    img[:, : 4 * (i + 1)] = (40, 120, 200)
    return img


def test_round_trip_keeps_times_imu_truth_and_enroll(tmp_path: Path) -> None:
    out = tmp_path / "rec"
    with RecordingWriter(out, fps=60, width=64, height=48, source="test", imu={"chip": "sim", "rate_hz": 833}) as w:
        for i in range(5):
            w.write_frame(_frame(i), t=i / 60)
        w.write_imu([ImuSample(0.001 * k, 0, 0, 1, 0, 0, 0.5) for k in range(10)])
        w.write_truth([{"release_t": 1.0, "letter": "gimel"}])
        w.write_enroll(Letter.GIMEL, _frame(2))
        w.write_enroll("gimel", _frame(3))
    meta = json.loads((out / "meta.json").read_text())
    assert meta == {"format": 1, "fps": 60.0, "width": 64, "height": 48, "source": "test",
                    "imu": {"chip": "sim", "rate_hz": 833}}
    r = RecordingReader(out)
    frames = list(r.frames())
    assert [f.index for f in frames] == [0, 1, 2, 3, 4]
    assert frames[3].t == pytest.approx(0.05)
    # MJPG is lossy: the bright band's width survives, not every pixel.
    assert int((frames[3].image[24, :, 2] > 100).sum()) == pytest.approx(16, abs=2)
    imu = r.imu()
    assert imu is not None and imu.shape == (10, 7) and imu[9, 0] == pytest.approx(0.009)
    assert r.truth() == [{"release_t": 1.0, "letter": "gimel"}]
    assert sorted(p.name for p in (out / "enroll").iterdir()) == ["gimel_0.png", "gimel_1.png"]
    assert [letter for letter, _ in r.enroll()] == [Letter.GIMEL, Letter.GIMEL]


def test_writer_rejects_times_that_do_not_increase_and_wrong_sizes(tmp_path: Path) -> None:
    with RecordingWriter(tmp_path / "r", fps=30, width=64, height=48, source="t") as w:
        w.write_frame(_frame(0), 0.0)
        with pytest.raises(RecordingError, match="must increase"):
            w.write_frame(_frame(1), 0.0)
        with pytest.raises(RecordingError, match="64x48"):
            w.write_frame(np.zeros((10, 10, 3), np.uint8), 1.0)
        with pytest.raises(RecordingError, match="without an IMU"):
            w.write_imu([])


def test_reader_names_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match="not a recording directory"):
        RecordingReader(tmp_path / "nope")
    (tmp_path / "x").mkdir()
    with pytest.raises(RecordingError, match="no meta.json"):
        RecordingReader(tmp_path / "x")
    (tmp_path / "x" / "meta.json").write_text('{"format": 2, "fps": 1, "width": 1, "height": 1}')
    with pytest.raises(RecordingError, match="format 2"):
        RecordingReader(tmp_path / "x")


def test_badly_named_enroll_still_is_an_error(tmp_path: Path) -> None:
    with RecordingWriter(tmp_path / "r", fps=30, width=64, height=48, source="t") as w:
        w.write_frame(_frame(0), 0.0)
    (tmp_path / "r" / "enroll").mkdir()
    (tmp_path / "r" / "enroll" / "aleph_0.png").write_bytes(b"")
    with pytest.raises(RecordingError, match="unknown letter 'aleph'"):
        RecordingReader(tmp_path / "r").enroll()


def _textured(seed: int) -> np.ndarray:
    """A frame with fine detail (where JPEG quality shows), like a letter's strokes on a face."""
    rng = np.random.default_rng(seed)
    coarse = rng.integers(0, 256, (12, 16, 3)).astype(np.uint8)
    return np.repeat(np.repeat(coarse, 4, axis=0), 4, axis=1)  # 4 px blocks: sharp edges, as strokes have


@pytest.mark.parametrize("low, high", [(30, 92), (60, 95)])
def test_video_is_written_at_the_quality_asked_for(tmp_path: Path, low: int, high: int) -> None:
    """The JPEG quality reaches the video: a higher quality keeps the picture closer to what was written.

    (OpenCV's default MJPG writer ignored the setting and wrote every recording at about quality 75.)
    """
    frame = _textured(7)
    errors = {}
    for q in (low, high):
        out = tmp_path / f"q{q}"
        with RecordingWriter(out, fps=60, width=64, height=48, source="test", jpeg_quality=q) as w:
            w.write_frame(frame, t=0.0)
        (read,) = list(RecordingReader(out).frames())
        errors[q] = float(np.abs(read.image.astype(np.int16) - frame.astype(np.int16)).mean())
    assert errors[high] < 0.8 * errors[low]


def test_writer_rejects_a_quality_outside_1_to_100(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match="jpeg_quality must be 1-100"):
        RecordingWriter(tmp_path / "r", fps=30, width=64, height=48, source="t", jpeg_quality=0)
