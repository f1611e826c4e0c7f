"""The overhead camera: a felt tray on a table, a lettered 3D dreidel, its shadow, hands, blur and noise.

Everything is drawn with OpenCV and NumPy. The static picture (table, tray, rim, lighting falloff) is
made once per scene. Each frame then draws the dreidel as a small polygon mesh projected with a
pinhole camera (painter's order, back faces culled, Lambert + Blinn shading) at 2x supersampling in a
region around it; the lettered faces are Pillow-drawn textures warped onto the projected face with
``cv2.warpPerspective``. While the dreidel spins, the frame averages several sub-frame renders
spread over the exposure, which is the camera's motion blur. Hands are thick shaded strokes with a
soft shadow. Exposure drifts slowly and every frame gets sensor noise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from hardware.sim.dreidel import DreidelStyle, TipShape, face_textures
from hardware.sim.hand import HandMotion, HandPose
from hardware.sim.physics import Pose

SS = 2  # supersampling of the dreidel layer (anti-aliased edges)


@dataclass(frozen=True)
class Scene:
    """The fixed set-up of one session: picture size, camera, tray, table, light and sensor."""

    width: int
    height: int
    camera_height_mm: float
    focal_px: float
    cx: float
    cy: float
    yaw: float  # camera rotation about the vertical (rad)
    tilt: tuple[float, float]  # the mount's small lean from straight down, about the picture's x and y (rad)
    tray_round: bool
    tray_radius_mm: float  # radius, or half the side of a square tray
    rim_mm: float
    felt_bgr: tuple[int, int, int]
    rim_bgr: tuple[int, int, int]
    table_bgr: tuple[int, int, int]
    light: tuple[float, float, float]  # unit vector toward the lamp
    noise_sigma: float
    tint: tuple[float, float, float]  # the lamp's colour and the room's brightness (BGR gains)
    defocus_px: float  # lens blur (Gaussian sigma, pixels)
    exposure_amp: float
    exposure_period_s: float
    exposure_s: float  # shutter time (motion blur)
    seed: int

    @classmethod
    def random(cls, seed: int, width: int = 640, height: int = 480) -> Scene:
        """A plausible table set-up drawn from ``seed``."""
        if width < 160 or height < 120:
            raise ValueError(f"picture {width}x{height} is too small: at least 160x120")
        rng = np.random.default_rng([seed, 0x5CE7E])
        cam_h = float(rng.uniform(350.0, 600.0))
        round_tray = bool(rng.random() < 0.6)
        radius = float(rng.uniform(150.0, 200.0))
        rim = float(rng.uniform(10.0, 18.0))
        yaw = float(rng.uniform(0, 2 * math.pi))
        # a real mount is never exactly level: up to 3 degrees off straight down
        tilt = (float(rng.normal(0.0, math.radians(1.2))), float(rng.normal(0.0, math.radians(1.2))))
        tilt = (max(-0.05, min(0.05, tilt[0])), max(-0.05, min(0.05, tilt[1])))
        # the whole tray (with its rim) fills 82-94 % of the picture (DESIGN.md: the picture covers it)
        fill = float(rng.uniform(0.82, 0.94))
        axes = _camera_axes(yaw, tilt)
        half = radius + rim
        ang = np.linspace(0, 2 * math.pi, 72, endpoint=False)
        if round_tray:
            edge = np.stack([half * np.cos(ang), half * np.sin(ang), np.zeros_like(ang)], axis=1)
        else:
            k = np.linspace(-half, half, 18)
            edge = np.array([(x, y, 0.0) for x in (-half, half) for y in k] + [(x, y, 0.0) for y in (-half, half) for x in k])
        xn, yn = _normalised(edge, axes, cam_h)
        focal = fill * min((width / 2) / float(np.abs(xn).max()), (height / 2) / float(np.abs(yn).max()))
        felts = ((40, 110, 30), (35, 60, 140), (120, 70, 30), (60, 60, 60), (45, 90, 120), (110, 110, 105), (30, 30, 120))
        felt = np.array(felts[int(rng.integers(len(felts)))], dtype=float) + rng.normal(0, 8, 3)
        rims = ((50, 80, 120), (30, 30, 30), (160, 160, 160), (40, 60, 90))
        tables = ((70, 110, 150), (40, 70, 100), (150, 150, 150), (90, 130, 170))
        la = float(rng.uniform(0, 2 * math.pi))
        elev = float(rng.uniform(math.radians(50), math.radians(80)))
        light = (math.cos(la) * math.cos(elev), math.sin(la) * math.cos(elev), math.sin(elev))
        return cls(
            width=width,
            height=height,
            camera_height_mm=cam_h,
            focal_px=focal,
            cx=width / 2 + float(rng.normal(0, width * 0.01)),
            cy=height / 2 + float(rng.normal(0, height * 0.01)),
            yaw=yaw,
            tilt=tilt,
            tray_round=round_tray,
            tray_radius_mm=radius,
            rim_mm=rim,
            felt_bgr=_bgr(felt),
            rim_bgr=_bgr(np.array(rims[int(rng.integers(len(rims)))]) + rng.normal(0, 8, 3)),
            table_bgr=_bgr(np.array(tables[int(rng.integers(len(tables)))]) + rng.normal(0, 8, 3)),
            light=light,
            noise_sigma=float(rng.uniform(1.5, 4.5)),
            tint=_lamp_tint(rng),
            defocus_px=float(rng.uniform(0.3, 1.0)),
            exposure_amp=float(rng.uniform(0.01, 0.04)),
            exposure_period_s=float(rng.uniform(8.0, 30.0)),
            exposure_s=float(rng.uniform(1 / 160, 1 / 60)),
            seed=seed,
        )

    # -- geometry ---------------------------------------------------------------------------
    @property
    def axes(self) -> np.ndarray:
        """The camera's picture-right, picture-down and forward directions in the tray's frame (rows)."""
        return _camera_axes(self.yaw, self.tilt)

    @property
    def position(self) -> np.ndarray:
        """Where the lens is (mm): above the tray's centre."""
        return np.array([0.0, 0.0, self.camera_height_mm])

    def project(self, pts: np.ndarray) -> np.ndarray:
        """World points (N x 3, mm; z up from the tray) -> pixel coordinates (N x 2, float)."""
        xn, yn = _normalised(pts, self.axes, self.camera_height_mm)
        return np.stack([self.cx + self.focal_px * xn, self.cy + self.focal_px * yn], axis=1)

    def ground_at(self, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The tray-plane point (X, Y in mm) seen at pixels (u, v): each pixel's ray met with z = 0."""
        r, dn, fw = self.axes
        a = (u - self.cx) / self.focal_px
        b = (v - self.cy) / self.focal_px
        dx = r[0] * a + dn[0] * b + fw[0]
        dy = r[1] * a + dn[1] * b + fw[1]
        dz = r[2] * a + dn[2] * b + fw[2]
        lam = -self.camera_height_mm / dz
        return lam * dx, lam * dy

    def px_per_mm(self, z: float = 0.0) -> float:
        """Scale at height ``z`` above the tray."""
        return self.focal_px / (self.camera_height_mm - z)

    def inside_tray(self, x: float, y: float) -> bool:
        """Is the tray point (mm) on the felt (inside the rim)?"""
        if self.tray_round:
            return math.hypot(x, y) <= self.tray_radius_mm
        return max(abs(x), abs(y)) <= self.tray_radius_mm

    def in_picture(self, x: float, y: float, margin_px: float = 0.0) -> bool:
        u, v = self.project(np.array([[x, y, 0.0]]))[0]
        return -margin_px <= u < self.width + margin_px and -margin_px <= v < self.height + margin_px


def _bgr(v: np.ndarray) -> tuple[int, int, int]:
    c = np.clip(np.asarray(v, dtype=float), 0, 255).astype(int)
    return (int(c[0]), int(c[1]), int(c[2]))


def _camera_axes(yaw: float, tilt: tuple[float, float]) -> np.ndarray:
    c, s = math.cos(yaw), math.sin(yaw)
    right = np.array([c, -s, 0.0])
    down = np.array([-s, -c, 0.0])
    forward = np.array([0.0, 0.0, -1.0])
    # lean the camera: a small rotation about its own right and down axes
    tx, ty = tilt
    rot_x = _axis_rotation(right, tx)
    rot_y = _axis_rotation(down, ty)
    m = rot_y @ rot_x
    return np.stack([m @ right, m @ down, m @ forward])


def _axis_rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    k = axis / np.linalg.norm(axis)
    kx = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + math.sin(angle) * kx + (1 - math.cos(angle)) * (kx @ kx)


def _normalised(pts: np.ndarray, axes: np.ndarray, cam_h: float) -> tuple[np.ndarray, np.ndarray]:
    q = pts - np.array([0.0, 0.0, cam_h])
    cam = q @ axes.T
    return cam[:, 0] / cam[:, 2], cam[:, 1] / cam[:, 2]


def _mip_chain(tex: np.ndarray) -> list[np.ndarray]:
    chain = [tex]
    while min(chain[-1].shape[:2]) >= 16:
        h, w = chain[-1].shape[:2]
        chain.append(cv2.resize(chain[-1], (w // 2, h // 2), interpolation=cv2.INTER_AREA))
    return chain


def _lamp_tint(rng: np.random.Generator) -> tuple[float, float, float]:
    """Warm bulbs, cool LEDs, daylight; dim rooms and bright ones."""
    warmth = float(rng.uniform(-0.12, 0.15))  # > 0: warmer (more red, less blue)
    level = float(rng.uniform(0.75, 1.12))
    return (level * (1.0 - warmth), level * (1.0 - 0.2 * warmth), level * (1.0 + 0.6 * warmth))


# -- the static background --------------------------------------------------------------------


@lru_cache(maxsize=8)
def background(scene: Scene) -> np.ndarray:
    """The empty tray on its table as the camera sees it (BGR uint8), lit and vignetted."""
    rng = np.random.default_rng([scene.seed, 0xBA6])
    h, w = scene.height, scene.width
    vv, uu = np.mgrid[0:h, 0:w].astype(np.float32)
    X, Y = scene.ground_at(uu, vv)
    R = scene.tray_radius_mm
    dist = np.hypot(X, Y) if scene.tray_round else np.maximum(np.abs(X), np.abs(Y))
    felt = dist <= R
    rim = (dist > R) & (dist <= R + scene.rim_mm)

    img = np.empty((h, w, 3), np.float32)
    # table: wood grain along X
    grain = np.sin(X * 0.08 + 3.0 * np.sin(Y * 0.01) + rng.uniform(0, 6)) * 0.5 + 0.5
    table = np.array(scene.table_bgr, np.float32)[None, None, :] * (0.92 + 0.1 * grain[:, :, None] ** 2)
    img[:] = table
    # felt: fine fibres plus soft blotches
    fib = rng.normal(0, 1, (h, w)).astype(np.float32)
    fib = cv2.GaussianBlur(fib, (0, 0), 0.8)
    blot = cv2.resize(rng.normal(0, 1, (h // 24 + 2, w // 24 + 2)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    felt_shade = 1.0 + 0.05 * fib + 0.025 * blot
    # the rim throws a soft shadow onto the felt on the side away from the lamp
    lx, ly = scene.light[0], scene.light[1]
    if scene.tray_round:
        nx, ny = X / np.maximum(np.hypot(X, Y), 1e-3), Y / np.maximum(np.hypot(X, Y), 1e-3)
    else:
        ax_ = np.abs(X) >= np.abs(Y)
        nx = np.where(ax_, np.sign(X), 0.0)
        ny = np.where(ax_, 0.0, np.sign(Y))
    facing = np.clip(-(nx * lx + ny * ly), 0, 1)  # rim sides facing the lamp throw no shadow inward
    edge = np.clip((R - dist) / 18.0, 0, 1)
    shadow = 1.0 - 0.25 * (1.0 - edge) * (1.0 - facing)
    felt_col = np.array(scene.felt_bgr, np.float32)[None, None, :] * (felt_shade * shadow)[:, :, None]
    img[felt] = felt_col[felt]
    # rim: lit on the side facing the lamp
    rim_shade = 0.75 + 0.45 * np.clip(nx * lx + ny * ly + 0.3, 0, 1)
    rim_col = np.array(scene.rim_bgr, np.float32)[None, None, :] * rim_shade[:, :, None]
    img[rim] = rim_col[rim]
    # the rim's drop shadow on the table
    out_sh = np.clip(1.0 - (dist - R - scene.rim_mm) / 15.0, 0, 1) * (dist > R + scene.rim_mm)
    img *= (1.0 - 0.3 * out_sh * (1.0 - facing))[:, :, None]
    # the lamp's falloff across the picture and lens vignetting
    lamp = 1.0 + 0.12 * (X * lx + Y * ly) / (R + scene.rim_mm)
    rr = np.hypot(uu - w / 2, vv - h / 2) / math.hypot(w / 2, h / 2)
    vign = 1.0 - 0.22 * rr**2
    img *= (lamp * vign)[:, :, None]
    # lint and worn spots on the felt: clutter that a background model must simply learn
    for _ in range(int(rng.integers(15, 60))):
        su, sv = int(rng.integers(0, w)), int(rng.integers(0, h))
        if felt[sv, su]:
            rad = int(rng.integers(1, 3))
            shade = float(rng.choice([0.8, 1.2]))
            cv2.circle(img, (su, sv), rad, tuple(float(c) * shade for c in img[sv, su]), -1, cv2.LINE_AA)
    img = cv2.GaussianBlur(img, (0, 0), max(0.4, scene.defocus_px))
    img *= np.array(scene.tint, np.float32)[None, None, :]
    return np.clip(img, 0, 255).astype(np.uint8)


# -- the dreidel mesh ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Mesh:
    """A dreidel as polygons in its body frame (tip at the origin, axis +z, mm)."""

    verts: np.ndarray  # V x 3
    faces: tuple[tuple[int, ...], ...]  # vertex indices, counter-clockwise seen from outside
    normals: np.ndarray  # F x 3, outward
    colours: np.ndarray  # F x 3 BGR float
    texture: tuple[int, ...]  # face index into face_textures, or -1
    gloss: float
    length: float
    centroid_weights: np.ndarray  # F x V: centroid of face i = row i @ verts


@lru_cache(maxsize=32)
def dreidel_mesh(style: DreidelStyle) -> Mesh:
    a = style.body_mm / 2.0
    p, hb, hl, hr = style.tip_mm, style.body_h_mm, style.handle_mm, style.handle_r_mm
    z0, z1 = p, p + hb
    verts: list[tuple[float, float, float]] = []
    faces: list[tuple[int, ...]] = []
    cols: list[tuple[int, int, int]] = []
    tex: list[int] = []

    def v(x: float, y: float, z: float) -> int:
        verts.append((x, y, z))
        return len(verts) - 1

    corner = [(a * math.sqrt(2) * math.cos(k * math.pi / 2 - math.pi / 4),
               a * math.sqrt(2) * math.sin(k * math.pi / 2 - math.pi / 4)) for k in range(4)]
    bottom = [v(cx, cy, z0) for cx, cy in corner]
    top = [v(cx, cy, z1) for cx, cy in corner]
    # side faces: face k spans corners k (right-hand side seen from outside is corner k+1)
    for k in range(4):
        k1 = (k + 1) % 4
        # texture order: top-left, top-right, bottom-right, bottom-left (seen from outside)
        faces.append((top[k], top[k1], bottom[k1], bottom[k]))
        cols.append(style.face_bgrs[k] if style.face_bgrs else style.body_bgr)
        tex.append(k)
    faces.append(tuple(top))
    cols.append(style.body_bgr)
    tex.append(-1)
    # tip: a pyramid, or a rounded cone (a bulged ring halfway down)
    if style.tip_shape is TipShape.ROUNDED:
        ring_n = 8
        ring = [v(0.78 * a * math.sqrt(2) * math.cos(j * 2 * math.pi / ring_n - math.pi / 4) * 0.85,
                  0.78 * a * math.sqrt(2) * math.sin(j * 2 * math.pi / ring_n - math.pi / 4) * 0.85,
                  0.45 * p) for j in range(ring_n)]
        apex = v(0.0, 0.0, 0.0)
        for j in range(ring_n):
            j1 = (j + 1) % ring_n
            faces.append((apex, ring[j1], ring[j]))
            cols.append(style.body_bgr)
            tex.append(-1)
            kb = (j // 2) % 4
            faces.append((ring[j], ring[j1], bottom[(kb + (1 if j % 2 else 0)) % 4]))
            cols.append(style.body_bgr)
            tex.append(-1)
        for k in range(4):
            faces.append((bottom[k], bottom[(k + 1) % 4], ring[(2 * k + 2) % ring_n], ring[(2 * k + 1) % ring_n]))
            cols.append(style.body_bgr)
            tex.append(-1)
    else:
        apex = v(0.0, 0.0, 0.0)
        for k in range(4):
            faces.append((apex, bottom[(k + 1) % 4], bottom[k]))
            cols.append(style.body_bgr)
            tex.append(-1)
    # handle: a cylinder with a cap
    n = 10
    hb_ring = [v(hr * math.cos(j * 2 * math.pi / n), hr * math.sin(j * 2 * math.pi / n), z1) for j in range(n)]
    ht_ring = [v(0.85 * hr * math.cos(j * 2 * math.pi / n), 0.85 * hr * math.sin(j * 2 * math.pi / n), z1 + hl)
               for j in range(n)]
    for j in range(n):
        j1 = (j + 1) % n
        faces.append((hb_ring[j], hb_ring[j1], ht_ring[j1], ht_ring[j]))
        cols.append(style.handle_bgr)
        tex.append(-1)
    faces.append(tuple(ht_ring))
    cols.append(style.handle_bgr)
    tex.append(-1)

    vert_arr = np.array(verts, dtype=np.float64)
    normals = []
    for f in faces:
        pts = vert_arr[list(f)]
        centroid = pts.mean(axis=0)
        nrm = np.zeros(3)
        for j in range(len(f)):  # Newell's method: robust for any planar polygon
            cur, nxt = pts[j], pts[(j + 1) % len(f)]
            nrm += np.cross(cur, nxt)
        nrm /= max(float(np.linalg.norm(nrm)), 1e-12)
        # outward: away from the axis for sides, up for caps, down-and-out for the tip
        if abs(centroid[0]) + abs(centroid[1]) < 1e-6:
            ref = np.array([0.0, 0.0, 1.0])
        else:
            ref = np.array([centroid[0], centroid[1], 0.0])
            if centroid[2] < z0 - 1e-6:
                ref[2] = -0.5 * float(np.linalg.norm(ref))
        normals.append(nrm if float(np.dot(nrm, ref)) >= 0 else -nrm)
    return Mesh(
        verts=vert_arr,
        faces=tuple(faces),
        normals=np.array(normals),
        colours=np.array(cols, dtype=np.float32),
        texture=tuple(tex),
        gloss=style.gloss,
        length=style.length_mm,
        centroid_weights=_centroid_weights(faces, len(vert_arr)),
    )


def _centroid_weights(faces: list[tuple[int, ...]], n_verts: int) -> np.ndarray:
    w = np.zeros((len(faces), n_verts))
    for i, f in enumerate(faces):
        w[i, list(f)] = 1.0 / len(f)
    return w


def place(mesh: Mesh, pose: Pose) -> tuple[np.ndarray, np.ndarray]:
    """World vertices and normals of the mesh in ``pose`` (resting on its lowest point)."""
    r = pose.rotation()
    vw = mesh.verts @ r.T
    contact = np.array([0.0, 0.0, mesh.length]) @ r.T if pose.upside_down else np.zeros(3)
    vw[:, 0] += pose.x - contact[0]
    vw[:, 1] += pose.y - contact[1]
    vw[:, 2] += -vw[:, 2].min() + pose.lift
    return vw, mesh.normals @ r.T


# -- frame rendering -------------------------------------------------------------------------------


class Renderer:
    """Draws frames of one scene with one dreidel style."""

    def __init__(self, scene: Scene, style: DreidelStyle) -> None:
        self.scene = scene
        self.style = style
        self.mesh = dreidel_mesh(style)
        # the lamp's colour tints everything it lights; bake it into the materials once
        tint = np.array(scene.tint, np.float32)
        self.textures = [np.clip(t * tint, 0, 255).astype(np.uint8) for t in face_textures(style)]
        # mip levels: warping a big texture straight down to a few pixels aliases the letters; a camera
        # integrates over each pixel, so warp from the level nearest the face's size on screen
        self._mips = [_mip_chain(t) for t in self.textures]
        self._tint = tint
        self.bg = background(scene)
        rng = np.random.default_rng([scene.seed, 0x1015E])
        pad = 32
        noise = rng.normal(0.0, scene.noise_sigma, (scene.height + pad, scene.width + pad, 3))
        self._noise_pos = np.clip(noise, 0, 255).astype(np.uint8)
        self._noise_neg = np.clip(-noise, 0, 255).astype(np.uint8)
        self._pad = pad
        self._light = np.array(scene.light)
        half = self._light + np.array([0.0, 0.0, 1.0])
        self._half = half / np.linalg.norm(half)
        self._exp_phase = float(rng.uniform(0, 2 * math.pi))

    # -- public ------------------------------------------------------------------------------
    def render(
        self,
        t: float,
        poses: list[Pose],
        hands: list[tuple[HandMotion, HandPose]],
        finish: bool = True,
    ) -> np.ndarray:
        """One frame at ``t``: ``poses`` are the dreidel over the exposure (one, or several to blur)."""
        # exposure drift: the auto-exposure breathes a little (applied to the scene; the small
        # objects drawn on top differ by at most a few percent, far below what a tracker notices)
        frame = cv2.convertScaleAbs(self.bg, alpha=self.gain(t)) if finish else self.bg.copy()
        if poses:
            self._draw_shadow(frame, poses[len(poses) // 2])
        for motion, hp in hands:
            self._draw_hand_shadow(frame, motion, hp)
        if poses:
            self._draw_dreidel(frame, poses)
        for motion, hp in hands:
            self._draw_hand(frame, motion, hp)
        if finish:
            self._finish(frame, t)
        return frame

    # -- dreidel -----------------------------------------------------------------------------
    def _roi(self, pts: np.ndarray, margin: int) -> tuple[int, int, int, int] | None:
        x0 = int(math.floor(pts[:, 0].min())) - margin
        y0 = int(math.floor(pts[:, 1].min())) - margin
        x1 = int(math.ceil(pts[:, 0].max())) + margin
        y1 = int(math.ceil(pts[:, 1].max())) + margin
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = min(x1, self.scene.width), min(y1, self.scene.height)
        if x1 - x0 < 2 or y1 - y0 < 2:
            return None
        return x0, y0, x1, y1

    def _draw_shadow(self, frame: np.ndarray, pose: Pose) -> None:
        vw, _ = place(self.mesh, pose)
        light = self._light
        ground = vw - (vw[:, 2:3] / light[2]) * light[None, :]
        ground[:, 2] = 0.0
        pts = self.scene.project(np.vstack([ground, vw[vw[:, 2] < 1.0]]))
        blur = max(1.5, 0.12 * self.mesh.length * self.scene.px_per_mm())
        roi = self._roi(pts, int(3 * blur) + 2)
        if roi is None:
            return
        x0, y0, x1, y1 = roi
        q = 2 if blur > 3 else 1  # a soft shadow needs no full resolution
        mh, mw = (y1 - y0 + q - 1) // q, (x1 - x0 + q - 1) // q
        mask = np.zeros((mh, mw), np.float32)
        hull = cv2.convexHull(((pts - [x0, y0]) / q * 16).astype(np.float32)).astype(np.int32)
        cv2.fillConvexPoly(mask, hull, 1.0, lineType=cv2.LINE_AA, shift=4)
        mask = cv2.GaussianBlur(mask, (0, 0), blur / q)
        if q > 1:
            mask = cv2.resize(mask, (mw * q, mh * q), interpolation=cv2.INTER_LINEAR)[: y1 - y0, : x1 - x0]
        sub = frame[y0:y1, x0:x1].astype(np.float32)
        sub *= (1.0 - 0.45 * mask)[:, :, None]
        frame[y0:y1, x0:x1] = sub.astype(np.uint8)

    def _draw_dreidel(self, frame: np.ndarray, poses: list[Pose]) -> None:
        placed = [place(self.mesh, p) for p in poses]
        allpts = np.vstack([self.scene.project(vw) for vw, _ in placed])
        roi = self._roi(allpts, 3)
        if roi is None:
            return
        x0, y0, x1, y1 = roi
        base = frame[y0:y1, x0:x1]
        big = cv2.resize(base, ((x1 - x0) * SS, (y1 - y0) * SS), interpolation=cv2.INTER_LINEAR)
        acc = np.zeros(big.shape, np.float32)
        for vw, nw in placed:
            layer = big.copy()
            self._draw_mesh(layer, vw, nw, x0, y0)
            acc += layer
        acc /= len(placed)
        if len(placed) >= 4:
            # many sub-frames still leave faint steps between them; a camera's blur is continuous
            acc = cv2.GaussianBlur(acc, (0, 0), 0.5 * SS)
        small = cv2.resize(acc, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
        if self.scene.defocus_px > 0.5:
            small = cv2.GaussianBlur(small, (0, 0), self.scene.defocus_px - 0.3)
        frame[y0:y1, x0:x1] = np.clip(small, 0, 255).astype(np.uint8)

    def _draw_mesh(self, layer: np.ndarray, vw: np.ndarray, nw: np.ndarray, x0: int, y0: int) -> None:
        sc = self.scene
        mesh = self.mesh
        px = (sc.project(vw) - [x0, y0]) * SS
        to_cam = sc.position - mesh.centroid_weights @ vw
        visible = np.einsum("ij,ij->i", nw, to_cam) > 0.0
        dist = np.einsum("ij,ij->i", to_cam, to_cam)
        diffuse = np.clip(nw @ self._light, 0.0, None)
        shade = 0.38 + 0.72 * diffuse
        spec = mesh.gloss * np.clip(nw @ self._half, 0.0, None) ** 24 * 255.0
        cols = np.clip((mesh.colours * shade[:, None] + spec[:, None]) * self._tint[None, :], 0, 255)
        h, w = layer.shape[:2]
        idx = np.nonzero(visible)[0]
        for i in idx[np.argsort(-dist[idx], kind="stable")]:
            f = mesh.faces[i]
            poly = px[list(f)]
            k = mesh.texture[i]
            if k >= 0:
                on_screen = max(float(np.linalg.norm(poly[1] - poly[0])), float(np.linalg.norm(poly[2] - poly[1])), 1.0)
                chain = self._mips[k]
                level = int(np.clip(math.floor(math.log2(chain[0].shape[1] / on_screen)), 0, len(chain) - 1))
                tex = chain[level]
                th, tw = tex.shape[:2]
                src = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float32)
                hmat = cv2.getPerspectiveTransform(src, poly.astype(np.float32))
                shaded = cv2.convertScaleAbs(tex, alpha=float(shade[i]), beta=float(spec[i]))
                cv2.warpPerspective(
                    shaded, hmat, (w, h), dst=layer, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT
                )
            else:
                c = cols[i]
                cv2.fillConvexPoly(
                    layer, np.round(poly * 16).astype(np.int32), (float(c[0]), float(c[1]), float(c[2])),
                    lineType=cv2.LINE_AA, shift=4,
                )

    # -- hands -------------------------------------------------------------------------------
    def _hand_parts(
        self, motion: HandMotion, hp: HandPose
    ) -> tuple[list[tuple[np.ndarray, np.ndarray, float, int]], np.ndarray]:
        """The hand as strokes (start xyz, end xyz, width mm, 0 skin / 1 sleeve / 2 nail) drawn in order,
        and the back of the hand as a polygon (N x 3), all in tray millimetres."""
        look = motion.look
        sc = look.scale
        ax, ay = math.cos(hp.arm_angle), math.sin(hp.arm_angle)
        a = np.array([ax, ay, 0.0])  # from the fingertips toward the shoulder
        b = np.array([-ay, ax, 0.0]) * look.side  # across the hand, toward the thumb
        up = np.array([0.0, 0.0, 1.0])
        f = np.array([hp.x, hp.y, hp.z])
        g = hp.grip
        knuck = f + a * (58 + 8 * g) * sc + up * (22 - 8 * g)
        wrist = f + a * (140 + 10 * g) * sc + up * (34 - 6 * g)
        elbow = wrist + a * 290 * sc + up * 60
        cuff = wrist + (elbow - wrist) * 0.5
        strokes: list[tuple[np.ndarray, np.ndarray, float, int]] = [
            (cuff, elbow + (elbow - wrist) * 0.8, 100.0 * sc, 1),
            (wrist, cuff + (elbow - cuff) * 0.1, 60.0 * sc, 0),
        ]
        palm = np.array([
            knuck + b * 44 * sc,
            knuck - b * 40 * sc,
            wrist - b * 30 * sc - a * 10 * sc,
            wrist + b * 34 * sc - a * 10 * sc,
        ])
        for j, off in enumerate((-30.0, -10.0, 10.0, 29.0)):
            base = knuck + b * off * sc
            length = (50.0, 60.0, 58.0, 46.0)[j] * sc
            # pinched: the fingertips gather at the grip point; open: fanned out and flat
            tip_closed = f + b * off * 0.18 * sc + up * 4
            tip_open = base - a * length + b * off * 0.35 * sc - up * 8
            tip = tip_closed * (1 - g) + tip_open * g
            mid = base + (tip - base) * 0.5 + up * (10 * (1 - g) + 3)
            strokes.append((base, mid, 19.0 * sc, 0))
            strokes.append((mid, tip, 16.0 * sc, 0))
            strokes.append((tip + (mid - tip) * 0.12, tip + (mid - tip) * 0.02, 9.0 * sc, 2))
        thumb0 = wrist + b * 28 * sc - a * 25 * sc
        thumb_tip = (f + b * 12 * sc + up * 2) * (1 - g) + (knuck + b * 70 * sc + a * 5 * sc) * g
        thumb_mid = thumb0 + (thumb_tip - thumb0) * 0.55 + b * 10 * sc
        strokes.append((thumb0, thumb_mid, 24.0 * sc, 0))
        strokes.append((thumb_mid, thumb_tip, 19.0 * sc, 0))
        # players keep their arms below the camera rig: nothing comes closer than 20 cm to the lens
        ceiling = self.scene.camera_height_mm - 200.0
        strokes = [(np.minimum(p0, [np.inf, np.inf, ceiling]), np.minimum(p1, [np.inf, np.inf, ceiling]), w, k)
                   for p0, p1, w, k in strokes]
        palm[:, 2] = np.minimum(palm[:, 2], ceiling)
        return strokes, palm

    def _draw_hand(self, frame: np.ndarray, motion: HandMotion, hp: HandPose) -> None:
        sc = self.scene
        strokes, palm = self._hand_parts(motion, hp)
        ends = np.array([p for st in strokes for p in (st[0], st[1])])
        px = sc.project(ends)
        palm_px = sc.project(palm)
        widths = [st[2] * sc.px_per_mm(float(min(st[0][2], st[1][2]))) for st in strokes]
        roi = self._roi(np.vstack([px, palm_px]), int(max(widths)) + 4)
        if roi is None:
            return
        x0, y0, x1, y1 = roi
        # Drawn at half resolution: a hand is soft-edged and smoothly shaded anyway, and it is the
        # biggest thing in the picture (a quarter of the pixels to shade, blur and blend).
        q = 2
        hw, hh = (x1 - x0 + q - 1) // q, (y1 - y0 + q - 1) // q
        layer = cv2.resize(frame[y0:y1, x0:x1], (hw, hh), interpolation=cv2.INTER_AREA)
        mask = np.zeros((hh, hw), np.float32)
        sub16 = 16.0 / q
        skin = np.array(motion.look.skin_bgr, float) * self._tint
        sleeve = np.array(motion.look.sleeve_bgr, float) * self._tint
        nail = np.clip(skin * 0.6 + np.array([200.0, 205.0, 225.0]) * 0.4 * self._tint, 0, 255)
        lx, ly = self._light[0], self._light[1]
        light_px = np.array([lx, -ly])
        order = list(range(2)) + ["palm"] + list(range(2, len(strokes)))  # arm, back of the hand, fingers
        for item in order:
            if item == "palm":
                pts = (palm_px - [x0, y0]) * sub16
                centre = pts.mean(axis=0)
                for frac, bright in ((1.0, 0.72), (0.86, 0.8), (0.72, 0.87), (0.58, 0.93), (0.44, 0.99), (0.3, 1.04)):
                    shrunk = centre + (pts - centre) * frac + light_px * (1 - frac) * 8 * sub16
                    c = np.clip(skin * bright, 0, 255)
                    cv2.fillConvexPoly(layer, np.round(shrunk).astype(np.int32), tuple(float(v) for v in c), cv2.LINE_8, 4)
                    if frac == 1.0:
                        cv2.fillConvexPoly(mask, np.round(shrunk).astype(np.int32), 1.0, cv2.LINE_8, 4)
                continue
            j = int(item)
            p0 = (px[2 * j] - [x0, y0]) * sub16
            p1 = (px[2 * j + 1] - [x0, y0]) * sub16
            width = widths[j] / q
            kind = strokes[j][3]
            col = (skin, sleeve, nail)[kind]
            layers = ((1.0, 1.0),) if kind == 2 else ((1.0, 0.62), (0.78, 0.82), (0.5, 1.0), (0.22, 1.12))
            for frac, bright in layers:
                shift = light_px * width * (1 - frac) * 0.35 * sub16
                c = np.clip(col * bright, 0, 255)
                q0 = tuple(int(v) for v in np.round(p0 + shift))
                q1 = tuple(int(v) for v in np.round(p1 + shift))
                thick = max(1, int(round(width * frac)))
                cv2.line(layer, q0, q1, (float(c[0]), float(c[1]), float(c[2])), thick, cv2.LINE_8, 4)
                if frac == 1.0:
                    cv2.line(mask, q0, q1, 1.0, thick, cv2.LINE_8, 4)
        # soft edges: skin and cloth are never pixel-sharp at this distance
        layer = cv2.GaussianBlur(layer, (3, 3), 0.6)
        alpha = cv2.GaussianBlur(mask, (3, 3), 0.6)
        size = (x1 - x0, y1 - y0)
        layer = cv2.resize(layer, size, interpolation=cv2.INTER_LINEAR)
        alpha = cv2.resize(alpha, size, interpolation=cv2.INTER_LINEAR)
        sub = frame[y0:y1, x0:x1]
        frame[y0:y1, x0:x1] = cv2.blendLinear(layer, sub, alpha, 1.0 - alpha)

    def _draw_hand_shadow(self, frame: np.ndarray, motion: HandMotion, hp: HandPose) -> None:
        sc = self.scene
        strokes, palm = self._hand_parts(motion, hp)
        light = self._light

        def ground(p: np.ndarray) -> np.ndarray:
            q = p - (p[..., 2:3] / light[2]) * light
            q[..., 2] = 0.0
            return q

        px = sc.project(np.array([ground(p) for st in strokes for p in (st[0], st[1])]))
        palm_px = sc.project(ground(palm))
        k = sc.px_per_mm()
        blur = max(3.0, 0.06 * hp.z * k + 3.0)
        roi = self._roi(np.vstack([px, palm_px]), int(60 * k + 3 * blur))
        if roi is None:
            return
        x0, y0, x1, y1 = roi
        q = 4  # draw the soft shadow at quarter resolution
        mh, mw = (y1 - y0) // q + 1, (x1 - x0) // q + 1
        mask = np.zeros((mh, mw), np.float32)
        for j, st in enumerate(strokes):
            p0 = tuple(int(v) for v in np.round((px[2 * j] - [x0, y0]) / q))
            p1 = tuple(int(v) for v in np.round((px[2 * j + 1] - [x0, y0]) / q))
            cv2.line(mask, p0, p1, 1.0, max(1, int(st[2] * k / q)), cv2.LINE_AA)
        cv2.fillConvexPoly(mask, np.round((palm_px - [x0, y0]) / q).astype(np.int32), 1.0, cv2.LINE_AA)
        mask = cv2.GaussianBlur(mask, (0, 0), blur / q)
        mask = cv2.resize(mask, (mw * q, mh * q), interpolation=cv2.INTER_LINEAR)[: y1 - y0, : x1 - x0]
        strength = 0.4 * max(0.3, 1.0 - hp.z / 400.0)
        sub = frame[y0:y1, x0:x1].astype(np.float32)
        sub *= (1.0 - strength * mask)[:, :, None]
        frame[y0:y1, x0:x1] = sub.astype(np.uint8)

    # -- camera ------------------------------------------------------------------------------
    def gain(self, t: float) -> float:
        """The exposure gain at ``t``: a slow swell plus a faster, smaller one."""
        sc = self.scene
        gain = 1.0 + sc.exposure_amp * math.sin(2 * math.pi * t / sc.exposure_period_s + self._exp_phase)
        return gain + 0.4 * sc.exposure_amp * math.sin(2 * math.pi * t / 3.7 + 2 * self._exp_phase)

    def _finish(self, frame: np.ndarray, t: float) -> None:
        sc = self.scene
        key = int(round(t * 1000.0)) & 0xFFFFFFFF
        rng = np.random.default_rng([sc.seed, key])
        ox, oy = (int(v) for v in rng.integers(0, self._pad, 2))
        h, w = sc.height, sc.width
        cv2.add(frame, self._noise_pos[oy : oy + h, ox : ox + w], dst=frame)
        cv2.subtract(frame, self._noise_neg[oy : oy + h, ox : ox + w], dst=frame)
