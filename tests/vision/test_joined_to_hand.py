"""A blob and a hand that are one patch of faint change: the blob may be a piece of the hand.

Altsim 1480014: a hand came to lift the resting dreidel. Its skin-coloured fingers over olive felt of the same
brightness changed the picture by 30-40 grey levels against a foreground threshold of 37, so only the hand's shadow
and the tip of its thumb were foreground. The thumb's tip, a blob on its own 30 px from the rest of the hand, was
taken for a released dreidel and judged as a spin that never was.
"""

from __future__ import annotations

import cv2
import numpy as np

from hardware.camera import Frame
from tests.vision.tracker_scenes import FPS, felt, learn_empty_tray, with_noise
from vision.tracker import DreidelTracker, TrackResult

_FELT = np.array([40, 110, 110], np.float32)  # olive (BGR)
_SIZE = (240, 320)
_SLEEVE = (120, 90, 100)  # a grey-violet sleeve: far from the felt
_TIP = (200, 200, 220)  # the thumb's lit tip (BGR)
_TIP_AT = (200, 150)  # where the tip is (x, y)
_NOISE = 2.5  # the scenes' sensor noise: the tracker measures 4.4 (the largest channel's), a threshold of 22


def _picture(rng: np.random.Generator, fingers: float | None, tip: bool = True) -> np.ndarray:
    """The sleeve from the picture's left edge to x = 150; the thumb's tip; between them, when ``fingers`` is not
    None, fingers that differ from the felt by ``fingers`` grey levels in every channel (under the threshold)."""
    img = felt(_FELT, _SIZE)
    cv2.rectangle(img, (0, 120), (150, 175), _SLEEVE, -1)
    if fingers is not None:
        cv2.rectangle(img, (150, 135), (_TIP_AT[0], 160), tuple(float(c) + fingers for c in _FELT), -1)
    if tip:
        x, y = _TIP_AT
        img[y - 5 : y + 5, x - 5 : x + 5] = _TIP
    return with_noise(rng, img, _NOISE)


def _seen(fingers: float | None, check: bool = True) -> TrackResult:
    rng = np.random.default_rng(14)
    tracker = DreidelTracker(dreidel_px=(15.0, 100.0))
    tracker.check_hand_joins = check
    empty = felt(_FELT, _SIZE)
    learn_empty_tray(tracker, lambda: with_noise(rng, empty, _NOISE))
    tr = None
    for k in range(4):
        tr = tracker.process(Frame(100 + k, 2.0 + k / FPS, _picture(rng, fingers)))
    assert tr is not None
    return tr


def test_a_tip_joined_to_the_hand_by_faint_fingers_is_joined() -> None:
    tr = _seen(fingers=17.0)  # three quarters of the threshold: not foreground, but over 60% of it
    assert len(tr.hands) == 1 and tr.dreidel is not None, "the scene: the sleeve is a hand, the tip a free blob"
    assert abs(tr.dreidel.x - _TIP_AT[0]) < 3 and abs(tr.dreidel.y - _TIP_AT[1]) < 3
    assert tr.hands[0].distance(tr.dreidel.x, tr.dreidel.y) > 40, "the scene: the tip is far from the hand's outline"
    assert tr.joined_to_hand


def test_a_tracker_told_not_to_check_does_not_look() -> None:
    """The judge asks only while a spin is on (``SpinJudge.feed_small``): the rest of the time the check's pass
    over the hands' window is skipped, and the answer is False."""
    tr = _seen(fingers=17.0, check=False)
    assert len(tr.hands) == 1 and tr.dreidel is not None, "the same scene as the joined one"
    assert not tr.joined_to_hand


def test_a_blob_with_only_felt_between_it_and_the_hand_is_not_joined() -> None:
    tr = _seen(fingers=None)
    assert len(tr.hands) == 1 and tr.dreidel is not None
    assert not tr.joined_to_hand


def test_fingers_that_change_the_felt_by_less_than_the_faint_share_do_not_join() -> None:
    tr = _seen(fingers=6.0)  # a quarter of the threshold
    assert len(tr.hands) == 1 and tr.dreidel is not None
    assert not tr.joined_to_hand


def test_no_hand_nothing_is_joined() -> None:
    rng = np.random.default_rng(3)
    tracker = DreidelTracker(dreidel_px=(15.0, 100.0))
    empty = felt(_FELT, _SIZE)
    learn_empty_tray(tracker, lambda: with_noise(rng, empty, _NOISE))
    img = felt(_FELT, _SIZE)
    img[145:155, 195:205] = _TIP
    tr = tracker.process(Frame(100, 2.0, with_noise(rng, img, _NOISE)))
    assert tr is not None and tr.dreidel is not None and not tr.hands
    assert not tr.joined_to_hand
