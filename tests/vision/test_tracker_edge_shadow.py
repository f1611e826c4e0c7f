"""A dreidel that left the tray and lies near the picture's edge with its shadow reaching across the edge."""

from __future__ import annotations

import math

import numpy as np

from hardware.camera import Frame
from vision.synthetic import SceneRenderer, SceneStyle, ScriptedSpin
from vision.tracker import DreidelTracker


class _EdgeShadowScene(SceneRenderer):
    """A lamp low on the left: once fallen, the dreidel throws a long shadow to the right, joined to its body,
    that runs off the picture's right edge (twin 57004 spin 7)."""

    def _draw_spin(self, img: np.ndarray, sp: ScriptedSpin, t: float) -> None:
        if t >= sp.fall_t and not (sp.pickup and t > sp.pickup_t):
            u = min(1.0, (t - sp.fall_t) / sp.rest_after_fall_s)
            ease = 1 - (1 - u) ** 2
            a = math.radians(sp.slide_deg)
            cx = sp.x + sp.drift[0] * (sp.fall_t - sp.release_t) + ease * sp.slide * math.cos(a)
            cy = sp.y + sp.drift[1] * (sp.fall_t - sp.release_t) + ease * sp.slide * math.sin(a)
            yy, xx = np.mgrid[0 : img.shape[0], 0 : img.shape[1]]
            inside = ((xx - (cx + 55)) / 75.0) ** 2 + ((yy - (cy + 6)) / 22.0) ** 2 < 1.0
            img[inside] = (img[inside].astype(np.float32) * 0.45).astype(np.uint8)
        super()._draw_spin(img, sp, t)


def test_a_dreidel_near_the_edge_with_its_shadow_across_it_is_the_dreidel_not_a_hand() -> None:
    """Twin 57004 spin 7: flung off the tray, the dreidel lay near the picture's right edge; on some frames its
    component reached the edge together with its shadow, seven times the body's area, and was taken for an arm
    reaching in. The still history was cleared on each such frame, and its rest was dated 2.2 s late, when a real
    hand came. The tracked dreidel's body is measured without its shadow, as the track's own body was."""
    spin = ScriptedSpin(release_t=2.0, stable_s=0.6, wobble_s=0.4, x=470, y=240, slide=100.0, slide_deg=0.0,
                        rest_angle_deg=0.0, rest_after_fall_s=0.6, drift=(0.0, 0.0), hand_release=False,
                        pickup=False)
    scene = _EdgeShadowScene([spin], SceneStyle(), seed=5)
    tracker = DreidelTracker()
    fps = 30.0
    for i in range(36):  # learn the empty tray (the spin starts later)
        tracker.process(Frame(i, i / fps, scene.render(i / fps)))
    times = [spin.release_t + 0.1 + k / fps for k in range(int((spin.rest_t + 1.0 - spin.release_t) * fps))]
    at_rest = []
    for k, t in enumerate(times):
        tr = tracker.process(Frame(100 + k, t, scene.render(t)))
        if t > spin.rest_t + 0.2:
            at_rest.append(tr)
    assert at_rest and all(r is not None for r in at_rest)
    assert all(not r.hands and not r.merged for r in at_rest), "the dreidel with its shadow was taken for a hand"
    assert all(r.dreidel is not None and not r.in_tray for r in at_rest)
    # its body, not body and shadow: the centre stays on the body (x about 570 full-size px)
    assert all(abs(r.dreidel.x * r.scale - 570.0) < 25.0 for r in at_rest)
