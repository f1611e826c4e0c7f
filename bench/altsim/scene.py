"""The fixed set-up of one alternative recording: camera, tray, table, lamp, sensor, dreidel and hands.

Everything is drawn from a seed with its own random stream, independently of the digital twin's
choices, and stays inside DESIGN.md "The physical table": a camera 35-60 cm above a round or square
felt tray of 30-40 cm, the whole tray in the picture, a resting dreidel 40-150 px long, a lamp to one
side (shadows), gradual exposure changes and sensor noise. Lengths are millimetres, colours BGR.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

import numpy as np

from controller.rules.letters import Letter
from hardware.sim.dreidel import DIASPORA_LETTERS, ISRAELI_LETTERS, DreidelStyle, TipShape

#: Hebrew fonts the twin never draws with (it only scans truetype/opentype folders): culmus' Type 1 faces.
TYPE1_FONT_DIR = Path("/usr/share/fonts/X11/Type1")
TYPE1_FONTS: tuple[str, ...] = (
    "AharoniCLM-Bold.pfa",
    "AharoniCLM-Book.pfa",
    "DrugulinCLM-Bold.pfa",
    "ElliniaCLM-Bold.pfa",
    "ElliniaCLM-Light.pfa",
    "YehudaCLM-Bold.pfa",
    "YehudaCLM-Light.pfa",
)
#: lighter or unusual weights of installed families, none of which the twin's presets use
OTHER_FONTS: tuple[str, ...] = (
    "/usr/share/fonts/truetype/culmus/ShofarDemi-Bold.ttf",
    "/usr/share/fonts/truetype/culmus/MiriamMonoCLM-Book.ttf",
    "/usr/share/fonts/truetype/culmus/SimpleCLM-Medium.ttf",
    "/usr/share/fonts/truetype/culmus/DavidCLM-Medium.otf",
    "/usr/share/fonts/truetype/ezra/SILEOT.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
    "/usr/share/fonts/truetype/noto/NotoSerifHebrew-Regular.ttf",
)


class AltFontError(RuntimeError):
    """None of the fonts the alternative renderer draws with is installed."""


def available_fonts() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(Type 1 fonts, other fonts) that exist on this machine; :class:`AltFontError` if none do."""
    t1 = tuple(str(TYPE1_FONT_DIR / n) for n in TYPE1_FONTS if (TYPE1_FONT_DIR / n).is_file())
    other = tuple(p for p in OTHER_FONTS if Path(p).is_file())
    if not t1 and not other:
        raise AltFontError(
            f"no Hebrew font for the alternative renderer in {TYPE1_FONT_DIR} or the truetype folders: "
            "run scripts/install-system-deps.sh (culmus)"
        )
    return t1, other


class Finish(StrEnum):
    """The dreidel's surface."""

    WOOD = "wood"
    PLASTIC = "plastic"
    PAINTED = "painted"  # every face its own colour
    METAL = "metal"  # shiny, letters stamped dark


class Lettering(StrEnum):
    """How the letters are put on the faces."""

    PRINTED = "printed"  # crisp font glyph
    BRUSHED = "brushed"  # hand painted: the glyph warped a little and its stroke weight changed
    HOLLOW = "hollow"  # outline only


