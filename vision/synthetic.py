"""A deliberately simple synthetic table for testing the tracker and the judge.

This is not the digital twin (``hardware/sim/`` is): it draws a dreidel's overhead silhouette from a
few scripted numbers (release, wobble onset, fall, rest; a tilt that grows and precesses; a hand that
holds, releases, touches or picks up) so that tests know the exact truth and run in milliseconds. It
also serves as a second, independent renderer: the judge must not depend on one renderer's look.

:func:`render_scene` gives frames; :func:`scene_imu` an IMU trace on the same clock.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from hardware.camera import Frame


@dataclass(frozen=True)
class ScriptedSpin:
    """One scripted spin (times in seconds from the start of the scene).

    ``stable_s``: release to wobble onset; ``wobble_s``: onset to the fall; ``rest_after_fall_s``: the
    fall, bounce and slide. ``drift`` (px/s) moves the tip while it sleeps; ``slide`` (px) is how far it
    slides after landing, in the direction ``slide_deg`` (a large slide can leave the tray). ``touch_t``:
    a hand reaches in and touches it at that time (interference); ``hover_t``: a hand passes over the tray
    close to it without touching (not interference), beside it or, with ``hover_over``, right above it
    (hiding it from the overhead camera). ``hand_release``: a hand holds it before
    the release (False: a launcher drops it).
    """

    release_t: float
    stable_s: float
    wobble_s: float = 1.0
    rest_after_fall_s: float = 0.4
    x: float = 320.0
    y: float = 240.0
    drift: tuple[float, float] = (3.0, -2.0)
    precession_hz: float = 2.2
    slide: float = 25.0
    slide_deg: float = 30.0
    rest_angle_deg: float = 20.0
    touch_t: float | None = None
    hover_t: float | None = None
    hover_over: bool = False
    hand_release: bool = True
    pickup: bool = True

    @property
    def wobble_t(self) -> float:
        return self.release_t + self.stable_s

    @property
    def rules_wobble_t(self) -> float:
        """When the drawn tilt reaches the rules' wobble level (6 degrees, as both simulators date it).

        ``wobble_t`` is where the tilt starts to grow from its sleeping 0.02 rad; it grows as
        ``0.02 + 0.55 u**1.5`` over ``wobble_s`` (see ``_draw_spin``), so it reaches 6 degrees later.
        """
        u = ((math.radians(6.0) - 0.02) / 0.55) ** (2.0 / 3.0)
        return self.wobble_t + u * self.wobble_s

    @property
    def rules_stable_s(self) -> float:
        """Release to the rules' wobble level: the stable time a judge should measure on this scene."""
        return self.rules_wobble_t - self.release_t

    @property
    def fall_t(self) -> float:
        return self.wobble_t + self.wobble_s

    @property
    def rest_t(self) -> float:
        return self.fall_t + self.rest_after_fall_s

    @property
    def pickup_t(self) -> float:
        return self.rest_t + 1.2


@dataclass(frozen=True)
class SceneStyle:
    """Colours and sizes of the synthetic table."""

    width: int = 640
    height: int = 480
    felt_bgr: tuple[int, int, int] = (60, 110, 40)
    table_bgr: tuple[int, int, int] = (70, 95, 130)
    body_bgr: tuple[int, int, int] = (40, 60, 200)
    skin_bgr: tuple[int, int, int] = (120, 160, 220)
    side_px: float = 36.0
    noise: float = 2.5
    tray_radius: float = 215.0


def _rot_rect(img: np.ndarray, c: tuple[float, float], size: tuple[float, float], angle: float, colour: tuple[int, ...]) -> None:
    box = cv2.boxPoints(((c[0], c[1]), (max(size[0], 1.0), max(size[1], 1.0)), angle))
    cv2.fillConvexPoly(img, np.round(box * 4).astype(np.int32), colour, cv2.LINE_AA, shift=2)


def _ellipse(img: np.ndarray, c: tuple[float, float], axes: tuple[float, float], angle: float, colour: tuple[int, ...]) -> None:
    cv2.ellipse(
        img,
        (int(round(c[0] * 4)), int(round(c[1] * 4))),
        (int(round(max(axes[0], 1) * 4)), int(round(max(axes[1], 1) * 4))),
        angle,
        0,
        360,
        colour,
        -1,
        cv2.LINE_AA,
        shift=2,
    )


