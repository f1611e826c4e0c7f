"""The resting pose: find the dreidel, its axis, which end is the tip, its up face."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.rules.letters import Letter
from vision.letter_synth import DreidelStyle, SynthStill, hebrew_fonts, render_still
from vision.pose import RestPose, bearing_deg, find_resting_dreidel

DATA = Path(__file__).resolve().parent / "data"


def clean_style(seed: int = 0) -> DreidelStyle:
    """A plain wooden dreidel with a dark letter: every measurement should be easy on it."""
    rng = np.random.default_rng(seed)
    style = DreidelStyle.random(rng, hebrew_fonts())
    return replace(style, body_bgr=(90, 160, 210), letter_bgr=(40, 30, 30), handle_bgr=(90, 160, 210),
                   tip_len=0.8, tip_power=1.0, handle_len=0.9, handle_width=0.22, glossy=False)


def still(seed: int, letter: Letter = Letter.GIMEL, length: float = 110.0) -> SynthStill:
    return render_still(clean_style(seed), letter, np.random.default_rng(seed), size=(480, 360), length_px=length)


def angle_between(a: float, b: float) -> float:
    d = (a - b) % 360
    return min(d, 360 - d)


@pytest.mark.parametrize("seed", range(6))
def test_finds_dreidel_its_tip_and_face(seed: int) -> None:
    s = still(seed, length=60 + 15 * seed)
    pose = find_resting_dreidel(s.image)
    assert pose is not None
    truth_axis = bearing_deg(s.tip, s.handle)
    assert angle_between(pose.axis_deg, truth_axis) < 15, "tip and handle must not be swapped"
    assert math.dist(pose.center, s.center) < 0.12 * s.length_px
    assert pose.length_px == pytest.approx(s.length_px, rel=0.2)
    assert pose.upside_down is None  # a still cannot tell how it spun
    assert pose.face_quad is not None and pose.face_quad.shape == (4, 2)
    # the face quad is on the body: its centre near the true face's centre
    assert math.dist(pose.face_quad.mean(axis=0), s.face_quad.mean(axis=0)) < 0.15 * s.length_px
    # corners 0,1 are the handle side: nearer the handle than corners 2,3
    handle = np.array(s.handle)
    assert np.linalg.norm(pose.face_quad[:2].mean(0) - handle) < np.linalg.norm(pose.face_quad[2:].mean(0) - handle)


def test_empty_tray_has_no_dreidel() -> None:
    s = still(3)
    assert find_resting_dreidel(s.background) is None


def test_background_model_gives_the_same_pose() -> None:
    s = still(4)
    with_bg = find_resting_dreidel(s.image, background_bgr=s.background)
    without = find_resting_dreidel(s.image)
    assert with_bg is not None and without is not None
    assert math.dist(with_bg.center, without.center) < 0.1 * s.length_px
    assert angle_between(with_bg.axis_deg, without.axis_deg) < 15


def test_tray_mask_excludes_what_lies_outside_it() -> None:
    s = still(5)
    mask = np.zeros(s.image.shape[:2], np.uint8)
    x, y = (int(v) for v in s.center)
    mask[:, : max(1, x - 80)] = 1  # a tray that ends well before the dreidel
    assert find_resting_dreidel(s.image, mask=mask) is None


def test_bad_pictures_are_refused_with_a_reason() -> None:
    s = still(1)
    with pytest.raises(ValueError, match="BGR picture"):
        find_resting_dreidel(s.image[:, :, 0])
    with pytest.raises(ValueError, match="uint8"):
        find_resting_dreidel(s.image.astype(np.float32))
    with pytest.raises(ValueError, match="empty-tray picture"):
        find_resting_dreidel(s.image, background_bgr=s.background[:100])
    with pytest.raises(ValueError, match="tray mask"):
        find_resting_dreidel(s.image, mask=np.ones((10, 10), np.uint8))


def test_flipped_swaps_tip_and_handle() -> None:
    pose = find_resting_dreidel(still(2).image)
    assert pose is not None
    flipped = pose.flipped()
    assert flipped.tip == pose.handle and flipped.handle == pose.tip
    assert angle_between(flipped.axis_deg, pose.axis_deg + 180) < 1e-6
    assert flipped.face_quad is not None and pose.face_quad is not None
    assert np.allclose(flipped.face_quad[0], pose.face_quad[2])
    assert isinstance(flipped, RestPose)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), quarter_turns=st.integers(1, 3))
def test_turning_the_picture_turns_the_pose(seed: int, quarter_turns: int) -> None:
    s = still(seed)
    base = find_resting_dreidel(s.image)
    turned = find_resting_dreidel(np.ascontiguousarray(np.rot90(s.image, quarter_turns)))
    assert base is not None and turned is not None
    # np.rot90 turns the content counter-clockwise on screen; image angles run clockwise
    assert angle_between(turned.axis_deg, base.axis_deg - 90 * quarter_turns) < 12
    assert turned.length_px == pytest.approx(base.length_px, rel=0.1)


@pytest.mark.parametrize("seed", [0, 3])
def test_finds_dreidel_on_felt_inside_a_checked_cloth(seed: int) -> None:
    # A checked cloth around the tray inflates the picture-wide noise level: the felt's sets it.
    s = still(seed, length=80)
    image = s.image.copy()
    h, w = image.shape[:2]
    cx, cy = (s.tip[0] + s.handle[0]) / 2, (s.tip[1] + s.handle[1]) / 2
    yy, xx = np.mgrid[0:h, 0:w]
    checks = ((yy // 24 + xx // 24) % 2).astype(bool)
    cloth = np.where(checks[..., None], np.uint8([150, 60, 20]), np.uint8([40, 150, 230]))
    outside = (np.abs(xx - cx) > 90) | (np.abs(yy - cy) > 80)
    image[outside] = cloth[outside]
    pose = find_resting_dreidel(image)
    assert pose is not None
    assert angle_between(pose.axis_deg, bearing_deg(s.tip, s.handle)) < 10
    assert math.hypot(pose.center[0] - cx, pose.center[1] - cy) < 10


# -- the face crop against the renderers' true face quads ------------------------------------------


def quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quadrilaterals."""
    pa = cv2.convexHull(np.asarray(a, np.float32).reshape(-1, 1, 2))
    pb = cv2.convexHull(np.asarray(b, np.float32).reshape(-1, 1, 2))
    inter, _ = cv2.intersectConvexConvex(pa, pb)
    return float(inter / (cv2.contourArea(pa) + cv2.contourArea(pb) - inter))


