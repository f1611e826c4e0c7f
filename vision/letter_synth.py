"""Synthetic overhead stills of a dreidel at rest, for the letter model's training data and for tests.

This is the recognizer's *own* renderer, written independently of the digital twin's
(``hardware/sim``), so that the twin's stills stay an honest held-out test of the generic model.
It varies what a real table varies: fonts (every installed Hebrew font), body and letter colours,
dreidel proportions, size (40-150 px long), the tilt that foreshortens the up face and shows a
sliver of the next face, lighting gradients, highlights, shadows, felt texture, sensor noise,
blur and JPEG compression.

A :class:`DreidelStyle` is one physical dreidel (font, colours, proportions); ``render_still``
draws that dreidel lying at a random place and angle with a chosen letter up. Enrollment is
simulated by rendering a few stills of one style.
"""

from __future__ import annotations

import functools
import glob
import math
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from controller.rules.letters import Letter

#: font families never used to train the generic model: they calibrate it, and benchmark it, on unseen fonts
HELD_OUT_FAMILIES = ("Nachlieli", "FreeSerif", "Yehuda", "StamSefarad", "NotoSansHebrew", "Shofar")

#: Folders of the Debian packages culmus-fancy and fonts-ldco: decorative Hebrew fonts that only the letter model's
#: build trains on (``extra_training_fonts``). ``hebrew_fonts`` leaves them out, so that installing them changes
#: no test's, benchmark's or simulator's dreidel.
EXTRA_FONT_DIRS = ("culmus-fancy", "ldco")
#: The print-like faces among them that a dreidel maker might letter a dreidel with: block, serif, rounded,
#: stencil-free and not handwritten (KtavYad, Anka, Dorian's italic, YamSuf and the like are left out; so are the
#: stroke and outline novelties of ldco: Sticks, Neo, Hidekel, Kimchi, Miso, Lilach, PatchStencil).
EXTRA_TRAINING_FAMILIES = ("Gladia", "Hillel", "Ozrad", "Trashim", "Gan", "ComixNo2", "DorianCLM-Book.",
                           "KeterAramTsova", "MakabiYG", "Shmulik", "TaameyAshkenaz", "TaameyDavid", "TaameyFrank",
                           "Daniel", "Noam", "ECO", "HarSinai", "PatchSans", "PatchSerif", "Journal", "Horev")

#: How often a worn dreidel is drawn (``DreidelStyle.random_worn``, the build's worn calibration stills) and how
#: worn: as the digital twin wears its wooden and painted dreidels
WORN_SHARE = 0.3
WORN_RANGE = (0.2, 0.6)

#: Code points that no Hebrew font draws as a real glyph; used to spot fonts that only draw ".notdef".
_PROBE_MISSING = "\uffff"


@functools.lru_cache(maxsize=1)
def hebrew_fonts() -> tuple[str, ...]:
    """Paths of installed fonts that really draw all five dreidel letters (sorted, stable).

    Asks fontconfig (``fc-list :lang=he``) and falls back to the Debian font folders; every
    candidate is checked by drawing the letters, because some fonts claim Hebrew coverage but
    draw the ".notdef" box.
    """
    candidates: set[str] = set()
    if shutil.which("fc-list"):
        out = subprocess.run(
            ["fc-list", ":lang=he", "file"], capture_output=True, text=True, check=False
        ).stdout
        candidates.update(line.split(":")[0].strip() for line in out.splitlines() if line.strip())
    for pattern in ("/usr/share/fonts/truetype/*/*.[ot]tf", "/usr/share/fonts/opentype/*/*.otf",
                    "/usr/share/fonts/X11/Type1/*CLM*.pfa", "/usr/share/fonts/type1/*/*.pfa"):
        candidates.update(glob.glob(pattern))
    good = [path for path in sorted(candidates) if not _is_extra(path) and _draws_hebrew(path)]
    return tuple(good)


def _is_extra(path: str) -> bool:
    return any(f"/{folder}/" in path for folder in EXTRA_FONT_DIRS)


@functools.lru_cache(maxsize=1)
def extra_training_fonts() -> tuple[str, ...]:
    """The decorative fonts of ``EXTRA_TRAINING_FAMILIES`` that are installed (culmus-fancy, fonts-ldco), for
    the letter model's training only: more letter shapes than the everyday fonts, so that a dreidel in a font
    nobody trained on is read from what a Nun or a Gimel is, not from how the training fonts draw it. One file per
    face (a TrueType copy is preferred over a Type 1 or OpenType one of the same face)."""
    roots = ("/usr/share/fonts/truetype", "/usr/share/fonts/opentype", "/usr/share/fonts/type1")
    by_face: dict[str, str] = {}
    for root in roots:  # TrueType first: it wins a face's slot
        for folder in EXTRA_FONT_DIRS:
            for path in sorted(glob.glob(f"{root}/{folder}/*")):
                name = Path(path).name
                if (Path(path).suffix.lower() in (".ttf", ".otf", ".pfa")
                        and any(name.startswith(f) for f in EXTRA_TRAINING_FAMILIES)
                        and Path(path).stem not in by_face and _draws_hebrew(path)):
                    by_face[Path(path).stem] = path
    return tuple(sorted(by_face.values()))


