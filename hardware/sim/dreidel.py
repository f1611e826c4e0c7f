"""What a simulated dreidel looks like and how it behaves: its style.

A :class:`DreidelStyle` fixes the body (size, tip, handle), the material and colours, the font and
colour of the letters, whether it is a Pe set (made in Israel), its bias (how likely each letter is
to land up) and the physical constants of its spin. Styles are plain frozen dataclasses: a preset by
name (:func:`style_named`) or a random one from a seed (:func:`random_style`), so that the vision
code is tested against many dreidels, not one.

Face textures are drawn once per style with Pillow from real Hebrew fonts found on the machine
(:class:`HebrewFonts`), then warped onto the faces by the renderer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from controller.rules.letters import Letter

#: where Debian puts the Hebrew fonts that scripts/install-system-deps.sh installs
FONT_DIRS: tuple[str, ...] = (
    "/usr/share/fonts/truetype/culmus",
    "/usr/share/fonts/opentype/culmus",
    "/usr/share/fonts/truetype/dejavu",
    "/usr/share/fonts/truetype/freefont",
    "/usr/share/fonts/truetype/noto",
    "/usr/share/fonts/truetype/ezra",
)

#: faces in order around the body, as on a traditional dreidel
DIASPORA_LETTERS: tuple[Letter, ...] = (Letter.NUN, Letter.GIMEL, Letter.HEY, Letter.SHIN)
ISRAELI_LETTERS: tuple[Letter, ...] = (Letter.NUN, Letter.GIMEL, Letter.HEY, Letter.PE)


class SimFontError(RuntimeError):
    """No usable Hebrew font was found (install the packages in scripts/install-system-deps.sh)."""


class Material(StrEnum):
    """The body's surface: it decides the texture and how shiny the faces are."""

    WOOD = "wood"
    PLASTIC = "plastic"
    PAINTED = "painted"


class TipShape(StrEnum):
    """The bottom of the body: a four-sided pyramid or a rounded cone."""

    PYRAMID = "pyramid"
    ROUNDED = "rounded"


class HebrewFonts:
    """The TrueType/OpenType fonts on this machine that really draw the dreidel letters.

    A font is kept only when every one of נ ג ה ש פ renders as a glyph different from the font's
    "missing glyph" box, so a Latin-only font can never slip in and draw squares.
    """

    def __init__(self, dirs: tuple[str, ...] = FONT_DIRS) -> None:
        self.dirs = dirs
        self.paths: tuple[str, ...] = _scan_fonts(dirs)

    def require(self) -> tuple[str, ...]:
        """The usable font paths, or :class:`SimFontError` saying what to install."""
        if not self.paths:
            raise SimFontError(
                "no Hebrew font found in " + ", ".join(self.dirs) + ": run scripts/install-system-deps.sh "
                "(it installs culmus, fonts-dejavu-core, fonts-freefont-ttf, fonts-noto-core)"
            )
        return self.paths


@lru_cache(maxsize=4)
def _scan_fonts(dirs: tuple[str, ...]) -> tuple[str, ...]:
    found: list[str] = []
    for d in dirs:
        base = Path(d)
        if not base.is_dir():
            continue
        for p in sorted(base.iterdir()):
            # Rashi script is never printed on dreidels
            if p.suffix.lower() in (".ttf", ".otf") and "Rashi" not in p.name and _draws_hebrew(str(p)):
                found.append(str(p))
    return tuple(found)


def _draws_hebrew(path: str) -> bool:
    try:
        font = ImageFont.truetype(path, 48)
        missing = _mask_bytes(font, "\uffff")
        for letter in Letter:
            got = _mask_bytes(font, letter.hebrew)
            if not got or got == missing:
                return False
    except OSError:
        return False
    return True


def _mask_bytes(font: ImageFont.FreeTypeFont, char: str) -> bytes:
    img = Image.new("L", (96, 96))
    ImageDraw.Draw(img).text((12, 12), char, font=font, fill=255)
    pixels = np.asarray(img)
    return pixels.tobytes() if pixels.any() else b""


