"""A hand reaching into the tray, cut from its arm where the arm crosses the tray's rim.

The simulated table (``sevivon run --sim``, seed 7): a player's hand held the dreidel in the tray for half a second
before spinning it. The arm crossed the tray's brown rim, nearly its own colour, so the background model saw two
blobs: the arm from the picture's edge (a hand) and the hand inside the tray, 14 times the dreidel's area. The
tracker measures a blob's colour only when it is as large as a hand can be beside the largest dreidel the camera
may show, so the hand inside the tray was taken for the dreidel, and the judge called it "put down lying still, not
spun": a re-spin for nothing. A skin-coloured blob beside a hand and many times the dreidel seen clearly is a piece
of the hand.
"""

from __future__ import annotations

import numpy as np

from hardware.camera import Frame
from tests.vision.tracker_scenes import FPS, felt, learn_empty_tray, with_noise
from vision.tracker import DreidelTracker, TrackResult

_FELT = np.array([40, 70, 45], np.float32)
_SIZE = (240, 320)
_SKIN = (60, 90, 150)  # a brown hand (BGR): Y 100, Cr 153, Cb 106, inside the skin box


def _picture(rng: np.random.Generator, dreidel: bool, arm: bool, hand_piece: bool, wooden_top: bool = False) -> np.ndarray:
    img = felt(_FELT, _SIZE)
    if dreidel:
        img[114:126, 136:162] = (170, 170, 180)  # the grey dreidel lying, 26 x 12
    if arm:
        img[60:110, 250:320] = _SKIN  # the arm from the picture's right edge, up to the tray's rim
    if hand_piece:
        img[70:105, 175:244] = _SKIN  # the hand inside the tray, 69 x 35, cut from the arm by 6 px of rim
    if wooden_top:
        img[80:92, 232:244] = _SKIN  # a wooden top standing, 12 x 12, just released at the fingers' reach
    return with_noise(rng, img)


def _run(hand_piece: bool, wooden_top: bool = False) -> list[TrackResult]:
    rng = np.random.default_rng(4)
    tracker = DreidelTracker(dreidel_px=(15.0, 100.0))  # a 640 px camera's dreidels on its 320 px picture
    learn_empty_tray(tracker, lambda: _picture(rng, False, False, False))
    for k in range(4):  # the dreidel at rest, alone: seen clearly
        tr = tracker.process(Frame(100 + k, 2.0 + k / FPS, _picture(rng, True, False, False)))
        assert tr is not None and tr.dreidel is not None
    tracker.reset_track()  # taken away
    for k in range(6):  # the tray empty again
        tracker.process(Frame(200 + k, 4.0 + k / FPS, _picture(rng, False, False, False)))
    out: list[TrackResult] = []
    for k in range(6):
        tr = tracker.process(Frame(300 + k, 6.0 + k / FPS, _picture(rng, False, True, hand_piece, wooden_top)))
        assert tr is not None
        out.append(tr)
    return out


def test_a_hand_cut_from_its_arm_at_the_rim_is_a_hand_not_a_dreidel() -> None:
    for tr in _run(hand_piece=True):
        assert len(tr.hands) == 2, "the arm and the hand inside the tray are both hands"
        assert tr.dreidel is None, f"a {tr.dreidel.area:.0f} px piece of the hand taken for the dreidel"


def test_a_wooden_top_beside_the_arm_is_still_the_dreidel() -> None:
    # skin-coloured and within the fingers' reach, but no bigger than a dreidel: the dreidel, free
    for tr in _run(hand_piece=False, wooden_top=True):
        assert tr.dreidel is not None and not tr.merged
        assert abs(tr.dreidel.x - 237.5) < 3 and abs(tr.dreidel.y - 85.5) < 3