def _hand(img: np.ndarray, palm: tuple[float, float], style: SceneStyle) -> None:
    w, h = style.width, style.height
    # the arm comes from the nearest picture edge
    edge = min(((palm[0], 0.0), (palm[0], float(h)), (0.0, palm[1]), (float(w), palm[1])),
               key=lambda e: math.hypot(e[0] - palm[0], e[1] - palm[1]))
    ang = math.degrees(math.atan2(edge[1] - palm[1], edge[0] - palm[0]))
    dist = math.hypot(edge[0] - palm[0], edge[1] - palm[1])
    mid = ((palm[0] + edge[0]) / 2, (palm[1] + edge[1]) / 2)
    _rot_rect(img, mid, (dist + 40, 46), ang, style.skin_bgr)
    _ellipse(img, palm, (38, 30), ang, style.skin_bgr)


class SceneRenderer:
    """Renders the scripted spins frame by frame."""

    def __init__(self, spins: list[ScriptedSpin], style: SceneStyle | None = None, seed: int = 0) -> None:
        self.spins = spins
        self.style = style if style is not None else SceneStyle()
        rng = np.random.default_rng(seed)
        self._rng = rng
        st = self.style
        base = np.zeros((st.height, st.width, 3), np.float32)
        base[:] = st.table_bgr
        yy, xx = np.mgrid[0 : st.height, 0 : st.width]
        cx, cy = st.width / 2, st.height / 2
        r = np.hypot(xx - cx, yy - cy)
        rim = (r < st.tray_radius + 10) & (r >= st.tray_radius)
        base[rim] = (40, 40, 40)
        felt = r < st.tray_radius
        base[felt] = st.felt_bgr
        texture = cv2.GaussianBlur(rng.normal(0, 6, (st.height, st.width)).astype(np.float32), (0, 0), 1.2)
        base += texture[..., None]
        self._base = np.clip(base, 0, 255).astype(np.uint8)
        # a small bank of sensor-noise frames, split into positive and negative parts for saturating adds
        self._noise: list[tuple[np.ndarray, np.ndarray]] = []
        for _ in range(7):
            n = rng.normal(0, st.noise, (st.height, st.width, 1)).repeat(3, axis=2)
            self._noise.append((np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8)))
        self._count = 0

    def _draw_spin(self, img: np.ndarray, sp: ScriptedSpin, t: float) -> None:
        st = self.style
        side = st.side_px
        height = 1.4 * side
        if t < sp.release_t - 0.9 or (sp.pickup and t > sp.pickup_t):
            return
        tip = (sp.x + sp.drift[0] * max(0.0, min(t, sp.fall_t) - sp.release_t) + self._push(sp, t),
               sp.y + sp.drift[1] * max(0.0, min(t, sp.fall_t) - sp.release_t))
        shade = tuple(int(c * 0.55) for c in st.felt_bgr)
        if t < sp.fall_t:
            if t < sp.wobble_t:
                theta = 0.02
            else:
                u = (t - sp.wobble_t) / sp.wobble_s
                theta = 0.02 + 0.55 * u**1.5
            phi = 2 * math.pi * sp.precession_hz * t
            lean = height * 0.55 * math.sin(theta)
            c = (tip[0] + lean * math.cos(phi), tip[1] + lean * math.sin(phi))
            major = side * 1.12 + 1.3 * height * math.sin(theta)
            _ellipse(img, (c[0] + 5, c[1] + 7), (major / 2, side * 0.56), math.degrees(phi), shade)
            flicker = self._rng.normal(0, 12)
            colour = tuple(int(np.clip(v + flicker, 0, 255)) for v in st.body_bgr)
            _ellipse(img, c, (major / 2, side * 0.56), math.degrees(phi), colour)
            _ellipse(img, c, (side * 0.16, side * 0.16), 0, (30, 30, 30))
            return
        # fallen: slides toward its rest pose, then lies still
        u = min(1.0, (t - sp.fall_t) / sp.rest_after_fall_s)
        ease = 1 - (1 - u) ** 2
        a = math.radians(sp.slide_deg)
        c = (tip[0] + ease * sp.slide * math.cos(a), tip[1] + ease * sp.slide * math.sin(a))
        angle = sp.rest_angle_deg + (1 - ease) * 40.0
        length = side * (1.2 + 1.0 * min(1.0, (t - sp.fall_t) / 0.12))
        _rot_rect(img, (c[0] + 5, c[1] + 7), (length, side), angle, shade)
        _rot_rect(img, c, (length, side), angle, st.body_bgr)
        _rot_rect(img, c, (side * 0.5, side * 0.55), angle, (230, 230, 230))
        _rot_rect(img, c, (side * 0.3, side * 0.12), angle + 90, (20, 20, 20))

    @staticmethod
    def _upright_tip(sp: ScriptedSpin, t: float) -> tuple[float, float] | None:
        """Where the tip is while the dreidel is held or spins upright (before its fall; without the
        push of a touching hand), or None outside that time: for scenes that add a shadow beside it."""
        if not (sp.release_t - 0.9 <= t < sp.fall_t) or (sp.pickup and t > sp.pickup_t):
            return None
        moved = max(0.0, t - sp.release_t)
        return (sp.x + sp.drift[0] * moved, sp.y + sp.drift[1] * moved)

    @staticmethod
    def _push(sp: ScriptedSpin, t: float) -> float:
        """How far (px, to the right) a touching hand has pushed the dreidel by ``t``."""
        if sp.touch_t is None or t <= sp.touch_t:
            return 0.0
        return 45.0 * min(1.0, (t - sp.touch_t) / 0.2)

    def _hands(self, img: np.ndarray, sp: ScriptedSpin, t: float) -> None:
        if sp.hand_release and sp.release_t - 0.9 <= t < sp.release_t + 0.58:
            # the fingers open at the release; the hand starts to move away a moment later
            if t < sp.release_t + 0.08:
                palm = (sp.x + 10, sp.y + 12)
            else:
                u = (t - sp.release_t - 0.08) / 0.5
                palm = (sp.x + 10 + u * 400, sp.y + 12 + u * 60)
            _hand(img, palm, self.style)
        if sp.touch_t is not None and sp.touch_t - 0.5 <= t < sp.touch_t + 0.4:
            u = 1 - abs(t - sp.touch_t) / 0.5
            palm = (sp.x - 300 + u * 290, sp.y - 20)
            _hand(img, palm, self.style)
        if sp.hover_t is not None and sp.hover_t - 0.5 <= t < sp.hover_t + 0.5:
            u = 1 - abs(t - sp.hover_t) / 0.5
            palm = (sp.x - 300 + u * 290, sp.y - 20) if sp.hover_over else (sp.x - 300 + u * 235, sp.y + 60)
            _hand(img, palm, self.style)
        if sp.pickup and sp.pickup_t - 0.6 <= t < sp.pickup_t + 0.6:
            u = (t - (sp.pickup_t - 0.6)) / 0.6 if t < sp.pickup_t else 1 - (t - sp.pickup_t) / 0.6
            a = math.radians(sp.slide_deg)
            rx = sp.x + sp.drift[0] * (sp.fall_t - sp.release_t) + sp.slide * math.cos(a) + self._push(sp, t)
            ry = sp.y + sp.drift[1] * (sp.fall_t - sp.release_t) + sp.slide * math.sin(a)
            palm = (rx + (1 - u) * 380, ry + 10)
            _hand(img, palm, self.style)

    def render(self, t: float) -> np.ndarray:
        """The picture at time ``t``."""
        img = self._base.copy()
        for sp in self.spins:
            self._draw_spin(img, sp, t)
        for sp in self.spins:
            self._hands(img, sp, t)
        gain = 1.0 + 0.03 * math.sin(0.3 * t)
        img = cv2.convertScaleAbs(img, alpha=gain)
        self._count += 1
        pos, neg = self._noise[self._count % len(self._noise)]
        return cv2.subtract(cv2.add(img, pos), neg)

    def frames(self, duration: float, fps: float = 60.0) -> Iterator[Frame]:
        """Frames from 0 to ``duration`` at ``fps``."""
        n = int(duration * fps)
        for i in range(n):
            t = i / fps
            yield Frame(index=i, t=t, image=self.render(t))