@dataclass(frozen=True)
class DreidelStyle:
    """Everything that makes one dreidel look and spin the way it does.

    Lengths are in millimetres, colours are BGR 0-255. ``bias`` gives the relative chance of each
    face landing up (equal for a fair dreidel). ``sleep_threshold_rev_s`` is the spin rate below
    which the upright "sleeping" top becomes unstable (the heavy top's 2*sqrt(I1*m*g*l)/I3).
    """

    name: str
    body_mm: float = 24.0
    body_h_mm: float = 24.0
    tip_mm: float = 11.0
    tip_shape: TipShape = TipShape.PYRAMID
    handle_mm: float = 16.0
    handle_r_mm: float = 3.2
    material: Material = Material.WOOD
    body_bgr: tuple[int, int, int] = (95, 160, 205)
    handle_bgr: tuple[int, int, int] = (85, 150, 195)
    letter_bgr: tuple[int, int, int] = (30, 30, 40)
    face_bgrs: tuple[tuple[int, int, int], ...] = ()
    font_path: str = ""
    letter_scale: float = 0.72
    letter_outline: bool = False
    face_border: bool = False
    wear: float = 0.0  # 0 new .. 0.7: the paint of the letters rubbed off in patches
    pe_set: bool = False
    bias: tuple[float, float, float, float] = (1.0, 1.0, 1.0, 1.0)
    gloss: float = 0.05
    sleep_threshold_rev_s: float = 6.5
    spin_decay_rev_s2: float = 0.9
    spin_decay_per_s: float = 0.07
    texture_seed: int = 0

    @property
    def letters(self) -> tuple[Letter, ...]:
        """The letters on faces 0..3, in order around the body."""
        return ISRAELI_LETTERS if self.pe_set else DIASPORA_LETTERS

    @property
    def length_mm(self) -> float:
        """Tip to handle end."""
        return self.tip_mm + self.body_h_mm + self.handle_mm

    def letter_probabilities(self) -> dict[Letter, float]:
        """The chance of each letter landing up (the bias, normalised)."""
        total = float(sum(self.bias))
        return {letter: w / total for letter, w in zip(self.letters, self.bias, strict=True)}

    def validate(self) -> DreidelStyle:
        """Raise ``ValueError`` naming the field when the style cannot be a real dreidel."""
        if not 8.0 <= self.body_mm <= 80.0:
            raise ValueError(f"body_mm={self.body_mm}: a dreidel body is 8-80 mm across")
        if not 6.0 <= self.body_h_mm <= 90.0:
            raise ValueError(f"body_h_mm={self.body_h_mm}: a dreidel body is 6-90 mm tall")
        if self.tip_mm <= 1.0 or self.handle_mm <= 1.0 or self.handle_r_mm <= 0.5:
            raise ValueError("tip_mm, handle_mm and handle_r_mm must be positive (a real tip and handle)")
        if self.handle_r_mm >= self.body_mm / 2:
            raise ValueError(f"handle_r_mm={self.handle_r_mm} is wider than the body ({self.body_mm} mm)")
        if len(self.bias) != 4 or min(self.bias) < 0 or sum(self.bias) <= 0:
            raise ValueError(f"bias={self.bias}: four non-negative weights, not all zero")
        if not 0.2 <= self.letter_scale <= 0.95:
            raise ValueError(f"letter_scale={self.letter_scale}: 0.2-0.95 of the face")
        if not 1.0 <= self.sleep_threshold_rev_s <= 30.0:
            raise ValueError(f"sleep_threshold_rev_s={self.sleep_threshold_rev_s}: 1-30 rev/s")
        if not 0.0 <= self.wear <= 0.7:
            raise ValueError(f"wear={self.wear}: 0 (new) to 0.7 (much rubbed off)")
        if not self.font_path:
            raise ValueError("font_path is empty: choose a Hebrew font (HebrewFonts().require())")
        return self


#: The biased old wooden dreidel of the published count: 302 Nun and 109 Gimel in 800 spins
#: (the remaining 389 split evenly between Hey and Shin, which the count did not separate).
OLD_WOODEN_BIAS: tuple[float, float, float, float] = (302.0, 109.0, 194.5, 194.5)

