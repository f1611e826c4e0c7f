"""A small ray tracer for overhead pictures of a dreidel table, independent of the twin's mesh renderer.

Every pixel near the dreidel or a hand is traced (numba): a camera ray per sub-pixel sample is
intersected analytically with the dreidel (a convex solid of planes, plus a cylinder handle and a
ball knob, in its body frame) and with the arm (capsules). Misses land on the floor, whose lit
colour is precomputed once per scene (felt texture, rim with its shadow, a wood / cloth / plain
table, a lamp's fall-off); a floor sample is darkened by the dreidel's shadow (rays to random points
of the lamp's disc: soft edges), the arm's shadow (analytic penumbra from the closest approach to
each capsule) and a contact shadow under the dreidel. Samples spread over the shutter time give
motion blur. The whole frame then gets exposure drift, vignetting, lens softness, white balance,
shot and read noise and a JPEG round trip.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from bench.altsim.scene import AltDreidel, AltScene, Finish, Lettering
from bench.altsim.tracer import PART_BODY, PART_TIP, trace

# -- the dreidel's solid ------------------------------------------------------------------------


def dreidel_planes(d: AltDreidel) -> tuple[np.ndarray, np.ndarray]:
    """The convex body+tip as half-spaces ``n . p <= c`` (P x 4: nx, ny, nz, c; unit normals) and their parts."""
    a = d.half_w
    planes: list[tuple[float, float, float, float]] = []
    parts: list[int] = []
    for k in range(4):  # the lettered faces
        c, s = math.cos(k * math.pi / 2), math.sin(k * math.pi / 2)
        planes.append((c, s, 0.0, a))
        parts.append(k)
    diag = a * math.sqrt(2.0) * (1.0 - 0.3 * d.chamfer)
    for k in range(4):  # chamfered vertical edges
        ang = math.pi / 4 + k * math.pi / 2
        planes.append((math.cos(ang), math.sin(ang), 0.0, diag))
        parts.append(PART_BODY)
    planes.append((0.0, 0.0, 1.0, d.z_top))
    parts.append(PART_BODY)
    if d.bevel > 0.05:
        for k in range(4):  # the top edge's bevel (45 degrees)
            c, s = math.cos(k * math.pi / 2), math.sin(k * math.pi / 2)
            n = np.array([c, s, 1.0]) / math.sqrt(2.0)
            planes.append((float(n[0]), float(n[1]), float(n[2]), (a + d.z_top - d.bevel) / math.sqrt(2.0)))
            parts.append(PART_BODY)
    # the tip: a square pyramid from half-width a at z = tip_h down to a*blunt at z = 0, with its edges
    # cut by a second, diagonal pyramid so that it reads rounder than the twin's
    w0 = a * d.blunt
    slope = (a - w0) / d.tip_h
    for k in range(4):
        c, s = math.cos(k * math.pi / 2), math.sin(k * math.pi / 2)
        n = np.array([c, s, -slope])
        ln = float(np.linalg.norm(n))
        planes.append((c / ln, s / ln, -slope / ln, w0 / ln))
        parts.append(PART_TIP)
    w0d, w1d = w0 * 1.15, diag
    slope_d = (w1d - w0d) / d.tip_h
    for k in range(4):
        ang = math.pi / 4 + k * math.pi / 2
        c, s = math.cos(ang), math.sin(ang)
        n = np.array([c, s, -slope_d])
        ln = float(np.linalg.norm(n))
        planes.append((c / ln, s / ln, -slope_d / ln, w0d / ln))
        parts.append(PART_TIP)
    planes.append((0.0, 0.0, -1.0, 0.0))
    parts.append(PART_TIP)
    return np.array(planes, dtype=np.float64), np.array(parts, dtype=np.int64)


# -- textures -----------------------------------------------------------------------------------

TEX_W = 160


def face_textures(d: AltDreidel) -> np.ndarray:
    """The four lettered faces (4 x TH x TW x 3, float32 BGR 0..255), row 0 at the handle end."""
    tw = TEX_W
    th = max(32, int(round(tw * d.body_h / (2 * d.half_w))))
    rng = np.random.default_rng([d.texture_seed, 0xA17])
    out = np.empty((4, th, tw, 3), dtype=np.float32)
    for k, letter in enumerate(d.letters):
        base = d.face_bgrs[k] if d.face_bgrs else d.body_bgr
        img = _material(d.finish, base, tw, th, rng)
        if d.decorated:
            _ornaments(img, d.letter_bgr, rng)
        glyph = _glyph(d, letter.hebrew, tw, th, rng)
        col = np.array(d.letter_bgr, dtype=np.float32)
        if d.finish is Finish.METAL:
            col = np.array(d.body_bgr, dtype=np.float32) * 0.25  # stamped: a dark recess
        img = img * (1.0 - glyph[..., None]) + col * glyph[..., None]
        out[k] = img
    return out


def _material(finish: Finish, bgr: tuple[int, int, int], w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    base = np.array(bgr, dtype=np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if finish is Finish.WOOD:
        # end-grain arcs: rings around a centre far off the face, stretched along the axis
        cx, cy = rng.uniform(-2 * w, 3 * w), rng.uniform(-4 * h, -2 * h)
        r = np.sqrt(((xx - cx) * 1.0) ** 2 + ((yy - cy) * 0.25) ** 2)
        rings = 0.5 + 0.5 * np.sin(r * rng.uniform(0.25, 0.5))
        shade = 1.0 - 0.12 * rings**2 + 0.04 * cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 1.5)
    elif finish is Finish.METAL:
        shade = 1.0 + 0.06 * cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 0.6) * np.sin(
            yy / 3.0) ** 2
    else:
        shade = 1.0 + 0.02 * rng.normal(0, 1, (h, w)).astype(np.float32)
    return np.clip(base[None, None, :] * shade[..., None], 0, 255)


def _ornaments(img: np.ndarray, bgr: tuple[int, int, int], rng: np.random.Generator) -> None:
    h, w = img.shape[:2]
    r = max(2, int(0.045 * w))
    m = int(0.1 * w) + r
    for cx, cy in ((m, m), (w - m, m), (m, h - m), (w - m, h - m)):
        if rng.random() < 0.8:
            cv2.circle(img, (cx, cy), r, tuple(float(c) for c in bgr), -1, cv2.LINE_AA)
    if rng.random() < 0.5:  # a thin frame
        cv2.rectangle(img, (m - r, m - r), (w - m + r, h - m + r), tuple(float(c) for c in bgr), max(1, w // 80),
                      cv2.LINE_AA)


def _glyph(d: AltDreidel, char: str, w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """The letter's coverage (h x w float32 0..1), sized by its ink to ``letter_scale`` of the face."""
    big = 4
    W, H = w * big, h * big
    font = ImageFont.truetype(d.font_path, 200)
    probe = Image.new("L", (600, 600))
    dr = ImageDraw.Draw(probe)
    x0, y0, x1, y1 = dr.textbbox((100, 100), char, font=font)
    ink = max(x1 - x0, y1 - y0, 1)
    size = max(8, int(200 * d.letter_scale * min(W, H) / ink))
    font = ImageFont.truetype(d.font_path, size)
    img = Image.new("L", (W, H))
    dr = ImageDraw.Draw(img)
    x0, y0, x1, y1 = dr.textbbox((0, 0), char, font=font)
    x = (W - (x1 - x0)) / 2 - x0 + rng.normal(0, 0.02 * W)
    y = (H - (y1 - y0)) / 2 - y0 + rng.normal(0, 0.02 * H)
    if d.lettering is Lettering.HOLLOW:
        dr.text((x, y), char, font=font, fill=0, stroke_width=max(2, W // 45), stroke_fill=255)
    else:
        dr.text((x, y), char, font=font, fill=255)
    m = np.asarray(img, dtype=np.float32) / 255.0
    if d.lettering is Lettering.BRUSHED:
        # hand painting: a smooth random warp and a heavier or lighter stroke
        amp = 0.025 * W
        gx = cv2.GaussianBlur(rng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), W / 8)
        gy = cv2.GaussianBlur(rng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), W / 8)
        gx *= amp / max(float(np.abs(gx).max()), 1e-6)
        gy *= amp / max(float(np.abs(gy).max()), 1e-6)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        m = cv2.remap(m, xx + gx, yy + gy, cv2.INTER_LINEAR)
        k = int(rng.integers(-2, 4)) * big // 2
        if k > 0:
            m = cv2.dilate(m, np.ones((k, k), np.uint8))
        elif k < 0:
            m = cv2.erode(m, np.ones((-k, -k), np.uint8))
    # the letter is upright with the handle up: image row 0 is the handle end already
    rot = float(rng.normal(0, 3.0))
    mat = cv2.getRotationMatrix2D((W / 2, H / 2), rot, 1.0)
    m = cv2.warpAffine(m, mat, (W, H))
    return cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA)