@dataclass(frozen=True)
class AltDreidel:
    """The alternative dreidel: a chamfered square body, a blunt octagonal tip, a thick handle with a knob.

    Body frame: the axis is +z, the tip point at z = 0, the handle's end at ``length_mm``; face k
    (0..3) faces (cos k*90deg, sin k*90deg, 0) and carries ``letters[k]`` upright (handle up).
    """

    half_w: float  # half the body's width
    body_h: float
    tip_h: float
    blunt: float  # 0..1: half-width of the cut tip as a fraction of half_w
    chamfer: float  # 0..1: how much of the vertical edges is cut away
    bevel: float  # mm: the body's top edge is bevelled this much
    handle_r: float
    handle_h: float
    knob_r: float  # 0: a flat-topped handle
    finish: Finish
    body_bgr: tuple[int, int, int]
    face_bgrs: tuple[tuple[int, int, int], ...]
    handle_bgr: tuple[int, int, int]
    letter_bgr: tuple[int, int, int]
    font_path: str
    letter_scale: float
    lettering: Lettering
    decorated: bool  # small ornaments in the faces' corners (distractors for the recognizer)
    pe_set: bool
    bias: tuple[float, float, float, float]
    gloss: float
    texture_seed: int
    sleep_threshold_rev_s: float
    spin_decay_rev_s2: float
    spin_decay_per_s: float

    @property
    def letters(self) -> tuple[Letter, ...]:
        return ISRAELI_LETTERS if self.pe_set else DIASPORA_LETTERS

    @property
    def z_top(self) -> float:
        return self.tip_h + self.body_h

    @property
    def length_mm(self) -> float:
        return self.z_top + self.handle_h + (self.knob_r * 0.6 if self.knob_r > 0 else 0.0)

    def physics_style(self) -> DreidelStyle:
        """The twin's :class:`DreidelStyle` with this dreidel's sizes, for H4's physics only."""
        return DreidelStyle(
            name=f"altsim-{self.texture_seed}",
            body_mm=2 * self.half_w,
            body_h_mm=self.body_h,
            tip_mm=self.tip_h,
            tip_shape=TipShape.ROUNDED if self.blunt > 0.15 else TipShape.PYRAMID,
            handle_mm=self.length_mm - self.z_top,
            handle_r_mm=self.handle_r,
            font_path=self.font_path,
            pe_set=self.pe_set,
            bias=self.bias,
            sleep_threshold_rev_s=self.sleep_threshold_rev_s,
            spin_decay_rev_s2=self.spin_decay_rev_s2,
            spin_decay_per_s=self.spin_decay_per_s,
            texture_seed=self.texture_seed,
        ).validate()

    def hull_points(self) -> np.ndarray:
        """Points on the outside of the solid (body frame, N x 3): for lowest point and picture bounds."""
        a = self.half_w
        pts = []
        w0 = a * self.blunt
        for z, w in ((0.0, w0), (self.tip_h, a), (self.z_top - self.bevel, a), (self.z_top, a - self.bevel)):
            for k in range(16):
                ang = k * math.pi / 8
                c, s = math.cos(ang), math.sin(ang)
                m = max(abs(c), abs(s))
                pts.append((w * c / m, w * s / m, z))
        top = self.z_top + self.handle_h
        for k in range(12):
            ang = k * math.pi / 6
            pts.append((self.handle_r * math.cos(ang), self.handle_r * math.sin(ang), top))
            if self.knob_r > 0:
                pts.append((self.knob_r * math.cos(ang), self.knob_r * math.sin(ang), top))
        if self.knob_r > 0:
            pts.append((0.0, 0.0, top + self.knob_r))
        return np.array(pts, dtype=np.float64)

    @property
    def tip_point(self) -> np.ndarray:
        return np.zeros(3)

    @property
    def centre(self) -> np.ndarray:
        """The body's middle (body frame): used for the rest position and "in the tray"."""
        return np.array([0.0, 0.0, self.tip_h + self.body_h / 2])

    @classmethod
    def random(cls, rng: np.random.Generator) -> AltDreidel:
        t1, other = available_fonts()
        if t1 and (not other or rng.random() < 0.7):
            font = t1[int(rng.integers(len(t1)))]
        else:
            font = other[int(rng.integers(len(other)))]
        width = float(rng.uniform(17.0, 30.0))
        a = width / 2
        finish = Finish(rng.choice([f.value for f in Finish], p=[0.35, 0.3, 0.25, 0.1]))
        face_bgrs: tuple[tuple[int, int, int], ...] = ()
        if finish is Finish.WOOD:
            woods = ((150, 200, 230), (90, 150, 200), (60, 105, 160), (40, 70, 110), (120, 170, 190))
            body = _jit(woods[int(rng.integers(len(woods)))], rng, 12)
            handle = _jit(body, rng, 8)
            letter = _pick(((20, 20, 20), (40, 30, 120), (120, 40, 20), (20, 60, 20)), rng)
        elif finish is Finish.PLASTIC:
            plastics = ((0, 140, 255), (180, 40, 40), (40, 40, 170), (120, 30, 120), (30, 180, 170), (235, 235, 235),
                        (20, 20, 20), (0, 200, 230))
            body = _jit(plastics[int(rng.integers(len(plastics)))], rng, 15)
            handle = body if rng.random() < 0.6 else _jit(plastics[int(rng.integers(len(plastics)))], rng, 15)
            lum = 0.114 * body[0] + 0.587 * body[1] + 0.299 * body[2]
            letter = _pick(((20, 20, 20), (30, 30, 140)), rng) if lum > 150 else _pick(
                ((240, 240, 240), (40, 200, 250), (60, 220, 255)), rng)
        elif finish is Finish.PAINTED:
            paints = ((40, 40, 200), (200, 100, 20), (30, 160, 240), (60, 150, 40), (150, 50, 150), (20, 20, 20),
                      (200, 200, 40))
            order = rng.permutation(len(paints))[:4]
            face_bgrs = tuple(_jit(paints[int(i)], rng, 12) for i in order)
            body = face_bgrs[0]
            handle = _jit(paints[int(rng.integers(len(paints)))], rng, 12)
            letter = _pick(((245, 245, 245), (40, 215, 250)), rng)
        else:
            body = _pick(((200, 200, 205), (80, 170, 210), (150, 160, 170)), rng)
            handle = body
            letter = (35, 35, 40)
        if finish is not Finish.METAL:
            letter = _readable(letter, face_bgrs or (body,))
        lettering = Lettering(rng.choice([v.value for v in Lettering], p=[0.55, 0.33, 0.12]))
        if finish is Finish.METAL:
            lettering = Lettering.PRINTED
        return cls(
            half_w=a,
            body_h=width * float(rng.uniform(0.75, 1.45)),
            tip_h=width * float(rng.uniform(0.45, 0.95)),
            blunt=float(rng.uniform(0.05, 0.3)),
            chamfer=float(rng.uniform(0.0, 0.25)),
            bevel=width * float(rng.uniform(0.0, 0.08)),
            handle_r=width * float(rng.uniform(0.13, 0.21)),
            handle_h=width * float(rng.uniform(0.55, 1.05)),
            knob_r=width * float(rng.uniform(0.2, 0.3)) if rng.random() < 0.5 else 0.0,
            finish=finish,
            body_bgr=body,
            face_bgrs=face_bgrs,
            handle_bgr=handle,
            letter_bgr=letter,
            font_path=font,
            letter_scale=float(rng.uniform(0.45, 0.85)),
            lettering=lettering,
            decorated=bool(rng.random() < 0.3),
            pe_set=bool(rng.random() < 0.35),
            bias=(1.0, 1.0, 1.0, 1.0) if rng.random() < 0.7 else (302.0, 109.0, 194.5, 194.5),
            gloss={Finish.WOOD: 0.04, Finish.PLASTIC: 0.45, Finish.PAINTED: 0.2, Finish.METAL: 0.9}[finish],
            texture_seed=int(rng.integers(1 << 30)),
            sleep_threshold_rev_s=float(rng.uniform(5.5, 8.0)),
            spin_decay_rev_s2=float(rng.uniform(0.6, 1.2)),
            spin_decay_per_s=float(rng.uniform(0.04, 0.1)),
        )

    def scaled(self, k: float) -> AltDreidel:
        """The same dreidel ``k`` times larger (to keep it 40-150 px long in the picture)."""
        return replace(
            self, half_w=self.half_w * k, body_h=self.body_h * k, tip_h=self.tip_h * k, bevel=self.bevel * k,
            handle_r=self.handle_r * k, handle_h=self.handle_h * k, knob_r=self.knob_r * k,
        )