_WOOD_COLOURS: tuple[tuple[int, int, int], ...] = (
    (95, 160, 205),
    (70, 125, 175),
    (120, 180, 215),
    (55, 95, 140),
)
_PLASTIC_COLOURS: tuple[tuple[int, int, int], ...] = (
    (200, 60, 30),
    (40, 40, 200),
    (40, 160, 40),
    (30, 180, 230),
    (160, 40, 140),
    (220, 220, 220),
    (60, 60, 60),
    (20, 120, 230),
)
_PAINT_COLOURS: tuple[tuple[int, int, int], ...] = (
    (60, 60, 210),
    (200, 120, 40),
    (50, 170, 230),
    (90, 170, 60),
    (170, 80, 150),
    (230, 230, 240),
)

PRESET_NAMES: tuple[str, ...] = ("wood", "plastic", "painted", "israeli", "old_wood", "big_wood")


def style_named(name: str, fonts: HebrewFonts | None = None) -> DreidelStyle:
    """A preset style by name (see :data:`PRESET_NAMES`), or ``ValueError`` listing them."""
    paths = (fonts or HebrewFonts()).require()

    def font(*prefer: str) -> str:
        for want in prefer:
            for p in paths:
                if Path(p).name.startswith(want):
                    return p
        return paths[0]

    presets: dict[str, DreidelStyle] = {
        "wood": DreidelStyle(
            name="wood",
            font_path=font("FrankRuehlCLM-Bold", "DavidCLM-Bold", "NotoSerifHebrew-Bold"),
            letter_bgr=(25, 25, 35),
        ),
        "plastic": DreidelStyle(
            name="plastic",
            body_mm=20.0,
            body_h_mm=21.0,
            tip_mm=9.0,
            tip_shape=TipShape.ROUNDED,
            handle_mm=14.0,
            handle_r_mm=2.6,
            material=Material.PLASTIC,
            body_bgr=(40, 40, 200),
            handle_bgr=(40, 40, 200),
            letter_bgr=(60, 210, 235),
            font_path=font("NotoSansHebrew-Bold", "SimpleCLM-Bold", "DejaVuSans-Bold"),
            letter_outline=True,
            gloss=0.35,
            sleep_threshold_rev_s=7.5,
        ),
        "painted": DreidelStyle(
            name="painted",
            material=Material.PAINTED,
            body_bgr=(60, 60, 210),
            handle_bgr=(40, 150, 220),
            letter_bgr=(245, 245, 250),
            face_bgrs=((60, 60, 210), (200, 120, 40), (50, 170, 230), (90, 170, 60)),
            font_path=font("HadasimCLM-Bold", "MiriamCLM-Bold", "DejaVuSans-Bold"),
            face_border=True,
            gloss=0.15,
        ),
        "israeli": DreidelStyle(
            name="israeli",
            body_mm=22.0,
            body_h_mm=22.0,
            material=Material.PLASTIC,
            body_bgr=(220, 220, 225),
            handle_bgr=(200, 90, 30),
            letter_bgr=(170, 60, 20),
            font_path=font("NachlieliCLM-Bold", "NotoSansHebrew-Bold"),
            pe_set=True,
            gloss=0.3,
        ),
        "old_wood": DreidelStyle(
            name="old_wood",
            body_mm=26.0,
            body_h_mm=27.0,
            tip_mm=12.0,
            body_bgr=(55, 95, 140),
            handle_bgr=(50, 90, 130),
            letter_bgr=(20, 20, 25),
            font_path=font("KeterYG-Bold", "StamAshkenazCLM", "FrankRuehlCLM-Bold"),
            bias=OLD_WOODEN_BIAS,
            sleep_threshold_rev_s=7.0,
            wear=0.45,
        ),
        "big_wood": DreidelStyle(
            name="big_wood",
            body_mm=40.0,
            body_h_mm=42.0,
            tip_mm=18.0,
            handle_mm=26.0,
            handle_r_mm=5.0,
            body_bgr=(120, 180, 215),
            handle_bgr=(110, 170, 205),
            letter_bgr=(40, 40, 160),
            font_path=font("DavidCLM-Bold", "FrankRuehlCLM-Bold"),
            letter_scale=0.68,
            sleep_threshold_rev_s=5.5,
        ),
    }
    if name not in presets:
        raise ValueError(f"unknown dreidel style {name!r}: expected one of {', '.join(PRESET_NAMES)} or 'random'")
    return presets[name]


