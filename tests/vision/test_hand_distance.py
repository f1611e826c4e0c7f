"""How near a hand is to the dreidel is measured to the hand, not to its box.

Twin 88001 spin 8: an arm reached in diagonally from the picture's corner and stopped with its fingertips 30 lores
px short of a spinning dreidel. The arm's box spanned half the tray and held the dreidel, so the hand counted as at
the dreidel; when the dreidel then fell over by itself, its centroid moved half a length and the interference
watch called it "a hand pushed the dreidel": a valid spin re-spun, camera only, with no judge asked.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from hardware.camera import Frame
from tests.vision.tracker_scenes import FPS, felt, learn_empty_tray, with_noise
from vision.interference import InterferenceWatch
from vision.tracker import Blob, DreidelTracker, TrackResult

_FELT = np.array([40, 70, 45], np.float32)
_SIZE = (240, 320)
_SKIN = (60, 90, 150)  # a brown hand (BGR), inside the skin box
_DREIDEL = (160, 120)  # where the dreidel stands (x, y)


def _arm(reach: float) -> np.ndarray:
    """An arm 34 px wide from the picture's left edge, rising to the right past the dreidel, its side
    ``reach`` px from the dreidel's centre at the closest (its box holds the dreidel whatever ``reach``)."""
    start = np.array([-40.0, 170.0])
    tip = np.array([185.0, 60.0])
    along = (tip - start) / np.linalg.norm(tip - start)
    normal = np.array([along[1], -along[0]])  # towards the upper side, away from the dreidel
    d = np.array(_DREIDEL, np.float64)
    # move the arm along its normal so that its lower side passes ``reach`` px from the dreidel
    off = float(np.dot(d - start, normal))
    shift = normal * (off + reach + 17.0) * -1.0
    side = normal * 17.0
    a, b = start - shift, tip - shift
    return np.array([a + side, b + side, b - side, a - side], np.int32)


def _picture(rng: np.random.Generator, reach: float | None) -> np.ndarray:
    img = felt(_FELT, _SIZE)
    x, y = _DREIDEL
    img[y - 7 : y + 7, x - 7 : x + 7] = (170, 170, 180)  # the grey dreidel standing, 14 x 14
    if reach is not None:
        cv2.fillPoly(img, [_arm(reach)], _SKIN)
    return with_noise(rng, img)


def _hand(reach: float) -> tuple[Blob, Blob]:
    """The tracked dreidel and the hand, with the arm's fingertips ``reach`` px short of the dreidel."""
    rng = np.random.default_rng(8)
    tracker = DreidelTracker(dreidel_px=(15.0, 100.0))
    empty = felt(_FELT, _SIZE)
    learn_empty_tray(tracker, lambda: with_noise(rng, empty))
    for k in range(4):
        tracker.process(Frame(100 + k, 1.0 + k / FPS, _picture(rng, None)))
    tr = tracker.process(Frame(200, 2.0, _picture(rng, reach)))
    assert tr is not None and tr.dreidel is not None and len(tr.hands) == 1
    return tr.dreidel, tr.hands[0]


def test_a_hand_whose_box_holds_the_dreidel_is_as_far_as_its_fingertips() -> None:
    dreidel, hand = _hand(reach=38.0)
    bx, by, bw, bh = hand.bbox
    assert bx <= dreidel.x <= bx + bw and by <= dreidel.y <= by + bh, "the scene: the arm's box holds the dreidel"
    # the arm's lower side passes 38 px from the dreidel's centre
    assert 34.0 <= hand.distance(dreidel.x, dreidel.y) <= 42.0


def test_a_hand_at_the_dreidel_is_at_it() -> None:
    dreidel, hand = _hand(reach=16.0)
    assert 12.0 <= hand.distance(dreidel.x, dreidel.y) <= 20.0
    assert hand.distance(hand.x, hand.y) == 0.0, "a point on the hand is at distance 0"


def test_a_blob_without_an_outline_is_measured_to_its_box() -> None:
    b = Blob(x=0.0, y=0.0, area=100.0, bbox=(10, 10, 10, 10), elongation=1.0, angle_deg=0.0, length=10.0,
             width=10.0, edge=False, skin=0.0)
    assert b.distance(13.0, 15.0) == 0.0
    assert math.isclose(b.distance(23.0, 24.0), 5.0)


def _frame(t: float, dreidel: Blob, hand: Blob | None) -> TrackResult:
    return TrackResult(index=int(t * 60), t=t, dreidel=dreidel, hands=(hand,) if hand else (), merged=False,
                       motion=2.0, in_tray=True, scale=1.0)


def test_a_dreidel_falling_by_itself_beside_a_reaching_arm_was_not_pushed() -> None:
    """The watch on the tracker's blobs: the arm passes 38 px from it, the dreidel falls over by itself (its centroid
    moves 9 px, half its length, as a fallen body's does) and the arm withdraws. Measured to the arm's box, that
    was a visit, and the fall the hand's doing."""
    upright, hand = _hand(reach=38.0)
    fallen = Blob(x=upright.x + 9.0, y=upright.y, area=upright.area * 1.6, bbox=upright.bbox, elongation=2.0,
                  angle_deg=0.0, length=upright.length * 1.8, width=upright.width, edge=False, skin=0.0)
    boxed = Blob(x=hand.x, y=hand.y, area=hand.area, bbox=hand.bbox, elongation=hand.elongation,
                 angle_deg=hand.angle_deg, length=hand.length, width=hand.width, edge=hand.edge, skin=hand.skin,
                 is_hand=True)  # the same hand without its outline: measured to its box

    def watch(h: Blob) -> InterferenceWatch:
        w = InterferenceWatch(release_t=0.0)
        t = 0.0
        for _ in range(120):  # spinning alone for 2 s
            w.update(_frame(t, upright, None))
            t += 1 / 60
        for _ in range(30):  # the arm comes near and stays
            w.update(_frame(t, upright, h))
            t += 1 / 60
        for _ in range(30):  # the dreidel falls by itself under it
            w.update(_frame(t, fallen, h))
            t += 1 / 60
        for _ in range(30):  # the arm has gone
            w.update(_frame(t, fallen, None))
            t += 1 / 60
        w.finish(t)
        return w

    assert watch(hand).event is None
    assert watch(boxed).event is not None, "measured to the box, the hand was at the dreidel as it fell"