@dataclass(frozen=True)
class HandLook:
    """One player's arm: skin, an optional sleeve, size, and a bracelet or not."""

    skin_bgr: tuple[int, int, int]
    sleeve_bgr: tuple[int, int, int] | None
    sleeve_from_mm: float  # the sleeve starts this far from the wrist
    scale: float

    @classmethod
    def random(cls, rng: np.random.Generator) -> HandLook:
        tones = ((170, 195, 235), (140, 170, 220), (115, 150, 205), (90, 125, 185), (65, 95, 150), (45, 65, 110),
                 (35, 48, 80))
        skin = _jit(tones[int(rng.integers(len(tones)))], rng, 10)
        sleeve = None
        if rng.random() < 0.6:
            sleeves = ((30, 30, 30), (140, 80, 30), (210, 210, 210), (40, 40, 160), (50, 110, 50), (120, 120, 120),
                       (20, 90, 180))
            sleeve = _jit(sleeves[int(rng.integers(len(sleeves)))], rng, 12)
        return cls(skin, sleeve, float(rng.uniform(20.0, 110.0)), float(rng.uniform(0.85, 1.15)))


@dataclass(frozen=True)
class AltScene:
    """Camera, tray, table, lamp and sensor of one recording.

    The camera sits ``cam_h`` above the tray at (``cam_x``, ``cam_y``), rotated ``yaw`` about the
    vertical and tilted by up to a few degrees; ``k1`` is a mild radial lens distortion applied from
    pixel to ray (``x_u = x_d (1 + k1 r^2)``).
    """

    width: int
    height: int
    fps: float
    cam_h: float
    cam_x: float
    cam_y: float
    yaw: float
    tilt_x: float
    tilt_y: float
    k1: float
    focal: float
    cx: float
    cy: float
    tray_round: bool
    tray_r: float  # radius, or half the side of a square tray (felt inside the rim)
    tray_yaw: float  # a square tray's own rotation on the table
    rim_w: float
    felt_bgr: tuple[int, int, int]
    felt_fuzz: float  # strength of the felt's texture
    rim_bgr: tuple[int, int, int]
    table_kind: str  # "wood" | "cloth" | "plain"
    table_bgr: tuple[int, int, int]
    table_bgr2: tuple[int, int, int]
    lamp: tuple[float, float, float]  # the key light's position (mm)
    lamp_r: float  # its radius (soft shadows)
    ambient: float
    warmth: tuple[float, float, float]  # white-balance gains (B, G, R)
    vignette: float
    exposure_amp: float
    exposure_period_s: float
    exposure_s: float
    blur_sigma: float  # the lens' softness (px)
    noise_read: float
    noise_shot: float
    jpeg_quality: int
    frame_jitter_s: float
    dropped_frames: int
    seed: int

    @classmethod
    def random(
        cls, rng: np.random.Generator, width: int, height: int, fps: float, dreidel_len_mm: float, seed: int
    ) -> tuple[AltScene, float]:
        """A scene and the factor by which the dreidel must be scaled to be 40-150 px long."""
        if width < 320 or height < 240:
            raise ValueError(f"picture {width}x{height}: at least 320x240")
        cam_h = float(rng.uniform(350.0, 600.0))
        tray_r = float(rng.uniform(150.0, 200.0))
        rim_w = float(rng.uniform(8.0, 22.0))
        tray_round = bool(rng.random() < 0.5)
        tray_yaw = float(rng.uniform(-0.25, 0.25))
        yaw = float(rng.uniform(-math.pi, math.pi))
        off = float(rng.uniform(0.0, 25.0))
        off_a = float(rng.uniform(0, 2 * math.pi))
        fill = float(rng.uniform(0.78, 0.95))
        felts = ((45, 115, 35), (140, 70, 30), (40, 40, 150), (95, 95, 95), (150, 185, 200), (70, 40, 110),
                 (30, 30, 30), (60, 130, 120))
        felt = _jit(felts[int(rng.integers(len(felts)))], rng, 10)
        rim = _pick(((40, 75, 120), (25, 25, 25), (200, 200, 200), (60, 100, 150), (90, 50, 20)), rng)
        table_kind = str(rng.choice(["wood", "cloth", "plain"], p=[0.45, 0.3, 0.25]))
        table = _pick(((80, 130, 175), (50, 80, 110), (180, 180, 175), (130, 150, 160), (60, 60, 150)), rng)
        table2 = _pick(((240, 240, 240), (40, 40, 40), (30, 100, 180), (120, 60, 40)), rng)
        la = float(rng.uniform(0, 2 * math.pi))
        elev = float(rng.uniform(math.radians(35), math.radians(70)))
        dist = float(rng.uniform(500.0, 1100.0))
        lamp = (dist * math.cos(la) * math.cos(elev), dist * math.sin(la) * math.cos(elev), dist * math.sin(elev))
        warm = float(rng.uniform(-0.08, 0.08))
        scene = cls(
                width=width,
                height=height,
                fps=fps,
                cam_h=cam_h,
                cam_x=off * math.cos(off_a),
                cam_y=off * math.sin(off_a),
                yaw=yaw,
                tilt_x=math.radians(float(rng.normal(0, 1.2))),
                tilt_y=math.radians(float(rng.normal(0, 1.2))),
                k1=float(rng.uniform(-0.06, 0.06)),
                focal=1.0,
                cx=width / 2 + float(rng.normal(0, width * 0.015)),
                cy=height / 2 + float(rng.normal(0, height * 0.015)),
                tray_round=tray_round,
                tray_r=tray_r,
                tray_yaw=tray_yaw,
                rim_w=rim_w,
                felt_bgr=felt,
                felt_fuzz=float(rng.uniform(0.5, 1.5)),
                rim_bgr=rim,
                table_kind=table_kind,
                table_bgr=table,
                table_bgr2=table2,
                lamp=lamp,
                lamp_r=float(rng.uniform(15.0, 60.0)),
                ambient=float(rng.uniform(0.3, 0.5)),
                warmth=(1.0 - warm, 1.0, 1.0 + warm),
                vignette=float(rng.uniform(0.1, 0.35)),
                exposure_amp=float(rng.uniform(0.02, 0.07)),
                exposure_period_s=float(rng.uniform(6.0, 25.0)),
                exposure_s=float(rng.uniform(1 / 400, 1 / max(fps, 60.0))),
                blur_sigma=float(rng.uniform(0.3, 0.9)),
                noise_read=float(rng.uniform(1.0, 3.5)),
                noise_shot=float(rng.uniform(0.15, 0.45)),
                jpeg_quality=int(rng.integers(55, 90)),
                frame_jitter_s=float(rng.uniform(0.0, 0.0006)),
                dropped_frames=int(rng.choice([0, 0, 1, 2])),
                seed=seed,
            )
        scene = replace(scene, focal=scene.fitting_focal(fill))
        length_px = dreidel_len_mm * scene.focal / cam_h
        scale = float(np.clip(length_px, 48.0, 140.0)) / length_px
        return scene, scale

    # -- the camera -------------------------------------------------------------------------
    def cam_to_world(self) -> np.ndarray:
        """Rotation taking camera axes (x right, y down, z forward) to tray axes (z up)."""
        base = np.array([[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, -1.0]])
        return _rz(self.yaw) @ _rx(self.tilt_x) @ _ry(self.tilt_y) @ base

    @property
    def origin(self) -> np.ndarray:
        return np.array([self.cam_x, self.cam_y, self.cam_h])

    def ray_dirs(self) -> np.ndarray:
        """Unit ray direction (tray axes) through every pixel centre: H x W x 3 float64."""
        v, u = np.mgrid[0 : self.height, 0 : self.width].astype(np.float64)
        xd = (u + 0.5 - self.cx) / self.focal
        yd = (v + 0.5 - self.cy) / self.focal
        k = 1.0 + self.k1 * (xd * xd + yd * yd)
        d = np.stack([xd * k, yd * k, np.ones_like(xd)], axis=-1) @ self.cam_to_world().T
        return d / np.linalg.norm(d, axis=-1, keepdims=True)

    def project(self, pts: np.ndarray) -> np.ndarray:
        """Tray points (N x 3, mm) -> pixel coordinates (N x 2), with the lens distortion."""
        pc = (np.atleast_2d(pts) - self.origin) @ self.cam_to_world()
        xu = pc[:, 0] / pc[:, 2]
        yu = pc[:, 1] / pc[:, 2]
        xd, yd = xu.copy(), yu.copy()
        for _ in range(8):
            k = 1.0 + self.k1 * (xd * xd + yd * yd)
            xd, yd = xu / k, yu / k
        return np.stack([self.cx + self.focal * xd - 0.5, self.cy + self.focal * yd - 0.5], axis=1)

    def rim_outline(self) -> np.ndarray:
        """The outer edge of the tray's rim (N x 3 tray points)."""
        r = self.tray_r + self.rim_w
        if self.tray_round:
            a = np.linspace(0, 2 * math.pi, 72, endpoint=False)
            return np.stack([r * np.cos(a), r * np.sin(a), np.zeros_like(a)], axis=1)
        s = np.linspace(-r, r, 17)
        sq = np.concatenate([np.stack([s, np.full_like(s, r)], 1), np.stack([s, np.full_like(s, -r)], 1),
                             np.stack([np.full_like(s, r), s], 1), np.stack([np.full_like(s, -r), s], 1)])
        c, sn = math.cos(self.tray_yaw), math.sin(self.tray_yaw)
        xy = sq @ np.array([[c, sn], [-sn, c]])
        return np.concatenate([xy, np.zeros((len(xy), 1))], axis=1)

    def fitting_focal(self, fill: float) -> float:
        """The focal length (px) at which the whole tray spans ``fill`` of the picture's tighter side."""
        pc = (self.rim_outline() - self.origin) @ self.cam_to_world()
        xu, yu = pc[:, 0] / pc[:, 2], pc[:, 1] / pc[:, 2]
        room_x = np.where(xu > 0, self.width - self.cx, self.cx) / np.maximum(np.abs(xu), 1e-9)
        room_y = np.where(yu > 0, self.height - self.cy, self.cy) / np.maximum(np.abs(yu), 1e-9)
        return float(fill * min(room_x.min(), room_y.min()))

    def px_per_mm(self) -> float:
        return self.focal / self.cam_h

    # -- the tray ---------------------------------------------------------------------------
    def inside_tray(self, x: float, y: float) -> bool:
        """Is the tray point (mm) on the felt?"""
        if self.tray_round:
            return math.hypot(x, y) <= self.tray_r
        c, s = math.cos(-self.tray_yaw), math.sin(-self.tray_yaw)
        return max(abs(c * x - s * y), abs(s * x + c * y)) <= self.tray_r


