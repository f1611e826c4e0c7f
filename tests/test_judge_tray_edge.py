"""A dreidel that comes to rest across the tray's edge goes to a judge (second renderer 1360011 spin 1).

A valid spin fell, slid for the rim and stopped with its centre 0.03 of its length outside the tray's outline
that the judge had found: camera only it was called "left the tray", while by the renderer's truth (its body's
centre) it lay in the tray. Where a dreidel lying across the edge "is" depends on the point taken for it and on
an outline found to a pixel or two, so within ``JudgeSettings.edge_call`` of its length of the edge a judge
decides, with the machine's call as the suggestion. Clearly in or clearly out, the machine decides. The scene
is given as the tracker's answers frame by frame (lores px, 2 full px each), as in test_judge_left_tray.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest
from scripted_judge import free_blob, one_verdict

from controller.judge import SpinVerdict
from vision.background import TrayRegion
from vision.tracker import Blob, TrackResult

FPS = 60.0
SCALE = 2.0
W, H = 320, 240
TRAY = (160.0, 110.0, 90.0)  # centre and radius (lores px): the rim's lowest point is at y = 200, in view
RELEASE_T = 1.0  # a launcher drops it: no hand
FALL_T = 5.0  # it falls (stable 4 s: valid by its time) ...
SLIDE_S = 0.5  # ... and slides straight down to where it stops
LENGTH = 21.0  # the lying dreidel's length (lores px)
END_T = 9.0


@dataclass
class Scene:
    """The dreidel stops with its centre ``off_edge`` of its length from the rim (positive inside), its long axis
    at ``axis_deg`` in the picture: 0 along the rim (which runs level where it stops), 90 across it."""

    off_edge: float
    fall_t: float = FALL_T
    axis_deg: float = 0.0

    def rest_xy(self) -> tuple[float, float]:
        return TRAY[0], TRAY[1] + TRAY[2] - self.off_edge * LENGTH

    def track(self, index: int, t: float) -> TrackResult:
        dreidel: Blob | None = None
        motion = 3.0
        rx, ry = self.rest_xy()
        if RELEASE_T <= t < self.fall_t:
            dreidel = free_blob(TRAY[0], TRAY[1], 300.0, 20.0, 1.05)
        elif t >= self.fall_t:
            k = min((t - self.fall_t) / SLIDE_S, 1.0)
            dreidel = free_blob(rx, TRAY[1] + k * (ry - TRAY[1]), 280.0, LENGTH, 2.0, self.axis_deg)
            motion = 3.0 if k < 1.0 else 0.0
        in_tray = dreidel is None or math.hypot(dreidel.x - TRAY[0], dreidel.y - TRAY[1]) <= TRAY[2]
        return TrackResult(index=index, t=t, dreidel=dreidel, hands=(), merged=False, motion=motion,
                           in_tray=in_tray, scale=SCALE)


def judge(scene: Scene) -> SpinVerdict:
    return one_verdict(scene.track, TrayRegion.from_circle(*TRAY, (W, H)), SCALE, END_T, FPS, (H, W))


@pytest.mark.parametrize("off_edge", [-0.1, -0.03, 0.05, 0.12])
def test_a_dreidel_at_rest_across_the_tray_edge_goes_to_a_judge(off_edge: float) -> None:
    v = judge(Scene(off_edge))
    assert v.needs_judge
    assert any("on the tray's edge" in n for n in v.notes), v.notes
    # the machine's call, by where its centre lies, is the judge's suggestion
    assert ("left_tray" in v.reasons) == (off_edge < 0)
    assert v.stable_s is not None and abs(v.stable_s - (FALL_T - RELEASE_T)) < 0.3


@pytest.mark.parametrize(("off_edge", "axis_deg"), [(-0.22, 90.0), (0.2, 90.0), (0.28, 90.0), (-0.2, 60.0),
                                                    (0.2, 60.0), (-0.36, 90.0), (0.36, 90.0)])
def test_a_dreidel_lying_across_the_tray_edge_goes_to_a_judge(off_edge: float, axis_deg: float) -> None:
    """Twin 94016 spin 3: its silhouette's centre lay 0.16 of its length outside, the point its truth takes
    inside: lying across the edge, the point taken for "the dreidel" decides, so a judge does. Twin 102008 spin 3
    lay on the rim with its centre 0.36 of its length outside and its handle over the felt (in the tray by its
    truth): before session 43 only points within 0.3 of its length were looked at, and it was called out."""
    v = judge(Scene(off_edge, axis_deg=axis_deg))
    assert v.needs_judge
    assert any("on the tray's edge" in n and "lying across it" in n for n in v.notes), v.notes
    assert ("left_tray" in v.reasons) == (off_edge < 0)


@pytest.mark.parametrize(("off_edge", "axis_deg"), [(-0.4, 0.0), (0.3, 0.0), (0.2, 0.0), (-0.22, 0.0), (-0.5, 90.0),
                                                    (0.5, 90.0)])
def test_a_dreidel_at_rest_clearly_in_or_out_of_the_tray_is_the_machines_call(off_edge: float,
                                                                              axis_deg: float) -> None:
    """Clear of the edge, or lying along it with its centre clear of it (0.2-0.22 of its length: across
    the edge that is a judge's call, above)."""
    v = judge(Scene(off_edge, axis_deg=axis_deg))
    assert not any("edge" in n for n in v.notes), v.notes
    assert ("left_tray" in v.reasons) == (off_edge < 0)
    assert v.valid == (off_edge > 0)
    # (this judge reads no letters: a valid spin goes to a judge for its letter, one out of the tray does not)
    assert v.needs_judge == v.valid


def test_a_short_spin_on_the_tray_edge_is_re_spun_without_a_judge() -> None:
    """Short (1.5 s), it is re-spun whether it lies in the tray or not: the edge decides nothing."""
    v = judge(Scene(-0.03, fall_t=RELEASE_T + 1.5))
    assert "short" in v.reasons and not v.valid
    assert not v.needs_judge and not any("edge" in n for n in v.notes), v.notes
