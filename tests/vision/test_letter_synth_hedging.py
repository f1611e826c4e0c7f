"""Nun and Gimel hedging (session 10): the training renderer draws the same scene with the other letter of the pair
on the face, and the build script trains a face whose two pictures are alike (a Gimel whose foot is lost) as
either letter instead of as a sure one."""

from __future__ import annotations

import copy
from types import ModuleType

import cv2
import numpy as np
import pytest

from controller.rules.letters import Letter
from vision.features import face_input
from vision.letter_synth import DreidelStyle, hebrew_fonts, render_still
from vision.recognizer import LETTERS, ORIENTATIONS


def _pair(seed: int, length_px: float, size: tuple[int, int] = (480, 360)
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A Gimel still, the same still with a Nun painted on the face, and the face's outline."""
    rng = np.random.default_rng(seed)
    style = DreidelStyle.random(rng, hebrew_fonts())
    twin = copy.deepcopy(rng)
    gimel = render_still(style, Letter.GIMEL, rng, size=size, length_px=length_px)
    nun_on_face = render_still(style, Letter.GIMEL, twin, size=size, length_px=length_px, glyph=Letter.NUN)
    return gimel.image, nun_on_face.image, np.asarray(gimel.face_quad, np.float64)


@pytest.mark.parametrize("seed", [3, 17])
def test_the_other_letter_is_painted_on_the_same_scene_and_only_on_the_face(seed: int) -> None:
    gimel, nun_on_face, quad = _pair(seed, 120.0)
    changed = np.abs(gimel.astype(np.int16) - nun_on_face.astype(np.int16)).max(axis=2) > 12
    assert changed.sum() > 30  # the face shows another letter
    # everything that changed lies on the face (grown by a few pixels for blur and JPEG blocks)
    centre = quad.mean(axis=0)
    grown = centre + (quad - centre) * 1.25
    face = np.zeros(gimel.shape[:2], np.uint8)
    cv2.fillPoly(face, [np.round(grown).astype(np.int32)], 1)
    face = cv2.dilate(face, np.ones((17, 17), np.uint8))
    assert changed[face == 0].sum() == 0


def test_without_another_glyph_the_picture_is_the_one_drawn_before() -> None:
    rng = np.random.default_rng(5)
    style = DreidelStyle.random_varied(rng, hebrew_fonts())
    a, b = copy.deepcopy(rng), copy.deepcopy(rng)
    plain = render_still(style, Letter.NUN, a, size=(320, 240))
    same = render_still(style, Letter.NUN, b, size=(320, 240), glyph=Letter.NUN)
    assert np.array_equal(plain.image, same.image)
    assert a.random() == b.random()  # and the generator is left in the same state


def test_a_clear_gimel_is_trained_as_gimel_alone(build: ModuleType) -> None:
    gimel, nun_on_face, quad = _pair(3, 120.0)
    assert build.hedge_share(face_input(gimel, quad).tensor, face_input(nun_on_face, quad).tensor) == 0.0


def test_a_gimel_whose_foot_is_lost_on_a_small_face_is_trained_as_either_letter(build: ModuleType) -> None:
    # the same dreidel and scene, 150 and 40 px long in a 640 x 480 picture (a 15 px face: the foot is a pixel)
    large = _pair(9, 150.0, (640, 480))
    small = _pair(9, 40.0, (640, 480))
    assert build.hedge_share(face_input(large[0], large[2]).tensor, face_input(large[1], large[2]).tensor) < 0.05
    assert build.hedge_share(face_input(small[0], small[2]).tensor, face_input(small[1], small[2]).tensor) == 0.5
    # a face identical to its partner is split evenly, whatever it shows
    t = face_input(large[0], large[2]).tensor
    assert build.hedge_share(t, t) == 0.5


def test_hedging_keeps_the_training_stills_and_splits_only_nun_and_gimel(build: ModuleType) -> None:
    fonts = list(hebrew_fonts())[:12]
    job = (600_001, 5, fonts, 0, 1, True, "varied", "confusable")
    plain = build.synth_job((*job, False))
    hedged = build.synth_job((*job, True))
    assert len(plain) == len(hedged)
    for a, b in zip(plain, hedged, strict=True):
        assert np.array_equal(a[0], b[0]) and a[1:4] == b[1:4]  # the same faces, labels, poses and groups
        assert a[4] == 0.0 and 0.0 <= b[4] <= 0.5
        letter = None if b[1] >= len(LETTERS) * ORIENTATIONS else LETTERS[b[1] // ORIENTATIONS]
        if letter not in (Letter.NUN, Letter.GIMEL):
            assert b[4] == 0.0
    assert any(b[4] > 0 for b in hedged)  # this job's small Gimel (seed 600,001)