def random_style(seed: int, fonts: HebrewFonts | None = None) -> DreidelStyle:
    """A varied, plausible dreidel drawn from ``seed``: material, colours, font, size, tip, Pe or not."""
    rng = np.random.default_rng([seed, 0xD2E1])
    paths = (fonts or HebrewFonts()).require()
    material = Material(rng.choice([m.value for m in Material], p=[0.45, 0.3, 0.25]))
    body = float(rng.uniform(17.0, 36.0))
    if material is Material.WOOD:
        body_bgr = _jitter(_WOOD_COLOURS[int(rng.integers(len(_WOOD_COLOURS)))], rng, 15)
        handle_bgr = _jitter(body_bgr, rng, 10)
        dark = (int(rng.integers(10, 40)), int(rng.integers(10, 40)), int(rng.integers(10, 60)))
        letter_bgr = dark if rng.random() < 0.7 else (30, 30, int(rng.integers(120, 190)))
        if abs(_luma(letter_bgr) - _luma(body_bgr)) < 50:
            letter_bgr = dark  # red on dark wood would barely show; such dreidels use black
        face_bgrs: tuple[tuple[int, int, int], ...] = ()
    elif material is Material.PLASTIC:
        body_bgr = _jitter(_PLASTIC_COLOURS[int(rng.integers(len(_PLASTIC_COLOURS)))], rng, 20)
        handle_bgr = body_bgr if rng.random() < 0.7 else _jitter(_PLASTIC_COLOURS[int(rng.integers(8))], rng, 20)
        letter_bgr = _contrasting(body_bgr, rng)
        face_bgrs = ()
    else:
        letter_bgr = (245, 245, 245) if rng.random() < 0.6 else (25, 25, 25)
        # a painter keeps the letters readable: only face colours that stand off the letter colour
        usable = [c for c in _PAINT_COLOURS if abs(_luma(c) - _luma(letter_bgr)) > 70]
        order = rng.permutation(len(usable))
        face_bgrs = tuple(_jitter(usable[i % len(usable)], rng, 15) for i in order[:4])
        if len(face_bgrs) < 4:
            face_bgrs = face_bgrs + face_bgrs[: 4 - len(face_bgrs)]
        body_bgr = face_bgrs[0]
        handle_bgr = _jitter(_PAINT_COLOURS[int(rng.integers(len(_PAINT_COLOURS)))], rng, 15)
    pe = bool(rng.random() < 0.3)
    if rng.random() < 0.25:
        bias = tuple(float(b) for b in rng.dirichlet([6.0, 6.0, 6.0, 6.0]) * 4.0)
    else:
        bias = (1.0, 1.0, 1.0, 1.0)
    style = DreidelStyle(
        name=f"random-{seed}",
        body_mm=body,
        body_h_mm=body * float(rng.uniform(0.9, 1.25)),
        tip_mm=body * float(rng.uniform(0.35, 0.6)),
        tip_shape=TipShape.ROUNDED if rng.random() < 0.3 else TipShape.PYRAMID,
        handle_mm=body * float(rng.uniform(0.5, 0.85)),
        handle_r_mm=body * float(rng.uniform(0.09, 0.15)),
        material=material,
        body_bgr=body_bgr,
        handle_bgr=handle_bgr,
        letter_bgr=letter_bgr,
        face_bgrs=face_bgrs,
        font_path=paths[int(rng.integers(len(paths)))],
        letter_scale=float(rng.uniform(0.55, 0.82)),
        letter_outline=bool(material is Material.PLASTIC and rng.random() < 0.5),
        wear=float(rng.uniform(0.2, 0.6)) if material is not Material.PLASTIC and rng.random() < 0.3 else 0.0,
        face_border=bool(rng.random() < 0.3),
        pe_set=pe,
        bias=(bias[0], bias[1], bias[2], bias[3]),
        gloss={Material.WOOD: 0.05, Material.PLASTIC: 0.35, Material.PAINTED: 0.15}[material],
        sleep_threshold_rev_s=float(rng.uniform(5.5, 8.0)),
        spin_decay_rev_s2=float(rng.uniform(0.6, 1.2)),
        spin_decay_per_s=float(rng.uniform(0.04, 0.1)),
        texture_seed=int(rng.integers(1 << 30)),
    )
    return style.validate()


