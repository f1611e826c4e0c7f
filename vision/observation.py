"""Per-frame observations of the dreidel: where it is, how upright it looks, and its phase.

At 60-120 fps a spinning dreidel aliases, so nothing here looks at its rotation. A tilt shows in
the silhouette seen from above instead:

- **elongation**: an upright dreidel is compact from above (square body and handle, a disc when
  blurred); a tilted one is stretched along its tilt; a dreidel lying on a face is long and thin;
- **circling**: a wobbling dreidel precesses, so its centroid circles around the tip; a sleeping
  one stays put (a steady drift is taken out before measuring);
- **motion**: the frame-to-frame change inside the dreidel's box. Near zero only when it is still.

:class:`ObservationBuilder` turns :class:`~vision.tracker.TrackResult` s into :class:`Observation` s
with a provisional :class:`Phase`. The judge (``controller.judge``) owns the spin's story; the phase
here is the frame's own reading, used for the display and as the judge's input.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from enum import StrEnum

from vision.tracker import TrackResult

#: how far back the centroid speed looks (s): it compares the newest positions with ones at least this old
SPEED_LOOKBACK_S = 0.2


class Phase(StrEnum):
    """What one frame shows."""

    EMPTY = "empty"
    HAND = "hand"
    SPINNING = "spinning"
    WOBBLING = "wobbling"
    FALLING = "falling"
    AT_REST = "at_rest"


@dataclass(frozen=True)
class Observation:
    """One frame, measured.

    Positions and lengths are in full-resolution pixels. ``elongation`` is the silhouette's
    major/minor axis ratio; ``circling`` the radius (px) of the centroid's motion about its drift over
    the last ``window_s``; ``wobble`` a dimensionless tilt measure ((elongation - 1) + 2 x circling /
    size); ``motion`` the mean grey-level change inside the dreidel's box; ``speed`` of the centroid
    (px/s); ``still_s`` how long the dreidel has been still; ``hand`` whether a hand or arm is in view.
    """

    index: int
    t: float
    phase: Phase
    present: bool
    x: float | None
    y: float | None
    length: float
    area: float
    elongation: float
    circling: float
    wobble: float
    motion: float
    speed: float
    still_s: float
    in_tray: bool
    hand: bool
    merged: bool
    lost_at_edge: bool


class ObservationBuilder:
    """Turns track results into observations, frame by frame.

    ``upright_max_elongation`` is the largest elongation an upright spinning dreidel shows (perspective
    adds some away from the picture's centre); ``lying_min_elongation`` the smallest of a dreidel lying
    on a face. ``still_motion`` (grey levels) and ``still_speed`` (body lengths per second) define "still".
    """

    def __init__(
        self,
        window_s: float = 0.3,
        upright_max_elongation: float = 1.35,
        lying_min_elongation: float = 1.45,
        still_motion: float = 1.2,
        still_speed: float = 0.12,
        fall_speed: float = 2.5,
    ) -> None:
        self.window_s = window_s
        self.upright_max_elongation = upright_max_elongation
        self.lying_min_elongation = lying_min_elongation
        self.still_motion = still_motion
        self.still_speed = still_speed
        self.fall_speed = fall_speed
        self._hist: deque[tuple[float, float, float]] = deque()
        self._still_since: float | None = None
        self._last: Observation | None = None
        self.wobble_baseline: float | None = None

    def reset(self) -> None:
        """Forget the history (a new dreidel, or a new spin)."""
        self._hist.clear()
        self._still_since = None
        self._last = None
        self.wobble_baseline = None

    def update(self, tr: TrackResult) -> Observation:
        """The observation for one tracked frame."""
        s = tr.scale
        hand = bool(tr.hands) or tr.merged
        d = tr.dreidel
        if d is None:
            self._hist.clear()
            self._still_since = None
            phase = Phase.HAND if hand else Phase.EMPTY
            obs = Observation(
                index=tr.index,
                t=tr.t,
                phase=phase,
                present=False,
                x=None,
                y=None,
                length=0.0,
                area=0.0,
                elongation=1.0,
                circling=0.0,
                wobble=0.0,
                motion=0.0,
                speed=0.0,
                still_s=0.0,
                in_tray=tr.in_tray,
                hand=hand,
                merged=tr.merged,
                lost_at_edge=tr.lost_at_edge,
            )
            self._last = obs
            return obs
        x, y = d.x * s, d.y * s
        self._hist.append((tr.t, x, y))
        while self._hist and tr.t - self._hist[0][0] > self.window_s:
            self._hist.popleft()
        size = math.sqrt(max(d.area, 1.0)) * s
        circling = self._circling()
        speed = self._speed(tr.t, x, y)
        wobble = (d.elongation - 1.0) + 2.0 * circling / size
        body = max(d.length * s, size)
        still = tr.motion < self.still_motion and speed < self.still_speed * body
        if still:
            if self._still_since is None:
                self._still_since = tr.t
        else:
            self._still_since = None
        still_s = 0.0 if self._still_since is None else tr.t - self._still_since
        lying = d.elongation >= self.lying_min_elongation
        if still and lying and still_s >= 0.1:
            phase = Phase.AT_REST
        elif speed > self.fall_speed * body:
            phase = Phase.FALLING
        elif d.elongation > self.upright_max_elongation or (
            self.wobble_baseline is not None and wobble > self.wobble_baseline + 0.25
        ):
            phase = Phase.WOBBLING
        else:
            phase = Phase.SPINNING
        obs = Observation(
            index=tr.index,
            t=tr.t,
            phase=phase,
            present=True,
            x=x,
            y=y,
            length=d.length * s,
            area=d.area * s * s,
            elongation=d.elongation,
            circling=circling,
            wobble=wobble,
            motion=tr.motion,
            speed=speed,
            still_s=still_s,
            in_tray=tr.in_tray,
            hand=hand,
            merged=tr.merged,
            lost_at_edge=tr.lost_at_edge,
        )
        self._last = obs
        return obs

    def _speed(self, t: float, x: float, y: float) -> float:
        """Centroid speed (px/s) over the last ~0.25 s, from averaged positions at both ends.

        The outline of a still body flickers by a pixel, so single positions are too noisy; a sleeping
        top drifts slowly but steadily, which the averages keep.
        """
        hist = self._hist
        if len(hist) < 4:
            return 0.0
        old = [h for h in hist if t - h[0] >= SPEED_LOOKBACK_S]
        if len(old) < 2:
            old = list(hist)[:2]
        new = list(hist)[-3:]
        t0 = sum(h[0] for h in old[-3:]) / len(old[-3:])
        t1 = sum(h[0] for h in new) / len(new)
        if t1 <= t0:
            return 0.0
        x0 = sum(h[1] for h in old[-3:]) / len(old[-3:])
        y0 = sum(h[2] for h in old[-3:]) / len(old[-3:])
        x1 = sum(h[1] for h in new) / len(new)
        y1 = sum(h[2] for h in new) / len(new)
        return math.hypot(x1 - x0, y1 - y0) / (t1 - t0)

    def _circling(self) -> float:
        """RMS distance of the centroid from its straight-line drift over the window."""
        n = len(self._hist)
        if n < 4:
            return 0.0
        # lists rather than generators (it runs every frame), the same sums in the same order
        ts, xs, ys = zip(*self._hist, strict=True)
        tm = sum(ts) / n
        dt = [t - tm for t in ts]
        var_t = sum([v * v for v in dt])
        total = 0.0
        for vals in (xs, ys):
            m = sum(vals) / n
            dv = [b - m for b in vals]
            slope = sum([a * d for a, d in zip(dt, dv, strict=True)]) / var_t if var_t > 0 else 0.0
            total += sum([(d - slope * a) ** 2 for a, d in zip(dt, dv, strict=True)])
        return math.sqrt(total / n)