# -- the static floor ---------------------------------------------------------------------------


@dataclass
class Floor:
    """The empty table as the camera sees it (lit), where each pixel's ray meets it, and how much of its
    light comes straight from the lamp (what a shadow takes away)."""

    lit: np.ndarray  # H x W x 3 float32
    direct: np.ndarray  # H x W float32, 0..1
    xy: np.ndarray  # H x W x 2 float64 (mm)


def make_floor(scene: AltScene) -> Floor:
    rng = np.random.default_rng([scene.seed, 0xF1005])
    dirs = scene.ray_dirs()
    o = scene.origin
    t = -o[2] / dirs[..., 2]
    X = o[0] + t * dirs[..., 0]
    Y = o[1] + t * dirs[..., 1]
    # tray-local coordinates (a square tray may be turned on the table)
    c, s = math.cos(-scene.tray_yaw), math.sin(-scene.tray_yaw)
    lx, ly = c * X - s * Y, s * X + c * Y
    dist = np.hypot(X, Y) if scene.tray_round else np.maximum(np.abs(lx), np.abs(ly))
    felt_m = dist <= scene.tray_r
    rim_m = (dist > scene.tray_r) & (dist <= scene.tray_r + scene.rim_w)
    # felt: fibres at 2 px/mm plus blotches, sampled where each ray lands
    res, half = 2.0, 260.0
    n = int(2 * half * res)
    fine = cv2.GaussianBlur(rng.normal(0, 1, (n, n)).astype(np.float32), (0, 0), 0.8)
    blot = cv2.GaussianBlur(rng.normal(0, 1, (n // 8, n // 8)).astype(np.float32), (0, 0), 3.0)
    blot = cv2.resize(blot / max(float(blot.std()), 1e-6), (n, n), interpolation=cv2.INTER_CUBIC)
    tex = 1.0 + scene.felt_fuzz * (0.05 * fine / max(float(fine.std()), 1e-6) + 0.025 * blot)
    for _ in range(int(rng.integers(5, 25))):  # lint and stray fibres
        p = rng.uniform(0, n, 2)
        q = p + rng.normal(0, 6, 2)
        cv2.line(tex, (int(p[0]), int(p[1])), (int(q[0]), int(q[1])), float(rng.uniform(0.85, 1.25)), 1, cv2.LINE_AA)
    mx = ((X + half) * res).astype(np.float32)
    my = ((Y + half) * res).astype(np.float32)
    felt_shade = cv2.remap(tex, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    albedo = np.empty(X.shape + (3,), dtype=np.float32)
    albedo[:] = np.array(scene.felt_bgr, dtype=np.float32) * felt_shade[..., None]
    # rim: an inward-facing wall then a flat top, shaded by where the lamp is
    u = (dist - scene.tray_r) / scene.rim_w
    rim_shade = np.where(u < 0.35, 0.75, 1.05).astype(np.float32)
    albedo[rim_m] = np.array(scene.rim_bgr, dtype=np.float32) * rim_shade[rim_m][:, None]
    table_m = ~(felt_m | rim_m)
    albedo[table_m] = _table(scene, X, Y, rng)[table_m]
    # lamp: inverse square and cosine, normalised at the tray's centre
    lamp = np.array(scene.lamp)
    dx, dy, dz = lamp[0] - X, lamp[1] - Y, lamp[2]
    d2 = dx * dx + dy * dy + dz * dz
    e = dz / np.sqrt(d2) / d2
    e0 = lamp[2] / np.linalg.norm(lamp) ** 3
    direct = (1.0 - scene.ambient) * np.clip(e / e0, 0.3, 1.6)
    # the rim (about 18 mm high) shades the felt on the side away from the lamp
    rim_h = 18.0
    hx, hy = dx / np.sqrt(dx * dx + dy * dy), dy / np.sqrt(dx * dx + dy * dy)
    tan_el = dz / np.sqrt(dx * dx + dy * dy)
    to_rim = _distance_to_rim(scene, X, Y, hx, hy)
    height = to_rim * tan_el
    rim_shadow = np.clip((height - rim_h) / 6.0 + 0.5, 0.0, 1.0)
    direct = np.where(felt_m, direct * rim_shadow, direct)
    light = scene.ambient + direct
    lit = albedo * light[..., None].astype(np.float32)
    frac = (direct / light).astype(np.float32)
    return Floor(lit.astype(np.float32), frac, np.stack([X, Y], axis=-1))


def _distance_to_rim(scene: AltScene, X: np.ndarray, Y: np.ndarray, hx: np.ndarray, hy: np.ndarray) -> np.ndarray:
    """Horizontal distance from each felt point toward the lamp to the inner wall of the rim."""
    if scene.tray_round:
        b = X * hx + Y * hy
        c = X * X + Y * Y - scene.tray_r**2
        return np.maximum(-b + np.sqrt(np.maximum(b * b - c, 0.0)), 0.0)
    c, s = math.cos(-scene.tray_yaw), math.sin(-scene.tray_yaw)
    lx, ly = c * X - s * Y, s * X + c * Y
    dx, dy = c * hx - s * hy, s * hx + c * hy
    with np.errstate(divide="ignore", invalid="ignore"):
        tx = np.where(dx > 1e-9, (scene.tray_r - lx) / dx, np.where(dx < -1e-9, (-scene.tray_r - lx) / dx, 1e9))
        ty = np.where(dy > 1e-9, (scene.tray_r - ly) / dy, np.where(dy < -1e-9, (-scene.tray_r - ly) / dy, 1e9))
    return np.maximum(np.minimum(tx, ty), 0.0)


def _table(scene: AltScene, X: np.ndarray, Y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    c1 = np.array(scene.table_bgr, dtype=np.float32)
    c2 = np.array(scene.table_bgr2, dtype=np.float32)
    ang = float(rng.uniform(0, math.pi))
    u = X * math.cos(ang) + Y * math.sin(ang)
    v = -X * math.sin(ang) + Y * math.cos(ang)
    if scene.table_kind == "wood":
        grain = np.sin(v * 0.35 + 3.0 * np.sin(u * 0.01) + 2.0 * np.sin(v * 0.013)) * 0.5 + 0.5
        planks = (np.floor(v / 90.0) % 3)[..., None] * 0.05
        return (c1 * (0.88 + 0.12 * grain[..., None] - planks)).astype(np.float32)
    if scene.table_kind == "cloth":
        period = float(rng.uniform(20.0, 45.0))
        a = (np.floor(u / period) % 2).astype(np.float32)
        b = (np.floor(v / period) % 2).astype(np.float32)
        mix = (0.5 * a + 0.5 * b)[..., None]
        return (c1 * (1 - mix) + c2 * mix).astype(np.float32)
    noise = cv2.GaussianBlur(rng.normal(0, 1, X.shape).astype(np.float32), (0, 0), 2.0)
    return (c1 * (1.0 + 0.03 * noise[..., None])).astype(np.float32)


# -- frames -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DreidelPlacement:
    """The dreidel at one instant: body -> world rotation and translation (world = R b + T)."""

    R: np.ndarray
    T: np.ndarray


class AltRenderer:
    """Renders frames of one scene and one dreidel. ``frame(t, placements, arms)`` returns BGR uint8."""

    def __init__(self, scene: AltScene, dreidel: AltDreidel) -> None:
        self.scene = scene
        self.dreidel = dreidel
        self.floor = make_floor(scene)
        self.planes, self.parts = dreidel_planes(dreidel)
        self.tex = face_textures(dreidel)
        self.hull = dreidel.hull_points()
        self.c2w = scene.cam_to_world()
        self._rng = np.random.default_rng([scene.seed, 0x90153])
        h, w = scene.height, scene.width
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        self.vignette = (1.0 - scene.vignette * r2).astype(np.float32)[..., None]
        self._phase = self._rng.uniform(0, 2 * math.pi, 2)
        self._pad = 48
        self._noise = self._rng.standard_normal((3, h + self._pad, w + self._pad, 3), dtype=np.float32)
        self._warmth = np.array(scene.warmth, dtype=np.float32)
        self._base = cv2.GaussianBlur(self.floor.lit * self.vignette * self._warmth, (0, 0), scene.blur_sigma)
        self._sigma_base = np.sqrt(scene.noise_read**2 + scene.noise_shot * np.maximum(self._base, 0.0))
        self._cache_key: tuple[float, ...] | None = None
        self._cache_img: tuple[np.ndarray, tuple[int, int, int, int] | None] | None = None
        d = dreidel
        tip = np.array(d.body_bgr, dtype=np.float64) * (0.85 if d.finish is Finish.WOOD else 1.0)
        self._cols = (np.array(d.body_bgr, dtype=np.float64), tip, np.array(d.handle_bgr, dtype=np.float64))

    def bounding_sphere(self, pl: DreidelPlacement) -> np.ndarray:
        c = pl.R @ self.dreidel.centre + pl.T
        r = float(np.max(np.linalg.norm(self.hull - self.dreidel.centre, axis=1))) + 1.0
        return np.array([c[0], c[1], c[2], r])

    def _shadow_point(self, q: np.ndarray) -> np.ndarray:
        """Where the lamp throws the shadow of the tray point ``q`` onto the floor."""
        lamp = np.array(self.scene.lamp)
        v = q - lamp
        f = -q[2] / v[2] if v[2] < -1e-6 else 0.0
        return q + f * v

    def _penumbra_mm(self, z: float) -> float:
        lamp = np.array(self.scene.lamp)
        return max(z, 0.0) * self.scene.lamp_r / max(float(lamp[2]), 1.0) * 1.5

    def _mask(self, spheres: list[np.ndarray], caps: np.ndarray
              ) -> tuple[np.ndarray, tuple[int, int, int, int], np.ndarray, np.ndarray] | None:
        """The pixels that an object or its shadow can touch (everything else is the bare floor), their
        bounding box, and per arm capsule the picture boxes of the capsule and of its shadow."""
        sc = self.scene
        mask = np.zeros((sc.height, sc.width), np.uint8)
        ppm = sc.px_per_mm()
        centres: list[np.ndarray] = []
        radii: list[float] = []
        owner: list[int] = []  # -1: the dreidel; else 2 * capsule index (+1 for its shadow)

        def stroke(p: np.ndarray, q: np.ndarray, r_mm: float, tag: int = -1) -> None:
            n = max(2, int(math.dist(p[:2], q[:2]) / max(r_mm, 4.0)) + 2)
            f = np.linspace(0.0, 1.0, n)[:, None]
            centres.append(p + (q - p) * f)
            radii.extend([r_mm] * n)
            owner.extend([tag] * n)

        for s in spheres:
            c, r = s[:3], float(s[3])
            stroke(c, c, r)
            ground = np.array([c[0], c[1], 0.0])
            stroke(ground, ground, 1.6 * r)  # contact shadow
            stroke(c, self._shadow_point(c), r + self._penumbra_mm(c[2] + r))
        n_caps = caps.shape[1]
        for h, arm in enumerate(caps):
            for c, cp in enumerate(arm):
                if cp[6] <= 0:
                    continue
                p, q, r = cp[0:3], cp[3:6], float(cp[6])
                tag = 2 * (h * n_caps + c)
                stroke(p, q, r, tag)
                pen = self._penumbra_mm(max(p[2], q[2]))
                stroke(self._shadow_point(p), self._shadow_point(q), r + pen, tag + 1)
        if not centres:
            return None
        pts = np.concatenate(centres)
        pts[:, 2] = np.minimum(pts[:, 2], sc.cam_h - 30.0)
        px = sc.project(pts)
        rad = np.ceil(np.array(radii) * ppm * sc.cam_h / np.maximum(sc.cam_h - pts[:, 2], 30.0) * 1.1 + 3).astype(int)
        for (u, v), r in zip(px, rad, strict=True):
            if -r < u < sc.width + r and -r < v < sc.height + r:
                cv2.circle(mask, (int(round(u)), int(round(v))), int(r), 255, -1)
        boxes = np.full((max(len(caps), 1), max(n_caps, 1), 2, 4), -1.0)
        tags = np.array(owner)
        for tag in np.unique(tags[tags >= 0]):
            sel = tags == tag
            lo = (px[sel] - rad[sel, None]).min(axis=0)
            hi = (px[sel] + rad[sel, None]).max(axis=0)
            k, kind = divmod(int(tag), 2)
            boxes[k // n_caps, k % n_caps, kind] = (lo[0], lo[1], hi[0], hi[1])
        ys, xs = np.nonzero(mask)
        if len(xs) == 0:
            return None
        return mask, (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1), boxes[:, :, 0], boxes[:, :, 1]

    def scene_image(self, placements: list[DreidelPlacement], arms: list[np.ndarray], arm_cols: np.ndarray
                    ) -> tuple[np.ndarray, tuple[int, int, int, int] | None]:
        """The noise-free picture (float32 BGR) of the dreidel in ``placements`` (poses over the shutter
        time) and the arm capsules ``arms`` (each C x 7: p0, p1, radius) coloured ``arm_cols`` (C x 3),
        and the box of pixels that differ from the empty floor (None: none do)."""
        key = tuple(np.concatenate([np.concatenate([p.R.ravel(), p.T]) for p in placements]).round(3)) if (
            placements and not arms) else None
        if key is not None and key == self._cache_key and self._cache_img is not None:
            return self._cache_img
        img = self.floor.lit.copy()
        box = None
        spheres = [self.bounding_sphere(p) for p in placements]
        caps = np.array(arms, dtype=np.float64) if arms else np.zeros((0, 1, 7))
        found = self._mask(spheres, caps)
        if found is not None:
            mask, (x0, y0, x1, y1), cap_box, shadow_box = found
            box = (x0, y0, x1, y1)
            d = self.dreidel
            n_d = len(placements)
            dR = np.array([p.R for p in placements], dtype=np.float64) if n_d else np.zeros((0, 3, 3))
            dT = np.array([p.T for p in placements], dtype=np.float64) if n_d else np.zeros((0, 3))
            bs = np.array(spheres, dtype=np.float64) if n_d else np.zeros((0, 4))
            # arms are big and soft-edged: two samples do, unless the shutter needs more
            spp = min(max(2 if arms else 4, n_d, len(arms)), 6)
            sc = self.scene
            trace(
                img, mask, x0, y0, x1, y1, sc.origin, self.c2w, sc.focal, sc.cx, sc.cy, sc.k1,
                self.floor.lit, self.floor.direct,
                dR, dT, self.planes, self.parts, d.z_top - 0.5, d.z_top + d.handle_h, d.handle_r, d.knob_r,
                d.half_w, d.tip_h, d.z_top, self.tex, self._cols[0], self._cols[1], self._cols[2],
                d.gloss, d.finish is Finish.METAL, bs,
                caps, arm_cols.astype(np.float64) if len(arms) else np.zeros((1, 3)), cap_box, shadow_box,
                np.array(sc.lamp), sc.lamp_r, sc.ambient, spp, int(self._rng.integers(1 << 62)),
            )
        if key is not None:
            self._cache_key, self._cache_img = key, (img, box)
        return img, box

    def finish(self, traced: tuple[np.ndarray, tuple[int, int, int, int] | None], t: float, jpeg: bool = False
               ) -> np.ndarray:
        """The camera's own effects on a noise-free picture from :meth:`scene_image`: exposure drift,
        vignetting, white balance, lens softness, shot and read noise (and, with ``jpeg``, a JPEG round trip;
        recordings get theirs from the MJPG writer at the scene's quality). Returns BGR uint8."""
        sc = self.scene
        img, box = traced
        gain = np.float32(1.0 + sc.exposure_amp * (math.sin(2 * math.pi * t / sc.exposure_period_s + self._phase[0])
                                                   + 0.5 * math.sin(2 * math.pi * t / (0.37 * sc.exposure_period_s)
                                                                    + self._phase[1])))
        # the empty floor's share is precomputed; only the traced box is blurred and lit again
        out = self._base * gain
        sigma = self._sigma_base
        if box is not None:
            m = int(math.ceil(3 * sc.blur_sigma)) + 1
            x0, y0, x1, y1 = box
            X0, Y0 = max(x0 - 2 * m, 0), max(y0 - 2 * m, 0)
            X1, Y1 = min(x1 + 2 * m, sc.width), min(y1 + 2 * m, sc.height)
            region = img[Y0:Y1, X0:X1] * self.vignette[Y0:Y1, X0:X1] * self._warmth
            region = cv2.GaussianBlur(region, (0, 0), sc.blur_sigma)
            ix0, iy0 = max(x0 - m, 0), max(y0 - m, 0)
            ix1, iy1 = min(x1 + m, sc.width), min(y1 + m, sc.height)
            inner = region[iy0 - Y0 : iy1 - Y0, ix0 - X0 : ix1 - X0]
            out[iy0:iy1, ix0:ix1] = inner * gain
            sigma = sigma.copy()
            sigma[iy0:iy1, ix0:ix1] = np.sqrt(sc.noise_read**2 + sc.noise_shot * np.maximum(inner, 0.0))
        # a fresh crop of a larger noise field each frame: independent enough, and cheap
        oy, ox = (int(v) for v in self._rng.integers(0, self._pad, 2))
        out += sigma * self._noise[int(self._rng.integers(len(self._noise))), oy : oy + sc.height, ox : ox + sc.width]
        u8 = np.clip(out, 0, 255).astype(np.uint8)
        if not jpeg:
            return u8
        ok, buf = cv2.imencode(".jpg", u8, [cv2.IMWRITE_JPEG_QUALITY, sc.jpeg_quality])
        if not ok:
            raise RuntimeError("JPEG encoding failed")
        return cv2.imdecode(buf, cv2.IMREAD_COLOR)
