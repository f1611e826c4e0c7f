"""Human interference: a hand or arm in the tray between release and rest.

RULES.md: a spin is valid only with "no human interference from release until rest". The hand that
releases the dreidel is still in the picture for a moment after the release; that is not interference
while it withdraws. Interference is:

- a hand (a skin-coloured or arm-like region, see :mod:`vision.tracker`) that comes to the dreidel after
  the release and leaves it changed: taken, pushed or knocked over.

A hand that only reaches over the tray, or passes over the dreidel without touching it, is not
interference.
"""

from __future__ import annotations

import math
from collections import deque
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
    """When and why a hand counted as interference; ``x``, ``y`` is the hand's centroid (lores px).

    ``covered``: when the hand was first and last seen covering the dreidel on that visit (merged with
    it), if it did; ``t`` then lies between them. ``fell_in_place``: the dreidel was upright when the hand
    came and lying where it stood after (knocked over, not pushed away): what a dreidel that fell by itself
    under a hand passing above it also looks like from overhead.
    """

    t: float
    why: str
    x: float
    y: float
    covered: tuple[float, float] | None = None
    fell_in_place: bool = False

    def under_cover(self, t: float, early_s: float = 0.1) -> bool:
        """Whether ``t`` came while the hand covered the dreidel, or up to ``early_s`` before: a start dated
        by an average (an IMU push or rocking onset, 0.1-0.2 s) comes that much early."""
        return self.covered is not None and self.covered[0] - early_s <= t <= self.covered[1]


