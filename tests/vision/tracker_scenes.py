"""Feeding a tracker drawn scenes: the empty tray first (which it learns as the background), then the scene."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hardware.camera import Frame
from vision.tracker import Blob, DreidelTracker

#: the tray is learned from 15 frames whatever the rate: a low rate keeps the tests quick
FPS = 15.0


def track_scenes(tracker: DreidelTracker, empty: Callable[[], np.ndarray], scene: Callable[[], np.ndarray],
                 frames: int) -> list[Blob | None]:
    """Show ``tracker`` 17 pictures of the empty tray, then ``frames`` of the scene; the dreidel seen in each."""
    for i in range(17):
        tracker.process(Frame(i, i / FPS, empty()))
    out: list[Blob | None] = []
    for k in range(frames):
        tr = tracker.process(Frame(100 + k, 2.0 + k / FPS, scene()))
        assert tr is not None
        out.append(tr.dreidel)
    return out