class DeepShadowScene(SceneRenderer):
    """A lamp low over a dim room: the dreidel throws a long shadow that keeps only a third of the felt's
    light, as dark as a black dreidel (the independent renderer's scenes with such shadows were once judged
    ``wobbled_immediately``: the shadow looked like a lying body)."""

    def _draw_spin(self, img: np.ndarray, sp: ScriptedSpin, t: float) -> None:
        tip = self._upright_tip(sp, t)
        if tip is not None:
            side = self.style.side_px
            deep = tuple(int(0.3 * c) for c in self.style.felt_bgr)
            # from the tip away from the lamp: about three times the body's width
            centre = (int(tip[0] - 1.6 * side), int(tip[1] + 0.8 * side))
            cv2.ellipse(img, centre, (int(1.7 * side), int(0.45 * side)), -26.0, 0, 360, deep, -1, cv2.LINE_AA)
        super()._draw_spin(img, sp, t)


class LongShadowScene(SceneRenderer):
    """A low lamp in a lit room: the dreidel throws a shadow six times its size, half as bright as the
    felt with a darker core (it straddles the deep-shadow level), on felt whose blue and red are dim (their
    ratios are mostly noise). The independent renderer's scenes with such shadows were once judged
    ``no_release`` or ``wobbled_immediately``: the body with its shadow looked like a lying dreidel."""

    def _draw_spin(self, img: np.ndarray, sp: ScriptedSpin, t: float) -> None:
        tip = self._upright_tip(sp, t)
        if tip is not None:
            side = self.style.side_px
            light = tuple(int(0.55 * c) for c in self.style.felt_bgr)
            core = tuple(int(0.42 * c) for c in self.style.felt_bgr)
            # from the tip away from the lamp: about five body widths long, one wide
            centre = (int(tip[0] + 0.3 * side), int(tip[1] + 2.6 * side))
            cv2.ellipse(img, centre, (int(0.6 * side), int(2.8 * side)), 8.0, 0, 360, light, -1, cv2.LINE_AA)
            cv2.ellipse(img, (centre[0], centre[1] - int(1.6 * side)), (int(0.15 * side), int(0.4 * side)), 8.0, 0, 360,
                        core, -1, cv2.LINE_AA)
        super()._draw_spin(img, sp, t)


