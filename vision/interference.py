"""Human interference: a hand or arm in the tray between release and rest.

RULES.md: a spin is valid only with "no human interference from release until rest". The hand that
releases the dreidel is still in the picture for a moment after the release; that is not interference
while it withdraws. Interference is:

- a hand (a skin-coloured or arm-like region, see :mod:`vision.tracker`) that comes into the tray after the
  releasing hand has left it, or
- a hand that covers the dreidel (the two merge) after the release grace period, or
- the releasing hand lingering in the tray past ``linger_s`` and coming close to the dreidel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

if TYPE_CHECKING:
    from vision.tracker import TrackResult


def skin_fraction(patch_bgr: np.ndarray, mask: np.ndarray | None = None) -> float:
    """Fraction of pixels (under ``mask`` if given) whose colour is skin-like in YCrCb.

    The classic chroma box (Cr 135-180, Cb 85-135, Y > 40) covers light to dark skin under white light.
    """
    if patch_bgr.size == 0:
        return 0.0
    ycc = cv2.cvtColor(patch_bgr, cv2.COLOR_BGR2YCrCb)
    skin = cv2.inRange(ycc, (40, 135, 85), (255, 180, 135))
    if mask is not None:
        total = int(np.count_nonzero(mask))
        if total == 0:
            return 0.0
        return float(np.count_nonzero(cv2.bitwise_and(skin, skin, mask=mask))) / total
    return float(np.count_nonzero(skin)) / skin.size


@dataclass(frozen=True)
class InterferenceEvent:
    """When and why a hand counted as interference; ``x``, ``y`` is the hand's centroid (lores px)."""

    t: float
    why: str
    x: float
    y: float


class InterferenceWatch:
    """Watches one spin from its release; :attr:`event` is set at the first interference.

    ``grace_s`` is how long the releasing hand may stay merged with the dreidel; ``linger_s`` how long it
    may stay in the tray at all before coming near the dreidel counts; ``min_overlap`` the fraction of a
    hand's pixels that must be inside the tray for it to be "in the tray" (an arm resting on the rim is not).
    """

    def __init__(
        self,
        release_t: float,
        grace_s: float = 0.35,
        linger_s: float = 1.5,
        min_overlap: float = 0.25,
        clear_frames: int = 3,
    ) -> None:
        self.release_t = release_t
        self.grace_s = grace_s
        self.linger_s = linger_s
        self.min_overlap = min_overlap
        self.clear_frames = clear_frames
        self._clear_run = 0
        self._release_hand_gone = False
        self.event: InterferenceEvent | None = None

    @property
    def release_hand_gone(self) -> bool:
        """True once the hand that released the dreidel has left the tray."""
        return self._release_hand_gone

    def update(self, track: TrackResult) -> InterferenceEvent | None:
        """Look at one frame after the release. Returns the interference event once found (and after)."""
        if self.event is not None or track.t < self.release_t:
            return self.event
        in_tray = [h for h in track.hands if h.tray_overlap >= self.min_overlap]
        since = track.t - self.release_t
        if not in_tray:
            self._clear_run += 1
            if self._clear_run >= self.clear_frames:
                self._release_hand_gone = True
        else:
            self._clear_run = 0
        if in_tray and self._release_hand_gone:
            h = in_tray[0]
            self.event = InterferenceEvent(track.t, "a hand entered the tray after the release", h.x, h.y)
        elif track.merged and since > self.grace_s:
            hx, hy = (track.hands[0].x, track.hands[0].y) if track.hands else (math.nan, math.nan)
            self.event = InterferenceEvent(track.t, "a hand touched the dreidel", hx, hy)
        elif in_tray and since > self.linger_s and track.dreidel is not None:
            d = track.dreidel
            for h in in_tray:
                bx, by, bw, bh = h.bbox
                dx = max(bx - d.x, 0.0, d.x - (bx + bw))
                dy = max(by - d.y, 0.0, d.y - (by + bh))
                if math.hypot(dx, dy) < 2.0 * d.length:
                    self.event = InterferenceEvent(track.t, "a hand stayed in the tray near the dreidel", h.x, h.y)
                    break
        return self.event