def resolve_style(style: str | DreidelStyle | None, seed: int) -> DreidelStyle:
    """A style from a preset name, ``"random"``/None (drawn from ``seed``), or a style object."""
    if isinstance(style, DreidelStyle):
        return style.validate()
    if style is None or style == "random":
        return random_style(seed)
    return style_named(style).validate()


def with_bias(style: DreidelStyle, bias: tuple[float, float, float, float]) -> DreidelStyle:
    """The same dreidel with another bias."""
    return replace(style, bias=bias).validate()


def _jitter(bgr: tuple[int, int, int], rng: np.random.Generator, amount: int) -> tuple[int, int, int]:
    c = np.clip(np.array(bgr) + rng.integers(-amount, amount + 1, 3), 0, 255)
    return (int(c[0]), int(c[1]), int(c[2]))


def _luma(bgr: tuple[int, int, int]) -> float:
    return 0.114 * bgr[0] + 0.587 * bgr[1] + 0.299 * bgr[2]


def _contrasting(bgr: tuple[int, int, int], rng: np.random.Generator) -> tuple[int, int, int]:
    lum = 0.114 * bgr[0] + 0.587 * bgr[1] + 0.299 * bgr[2]
    if lum > 140:
        return (int(rng.integers(10, 60)), int(rng.integers(10, 60)), int(rng.integers(10, 90)))
    golds = ((60, 200, 240), (240, 240, 240), (40, 215, 255))
    return golds[int(rng.integers(len(golds)))]


# -- face textures -------------------------------------------------------------------------------

#: texture pixels per millimetre of face: enough for a sharp letter at any camera distance we render
TEXTURE_PX_PER_MM = 7.0