def _draws_hebrew(path: str) -> bool:
    try:
        font = ImageFont.truetype(path, 40)
    except OSError:
        return False

    def ink(ch: str) -> np.ndarray:
        im = Image.new("L", (64, 64))
        ImageDraw.Draw(im).text((8, 4), ch, font=font, fill=255)
        return np.asarray(im)

    missing = ink(_PROBE_MISSING)
    for letter in Letter:
        glyph = ink(letter.hebrew)
        if glyph.sum() < 255 * 20 or np.array_equal(glyph, missing):
            return False
    return True


def font_family(path: str) -> str:
    """A font's family key (file stem without style), used to hold whole families out of training."""
    stem = Path(path).stem
    for cut in ("-", "Regular", "Bold", "Book", "Medium", "Light", "Demi", "Oblique", "Italic"):
        idx = stem.find(cut)
        if idx > 0:
            stem = stem[:idx]
    return stem.replace("CLM", "").replace("Condensed", "").replace("SR", "")


@dataclass(frozen=True)
class DreidelStyle:
    """One physical dreidel: its font, colours and proportions (in units of the face side)."""

    font: str
    body_bgr: tuple[int, int, int]
    letter_bgr: tuple[int, int, int]
    handle_bgr: tuple[int, int, int]
    body_len: float  # body length along the axis / face side
    tip_len: float  # tip length / face side
    tip_power: float  # tip profile exponent: <1 rounded, >1 pointed
    handle_len: float
    handle_width: float
    knob: bool
    glyph_height: float  # glyph height / face size
    outline: bool
    glossy: bool
    # Added for the CNN's training variety; the defaults draw exactly what the fields above draw.
    stroke: float = 0.0  # stroke weight change, in units of the face's side (+ bolder, - thinner)
    engraved: bool = False  # the letter is cut into the face (darker groove, lit edge) instead of painted
    grain: float = 0.0  # strength of a wood-grain texture on the face (0 = none)
    # Added for the unseen-renderer gap (session 7); the defaults again draw what the fields above draw.
    sheen: float = 0.0  # strength of a metal's specular band across the body (0 = none; 1 washes it to white)
    hollow: bool = False  # the letter is only its outline (a burned or painted contour on wood)
    soft: float = 0.0  # a hand-brushed letter: ragged, soft-edged strokes (edge noise, in units of the face's side)
    harsh: bool = False  # the scene is harder to read: steeper tilt, harder light, more blur and noise, lower JPEG
    # Added in session 15: rubbed-off paint, as on the digital twin's wooden and painted dreidels (0 = none).
    wear: float = 0.0  # 0 (new) to 0.7: blotches where the face shows through the letter's ink

    @classmethod
    def random(cls, rng: np.random.Generator, fonts: tuple[str, ...] | list[str]) -> DreidelStyle:
        """A random dreidel whose letter contrasts with its body."""
        if not fonts:
            raise ValueError("no Hebrew font available: install the packages in scripts/install-system-deps.sh")
        body = _random_body_colour(rng)
        letter = _contrasting_colour(rng, body, min_delta=38.0)
        handle = body if rng.random() < 0.6 else _random_body_colour(rng)
        return cls(
            font=str(fonts[int(rng.integers(len(fonts)))]),
            body_bgr=body,
            letter_bgr=letter,
            handle_bgr=handle,
            body_len=float(rng.uniform(0.95, 1.35)),
            tip_len=float(rng.uniform(0.45, 1.0)),
            tip_power=float(rng.uniform(0.7, 1.5)),
            handle_len=float(rng.uniform(0.55, 1.2)),
            handle_width=float(rng.uniform(0.14, 0.32)),
            knob=bool(rng.random() < 0.35),
            glyph_height=float(rng.uniform(0.55, 0.85)),
            outline=bool(rng.random() < 0.4),
            glossy=bool(rng.random() < 0.4),
        )

    @classmethod
    def random_varied(cls, rng: np.random.Generator, fonts: tuple[str, ...] | list[str]) -> DreidelStyle:
        """Like :meth:`random`, and also bolder strokes, engraved letters and wood grain."""
        base = cls.random(rng, fonts)
        # bolder only: thinning a light font erases thin strokes (a Gimel's foot) and mislabels it
        stroke = float(rng.uniform(0.01, 0.05)) if rng.random() < 0.3 else 0.0
        engraved = bool(rng.random() < 0.25)
        grain = float(rng.uniform(0.05, 0.25)) if rng.random() < 0.35 else 0.0
        letter = base.letter_bgr
        if engraved:  # a groove in the body's own material, darker (or, rarely, lighter) than the face
            f = rng.uniform(0.35, 0.7) if rng.random() < 0.85 else rng.uniform(1.3, 1.6)
            letter = tuple(int(np.clip(c * f, 0, 255)) for c in base.body_bgr)  # type: ignore[assignment]
        return cls(**{**base.__dict__, "stroke": stroke, "engraved": engraved, "grain": grain, "letter_bgr": letter})

    @classmethod
    def random_worn(cls, rng: np.random.Generator, fonts: tuple[str, ...] | list[str]) -> DreidelStyle:
        """Like :meth:`random_varied`, and on three dreidels in ten the paint rubbed off in blotches (wear
        0.2-0.6, as the digital twin draws its worn wooden and painted dreidels). A worn Nun can lose the join
        of its base and stem and show a foot like Gimel's: the network should learn that such a face is unsure,
        not that it is a Gimel. The varied dreidel's draws come first, so its look is what it would be."""
        base = cls.random_varied(rng, fonts)
        wear = float(rng.uniform(*WORN_RANGE)) if rng.random() < WORN_SHARE else 0.0
        return cls(**{**base.__dict__, "wear": wear})

    @classmethod
    def random_finished(cls, rng: np.random.Generator, fonts: tuple[str, ...] | list[str]) -> DreidelStyle:
        """Like :meth:`random_varied`, and also the finishes of a real dreidel set that the others lack.

        Drawn from what dreidels on sale look like, not from any benchmark's renderer: polished or
        plated metal (brass, silver, copper, pewter) whose specular band can wash most of the face out,
        with the letter printed in dark ink or engraved; low-contrast colour pairs (tone-on-tone
        paint, a faded print); letters only outlined (burned or painted contours on wood);
        hand-brushed letters with ragged, soft edges; and, on most of them, a harder scene (see
        ``harsh``)."""
        base = cls.random_varied(rng, fonts)
        kind = rng.choice(["metal", "faint", "outline", "brushed", "as_is"], p=[0.3, 0.2, 0.15, 0.2, 0.15])
        fields: dict[str, object] = {"harsh": bool(rng.random() < 0.6)}
        if kind == "metal":
            body = _metal_colour(rng)
            if rng.random() < 0.35:  # engraved into the metal: a darker groove of the same metal
                letter = tuple(int(c * rng.uniform(0.3, 0.65)) for c in body)
                fields.update(engraved=True)
            else:  # printed ink: dark, or a coloured enamel
                letter = (_hsv_to_bgr(rng.uniform(0, 1), rng.uniform(0, 0.8), rng.uniform(0.05, 0.35))
                          if rng.random() < 0.7 else _contrasting_colour(rng, body, min_delta=30.0))
                fields.update(engraved=False)
            fields.update(body_bgr=body, handle_bgr=body if rng.random() < 0.8 else base.handle_bgr,
                          letter_bgr=letter, grain=0.0, sheen=float(rng.uniform(0.3, 0.95)), glossy=False)
        elif kind == "faint":
            fields.update(letter_bgr=_near_colour(rng, base.body_bgr, float(rng.uniform(10.0, 28.0))),
                          engraved=False)
        elif kind == "outline":
            fields.update(hollow=True, stroke=0.0)
        elif kind == "brushed":
            fields.update(soft=float(rng.uniform(0.015, 0.05)), engraved=False)
        if rng.random() < 0.2:  # any finish may also catch a lamp's sheen (varnish, gloss paint)
            fields["sheen"] = max(float(fields.get("sheen", 0.0)), float(rng.uniform(0.2, 0.6)))  # type: ignore[arg-type]
        return cls(**{**base.__dict__, **fields})


