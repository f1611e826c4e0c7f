"""Nun and Gimel never confused: the steadiness check, per-letter thresholds, the taught/generic veto."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.letters import Letter
from vision.letter_synth import DreidelStyle, hebrew_fonts, render_still
from vision.pose import RestPose
from vision.recognizer import (
    DEFAULT_MODEL,
    LETTER_THRESHOLD_FLOOR,
    LETTERS,
    MIN_CONFUSABLE_SIDE_PX,
    NUDGE_SCALE,
    NUDGE_SHIFT,
    ConfusableBin,
    FaceScores,
    LetterModel,
    LetterRecognizer,
    ModelError,
    face_side_px,
    nudged_quads,
)

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def recognizer() -> LetterRecognizer:
    return LetterRecognizer.default()


def twin_frames(name: str) -> list[tuple[np.ndarray, RestPose]]:
    """The resting frames (cut around the dreidel) and poses stored in ``tests/vision/data/<name>.json``."""
    meta = json.loads((DATA / f"{name}.json").read_text())
    out = []
    for fr in meta["frames"]:
        p = fr["pose"]
        pose = RestPose(center=tuple(p["center"]), axis_deg=p["axis_deg"], length_px=p["length_px"],
                        tip=tuple(p["tip"]), handle=tuple(p["handle"]), face_quad=np.array(p["face_quad"]),
                        upside_down=None, confidence=p["confidence"], width_px=p["width_px"])
        image = cv2.imread(str(DATA / fr["image"]), cv2.IMREAD_COLOR)
        assert image is not None
        out.append((image, pose))
    return out


@pytest.mark.parametrize(("name", "truth", "side"), [("twin53001_spin7", Letter.NUN, 24),
                                                     ("twin54002_spin7", Letter.GIMEL, 17)])
def test_small_faces_the_network_once_read_as_the_other_letter_are_refused_or_read_right(
        recognizer: LetterRecognizer, name: str, truth: Letter, side: int) -> None:
    """The two wrong letters the judge ever gave, on the frames it read: twin 53001 spin 7, a 24 px resting Nun
    the network read as Gimel at 0.97-0.98 (the third session), and twin 54002 spin 7, a 17 px Gimel read as
    Nun at 0.97-0.99 on every frame, taught too (the fourth session's held-out set). At these sizes Gimel's foot
    is a pixel or two: each frame is either refused, with a reason that names the Nun/Gimel doubt, or read
    right."""
    for image, pose in twin_frames(name):
        assert face_side_px(pose.face_quad) == pytest.approx(side, abs=1.5)
        got = recognizer.read(image, pose=pose)
        assert got.letter in (None, truth), f"read {got.letter} at {got.confidence:.2f}"
        best = max(got.scores, key=got.scores.__getitem__)
        if got.letter is None and best is not truth and got.confidence >= recognizer.threshold:
            assert "Nun or Gimel" in got.reason, got.reason


@pytest.mark.parametrize("letter", [Letter.NUN, Letter.GIMEL])
def test_a_nun_or_gimel_on_a_tiny_face_goes_to_a_judge(recognizer: LetterRecognizer, letter: Letter) -> None:
    """The same plain dreidels that are read when large: shrunk until the face is about 12 px, where the
    calibration found no safe threshold, they are never read as a letter, and the reason says why."""
    assert recognizer.model.calibration.confusable_threshold(13.0) is None
    small = 0
    for k in range(3):
        s = render_still(plain("FreeSansBold.ttf", 40 + k), letter, np.random.default_rng(60 + k),
                         size=(480, 360), length_px=36.0)
        got = recognizer.read(s.image)
        assert got.letter not in (Letter.NUN, Letter.GIMEL)
        if got.pose is not None and got.pose.face_quad is not None and "too small" in got.reason:
            small += 1
    assert small >= 2, f"only {small} of 3 small faces refused for their size"


def plain(font_name: str, seed: int) -> DreidelStyle:
    fonts = hebrew_fonts()
    base = DreidelStyle.random(np.random.default_rng(seed), fonts)
    return replace(base, font=next(f for f in fonts if Path(f).name == font_name), body_bgr=(80, 170, 220),
                   letter_bgr=(30, 20, 20), handle_bgr=(80, 170, 220), glyph_height=0.75, glossy=False)


@pytest.mark.parametrize("letter", [Letter.NUN, Letter.GIMEL])
def test_a_clear_nun_or_gimel_is_still_read(recognizer: LetterRecognizer, letter: Letter) -> None:
    """The check costs only unsure faces: a plain, large Nun or Gimel survives every nudge."""
    read = 0
    for k in range(3):
        s = render_still(plain("FreeSansBold.ttf", 40 + k), letter, np.random.default_rng(60 + k),
                         size=(480, 360), length_px=130.0)
        got = recognizer.read(s.image)
        assert got.letter in (letter, None)
        read += got.letter is letter
    assert read >= 2, f"only {read} of 3 clear {letter.value} read"


@settings(max_examples=60, deadline=None)
@given(st.floats(20, 600), st.floats(20, 400), st.floats(8, 120), st.floats(0.4, 1.0), st.floats(-180, 180))
def test_nudged_outlines_move_or_scale_the_face_a_little(cx: float, cy: float, side: float, aspect: float,
                                                        angle: float) -> None:
    a = np.radians(angle)
    u, v = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
    c = np.array([cx, cy])
    quad = np.array([c - u * side / 2 - v * side * aspect / 2, c + u * side / 2 - v * side * aspect / 2,
                     c + u * side / 2 + v * side * aspect / 2, c - u * side / 2 + v * side * aspect / 2])
    mean_side = (side + side * aspect) / 2
    quads = nudged_quads(quad)
    assert len(quads) == 6
    for q in quads:
        assert q.shape == (4, 2)
        moved = np.linalg.norm(q.mean(axis=0) - c)
        grown = np.linalg.norm(q[0] - q[2]) / np.linalg.norm(quad[0] - quad[2])
        # either moved by the shift at its size, or scaled about its centre: never both, never more
        assert (moved == pytest.approx(NUDGE_SHIFT * mean_side, rel=1e-6) and grown == pytest.approx(1.0)) or (
            moved < 1e-6 and abs(grown - 1.0) == pytest.approx(NUDGE_SCALE, rel=1e-6))


def test_letter_thresholds_come_from_the_calibration_and_are_checked(tmp_path: Path,
                                                                     recognizer: LetterRecognizer) -> None:
    raw = json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())
    shipped = dict(zip(LETTERS, recognizer.letter_thresholds, strict=True))
    # Nun and Gimel, the only letters ever read wrong on the calibration fonts, keep the global threshold
    assert shipped[Letter.NUN] == shipped[Letter.GIMEL] == recognizer.threshold
    assert all(LETTER_THRESHOLD_FLOOR <= t <= recognizer.threshold for t in shipped.values())
    # a threshold given by hand applies to every letter
    strict = LetterRecognizer(recognizer.model, threshold=0.99)
    assert strict.letter_thresholds == (0.99,) * len(LETTERS)
    # teaching keeps the letters' thresholds
    assert recognizer.with_usable_enrollment([])[0].letter_thresholds == recognizer.letter_thresholds
    net = tmp_path / "m.onnx"
    shutil.copy(DEFAULT_MODEL, net)
    for bad, why in (({"nun": 0.95}, "a threshold for each"),
                     ({**raw["letter_thresholds"], "hey": 0.5}, "must lie in")):
        net.with_suffix(".json").write_text(json.dumps({**raw, "letter_thresholds": bad}))
        with pytest.raises(ModelError, match=why):
            LetterModel.load(net)
    # an older calibration without per-letter thresholds uses the global one for every letter
    net.with_suffix(".json").write_text(json.dumps({k: v for k, v in raw.items() if k != "letter_thresholds"}))
    old = LetterRecognizer(LetterModel.load(net))
    assert old.letter_thresholds == (old.threshold,) * len(LETTERS)


def scores(best: Letter, p: float) -> FaceScores:
    rest = (1.0 - p) / (len(LETTERS) - 1)
    return FaceScores(np.array([p if x is best else rest for x in LETTERS]), 0.0, np.array([1.0, 0, 0, 0]))


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(LETTERS), st.floats(0.25, 1.0), st.sampled_from(LETTERS), st.floats(0.25, 1.0))
def test_taught_reading_is_vetoed_when_the_generic_model_clearly_reads_another_letter(
    recognizer: LetterRecognizer, g_best: Letter, g_p: float, t_best: Letter, t_p: float,
) -> None:
    # taught a whole Shin dreidel (Nun, Gimel, Hey, Shin: so no Pe), every letter it may bear known
    taught = LetterRecognizer(recognizer.model, protos=np.zeros((4, recognizer.model.calibration.embedding)),
                              proto_letters=np.arange(4, dtype=np.int64))
    assert not taught.open_letters
    d = taught._decide(scores(g_best, g_p), scores(t_best, t_p))
    assert LETTERS[d.best] is t_best and d.confidence == pytest.approx(t_p)  # the taught reading counts
    g_clear = g_p >= taught.letter_thresholds[LETTERS.index(g_best)]
    assert d.conflict == (g_clear and t_best is not g_best)


def test_face_size_thresholds_come_from_the_calibration_and_are_checked(tmp_path: Path) -> None:
    """``confusable_bins`` in letters.json: read, checked, and an older file falls back to the 26 px floor."""
    raw = json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())
    net = tmp_path / "m.onnx"
    shutil.copy(DEFAULT_MODEL, net)
    bins = [{"below_px": 16, "threshold": None}, {"below_px": 22, "threshold": 0.99}, {"below_px": 30, "threshold": 0.96}]
    net.with_suffix(".json").write_text(json.dumps({**raw, "confusable_bins": bins}))
    cal = LetterModel.load(net).calibration
    assert cal.confusable_bins == (ConfusableBin(16, None), ConfusableBin(22, 0.99), ConfusableBin(30, 0.96))
    assert [cal.confusable_threshold(s) for s in (12, 15.9, 16, 21.9, 22, 29.9, 30, 80)] == [
        None, None, 0.99, 0.99, 0.96, 0.96, 0.0, 0.0]
    for bad, why in (([{"below_px": 20, "threshold": 0.99}, {"below_px": 18, "threshold": 0.98}], "rising"),
                     ([{"below_px": 20, "threshold": 0.5}], "must lie in"),
                     ([{"below_px": 20}], "needs below_px and threshold"),
                     ([], "non-empty list")):
        net.with_suffix(".json").write_text(json.dumps({**raw, "confusable_bins": bad}))
        with pytest.raises(ModelError, match=why):
            LetterModel.load(net)
    net.with_suffix(".json").write_text(json.dumps({k: v for k, v in raw.items() if k != "confusable_bins"}))
    old = LetterModel.load(net).calibration
    assert old.confusable_bins is None
    assert old.confusable_threshold(MIN_CONFUSABLE_SIDE_PX - 0.1) is None
    assert old.confusable_threshold(MIN_CONFUSABLE_SIDE_PX) == 0.0


def test_the_shipped_face_size_thresholds_never_read_a_smaller_face_more_easily(recognizer: LetterRecognizer) -> None:
    """The committed calibration has face-size bins (fitted by the build script), and the threshold a Nun or
    Gimel needs never falls as the face shrinks; below some size it is never read."""
    cal = recognizer.model.calibration
    assert cal.confusable_bins is not None
    need = [cal.confusable_threshold(s) for s in np.arange(8.0, 60.0, 0.5)]
    assert need[0] is None
    as_num = [2.0 if t is None else t for t in need]
    assert all(a >= b for a, b in zip(as_num, as_num[1:], strict=False))
