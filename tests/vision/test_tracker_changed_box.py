"""The tracker labels only the box of the picture that changed: the blobs it finds are those the whole
picture gives, wherever the changed pixels are (at the picture's edge, at a window's edge, far apart)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.background import BackgroundModel
from vision.synthetic import SceneRenderer, SceneStyle
from vision.tracker import Blob, DreidelTracker, _changed_box, _components

STYLE = SceneStyle(width=320, height=240, tray_radius=108.0)


@pytest.fixture(scope="module")
def learned() -> tuple[BackgroundModel, np.ndarray]:
    empty = SceneRenderer([], STYLE, seed=6).render(0.0)
    model = BackgroundModel(learn_s=0.2)
    for i in range(6):
        model.observe(empty, i * 0.05)
    return model, empty


def _whole_picture_blobs(
    tracker: DreidelTracker, small: np.ndarray, roi: tuple[int, int, int, int] | None
) -> list[Blob]:
    """The blobs as found before the changed box: threshold, open and dilate the whole window, label it all."""
    bg = tracker.background
    diff = bg.difference(small, roi)
    _, fg = cv2.threshold(diff, max(14.0, 5.0 * bg.noise), 255, cv2.THRESH_BINARY)
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, tracker._kernel)
    fg = cv2.dilate(fg, tracker._kernel)
    return tracker._blobs(small, fg, (roi[0], roi[1]) if roi is not None else (0, 0))


def _scene(empty: np.ndarray, patches: list[tuple[int, int, int, int, int]], specks: int, seed: int) -> np.ndarray:
    img = empty.copy()
    rng = np.random.default_rng(seed)
    for x, y, w, h, grey in patches:
        cv2.rectangle(img, (x, y), (x + w, y + h), (grey, grey // 2, 255 - grey), -1)
        # a cast shadow beside it, for the shadow split
        shade = img[y : y + h, x + w : x + w + h // 2].astype(np.float32) * 0.6
        img[y : y + h, x + w : x + w + h // 2] = shade.astype(np.uint8)
    for _ in range(specks):  # single changed pixels: the opening removes them, but they widen the box
        img[rng.integers(0, 240), rng.integers(0, 320)] = (255, 255, 255)
    return img


PATCH = st.tuples(st.integers(-10, 315), st.integers(-10, 235), st.integers(2, 60), st.integers(2, 60),
                  st.integers(0, 255))


@settings(max_examples=60, deadline=None)
@given(patches=st.lists(PATCH, min_size=0, max_size=4), specks=st.integers(0, 6), seed=st.integers(0, 1000),
       window=st.one_of(st.none(), st.tuples(st.integers(0, 250), st.integers(0, 180), st.integers(20, 160),
                                               st.integers(20, 160))))
def test_blobs_of_the_changed_box_are_the_whole_pictures(
    learned: tuple[BackgroundModel, np.ndarray],
    patches: list[tuple[int, int, int, int, int]],
    specks: int,
    seed: int,
    window: tuple[int, int, int, int] | None,
) -> None:
    background, empty = learned
    small = _scene(empty, patches, specks, seed)
    roi = None
    if window is not None:
        x0, y0, w, h = window
        roi = (x0, y0, min(x0 + w, 320), min(y0 + h, 240))
    fast_tracker = DreidelTracker(background)
    plain_tracker = DreidelTracker(background)
    fast_tracker.set_full_size(320, 240)
    plain_tracker.set_full_size(320, 240)
    found = fast_tracker._detect(small, roi)
    plain = _whole_picture_blobs(plain_tracker, small, roi)
    if found is None:
        # the window was given up because a blob reaches its edge: the whole window's blobs say the same
        assert roi is not None
        assert any(b.bbox[0] <= roi[0] or b.bbox[1] <= roi[1] or b.bbox[0] + b.bbox[2] >= roi[2]
                   or b.bbox[1] + b.bbox[3] >= roi[3] for b in plain)
        return
    _, blobs = found
    assert blobs == plain


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.005, 0.5), st.integers(1, 120), st.integers(1, 160))
def test_labelling_the_box_numbers_components_as_the_whole_mask(seed: int, density: float, h: int, w: int) -> None:
    """Same components, same numbers, same stats (shifted by the box's corner), wherever the changed
    pixels lie in the picture: the box starts on an even row and column."""
    rng = np.random.default_rng(seed)
    mask = np.zeros((240, 320), np.uint8)
    y, x = int(rng.integers(0, 240 - min(h, 239))), int(rng.integers(0, 320 - min(w, 319)))
    mask[y : y + h, x : x + w] = (rng.random((min(h, 240 - y), min(w, 320 - x))) < density) * 255
    box = _changed_box(mask)
    n_all, labels_all, stats_all, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if box is None:
        assert n_all == 1
        return
    x0, y0, x1, y1 = box
    assert x0 % 2 == 0 and y0 % 2 == 0
    n, labels, stats = _components(mask[y0:y1, x0:x1])
    assert n == n_all
    assert np.array_equal(labels.astype(np.int32), labels_all[y0:y1, x0:x1])
    assert np.count_nonzero(labels_all) == np.count_nonzero(labels)
    shifted = stats.astype(np.int64)
    shifted[1:, 0] += x0
    shifted[1:, 1] += y0
    assert np.array_equal(shifted[1:], stats_all[1:])


def test_a_dreidel_in_the_pictures_corner_and_a_hand_far_away_are_both_found(
    learned: tuple[BackgroundModel, np.ndarray],
) -> None:
    """The changed box then spans the picture; the corner blob keeps its edge flag and its true box."""
    background, empty = learned
    small = _scene(empty, [(0, 0, 14, 12, 30), (230, 150, 80, 80, 200)], 0, 0)
    tracker = DreidelTracker(background)
    tracker.set_full_size(320, 240)
    found = tracker._detect(small, None)
    assert found is not None
    _, blobs = found
    corner = [b for b in blobs if b.bbox[0] == 0 and b.bbox[1] == 0]
    assert len(corner) == 1 and corner[0].edge
    assert corner[0].bbox[2] >= 14 and corner[0].bbox[3] >= 12
    assert any(b.is_hand for b in blobs)