@lru_cache(maxsize=32)
def face_textures(style: DreidelStyle) -> tuple[np.ndarray, ...]:
    """The four side-face pictures (BGR uint8), face k carrying ``style.letters[k]`` upright.

    Row 0 is the handle end of the face, so a letter reads upright with the handle up.
    """
    w = max(48, int(round(style.body_mm * TEXTURE_PX_PER_MM)))
    h = max(48, int(round(style.body_h_mm * TEXTURE_PX_PER_MM)))
    rng = np.random.default_rng([style.texture_seed, 0xFACE])
    faces = []
    font_px = int(min(w, h) * style.letter_scale)
    font = ImageFont.truetype(style.font_path, max(12, font_px))
    for k, letter in enumerate(style.letters):
        base_bgr = style.face_bgrs[k] if style.face_bgrs else style.body_bgr
        base = material_texture(style.material, base_bgr, w, h, rng)
        img = Image.fromarray(base[:, :, ::-1].copy())
        draw = ImageDraw.Draw(img)
        if style.face_border:
            inset = max(2, int(0.06 * min(w, h)))
            draw.rectangle(
                (inset, inset, w - 1 - inset, h - 1 - inset),
                outline=tuple(int(c) for c in style.letter_bgr[::-1]),
                width=max(1, int(0.025 * min(w, h))),
            )
        _draw_letter(draw, font, letter.hebrew, w, h, style, rng)
        face = np.asarray(img)[:, :, ::-1].astype(np.float32)
        if style.wear > 0:
            # rubbed-off paint: blotches where the bare material shows through the ink
            blot = cv2.resize(rng.random((h // 10 + 2, w // 10 + 2)).astype(np.float32), (w, h),
                              interpolation=cv2.INTER_CUBIC)
            worn = np.clip((blot - (1.0 - style.wear)) / max(style.wear, 1e-3), 0.0, 1.0)[:, :, None]
            face = face * (1.0 - worn) + base.astype(np.float32) * worn
        faces.append(np.ascontiguousarray(np.clip(face, 0, 255).astype(np.uint8)))
    return tuple(faces)


def _draw_letter(
    draw: ImageDraw.ImageDraw,
    font: ImageFont.FreeTypeFont,
    char: str,
    w: int,
    h: int,
    style: DreidelStyle,
    rng: np.random.Generator,
) -> None:
    # Size and centre the glyph by its ink (not its em box): Hebrew fonts differ a lot in both.
    left, top, right, bottom = draw.textbbox((0, 0), char, font=font)
    ink = max(right - left, bottom - top, 1)
    want = style.letter_scale * min(w, h)
    font = font.font_variant(size=max(10, int(round(font.size * want / ink))))
    left, top, right, bottom = draw.textbbox((0, 0), char, font=font)
    gw, gh = right - left, bottom - top
    jx, jy = rng.normal(0.0, 0.015 * w), rng.normal(0.0, 0.015 * h)
    x = (w - gw) / 2 - left + jx
    y = (h - gh) / 2 - top + jy
    fill = tuple(int(c) for c in style.letter_bgr[::-1])
    if style.letter_outline:
        lum = 0.114 * style.letter_bgr[0] + 0.587 * style.letter_bgr[1] + 0.299 * style.letter_bgr[2]
        stroke = (20, 20, 20) if lum > 128 else (235, 235, 235)
        draw.text((x, y), char, font=font, fill=fill, stroke_width=max(1, w // 60), stroke_fill=stroke)
    else:
        draw.text((x, y), char, font=font, fill=fill)


def material_texture(
    material: Material, bgr: tuple[int, int, int], w: int, h: int, rng: np.random.Generator
) -> np.ndarray:
    """A ``h`` x ``w`` BGR picture of the bare material: wood grain, smooth plastic or brushed paint."""
    base = np.array(bgr, dtype=np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if material is Material.WOOD:
        # Grain runs along the body's axis (rows), with slow waviness and a few darker rings.
        wav = 6.0 * np.sin(yy / h * math.pi * rng.uniform(0.8, 2.0) + rng.uniform(0, 6.28))
        freq = rng.uniform(0.18, 0.35)
        grain = np.sin((xx + wav) * freq + rng.uniform(0, 6.28)) * 0.5 + 0.5
        grain = grain**3
        fine = rng.normal(0.0, 1.0, (h, w)).astype(np.float32)
        fine = np.cumsum(fine, axis=0) / math.sqrt(h)
        shade = 1.0 - 0.16 * grain + 0.03 * fine
    elif material is Material.PLASTIC:
        shade = 1.0 + 0.015 * rng.normal(0.0, 1.0, (h, w)).astype(np.float32)
    else:
        streak = rng.normal(0.0, 1.0, (1, w)).astype(np.float32).repeat(h, axis=0)
        shade = 1.0 + 0.03 * streak + 0.02 * rng.normal(0.0, 1.0, (h, w)).astype(np.float32)
    img = base[None, None, :] * shade[:, :, None]
    return np.clip(img, 0, 255).astype(np.uint8)


def letter_for_face(style: DreidelStyle, face: int) -> Letter:
    """The letter printed on face ``face`` (0..3)."""
    return style.letters[face % 4]


def face_of_letter(style: DreidelStyle, letter: Letter) -> int:
    """The face index carrying ``letter`` on this dreidel; ``ValueError`` when it has none (Pe vs Shin)."""
    if letter not in style.letters:
        have = ", ".join(v.value for v in style.letters)
        raise ValueError(f"this dreidel ({style.name}) has no {letter.value}: its faces are {have}")
    return style.letters.index(letter)
