"""The tray's boundary when the felt's own spread would take in the table over the rim.

A lamp's fall-off across the felt, or a coarse felt texture, widens the colour spread that the first
look at the centre measures; with a table of a near colour, a threshold that wide runs over the rim and
out to the picture's edge. The camera of DESIGN.md always shows the whole tray, so a "tray" that reaches
the picture's edge has leaked: the felt is then found step by step (the last step before the spill).
These scenes are drawn after the unseen renderer's failures on tuning recordings (altsim 940000: red felt
on a beige table; 940008: a small, dark, textured felt that gave the whole picture).
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.background import find_tray


def _lit(img: np.ndarray, light_from: tuple[float, float], falloff: float) -> np.ndarray:
    """``img`` under a lamp at ``light_from`` (lores px): brightness falls off with the distance."""
    h, w = img.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    d = np.hypot(xs - light_from[0], ys - light_from[1]) / np.hypot(w, h)
    gain = np.clip(1.2 - falloff * d, 0.2, 1.3)[..., None]
    return np.clip(img.astype(np.float32) * gain, 0, 255)


def _felt_texture(shape: tuple[int, int], seed: int, amount: float) -> np.ndarray:
    """Blotchy felt: smooth noise (a few px across), ``amount`` grey levels strong."""
    rng = np.random.default_rng(seed)
    n = cv2.GaussianBlur(rng.normal(0, 1, shape).astype(np.float32), (0, 0), 3)
    return (n / max(float(n.std()), 1e-6) * amount)[..., None]


def _scene(felt_bgr: tuple[int, int, int], table_bgr: tuple[int, int, int], rim_bgr: tuple[int, int, int],
           quad: np.ndarray, seed: int, falloff: float, texture: float) -> np.ndarray:
    img = np.zeros((240, 320, 3), np.float32)
    img[:] = table_bgr
    cv2.fillPoly(img, [quad.astype(np.int32)], rim_bgr)
    c = quad.mean(axis=0)
    inner = c + (quad - c) * 0.93
    felt_mask = np.zeros((240, 320), np.uint8)
    cv2.fillPoly(felt_mask, [inner.astype(np.int32)], 255)
    felt = np.full_like(img, felt_bgr) + _felt_texture((240, 320), seed, texture)
    img = np.where(felt_mask[..., None] > 0, felt, img)
    img = _lit(img, (40.0, 20.0), falloff)
    img += np.random.default_rng(seed + 1).normal(0, 2.0, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8), felt_mask


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.count_nonzero((a > 0) & (b > 0)) / max(np.count_nonzero((a > 0) | (b > 0)), 1))


def _rotated_rect(cx: float, cy: float, w: float, h: float, deg: float) -> np.ndarray:
    return cv2.boxPoints(((cx, cy), (w, h), deg)).astype(np.float32)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_felt_under_a_lamp_on_a_near_coloured_table_is_the_tray_not_the_table(seed: int) -> None:
    # red felt, lit from one corner, on a beige table, a thin light rim between (altsim 940000's kind)
    img, felt = _scene((45, 45, 190), (150, 175, 200), (215, 215, 215), _rotated_rect(165, 118, 130, 165, 15),
                       seed, falloff=1.6, texture=14.0)
    tray = find_tray(img)
    assert tray.source == "auto"
    assert _iou(tray.mask, felt) > 0.85, "the tray found is not the felt"
    assert not tray.contains(8, 8) and not tray.contains(312, 232), "the table's corners count as tray"


@pytest.mark.parametrize("seed", [4, 5])
def test_a_small_dark_textured_felt_is_found_not_the_whole_picture(seed: int) -> None:
    # dark green, coarse felt on a brown table, a brown rim: the centre's spread is wide (altsim 940008's kind)
    ellipse = cv2.ellipse2Poly((160, 120), (56, 80), 0, 0, 360, 5).astype(np.float32)
    img, felt = _scene((40, 50, 30), (60, 95, 130), (50, 90, 140), ellipse, seed, falloff=0.9, texture=18.0)
    tray = find_tray(img)
    assert tray.source == "auto"
    assert _iou(tray.mask, felt) > 0.8
    assert not tray.contains(20, 120)


def test_a_plain_lit_felt_keeps_the_first_outline() -> None:
    # no leak: the first look's outline stands (the felt's inner edge), as before the step-by-step search
    img, felt = _scene((140, 60, 50), (60, 80, 120), (30, 30, 30), _rotated_rect(160, 120, 180, 180, 0),
                       9, falloff=0.2, texture=2.0)
    tray = find_tray(img)
    assert tray.source == "auto"
    assert _iou(tray.mask, felt) > 0.9


@pytest.mark.parametrize("seed", [6, 7])
def test_a_tray_small_in_the_picture_is_found(seed: int) -> None:
    # a beige felt in a black-rimmed square tray, turned 45 degrees on a grey table, filling 12% of the picture: a
    # camera mounted higher than DESIGN.md's (altsim 1400007 and 1420013: 14%, where a 15% floor found no tray and
    # sent every spin to a judge)
    img, felt = _scene((150, 200, 210), (150, 150, 150), (25, 25, 25), _rotated_rect(160, 120, 105, 105, 45),
                       seed, falloff=0.4, texture=6.0)
    assert 0.11 < np.count_nonzero(felt) / felt.size < 0.13
    tray = find_tray(img)
    assert tray.source == "auto"
    assert _iou(tray.mask, felt) > 0.85
    assert not tray.contains(20, 120) and not tray.contains(160, 40)


def test_a_felt_filling_less_than_a_tenth_of_the_picture_is_no_tray() -> None:
    # the floor: a felt this small is more likely a mat, a card or a patch than a tray seen by the table's camera
    img, felt = _scene((150, 200, 210), (150, 150, 150), (25, 25, 25), _rotated_rect(160, 120, 80, 80, 45),
                       8, falloff=0.4, texture=6.0)
    assert np.count_nonzero(felt) / felt.size < 0.08
    assert find_tray(img).source == "picture"