@dataclass(frozen=True)
class SynthStill:
    """A rendered still and where things truly are in it (pixels, x right, y down)."""

    image: np.ndarray
    letter: Letter
    tip: tuple[float, float]
    handle: tuple[float, float]
    center: tuple[float, float]
    face_quad: np.ndarray  # 4x2, the visible up face
    length_px: float
    background: np.ndarray  # the same scene without the dreidel (an empty-tray model)


def _lab_of(bgr: tuple[int, int, int]) -> np.ndarray:
    px = np.array([[bgr]], dtype=np.uint8)
    return cv2.cvtColor(px, cv2.COLOR_BGR2LAB)[0, 0].astype(np.float32) * np.array([100 / 255, 1, 1], np.float32)


def _hsv_to_bgr(h: float, s: float, v: float) -> tuple[int, int, int]:
    px = np.array([[[h * 180 % 180, s * 255, v * 255]]], dtype=np.float32).astype(np.uint8)
    b, g, r = cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0]
    return int(b), int(g), int(r)


#: body palettes: kind -> (probability, hue, saturation and value ranges in 0-1)
_BODY_PALETTE: dict[str, tuple[float, tuple[float, float], tuple[float, float], tuple[float, float]]] = {
    "wood": (0.3, (0.05, 0.11), (0.35, 0.7), (0.45, 0.9)),
    "plastic": (0.4, (0.0, 1.0), (0.5, 1.0), (0.5, 1.0)),
    "metal": (0.1, (0.1, 0.16), (0.0, 0.5), (0.6, 0.9)),
    "dark": (0.1, (0.0, 1.0), (0.0, 0.6), (0.12, 0.3)),
    "light": (0.1, (0.0, 1.0), (0.0, 0.15), (0.85, 1.0)),
}
#: brass, gold, copper, silver or pewter under a table lamp
_METAL_PALETTE: dict[str, tuple[float, tuple[float, float], tuple[float, float], tuple[float, float]]] = {
    "brass": (0.4, (0.1, 0.15), (0.35, 0.75), (0.55, 0.95)),
    "copper": (0.15, (0.03, 0.08), (0.45, 0.75), (0.5, 0.9)),
    "silver": (0.3, (0.0, 1.0), (0.0, 0.08), (0.65, 0.95)),
    "pewter": (0.15, (0.5, 0.7), (0.0, 0.12), (0.4, 0.65)),
}


