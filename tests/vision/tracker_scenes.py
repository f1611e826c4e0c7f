"""Feeding a tracker drawn scenes: the empty tray first (which it learns as the background), then the scene."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hardware.camera import Frame
from vision.tracker import Blob, DreidelTracker

#: the tray is learned from 15 frames whatever the rate: a low rate keeps the tests quick
FPS = 15.0


def learn_empty_tray(tracker: DreidelTracker, empty: Callable[[], np.ndarray]) -> None:
    """Show ``tracker`` 17 pictures of the empty tray (``empty()`` makes each), from t = 0: it learns them as the
    background."""
    for i in range(17):
        tracker.process(Frame(i, i / FPS, empty()))


def track_scenes(tracker: DreidelTracker, empty: Callable[[], np.ndarray], scene: Callable[[], np.ndarray],
                 frames: int) -> list[Blob | None]:
    """Show ``tracker`` 17 pictures of the empty tray, then ``frames`` of the scene; the dreidel seen in each."""
    learn_empty_tray(tracker, empty)
    out: list[Blob | None] = []
    for k in range(frames):
        tr = tracker.process(Frame(100 + k, 2.0 + k / FPS, scene()))
        assert tr is not None
        out.append(tr.dreidel)
    return out


def felt(colour: np.ndarray | tuple[float, float, float], size: tuple[int, int] = (240, 320)) -> np.ndarray:
    """A float32 BGR picture of ``size`` (rows, columns) all of the felt's ``colour``, to draw a scene on."""
    img = np.empty((*size, 3), np.float32)
    img[:] = colour
    return img


def with_noise(rng: np.random.Generator, img: np.ndarray, sigma: float = 2.5) -> np.ndarray:
    """The drawn float picture ``img`` with the sensor's noise (``sigma`` grey levels), as a uint8 frame."""
    img = img + rng.normal(0.0, sigma, img.shape).astype(np.float32)
    return np.clip(img + 0.5, 0, 255).astype(np.uint8)