def _rz(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _rx(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def _ry(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


#: letter colours a maker would choose from, dark to light
_LETTER_CHOICES: tuple[tuple[int, int, int], ...] = ((20, 20, 20), (40, 30, 120), (30, 30, 140), (240, 240, 240),
                                                     (60, 220, 255))


def _luma(bgr: tuple[int, int, int]) -> float:
    return 0.114 * bgr[0] + 0.587 * bgr[1] + 0.299 * bgr[2]


def _readable(letter: tuple[int, int, int], faces: tuple[tuple[int, int, int], ...]) -> tuple[int, int, int]:
    """``letter`` if it stands out in brightness from every face it is printed on, else the choice that
    stands out most (a maker does not print yellow on yellow). Draws no random numbers, so a dreidel
    whose colours were fine is unchanged."""

    def margin(c: tuple[int, int, int]) -> float:
        return min(abs(_luma(c) - _luma(f)) for f in faces)

    if margin(letter) >= 60.0:
        return letter
    return max(_LETTER_CHOICES, key=margin)


def _jit(bgr: tuple[int, int, int], rng: np.random.Generator, amount: int) -> tuple[int, int, int]:
    c = np.clip(np.array(bgr) + rng.integers(-amount, amount + 1, 3), 0, 255)
    return (int(c[0]), int(c[1]), int(c[2]))


def _pick(options: tuple[tuple[int, int, int], ...], rng: np.random.Generator) -> tuple[int, int, int]:
    return options[int(rng.integers(len(options)))]
