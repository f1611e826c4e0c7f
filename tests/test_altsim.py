"""The alternative renderer (bench/altsim) writes recordings that follow the contract, and its scenes
follow DESIGN.md "The physical table"."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.altsim.record import SIZES, AltTable, SessionSpec, record
from bench.altsim.scene import AltDreidel, AltScene
from hardware.recording import RecordingReader
from hardware.sim.physics import SpinKind
from hardware.sim.world import SimWorld


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("altsim") / "rec"
    spec = SessionSpec(seed=11, size=(320, 240), fps=30.0, kinds=(SpinKind.NO_RELEASE,), imu=True, enroll=True)
    return out, record(out, spec)


def test_recording_follows_the_contract(recording: tuple[Path, dict]) -> None:
    out, summary = recording
    meta = json.loads((out / "meta.json").read_text())
    assert meta["format"] == 1 and meta["fps"] == 30.0 and (meta["width"], meta["height"]) == (320, 240)
    assert meta["imu"]["rate_hz"] > 0 and meta["source"].startswith("altsim:")
    rec = RecordingReader(out)
    times = rec.frame_times()
    assert len(times) == summary["frames"] and times[0] == 0.0 and np.all(np.diff(times) > 0)
    frames = list(rec.frames())
    assert len(frames) == len(times) and frames[0].image.shape == (240, 320, 3)
    imu = rec.imu()
    assert imu is not None and imu[0, 0] <= times[0] + 0.01 and imu[-1, 0] >= times[-1] - 0.01
    assert abs(float(np.median(imu[:, 3])) - 1.0) < 0.05  # gravity on z, in g
    # truth.json has DESIGN.md's fields and every field of the twin's truth
    world = SimWorld(seed=1)
    world.launch(SpinKind.NO_RELEASE, at=1.0)
    truth = rec.truth()
    assert truth is not None and len(truth) == 1
    assert {"release_t", "wobble_t", "rest_t", "letter", "valid", "reasons"} <= set(truth[0])
    assert set(world.truths[0].to_json()) <= set(truth[0])
    assert truth[0]["reasons"] == ["no_release"] and truth[0]["valid"] is False
    # enrol stills: three per letter of this dreidel, each showing that letter's face up
    enrolled = rec.enroll()
    assert len(enrolled) == 12 and {str(letter) for letter, _ in enrolled} == {
        str(x) for x in AltTable(11, (320, 240)).dreidel.letters}


def test_the_dreidel_is_where_the_truth_says(recording: tuple[Path, dict]) -> None:
    out, _ = recording
    rec = RecordingReader(out)
    truth = rec.truth()
    assert truth is not None
    t_rest = truth[0]["rest_t"] + 0.3
    times = rec.frame_times()
    frames = list(rec.frames())
    empty = frames[0].image.astype(np.int16)
    still = frames[int(np.searchsorted(times, t_rest))].image.astype(np.int16)
    diff = np.abs(still - empty).max(axis=2) > 40
    diff = cv2.morphologyEx(diff.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero(diff)
    assert len(xs) > 50, "the resting dreidel is not in the picture"
    cx, cy = truth[0]["rest_px"]
    assert math.hypot(float(np.median(xs)) - cx, float(np.median(ys)) - cy) < truth[0]["length_px"] / 2
    # and the first and last frames (tray empty) agree apart from noise
    last = frames[-1].image.astype(np.int16)
    assert (np.abs(last - empty).max(axis=2) > 60).mean() < 0.002


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), size=st.sampled_from(SIZES), fps=st.sampled_from([60.0, 120.0]))
def test_scenes_follow_the_physical_table(seed: int, size: tuple[int, int], fps: float) -> None:
    rng = np.random.default_rng(seed)
    dreidel = AltDreidel.random(rng)
    scene, scale = AltScene.random(rng, size[0], size[1], fps, dreidel.length_mm, seed)
    assert 350.0 <= scene.cam_h <= 600.0
    assert 300.0 <= 2 * scene.tray_r <= 400.0
    rim = scene.project(scene.rim_outline())
    assert rim[:, 0].min() >= 0 and rim[:, 0].max() < size[0] and rim[:, 1].min() >= 0 and rim[:, 1].max() < size[1]
    length_px = dreidel.scaled(scale).length_mm * scene.px_per_mm()
    assert 40.0 <= length_px <= 150.0


def test_a_bad_picture_size_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 320x240"):
        AltScene.random(np.random.default_rng(0), 160, 120, 60.0, 60.0, 0)


def test_copies_at_other_jpeg_qualities_differ_only_in_the_video(
        recording: tuple[Path, dict], tmp_path: Path) -> None:
    """H45: ``record(..., copies=...)`` writes the same rendered frames at other JPEG qualities in one pass,
    and leaves the recording itself byte-identical to one made without copies."""
    base, _ = recording
    out = tmp_path / "rec"
    spec = SessionSpec(seed=11, size=(320, 240), fps=30.0, kinds=(SpinKind.NO_RELEASE,), imu=True, enroll=True)
    record(out, spec, copies=[(tmp_path / "q95", 95), (tmp_path / "q40", 40)])
    for name in ("video.avi", "frames.csv", "imu.csv", "truth.json", "meta.json"):
        assert (out / name).read_bytes() == (base / name).read_bytes(), name
    sizes = {}
    for d in ("q95", "q40"):
        for name in ("frames.csv", "imu.csv", "truth.json", "meta.json"):
            assert (tmp_path / d / name).read_bytes() == (base / name).read_bytes(), (d, name)
        assert sorted(p.name for p in (tmp_path / d / "enroll").glob("*.png")) == sorted(
            p.name for p in (base / "enroll").glob("*.png"))
        sizes[d] = (tmp_path / d / "video.avi").stat().st_size
    assert sizes["q95"] > (base / "video.avi").stat().st_size > sizes["q40"]
    a = next(iter(RecordingReader(tmp_path / "q95").frames())).image.astype(int)
    b = next(iter(RecordingReader(tmp_path / "q40").frames())).image.astype(int)
    assert 0 < np.abs(a - b).mean() < 6  # the same picture, coded differently


def test_the_video_quality_can_be_overridden(tmp_path: Path) -> None:
    spec = SessionSpec(seed=11, size=(320, 240), fps=30.0, kinds=(SpinKind.NO_RELEASE,), imu=False)
    record(tmp_path / "a", spec, jpeg_quality=30)
    record(tmp_path / "b", spec, copies=[(tmp_path / "c", 30)])
    assert (tmp_path / "a" / "video.avi").read_bytes() == (tmp_path / "c" / "video.avi").read_bytes()
    assert (tmp_path / "a" / "video.avi").stat().st_size < (tmp_path / "b" / "video.avi").stat().st_size
