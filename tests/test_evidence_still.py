"""The evidence still: the words drawn on the picture must read on any dreidel."""

from types import SimpleNamespace

import numpy as np

from controller.evidence import Marks, draw_still, inset_origin


def test_the_tip_label_reads_on_a_red_dreidel() -> None:
    # H56: the red "tip" on a red dreidel could not be read (spins 1 and 4)
    red = np.zeros((480, 640, 3), np.uint8)
    red[:] = (30, 30, 210)
    pose = SimpleNamespace(tip=(300.0, 240.0), handle=(240.0, 240.0), face_quad=None)
    marks = Marks(release_t=1.0, wobble_t=5.0, rest_t=6.0, stable_s=4.0, letter="nun", letter_confidence=0.9,
                  valid=True, reasons=())
    img = draw_still(red, marks, center=None, length=None, angle_deg=None, pose=pose)
    label = img[228:243, 304:326].astype(float)  # where "tip" is written, right of the arrow's point
    lum = label @ np.array([0.114, 0.587, 0.299])  # BGR
    lo, hi = np.percentile(lum, [10, 90])
    assert hi - lo > 80, f"the word stands out from what it is written on ({lo:.0f} vs {hi:.0f})"


def _marks() -> Marks:
    return Marks(release_t=1.0, wobble_t=5.0, rest_t=6.0, stable_s=4.0, letter="nun", letter_confidence=0.9,
                 valid=True, reasons=())


def _scene_with_dreidel_at(x: int, y: int) -> np.ndarray:
    img = np.zeros((480, 640, 3), np.uint8)
    img[:] = (40, 90, 40)
    img[y - 12 : y + 12, x - 30 : x + 30] = (20, 20, 200)  # the dreidel, lying
    return img


def test_the_inset_stays_top_right_when_the_dreidel_is_elsewhere() -> None:
    img = _scene_with_dreidel_at(200, 300)
    out = draw_still(img, _marks(), center=(200.0, 300.0), length=60.0, angle_deg=None)
    assert (out[2, 630] == 255).all() or (out[1, 637] == 255).all()  # the inset's white frame, top right
    assert np.array_equal(out[470, 630], img[470, 630])  # nothing drawn bottom right


def test_the_inset_never_covers_a_dreidel_lying_top_right() -> None:
    """H56: the inset always sat top right, over whatever lay there (a tray corner, or the dreidel itself)."""
    img = _scene_with_dreidel_at(560, 60)
    out = draw_still(img, _marks(), center=(560.0, 60.0), length=60.0, angle_deg=None)
    # the dreidel's own pixels away from the drawn circle and line are the picture's, not the inset's
    assert np.array_equal(out[55:65, 545:552], img[55:65, 545:552])


def test_the_inset_leaves_the_tray_outline_beside_the_dreidel_alone() -> None:
    """A dreidel near the right edge: bottom right would hide the outline beside it, bottom left does not."""
    img = _scene_with_dreidel_at(600, 200)
    tray = np.array([[320, 40], [630, 40], [630, 470], [320, 470]], np.float64)
    origin = inset_origin((640, 480), (268, 201), (600.0, 200.0), 45.0, tray)
    assert origin == (2, 480 - 201 - 2)
    out = draw_still(img, _marks(), center=(600.0, 200.0), length=60.0, angle_deg=None, tray_polygon=tray)
    assert np.array_equal(out[195:205, 575:585], img[195:205, 575:585])


def test_the_inset_moves_off_a_tray_corner_when_another_corner_is_free() -> None:
    """H56: a centred dreidel left the inset top right, over the tray's corner; bottom left hides none of it."""
    tray = np.array([[300, 60], [620, 60], [620, 420], [300, 420]], np.float64)
    assert inset_origin((640, 480), (268, 201), (460.0, 330.0), 45.0, tray) == (2, 480 - 201 - 2)
    # with no tray outline to spare, the inset keeps its usual place
    assert inset_origin((640, 480), (268, 201), (460.0, 330.0), 45.0, None) == (640 - 268 - 2, 2)
