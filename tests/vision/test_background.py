"""The empty-tray model: learning, the tray's boundary, following the light, calibration override."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.background import BackgroundError, BackgroundModel, TrayRegion, find_tray
from vision.synthetic import SceneRenderer, SceneStyle


def _learn(model: BackgroundModel, frames: list[np.ndarray], fps: float = 30.0) -> None:
    for i, f in enumerate(frames):
        model.observe(f, i / fps)


def _small(img: np.ndarray) -> np.ndarray:
    return cv2.resize(img, (320, 240), interpolation=cv2.INTER_AREA)


def test_learns_after_one_second_and_finds_round_tray() -> None:
    scene = SceneRenderer([], SceneStyle(), seed=3)
    model = BackgroundModel()
    frames = [_small(scene.render(i / 30)) for i in range(40)]
    assert not model.observe(frames[0], 0.0)
    _learn(model, frames)
    assert model.ready
    tray = model.tray
    assert tray is not None and tray.source == "auto"
    # the synthetic tray has radius 215 px at 640 wide -> 107.5 at 320
    area = float(np.count_nonzero(tray.mask))
    assert abs(area - math.pi * 107.5**2) / (math.pi * 107.5**2) < 0.08
    assert tray.contains(160, 120)
    assert not tray.contains(5, 5)
    assert not tray.contains(160 + 115, 120)


def test_square_tray_found() -> None:
    img = np.full((240, 320, 3), (60, 80, 120), np.uint8)
    cv2.rectangle(img, (70, 30), (250, 210), (30, 30, 30), 4)
    cv2.rectangle(img, (74, 34), (246, 206), (140, 60, 50), -1)
    noise = np.random.default_rng(0).normal(0, 2, img.shape)
    tray = find_tray(np.clip(img + noise, 0, 255).astype(np.uint8))
    assert tray.source == "auto"
    assert tray.contains(160, 120)
    assert tray.contains(80, 40, margin=0)
    assert not tray.contains(60, 120)
    assert abs(np.count_nonzero(tray.mask) - 172 * 172) / (172 * 172) < 0.08


def test_uniform_picture_means_whole_picture_is_tray() -> None:
    img = np.full((240, 320, 3), 128, np.uint8)
    tray = find_tray(img)
    assert tray.source == "picture"
    assert tray.contains(2, 2)


def test_calibration_overrides_automatic_tray() -> None:
    scene = SceneRenderer([], SceneStyle(), seed=1)
    cal = TrayRegion.from_circle(100, 100, 50, (320, 240))
    model = BackgroundModel(tray=cal)
    _learn(model, [_small(scene.render(i / 30)) for i in range(40)])
    assert model.tray is cal
    assert model.tray.source == "calibration"
    assert not model.tray.contains(160 + 60, 120)


def test_follows_exposure_change_without_false_foreground() -> None:
    scene = SceneRenderer([], SceneStyle(), seed=2)
    model = BackgroundModel()
    _learn(model, [_small(scene.render(i / 30)) for i in range(40)])
    brighter = np.clip(_small(scene.render(2.0)).astype(np.float32) * 1.12, 0, 255).astype(np.uint8)
    diff = model.difference(brighter)
    # a 12% exposure step: the gain takes it out, so almost nothing looks changed
    assert model.gain == pytest.approx(1.12, abs=0.03)
    assert np.mean(diff > max(14.0, 5 * model.noise)) < 0.01


def test_slow_update_absorbs_a_lasting_change() -> None:
    scene = SceneRenderer([], SceneStyle(), seed=2)
    model = BackgroundModel(adapt_tau_s=1.0)
    _learn(model, [_small(scene.render(i / 30)) for i in range(40)])
    changed = _small(scene.render(2.0))
    changed[100:140, 100:140] = (200, 200, 200)
    assert model.difference(changed)[120, 120] > 50
    for k in range(150):
        model.update(changed, 2.0 + k / 30)
    assert model.difference(changed)[120, 120] < 20


def test_frame_size_change_while_learning_is_an_error() -> None:
    model = BackgroundModel()
    model.observe(np.zeros((240, 320, 3), np.uint8), 0.0)
    with pytest.raises(BackgroundError, match="size changed"):
        model.observe(np.zeros((120, 160, 3), np.uint8), 0.1)


def test_difference_before_learning_is_an_error() -> None:
    with pytest.raises(BackgroundError, match="not been learned"):
        BackgroundModel().difference(np.zeros((240, 320, 3), np.uint8))


def test_bad_calibration_refused() -> None:
    with pytest.raises(ValueError, match="at least 3 points"):
        TrayRegion.from_polygon([(0, 0), (1, 1)], (320, 240))
    with pytest.raises(ValueError, match="radius"):
        TrayRegion.from_circle(10, 10, 0, (320, 240))


@settings(max_examples=30, deadline=None)
@given(
    cx=st.floats(60, 260),
    cy=st.floats(60, 180),
    r=st.floats(20, 55),
    angle=st.floats(0, 2 * math.pi),
    frac=st.floats(0, 0.9),
)
def test_circle_region_contains_inside_points_only(cx: float, cy: float, r: float, angle: float, frac: float) -> None:
    tray = TrayRegion.from_circle(cx, cy, r, (320, 240))
    inside = (cx + frac * r * math.cos(angle), cy + frac * r * math.sin(angle))
    outside = (cx + (r + 2.0) * math.cos(angle), cy + (r + 2.0) * math.sin(angle))
    assert tray.contains(*inside)
    assert not tray.contains(*outside)
    assert tray.distance_inside(*inside) > 0 > tray.distance_inside(*outside)



@pytest.mark.parametrize("felt", [(60, 110, 40), (150, 150, 150), (120, 60, 40)])
def test_shadow_depth_grades_a_darkening_that_keeps_the_hue(felt: tuple[int, int, int]) -> None:
    """A patch darkened by the same factor in every channel is a light shadow down to 0.45 of the felt and a
    deep one below (a lamp in a dim room); a patch of another hue is no shadow; the felt itself is the felt."""
    style = SceneStyle(width=320, height=240, felt_bgr=felt, tray_radius=108.0)
    scene = SceneRenderer([], style, seed=3)
    model = BackgroundModel()
    _learn(model, [scene.render(i / 14) for i in range(16)], fps=14.0)
    frame = scene.render(2.0).astype(np.float32)
    factors = (0.28, 0.38, 0.6, 0.85)
    for k, f in enumerate(factors):
        frame[90 + 12 * k : 100 + 12 * k, 140:160] *= f
    frame[140:150, 140:160] = (felt[0], 255 - felt[1], felt[2])  # another hue
    depth = model.shadow_depth(np.clip(frame, 0, 255).astype(np.uint8), (140, 90, 20, 70))
    for k, want in enumerate((2, 2, 1, 1)):
        assert np.mean(depth[12 * k + 1 : 12 * k + 9, 1:19] == want) > 0.9, factors[k]
    assert np.mean(depth[51:59, 1:19] == 0) > 0.9
    assert np.mean(depth[62:68, 1:19] == 3) > 0.9