def stored_still_pose(name: str, min_iou: float = 0.7) -> tuple[dict[str, Any], np.ndarray, RestPose]:
    """A still stored in ``tests/vision/data`` (``<name>.png`` and its ``<name>.json``: ``truth``, ``face_quad``):
    its metadata, picture and the pose found on it, checked to outline the stored face (IoU over ``min_iou``)."""
    meta = json.loads((DATA / f"{name}.json").read_text())
    image = cv2.imread(str(DATA / f"{name}.png"))
    assert image is not None
    pose = find_resting_dreidel(image)
    assert pose is not None and pose.face_quad is not None
    assert quad_iou(pose.face_quad, np.array(meta["face_quad"])) > min_iou
    return meta, image, pose


def handle_side_first(found: np.ndarray, truth: np.ndarray) -> bool:
    """Do both quads put their first two corners (the top of the face patch) at the same end?"""
    return float(np.dot(found[:2].mean(0) - found[2:].mean(0), truth[:2].mean(0) - truth[2:].mean(0))) > 0


@pytest.mark.parametrize(("seed", "size"), [(7_400_003, (640, 480)), (7_400_011, (800, 600)),
                                            (7_400_004, (1280, 720))])
def test_face_crop_matches_the_twins_true_face(seed: int, size: tuple[int, int]) -> None:
    from hardware.sim.dreidel import resolve_style
    from hardware.sim.recorder import render_still as twin_still
    from hardware.sim.render import Scene

    style = resolve_style(None, seed)
    image, truth = twin_still(style, style.letters[1], seed, scene=Scene.random(seed, *size))
    true_quad = np.array(truth["face_quad_px"])
    pose = find_resting_dreidel(image)
    assert pose is not None and pose.face_quad is not None
    assert quad_iou(pose.face_quad, true_quad) > 0.65
    assert handle_side_first(pose.face_quad, true_quad)