def _palette_colour(rng: np.random.Generator,
                    palette: dict[str, tuple[float, tuple[float, float], tuple[float, float], tuple[float, float]]]
                    ) -> tuple[int, int, int]:
    """A colour of a kind drawn from ``palette`` (kind first, then hue, saturation and value)."""
    kind = rng.choice(list(palette), p=[v[0] for v in palette.values()])
    _, h, sat, val = palette[str(kind)]
    return _hsv_to_bgr(rng.uniform(*h), rng.uniform(*sat), rng.uniform(*val))


def _random_body_colour(rng: np.random.Generator) -> tuple[int, int, int]:
    return _palette_colour(rng, _BODY_PALETTE)


def _metal_colour(rng: np.random.Generator) -> tuple[int, int, int]:
    """Brass, gold, copper, silver or pewter under a table lamp."""
    return _palette_colour(rng, _METAL_PALETTE)


def _near_colour(rng: np.random.Generator, against: tuple[int, int, int], delta: float) -> tuple[int, int, int]:
    """A colour about ``delta`` (CIE Lab) from ``against``: tone-on-tone paint or a faded print."""
    ref = _lab_of(against)
    best: tuple[int, int, int] = against
    best_err = float("inf")
    for _ in range(60):
        step = rng.normal(size=3) * np.array([1.0, 0.6, 0.6])
        lab = ref + step / (np.linalg.norm(step) + 1e-9) * delta
        px = np.clip(lab * np.array([255 / 100, 1, 1]), 0, 255).astype(np.uint8).reshape(1, 1, 3)
        b, g, r = cv2.cvtColor(px, cv2.COLOR_LAB2BGR)[0, 0]
        cand = (int(b), int(g), int(r))
        err = abs(float(np.linalg.norm(_lab_of(cand) - ref)) - delta)
        if err < best_err:
            best, best_err = cand, err
        if err < 2.0:
            break
    return best


def _contrasting_colour(rng: np.random.Generator, against: tuple[int, int, int], min_delta: float
                        ) -> tuple[int, int, int]:
    ref = _lab_of(against)
    best: tuple[int, int, int] = (0, 0, 0)
    best_d = -1.0
    for _ in range(40):
        v = rng.uniform(0, 1)
        cand = _hsv_to_bgr(rng.uniform(0, 1), rng.uniform(0, 1), v)
        d = float(np.linalg.norm(_lab_of(cand) - ref))
        if d >= min_delta:
            return cand
        if d > best_d:
            best, best_d = cand, d
    return best


def _felt(rng: np.random.Generator, dreidel: tuple[int, int, int]) -> tuple[int, int, int]:
    choices = [(0.33, 0.55, 0.45), (0.6, 0.6, 0.45), (0.98, 0.6, 0.4), (0.0, 0.0, 0.45), (0.0, 0.0, 0.15),
               (0.1, 0.25, 0.75), (0.45, 0.5, 0.35), (0.75, 0.4, 0.35)]
    ref = _lab_of(dreidel)
    for _ in range(30):
        h, s, v = choices[int(rng.integers(len(choices)))]
        cand = _hsv_to_bgr(h + rng.normal(0, 0.02), float(np.clip(s + rng.normal(0, 0.1), 0, 1)),
                           float(np.clip(v + rng.normal(0, 0.08), 0.05, 1)))
        if np.linalg.norm(_lab_of(cand) - ref) > 22:
            return cand
    return (40, 90, 40) if ref[0] > 50 else (170, 200, 200)