class InterferenceWatch:
    """Watches one spin from its release; :attr:`event` is set once a hand has interfered.

    A hand passing over or near a spinning dreidel without touching it is not interference (RULES.md
    forbids touching, not reaching). From above a hand that hovers can still cover the dreidel, so a
    visit counts only when it changed the dreidel: after the hand has gone, the dreidel is gone (taken),
    has been pushed away from where it was, or has been knocked over. The releasing hand is allowed
    ``grace_s`` to withdraw.

    A "visit" starts when a hand covers the dreidel (the two merge) or comes within ``near`` body lengths
    of it (measured to the hand's outline, :meth:`~vision.tracker.Blob.distance`: an arm's box can hold a
    dreidel the fingers never reached), and ends when no hand has been near for ``clear_frames`` frames.
    ``event.t`` is the touch: the middle of the time the hand covered the dreidel, when it covered it and the dreidel was seen again
    after; otherwise the visit's closest approach. From overhead a hand hides the dreidel before its
    fingers reach it and until they have drawn back, so the first cover is early: on the twin the fingers
    covered it 0.14-0.22 s before the knock and uncovered it 0.09-0.15 s after (the middle: 0.015-0.039 s
    early, on 16 knocks of its recordings 70001-71008). A sleeping dreidel wanders on its own, so a long visit
    allows ``drift`` body lengths per second of it before a move counts as a push. A spinning dreidel
    also travels across the tray: one found after the visit where its own path (its velocity over the
    last ``heading_s`` seen clear of hands) had taken it was not pushed either.
    """

    def __init__(
        self,
        release_t: float,
        grace_s: float = 0.35,
        near: float = 0.6,
        push: float = 0.45,
        clear_frames: int = 3,
        lying_elongation: float = 1.45,
        drift: float = 0.3,
        heading_s: float = 0.3,
    ) -> None:
        self.release_t = release_t
        self.grace_s = grace_s
        self.near = near
        self.push = push
        self.clear_frames = clear_frames
        self.lying_elongation = lying_elongation
        self.drift = drift
        self.heading_s = heading_s
        self.event: InterferenceEvent | None = None
        self._free: deque[tuple[float, float, float]] = deque()  # t, x, y seen clear of hands, last heading_s
        self._visit_vel: tuple[float, float] = (0.0, 0.0)  # the dreidel's own velocity as the visit began
        self._last_free: tuple[float, float, float, float, float] | None = None  # t, x, y, length, elongation
        self._visit_start: float | None = None
        self._visit_ref: tuple[float, float, float, float, float] | None = None
        self._closest: tuple[float, float, float, float] = (math.inf, 0.0, 0.0, 0.0)  # distance, t, x, y
        self._covered: tuple[float, float] | None = None  # first and last frame merged with a hand, this visit
        self._clear = 0
        self._after_visit: list[tuple[float, float, float, float]] = []
        self.visits = 0
        self._release_hand_gone = False
        self._gone_run = 0

    def _hand_distance(self, track: TrackResult, x: float, y: float) -> tuple[float, float, float]:
        best = (math.inf, math.nan, math.nan)
        for h in track.hands:
            d = h.distance(x, y)
            if d < best[0]:
                best = (d, h.x, h.y)
        return best

    def update(self, track: TrackResult) -> InterferenceEvent | None:
        """Look at one frame after the release. Returns the interference event once found (and after)."""
        if self.event is not None or track.t < self.release_t:
            return self.event
        d = track.dreidel
        since = track.t - self.release_t
        ref = self._last_free
        near_hand = False
        if track.merged:
            near_hand = True
            hx, hy = (track.hands[0].x, track.hands[0].y) if track.hands else (math.nan, math.nan)
            dist = 0.0
        elif ref is not None:
            cx, cy = (d.x, d.y) if d is not None else (ref[1], ref[2])
            dist, hx, hy = self._hand_distance(track, cx, cy)
            near_hand = dist < self.near * max(ref[3], 8.0)
        else:
            dist, hx, hy = math.inf, math.nan, math.nan
        if not self._release_hand_gone:
            # the releasing hand withdraws first: nothing counts until it has left the dreidel alone
            self._gone_run = self._gone_run + 1 if not near_hand and not track.merged else 0
            if self._gone_run >= self.clear_frames:
                self._release_hand_gone = True
        if near_hand and (since > self.grace_s and self._release_hand_gone) and ref is not None:
            if self._visit_start is None:
                self._visit_start = track.t
                self._visit_ref = ref
                self._visit_vel = self._velocity()
                self._closest = (math.inf, track.t, hx, hy)
                self._covered = None
                self._after_visit = []
            if dist < self._closest[0] or (track.merged and self._closest[0] > 0):
                self._closest = (dist, track.t, hx, hy)
            if track.merged:
                first = self._covered[0] if self._covered is not None else track.t
                self._covered = (first, track.t)
            self._clear = 0
        elif self._visit_start is not None:
            self._clear += 1
            if d is not None:
                self._after_visit.append((track.t, d.x, d.y, d.elongation))
            if self._clear >= self.clear_frames + 6 or (track.t - self._visit_start > 0.4 and self._clear >= 12):
                self._judge_visit(track)
        if d is not None and not track.merged and not near_hand:
            self._last_free = (track.t, d.x, d.y, d.length, d.elongation)
            self._free.append((track.t, d.x, d.y))
            while self._free and track.t - self._free[0][0] > self.heading_s:
                self._free.popleft()
        return self.event

    def _touch_t(self, closest_t: float) -> float:
        """The touch of a visit after which the dreidel was seen again: the middle of the hand's cover, or
        the closest approach (``closest_t``) of a hand that never covered it."""
        if self._covered is None:
            return closest_t
        return 0.5 * (self._covered[0] + self._covered[1])

    def _velocity(self) -> tuple[float, float]:
        """The dreidel's own velocity (px/s) over its last moments seen clear of hands: a least-squares
        line through them, or (0, 0) with too few (fewer than 5 frames, or less than a third of
        ``heading_s``)."""
        pts = self._free
        if len(pts) < 5 or pts[-1][0] - pts[0][0] < self.heading_s / 3:
            return (0.0, 0.0)
        ts = np.array([p[0] for p in pts])
        ts -= ts.mean()
        den = float(np.dot(ts, ts))
        vx = float(np.dot(ts, [p[1] for p in pts])) / den
        vy = float(np.dot(ts, [p[2] for p in pts])) / den
        return (vx, vy)

    def _judge_visit(self, track: TrackResult) -> None:
        ref = self._visit_ref
        self.visits += 1
        assert ref is not None
        _, t_touch, hx, hy = self._closest
        after = self._after_visit
        if after:
            t_touch = self._touch_t(t_touch)
        why = None
        fell = False
        if not after:
            why = "a hand took the dreidel"
        else:
            if self._pushed(ref, after):
                why = "a hand pushed the dreidel"
            elif after[-1][3] >= self.lying_elongation and ref[4] < self.lying_elongation:
                why = "a hand knocked the dreidel over"
                fell = True
        if why is not None:
            self.event = InterferenceEvent(t_touch, why, hx, hy, self._covered, fell)
        self._visit_start = None
        self._visit_ref = None
        self._after_visit = []

    def _pushed(
        self, ref: tuple[float, float, float, float, float], after: list[tuple[float, float, float, float]]
    ) -> bool:
        """Whether the dreidel seen after a visit was pushed from ``ref`` (see :meth:`_moved`).

        A piece of the withdrawing hand can be taken for the dreidel for a frame or two: with three frames
        or more seen, one far from where the dreidel mostly is (the median place) does not count.
        """
        if len(after) >= 3:
            mx = float(np.median([a[1] for a in after]))
            my = float(np.median([a[2] for a in after]))
            reach = self.push * max(ref[3], 8.0)
            after = [a for a in after if math.hypot(a[1] - mx, a[2] - my) <= reach]
        return any(self._moved(ref, seen) for seen in after)

    def _moved(self, ref: tuple[float, float, float, float, float], seen: tuple[float, float, float, float]) -> bool:
        """Whether the dreidel seen at ``seen`` (t, x, y, elongation) was pushed from ``ref`` (t, x, y,
        length, elongation): moved further than ``push`` lengths beyond what it wanders in the time, both
        from where it was and from where its own velocity was taking it.

        Twin 56002 spin 3: a spinning dreidel travelling 20 px/s (1.4 lengths) across the tray, merged with
        a hand passing near for 0.5 s, was found 8 px along its path and called pushed."""
        size = max(ref[3], 8.0)
        dt = max(seen[0] - ref[0], 0.0)
        wander = self.drift * size * dt
        vx, vy = self._visit_vel
        off = min(
            math.hypot(seen[1] - ref[1], seen[2] - ref[2]),
            math.hypot(seen[1] - ref[1] - vx * dt, seen[2] - ref[2] - vy * dt),
        )
        return off - wander > self.push * size

    def finish(self, t: float) -> InterferenceEvent | None:
        """The spin ended (rest): judge a visit still open."""
        if self.event is None and self._visit_start is not None:
            self._judge_visit_at_end()
        return self.event

    def _judge_visit_at_end(self) -> None:
        ref = self._visit_ref
        if ref is None:
            return
        after = self._after_visit
        _, t_touch, hx, hy = self._closest
        if not after:
            self.event = InterferenceEvent(t_touch, "a hand covered the dreidel until it stopped", hx, hy,
                                           self._covered)
            return
        t_touch = self._touch_t(t_touch)
        el = after[-1][3]
        pushed = self._pushed(ref, after)
        if pushed or (el >= self.lying_elongation and ref[4] < self.lying_elongation):
            self.event = InterferenceEvent(t_touch, "a hand disturbed the dreidel", hx, hy, self._covered,
                                           not pushed)
