"""The tray reaches the felt's edge when the rim's wall shades the felt next to it.

Twin recording 64008 (the fourteenth session's held-out set, studied after it was judged): dark green felt in a
brown wall on a brown table. The wall shades a ring of felt some 8 px wide (640 px picture); the first look at the
centre took only the evenly lit felt, so two dreidels lying against the wall were "outside the tray" and two valid
spins were called left the tray. The felt is now grown over its shaded edge, step by step, until the wall comes in.
"""

from __future__ import annotations

import numpy as np
import pytest

from vision.background import find_tray

CX, CY, FELT_R, WALL_R = 160.0, 120.0, 94.0, 104.0


def _scene(seed: int, shade_px: float = 12.0, shade: float = 0.55) -> np.ndarray:
    """Felt (dark green) of radius FELT_R, darkened towards the wall over its last ``shade_px`` to ``shade`` of
    its light, in a wall ring (dark brown) out to WALL_R, on a lighter brown table (320 x 240 BGR)."""
    ys, xs = np.mgrid[0:240, 0:320].astype(np.float32)
    r = np.hypot(xs - CX, ys - CY)
    img = np.empty((240, 320, 3), np.float32)
    img[:] = (50, 75, 125)  # table
    img[r < WALL_R] = (30, 45, 70)  # wall
    felt = r < FELT_R
    gain = np.clip(1.0 - (1.0 - shade) * (r - (FELT_R - shade_px)) / shade_px, shade, 1.0)
    img[felt] = (np.array([45, 95, 30], np.float32) * gain[felt][:, None])
    img += np.random.default_rng(seed).normal(0, 2.0, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_dreidel_lying_against_the_wall_on_shaded_felt_is_inside_the_tray(seed: int) -> None:
    tray = find_tray(_scene(seed))
    assert tray.source == "auto"
    for angle in np.linspace(0, 2 * np.pi, 12, endpoint=False):
        # a lying dreidel's centre, 5 px in from the wall: in the shaded ring, in the tray
        x, y = CX + (FELT_R - 5) * np.cos(angle), CY + (FELT_R - 5) * np.sin(angle)
        assert tray.contains(float(x), float(y)), f"({x:.0f}, {y:.0f}) on the shaded felt"
        # on the wall, or the table beyond it: not in the tray
        for out_r in (FELT_R + 4, WALL_R + 4):
            x, y = CX + out_r * np.cos(angle), CY + out_r * np.sin(angle)
            assert not tray.contains(float(x), float(y)), f"({x:.0f}, {y:.0f}) beyond the felt"


def test_evenly_lit_felt_keeps_its_outline() -> None:
    """Without shade the felt is found as before: its outline, not the wall's."""
    tray = find_tray(_scene(4, shade=1.0))
    area = float(np.count_nonzero(tray.mask))
    assert 0.95 * np.pi * FELT_R**2 < area < 1.02 * np.pi * FELT_R**2