def _glyph_texture(style: DreidelStyle, letter: Letter, w: int, h: int, rng: np.random.Generator,
                   jitter: bool = True) -> np.ndarray:
    """A face texture (h x w x 3 uint8, letter upright: its top at row 0)."""
    img = Image.new("RGB", (w, h), style.body_bgr[::-1])
    size = max(6, int(style.glyph_height * min(w, h)))
    font = ImageFont.truetype(style.font, size)
    draw = ImageDraw.Draw(img)
    ch = letter.hebrew
    x0, y0, x1, y1 = draw.textbbox((0, 0), ch, font=font)
    gw, gh = x1 - x0, y1 - y0
    # Fit the glyph's ink box into the face whatever the font's metrics.
    scale = style.glyph_height * min(w / max(gw, 1), h / max(gh, 1))
    if abs(scale - 1) > 0.05:
        font = ImageFont.truetype(style.font, max(6, int(size * scale)))
        x0, y0, x1, y1 = draw.textbbox((0, 0), ch, font=font)
        gw, gh = x1 - x0, y1 - y0
    jx = rng.uniform(-0.05, 0.05) * w if jitter else 0.0
    jy = rng.uniform(-0.05, 0.05) * h if jitter else 0.0
    at = ((w - gw) / 2 - x0 + jx, (h - gh) / 2 - y0 + jy)
    if style.stroke == 0.0 and not style.engraved and style.grain == 0.0 and not style.hollow and style.soft == 0.0:
        draw.text(at, ch, font=font, fill=style.letter_bgr[::-1])
        out = np.asarray(img)[:, :, ::-1].copy()
    else:
        out = _varied_face(style, font, ch, at, w, h, rng)
    if style.wear > 0:
        out = _worn(out, style, rng)
    if jitter:
        angle = rng.uniform(-5, 5)
        m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
        out = cv2.warpAffine(out, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
    return out


def _worn(face: np.ndarray, style: DreidelStyle, rng: np.random.Generator) -> np.ndarray:
    """The face with its paint rubbed off in blotches: where a smooth random field is above ``1 - wear`` the
    body's colour shows instead of the ink (the digital twin's wear, hardware.sim.dreidel.face_textures)."""
    h, w = face.shape[:2]
    blot = cv2.resize(rng.random((h // 10 + 2, w // 10 + 2)).astype(np.float32), (w, h),
                      interpolation=cv2.INTER_CUBIC)
    worn = np.clip((blot - (1.0 - style.wear)) / max(style.wear, 1e-3), 0.0, 1.0)[:, :, None]
    body = np.array(style.body_bgr, np.float32)
    return np.clip(face.astype(np.float32) * (1.0 - worn) + body * worn, 0, 255).astype(np.uint8)


def _varied_face(style: DreidelStyle, font: ImageFont.FreeTypeFont, ch: str, at: tuple[float, float], w: int,
                 h: int, rng: np.random.Generator) -> np.ndarray:
    """A face with a bolder/thinner, engraved or painted letter on plain or wood-grained material (BGR)."""
    mask_img = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask_img).text(at, ch, font=font, fill=255)
    mask = np.asarray(mask_img).astype(np.float32) / 255.0
    k = int(round(abs(style.stroke) * min(w, h)))
    if k > 0:
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1))
        mask = cv2.dilate(mask, kernel) if style.stroke > 0 else cv2.erode(mask, kernel)
    if style.hollow:
        # only the glyph's contour: its ink minus the ink eroded by a line's width (at least 1 px)
        t = max(1, int(round(rng.uniform(0.025, 0.05) * min(w, h))))
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * t + 1, 2 * t + 1))
        mask = np.clip(mask - cv2.erode(mask, kernel), 0, 1)
    if style.soft > 0:
        # a brush: the stroke's edge wanders (smooth noise moves the ink's level set) and is soft
        amp = style.soft * min(w, h)
        cells = (max(2, h // 6), max(2, w // 6))
        dx = cv2.resize(rng.normal(0, amp, cells).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        dy = cv2.resize(rng.normal(0, amp, cells).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        gx, gy = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        mask = cv2.remap(mask, gx + dx, gy + dy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        mask = cv2.GaussianBlur(mask, (0, 0), max(0.5, 0.4 * amp)) * rng.uniform(0.75, 1.0)
    body = np.empty((h, w, 3), np.float32)
    body[:] = style.body_bgr
    if style.grain > 0:
        # grain: stretched noise along the face's length, with a few darker rings
        noise = cv2.resize(rng.normal(0, 1, (max(2, h // 2), max(2, w // 12))).astype(np.float32), (w, h),
                           interpolation=cv2.INTER_CUBIC)
        rings = np.sin(np.linspace(0, rng.uniform(6, 20), w)[None, :] + 2.5 * noise)
        body *= (1 + style.grain * (0.6 * noise.clip(-2, 2) / 2 + 0.4 * rings))[..., None]
    letter = np.array(style.letter_bgr, np.float32)
    if style.engraved:
        # the groove takes the body's texture, darkened; its edge on one side catches the light
        shade = letter / (np.array(style.body_bgr, np.float32) + 1.0)
        groove = body * shade
        d = max(1, int(round(0.015 * min(w, h))))
        lit = np.clip(mask - np.roll(np.roll(mask, d, axis=0), d, axis=1), 0, 1)
        out = body * (1 - mask[..., None]) + groove * mask[..., None]
        out = out + (255 - out) * (0.35 * lit)[..., None]
    else:
        out = body * (1 - mask[..., None]) + letter * mask[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


def render_still(style: DreidelStyle, letter: Letter, rng: np.random.Generator,
                 size: tuple[int, int] | None = None, length_px: float | None = None,
                 glyph: Letter | None = None) -> SynthStill:
    """Draw ``style`` at rest with ``letter`` up, at a random place, angle, tilt and lighting.

    ``size`` is (width, height) of the picture (random when None); ``length_px`` the dreidel's
    overall length in pixels (random in 40-150 when None). ``glyph``, when given, is painted on the up
    face instead of ``letter`` while every random draw (the sliver's letter too) follows ``letter``: two
    generators in the same state then draw the same scene, blur, noise and JPEG with another letter on the
    face (the build script compares a Gimel with its Nun so, to see whether the foot survived).
    """
    if size is None:
        size = [(640, 480), (800, 600), (960, 720), (1024, 768), (1280, 960)][int(rng.integers(5))]
    width, height = size
    length = float(length_px if length_px is not None else rng.uniform(40, 150))
    s = length / (style.body_len + style.tip_len + style.handle_len)  # face side in px
    ss = 2  # supersampling of the local canvas (fills are anti-aliased too)
    S = s * ss
    lb, lt, lh = style.body_len * S, style.tip_len * S, style.handle_len * S
    tilt = math.radians(rng.uniform(0, 32)) if rng.random() < 0.75 else 0.0
    if style.harsh and rng.random() < 0.5:  # lying on a steeper face: strongly foreshortened
        tilt = math.radians(rng.uniform(30, 45))
    fw, sw = S * math.cos(tilt), S * math.sin(tilt)
    wid = fw + sw
    side = 1 if rng.random() < 0.5 else -1  # which side the sliver of the next face shows on

    # Local canvas: axis along +x (tip at the left, handle at the right), axis at y = cy.
    pad = int(0.2 * S) + 4
    cw = int(lt + lb + lh + 0.4 * S + 2 * pad)
    ch = int(max(wid, style.handle_width * S * 1.8) + 2 * pad)
    cx0 = pad + lt  # body's tip-side edge
    cy = ch / 2
    canvas = np.zeros((ch, cw, 3), np.float32)
    alpha = np.zeros((ch, cw), np.float32)
    body = np.array(style.body_bgr, np.float32)

    def fill(poly: np.ndarray, colour: np.ndarray) -> None:
        m = np.zeros((ch, cw), np.uint8)
        cv2.fillPoly(m, [np.round(poly * 16).astype(np.int32)], 255, lineType=cv2.LINE_AA, shift=4)
        a = m.astype(np.float32) / 255
        canvas[:] = canvas * (1 - a[..., None]) + colour * a[..., None]
        np.maximum(alpha, a, out=alpha)

    # Face band (cross range) and sliver band.
    top, bot = cy - wid / 2, cy + wid / 2
    if side > 0:
        face_y0, face_y1, sl_y0, sl_y1 = top, top + fw, top + fw, bot
    else:
        face_y0, face_y1, sl_y0, sl_y1 = top + sw, bot, top, top + sw
    shade_tip = rng.uniform(0.7, 1.05)
    # Tip: profile narrowing to the point, split along the face/sliver edge like pyramid facets.
    ts = np.linspace(0, 1, 24)
    prof = (1 - ts) ** style.tip_power
    xs = cx0 - ts * lt
    split = face_y1 if side > 0 else face_y0
    upper = np.stack([xs, cy + (top - cy) * prof], 1)
    lower = np.stack([xs, cy + (bot - cy) * prof], 1)
    mid = np.stack([xs, cy + (split - cy) * prof], 1)
    fill(np.concatenate([upper, lower[::-1]]), body * shade_tip)
    sl_poly = np.concatenate([mid, lower[::-1]]) if side > 0 else np.concatenate([upper, mid[::-1]])
    fill(sl_poly, body * shade_tip * 0.75)
    # Handle (and a knob on some dreidels), then a small collar where it meets the body.
    hw = style.handle_width * S
    handle_col = np.array(style.handle_bgr, np.float32) * rng.uniform(0.8, 1.05)
    hx0, hx1 = cx0 + lb, cx0 + lb + lh
    fill(np.array([[hx0 - 2, cy - hw / 2], [hx1, cy - hw / 2], [hx1, cy + hw / 2], [hx0 - 2, cy + hw / 2]]),
         handle_col)
    if style.knob:
        r = hw * rng.uniform(0.7, 0.95)
        ang = np.linspace(0, 2 * np.pi, 32)
        fill(np.stack([hx1 - r * 0.6 + r * np.cos(ang), cy + r * np.sin(ang)], 1), handle_col * 0.95)
    # Body: up face with its letter (top of the letter toward the handle), then the sliver.
    face_w_px = max(4, int(round(face_y1 - face_y0)))
    tex_len = max(8, int(round(lb)))
    tex = _glyph_texture(style, glyph or letter, int(round(S)), tex_len, rng).astype(np.float32)
    tex = cv2.rotate(tex, cv2.ROTATE_90_CLOCKWISE)  # letter top -> +x (handle)
    tex = cv2.resize(tex, (tex_len, face_w_px), interpolation=cv2.INTER_AREA)
    x0i, y0i = int(round(cx0)), int(round(face_y0))
    face_region = (slice(y0i, y0i + face_w_px), slice(x0i, x0i + tex_len))
    canvas[face_region] = tex
    alpha[face_region] = 1.0
    if sw >= 1:
        other = [lt_ for lt_ in Letter if lt_ is not letter and lt_ is not Letter.PE]
        tex2 = _glyph_texture(style, other[int(rng.integers(len(other)))], int(round(S)), tex_len, rng)
        tex2 = cv2.rotate(tex2, cv2.ROTATE_90_CLOCKWISE).astype(np.float32) * rng.uniform(0.55, 0.85)
        sl_px = max(1, int(round(sl_y1 - sl_y0)))
        tex2 = cv2.resize(tex2, (tex_len, sl_px), interpolation=cv2.INTER_AREA)
        # Seen obliquely, the sliver shows the half of the next face's texture nearest the edge.
        y0s = int(round(sl_y0))
        canvas[y0s:y0s + sl_px, x0i:x0i + tex_len] = tex2
        alpha[y0s:y0s + sl_px, x0i:x0i + tex_len] = 1.0
    if style.outline:
        edge = body * 0.45
        for y in (top, face_y1 if side > 0 else face_y0, bot):
            cv2.line(canvas, (x0i, int(y)), (x0i + tex_len, int(y)), edge.tolist(), max(1, ss // 2))
        cv2.rectangle(canvas, (x0i, int(top)), (x0i + tex_len, int(bot)), edge.tolist(), max(1, ss // 2))
    # Shading across the whole dreidel and, on glossy ones, a highlight.
    gy, gx = np.mgrid[0:ch, 0:cw].astype(np.float32)
    d = rng.normal(size=2)
    d /= np.linalg.norm(d) + 1e-9
    ramp = ((gx - cw / 2) * d[0] + (gy - ch / 2) * d[1]) / max(cw, ch)
    canvas *= (1 + rng.uniform(0.1, 0.5) * ramp)[..., None]
    if style.harsh:  # a low, hard lamp: a steep fall-off across the dreidel
        canvas *= np.clip(1 + rng.uniform(0.3, 0.9) * ramp, 0.35, 1.6)[..., None]
    if style.sheen > 0:
        # a polished body mirrors the lamp as a band across it: everything under the band, letter too, goes
        # toward white, so the face keeps only a faint trace of its letter there
        e = rng.normal(size=2)
        e /= np.linalg.norm(e) + 1e-9
        along = ((gx - rng.uniform(cx0, cx0 + lb)) * e[0] + (gy - cy) * e[1]) / S
        band = np.exp(-0.5 * (along / rng.uniform(0.15, 0.6)) ** 2) * style.sheen
        streaks = cv2.resize(rng.normal(0, 1, (ch, max(2, cw // 8))).astype(np.float32), (cw, ch),
                             interpolation=cv2.INTER_LINEAR)  # brushed metal: streaks along the body
        canvas *= (1 + 0.06 * style.sheen * streaks)[..., None]
        canvas += (255 - canvas) * np.clip(band, 0, 1)[..., None]
    if style.glossy:
        hx = rng.uniform(cx0, cx0 + lb)
        hy = rng.uniform(face_y0, face_y1)
        rad = rng.uniform(0.1, 0.3) * S
        spot = np.exp(-((gx - hx) ** 2 + (gy - hy) ** 2) / (2 * rad ** 2)) * rng.uniform(0.2, 0.6)
        canvas += (255 - canvas) * spot[..., None]

    # Place it: local (x, y) -> image via rotation about the body centre and a scale of 1/ss.
    theta = rng.uniform(0, 360)
    margin = length * 0.6 + 10
    pos = np.array([rng.uniform(margin, width - margin), rng.uniform(margin, height - margin)])
    body_c = np.array([cx0 + lb / 2, cy])
    c, sn = math.cos(math.radians(theta)), math.sin(math.radians(theta))
    rot = np.array([[c, -sn], [sn, c]]) / ss
    affine = np.hstack([rot, (pos - rot @ body_c)[:, None]])

    def to_img(p: np.ndarray) -> np.ndarray:
        return (affine[:, :2] @ np.asarray(p, float).T).T + affine[:, 2]

    # Background: felt with texture, a light gradient and vignette, and the tray's rim outside it.
    felt = np.array(_felt(rng, style.body_bgr), np.float32)
    bg = np.empty((height, width, 3), np.float32)
    bg[:] = felt
    tex_noise = cv2.GaussianBlur(rng.normal(0, 1, (height, width)).astype(np.float32), (0, 0), 1.2)
    bg += (tex_noise * rng.uniform(2, 9))[..., None]
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    g = rng.normal(size=2)
    light = 1 + rng.uniform(0.0, 0.25) * ((xx / width - 0.5) * g[0] + (yy / height - 0.5) * g[1])
    vign = 1 - rng.uniform(0, 0.25) * (((xx - width / 2) / width) ** 2 + ((yy - height / 2) / height) ** 2) * 2
    if rng.random() < 0.5:  # a round tray whose rim shows in the corners
        rim = np.hypot(xx - width / 2, yy - height / 2) > rng.uniform(0.52, 0.7) * max(width, height)
        bg[rim] = np.array(_hsv_to_bgr(rng.uniform(0, 1), rng.uniform(0, 0.4), rng.uniform(0.2, 0.8)), np.float32)
    bg *= (light * vign)[..., None]

    warped = cv2.warpAffine(canvas, affine, (width, height), flags=cv2.INTER_AREA)
    a = cv2.warpAffine(alpha, affine, (width, height), flags=cv2.INTER_LINEAR)
    # Shadow: the silhouette, blurred and offset, darkens the felt.
    off = rng.normal(0, 0.06 * length, 2)
    shift = np.array([[1, 0, off[0]], [0, 1, off[1]]], np.float32)
    shadow = cv2.GaussianBlur(cv2.warpAffine(a, shift, (width, height)), (0, 0), max(1.0, 0.05 * length))
    scene = bg * (1 - rng.uniform(0.15, 0.5) * shadow)[..., None]
    img = scene * (1 - a[..., None]) + warped * a[..., None]
    # Camera: exposure, colour cast, blur, noise, JPEG.
    gain = rng.uniform(0.75, 1.2) * rng.uniform(0.92, 1.08, 3)
    img = img * gain
    bg_out = bg * gain
    blur = rng.uniform(0, 1.1)
    if style.harsh:  # out of focus or smeared: up to 7% of the face's side (a letter's stroke stays visible)
        blur = max(blur, rng.uniform(0.5, max(0.6, min(1.8, 0.07 * s))))
    if blur > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    noise = rng.uniform(1, 6) if not style.harsh else rng.uniform(3, 10)
    img = img + rng.normal(0, noise, img.shape)
    img8 = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.7 or style.harsh:
        quality = int(rng.integers(45, 95)) if not style.harsh else int(rng.integers(30, 80))
        ok, buf = cv2.imencode(".jpg", img8, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if ok:
            img8 = cv2.imdecode(buf, cv2.IMREAD_COLOR)

    tip = to_img(np.array([[cx0 - lt, cy]]))[0]
    handle = to_img(np.array([[hx1, cy]]))[0]
    center = to_img(body_c[None])[0]
    quad = to_img(np.array([[cx0, face_y0], [cx0 + lb, face_y0], [cx0 + lb, face_y1], [cx0, face_y1]]))
    return SynthStill(
        image=img8, letter=letter, tip=(float(tip[0]), float(tip[1])),
        handle=(float(handle[0]), float(handle[1])), center=(float(center[0]), float(center[1])),
        face_quad=quad, length_px=float(np.hypot(*(handle - tip))),
        background=np.clip(bg_out, 0, 255).astype(np.uint8),
    )