def synth_truth_quad(s: SynthStill) -> np.ndarray:
    # letter_synth's quad runs tip/near, handle/near, handle/far, tip/far; face_patch's starts handle-left
    return np.asarray(s.face_quad, np.float64)[[1, 2, 3, 0]]


@pytest.mark.parametrize(("knob", "tip_power", "handle_len", "seed"),
                         [(True, 0.6, 0.5, 11), (False, 2.0, 1.4, 12), (True, 1.0, 0.9, 13), (False, 0.8, 0.6, 14)])
def test_face_crop_on_other_geometries(knob: bool, tip_power: float, handle_len: float, seed: int) -> None:
    """Knobbed or plain handles, short or long, rounded or pointed tips: the crop is the face."""
    style = replace(clean_style(seed), knob=knob, tip_power=tip_power, handle_len=handle_len)
    s = render_still(style, Letter.HEY, np.random.default_rng(seed), size=(640, 480), length_px=100.0)
    pose = find_resting_dreidel(s.image)
    assert pose is not None and pose.face_quad is not None
    truth = synth_truth_quad(s)
    assert quad_iou(pose.face_quad, truth) > 0.6
    assert handle_side_first(pose.face_quad, truth)


def test_a_deep_cast_shadow_is_not_part_of_the_dreidel() -> None:
    s = still(21, length=100)
    silhouette = (np.abs(s.image.astype(int) - s.background.astype(int)).max(axis=2) > 30).astype(np.uint8)
    across = np.array([-(s.handle[1] - s.tip[1]), s.handle[0] - s.tip[0]]) / s.length_px
    shift = np.float32([[1, 0, 28 * across[0]], [0, 1, 28 * across[1]]])
    cast = cv2.warpAffine(silhouette, shift, silhouette.shape[::-1]).astype(bool) & (silhouette == 0)
    image = s.image.copy()
    image[cast] = (s.background[cast] * 0.33).astype(np.uint8)  # a lamp's deep shadow: a third of the light
    pose = find_resting_dreidel(image)
    assert cast.sum() > 0.5 * silhouette.sum()
    assert pose is not None and pose.face_quad is not None
    assert pose.width_px < 1.25 * np.linalg.norm(s.face_quad[1] - s.face_quad[2])
    assert quad_iou(pose.face_quad, synth_truth_quad(s)) > 0.6


def test_a_black_dreidel_on_grey_felt_is_found_whole() -> None:
    """Black on grey keeps the felt's hue like a shadow does; the dreidel must not shrink to its letter."""
    style = replace(clean_style(5), body_bgr=(38, 38, 40), handle_bgr=(38, 38, 40), letter_bgr=(235, 235, 235))
    s = render_still(style, Letter.NUN, np.random.default_rng(5), size=(640, 480), length_px=110.0)
    rng = np.random.default_rng(0)
    grey = np.clip(110 + rng.normal(0, 3, s.image.shape), 0, 255)
    alpha = np.clip(np.abs(s.image.astype(float) - s.background.astype(float)).max(axis=2, keepdims=True) / 40, 0, 1)
    image = (grey * (1 - alpha) + s.image * alpha).astype(np.uint8)
    pose = find_resting_dreidel(image)
    assert pose is not None and pose.face_quad is not None
    assert pose.length_px == pytest.approx(s.length_px, rel=0.2)
    assert quad_iou(pose.face_quad, synth_truth_quad(s)) > 0.6


def test_checks_around_the_tray_are_not_taken_for_the_dreidel() -> None:
    """A checked cloth right around a round tray of felt, in a still without an empty-tray picture."""
    s = still(8, length=70)
    image = s.image.copy()
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    checks = ((yy // 30 + xx // 30) % 2).astype(bool)
    cloth = np.where(checks[..., None], np.uint8([160, 70, 30]), np.uint8([30, 140, 220]))
    centre = np.array([w / 2, h / 2])
    reach = max(np.linalg.norm(np.array(s.tip) - centre), np.linalg.norm(np.array(s.handle) - centre)) + 25
    outside = np.hypot(xx - centre[0], yy - centre[1]) > max(reach, 0.42 * h)
    image[outside] = cloth[outside]
    pose = find_resting_dreidel(image)
    assert pose is not None and pose.face_quad is not None
    assert quad_iou(pose.face_quad, synth_truth_quad(s)) > 0.6
