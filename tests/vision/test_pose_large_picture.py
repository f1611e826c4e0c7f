"""A large main picture keeps a dreidel that a small one finds.

A Pi camera may deliver a main picture far larger than 640x480 (1280x960, a Camera Module 3's 2304x1296).
The pose segments a copy of about 400 px and refines at full resolution; there, a body near the felt's
colour stays under the cut and its bright parts (the face's frame, the letter, the handle) come out as
pieces that the 3 px clean-up no longer joins. Twin still 7,300,001 (a dark body on dark felt, a yellow Hey,
a silver handle) was read at 640x480 and lost at 1280x960: the handle alone was taken for the dreidel and
the face put on it (13 px instead of 52).
"""

from __future__ import annotations

import numpy as np
import pytest

from controller.rules.letters import Letter
from hardware.sim.dreidel import resolve_style
from hardware.sim.recorder import render_still
from hardware.sim.render import Renderer, Scene
from vision.pose import RestPose, find_resting_dreidel
from vision.recognizer import LetterRecognizer, face_side_px

SEED = 7_300_001  # a tuning twin still


def twin(width: int, height: int) -> tuple[np.ndarray, np.ndarray, dict[str, object]]:
    """The still at ``width`` x ``height`` (the same scene, scaled), an empty tray averaged over five frames
    as the judge's background model keeps it (with the sensor's noise), and the still's truth."""
    scene = Scene.random(SEED, width, height)
    still, truth = render_still(None, Letter.HEY, SEED, scene=scene)
    empty = Renderer(scene, resolve_style(None, SEED))
    frames = [empty.render(t, [], []).astype(np.float32) for t in (0.2, 0.4, 0.6, 0.8, 1.0)]
    return still, np.mean(frames, axis=0).round().astype(np.uint8), truth


def found(still: np.ndarray, background: np.ndarray) -> RestPose:
    pose = find_resting_dreidel(still, background_bgr=background)
    assert pose is not None and pose.face_quad is not None, "a dreidel and its face were found"
    return pose


@pytest.fixture(scope="module")
def recognizer() -> LetterRecognizer:
    return LetterRecognizer.default()


def test_a_dark_body_is_found_whole_on_a_picture_twice_as_large(recognizer: LetterRecognizer) -> None:
    small_still, small_bg, _ = twin(640, 480)
    large_still, large_bg, truth = twin(1280, 960)
    small, large = found(small_still, small_bg), found(large_still, large_bg)
    assert recognizer.read(small_still, pose=small, background_bgr=small_bg).letter is Letter.HEY
    # the same dreidel at twice the scale: twice as long, its face twice as wide and in the same place
    assert 1.7 < large.length_px / small.length_px < 2.3
    assert 1.7 < face_side_px(large.face_quad) / face_side_px(small.face_quad) < 2.3
    true_face = np.asarray(truth["face_quad_px"], np.float64)
    centre = np.asarray(large.face_quad, np.float64).reshape(4, 2).mean(axis=0)
    assert np.hypot(*(centre - true_face.mean(axis=0))) < 0.2 * face_side_px(true_face)
    assert recognizer.read(large_still, pose=large, background_bgr=large_bg).letter is Letter.HEY