def scene_imu(spins: list[ScriptedSpin], duration: float, rate: float = 833.0, seed: int = 0) -> np.ndarray:
    """An N x 7 IMU trace (t, ax, ay, az, gx, gy, gz) for the scripted spins: knocks, hum, chatter, silence."""
    rng = np.random.default_rng(seed)
    t = np.arange(0.0, duration, 1.0 / rate)
    a = rng.normal(0.0, 0.003, size=(t.size, 3))
    a[:, 2] += 1.0
    for sp in spins:
        hum = (t >= sp.release_t) & (t < sp.fall_t)
        a[hum, 0] += 0.01 * np.sin(2 * np.pi * 17.0 * t[hum])
        a[hum, 1] += 0.01 * np.cos(2 * np.pi * 17.0 * t[hum])
        ch = (t >= sp.wobble_t) & (t < sp.fall_t + 0.1)
        growth = np.clip((t[ch] - sp.wobble_t) / 0.5, 0, 1) * 0.05 + 0.004
        a[ch, 2] += growth * rng.normal(0, 1, int(ch.sum()))
        slide = (t >= sp.fall_t) & (t < sp.rest_t)
        a[slide, 2] += 0.02 * rng.normal(0, 1, int(slide.sum()))
        for knock, amp in ((sp.release_t, 0.8), (sp.fall_t + 0.08, 1.2)):
            k = (t >= knock) & (t < knock + 0.05)
            a[k, 2] += amp * np.exp(-(t[k] - knock) / 0.008) * np.cos(2 * np.pi * 120 * (t[k] - knock))
    g = rng.normal(0, 0.3, size=(t.size, 3))
    return np.column_stack([t, a, g])
