"""The background model's fast paths give what the plain computation gives: the changed-pixel mask is the
thresholded difference, the gain's median is numpy's, and nothing kept between frames outlives an update."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.background import BackgroundError, BackgroundModel, median_f32
from vision.synthetic import SceneRenderer, SceneStyle

STYLE = SceneStyle(width=160, height=120, tray_radius=54.0, side_px=12.0)


@pytest.fixture(scope="module")
def empty_tray() -> np.ndarray:
    return SceneRenderer([], STYLE, seed=4).render(0.0)


def _learned(empty: np.ndarray) -> BackgroundModel:
    model = BackgroundModel(learn_s=0.2)
    rng = np.random.default_rng(0)
    for i in range(6):
        noisy = np.clip(empty.astype(np.int16) + rng.integers(-2, 3, empty.shape), 0, 255).astype(np.uint8)
        model.observe(noisy, i * 0.05)
    assert model.ready
    return model


def _thrice(f: object, *args: object) -> np.ndarray:
    # the gain is measured on every third look: after three looks at one frame it is that frame's gain
    out = None
    for _ in range(3):
        out = f(*args)  # type: ignore[operator]
    assert isinstance(out, np.ndarray)
    return out


@settings(max_examples=40, deadline=None)
@given(
    exposure=st.floats(0.8, 1.3),
    threshold=st.floats(0.0, 60.0),
    seed=st.integers(0, 10_000),
    window=st.one_of(st.none(), st.tuples(st.integers(0, 150), st.integers(0, 110), st.integers(1, 60), st.integers(1, 60))),
)
def test_changed_mask_is_the_thresholded_difference(
    empty_tray: np.ndarray, exposure: float, threshold: float, seed: int, window: tuple[int, int, int, int] | None
) -> None:
    """Whatever the exposure (the gain's two paths: the model as is, or scaled), the threshold (an 8-bit
    threshold compares with its whole part) and the window."""
    model = _learned(empty_tray)
    rng = np.random.default_rng(seed)
    frame = empty_tray.astype(np.float32) * exposure + rng.normal(0, 6, empty_tray.shape)
    x, y = rng.integers(0, 140), rng.integers(0, 100)
    frame[y : y + 15, x : x + 15] = rng.integers(0, 256, 3)  # something on the tray
    frame_u8 = np.clip(frame, 0, 255).astype(np.uint8)
    roi = None
    if window is not None:
        x0, y0, w, h = window
        roi = (x0, y0, min(x0 + w, 160), min(y0 + h, 120))
    plain = cv2.threshold(_thrice(model.difference, frame_u8, roi), threshold, 255, cv2.THRESH_BINARY)[1]
    fast = _thrice(model.foreground, frame_u8, threshold, roi)
    assert fast.dtype == np.uint8 and fast.shape == plain.shape
    assert np.array_equal(fast, plain)


def test_the_comparison_follows_an_update_under_a_gain(empty_tray: np.ndarray) -> None:
    """The empty tray scaled by the gain is kept between frames: an update must replace it, even while the
    gain itself has not been measured again."""
    model = _learned(empty_tray)
    brighter = np.clip(empty_tray.astype(np.float32) * 1.3, 0, 255).astype(np.uint8)
    first = model.foreground(brighter, 14.0)  # measures the gain (about 1.3): the brighter tray is no change
    assert model.gain == pytest.approx(1.3, abs=0.05)
    assert np.mean(first > 0) < 0.02
    for k in range(60):  # the model becomes the brighter tray
        model.update(brighter, 1.0 + k)
    # the gain of 1.3 still applies to the new, brighter model: now everything looks changed
    assert np.mean(model.foreground(brighter, 14.0) > 0) > 0.5
    model.foreground(brighter, 14.0)
    # measured again, the gain is about 1: nothing changed
    assert np.mean(model.foreground(brighter, 14.0) > 0) < 0.02
    assert model.gain == pytest.approx(1.0, abs=0.02)


def test_a_frame_of_another_size_is_a_clear_error(empty_tray: np.ndarray) -> None:
    model = _learned(empty_tray)
    with pytest.raises(BackgroundError, match="one size"):
        model.foreground(np.zeros((60, 80, 3), np.uint8), 14.0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.0, 4.0, width=32), min_size=1, max_size=60), st.booleans())
def test_median_is_numpys_bit_for_bit(values: list[float], coarse: bool) -> None:
    arr = np.array(values, np.float32)
    if coarse:  # many equal values, as ratios of whole grey levels give
        arr = np.round(arr * 4).astype(np.float32) / np.float32(4)
    assert median_f32(arr) == float(np.median(arr))


def test_learning_asks_for_the_full_picture_only_for_the_frames_it_keeps(empty_tray: np.ndarray) -> None:
    """A recording decodes a full picture only when asked: a second at 60 fps keeps about 15 of 60."""
    model = BackgroundModel()
    full = cv2.resize(empty_tray, (640, 480))
    asked: list[int] = []

    def fetch() -> np.ndarray:
        asked.append(1)
        return full

    i = 0
    while not model.observe(empty_tray, i / 60, fetch):
        i += 1
    assert i >= 60
    assert 3 <= len(asked) <= model.max_learn_frames + 1
    assert model.full_image is not None and np.array_equal(model.full_image, full)
