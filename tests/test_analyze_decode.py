"""``analyze`` decodes the next frames on a helper thread: the same pictures, in order, and a broken
frame is still named."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.analyze_cli import MjpegAvi, SmallDecoder, analyze_recording
from hardware.recording import RecordingError, RecordingWriter


def _jpegs(n: int, size: tuple[int, int] = (640, 480)) -> list[bytes]:
    rng = np.random.default_rng(1)
    out = []
    for i in range(n):
        img = np.full((size[1], size[0], 3), 90, np.uint8)
        cv2.circle(img, (int(rng.integers(50, size[0] - 50)), int(rng.integers(50, size[1] - 50))), 30,
                   (i * 7 % 256, 40, 200), -1)
        out.append(cv2.imencode(".jpg", img)[1].tobytes())
    return out


@pytest.mark.parametrize(("size", "flag", "ahead"), [((640, 480), cv2.IMREAD_REDUCED_COLOR_2, 8),
                                                       ((800, 600), cv2.IMREAD_REDUCED_COLOR_2, 1),
                                                       ((640, 480), cv2.IMREAD_REDUCED_COLOR_2, 30)])
def test_frames_decoded_ahead_are_those_decoded_in_turn(size: tuple[int, int], flag: int, ahead: int) -> None:
    jpegs = _jpegs(20, size)
    lores = (320, 240)
    frames: Iterator[tuple[int, float, bytes]] = ((i, i / 30, j) for i, j in enumerate(jpegs))
    got = list(SmallDecoder(flag, lores, ahead=ahead).decode_ahead(frames))
    assert [g[0] for g in got] == list(range(20))
    assert [g[1] for g in got] == [i / 30 for i in range(20)]
    for (_, _, buf, small), jpg in zip(got, jpegs, strict=True):
        want = cv2.imdecode(np.frombuffer(jpg, np.uint8), flag)
        if (want.shape[1], want.shape[0]) != lores:
            want = cv2.resize(want, lores, interpolation=cv2.INTER_AREA)
        assert small is not None and small.shape == (240, 320, 3)
        assert np.array_equal(small, want)
        assert buf.tobytes() == jpg


def test_a_broken_frame_is_named(tmp_path: Path) -> None:
    """A frame that is no JPEG: analyze stops with the frame's number, not a crash of the helper thread."""
    rec = tmp_path / "rec"
    with RecordingWriter(rec, 30.0, 640, 480, "test") as w:
        for i in range(40):
            w.write_frame(np.full((480, 640, 3), 90, np.uint8), i / 30)
    data = bytearray((rec / "video.avi").read_bytes())
    # spoil the 31st frame's JPEG (keep its SOI marker so the reader still takes the file as MJPG)
    off, size = MjpegAvi(rec / "video.avi").offsets[30]
    data[off + 2 : off + size] = b"\x00" * (size - 2)
    (rec / "video.avi").write_bytes(bytes(data))
    with pytest.raises(RecordingError, match="frame 30 "):
        analyze_recording(rec, use_recognizer=False)
