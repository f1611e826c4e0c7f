"""The evidence still: the words drawn on the picture must read on any dreidel."""

from types import SimpleNamespace

import numpy as np

from controller.evidence import Marks, draw_still


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
