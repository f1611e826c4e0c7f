"""A player's arm as capsules, and how it moves: in from an edge of the picture, to a point, and out.

The arm is built from its fingertip point: four fingers (pinched together or spread by the grip), a
thumb, a palm of three capsules sloping up toward the wrist, a forearm leaving the picture, and an
optional sleeve over the forearm. The renderer traces the capsules exactly (see render.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from bench.altsim.scene import HandLook

#: capsules per arm: 4 fingers, thumb, 3 palm, forearm, sleeve
N_CAPSULES = 10


@dataclass(frozen=True)
class ArmKey:
    """The fingertip at time ``t`` (tray mm) and how open the hand is (0 pinched .. 1 open)."""

    t: float
    x: float
    y: float
    z: float
    grip: float


@dataclass(frozen=True)
class ArmMotion:
    """Keyframes eased with a smoothstep; ``angle`` points from the fingertips back to the shoulder."""

    keys: tuple[ArmKey, ...]
    angle: float
    look: HandLook
    left: bool
    contact_t: float  # when it touches the dreidel (release, knock, grab)

    @property
    def t_start(self) -> float:
        return self.keys[0].t

    @property
    def t_end(self) -> float:
        return self.keys[-1].t

    def active(self, t: float) -> bool:
        return self.t_start <= t <= self.t_end

    def at(self, t: float) -> ArmKey:
        ks = self.keys
        if t <= ks[0].t:
            return ks[0]
        for a, b in zip(ks, ks[1:], strict=False):
            if t <= b.t:
                f = (t - a.t) / max(b.t - a.t, 1e-9)
                f = f * f * (3 - 2 * f)
                return ArmKey(t, a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f, a.z + (b.z - a.z) * f,
                              a.grip + (b.grip - a.grip) * f)
        return ks[-1]

    def speed_mm_s(self, t: float) -> float:
        a, b = self.at(t - 0.005), self.at(t + 0.005)
        return math.dist((a.x, a.y, a.z), (b.x, b.y, b.z)) / 0.01


def reach(
    target: tuple[float, float, float],
    contact_t: float,
    angle: float,
    look: HandLook,
    rng: np.random.Generator,
    hold_s: float = 0.0,
    grip_in: float = 0.0,
    grip_out: float = 0.8,
    carry_up: bool = False,
    edge_mm: float = 420.0,
) -> ArmMotion:
    """An arm that comes in along ``angle`` (from beyond the picture's edge), reaches ``target`` at
    ``contact_t`` after holding still ``hold_s``, then withdraws (straight up first with ``carry_up``)."""
    tx, ty, tz = target
    ox, oy = tx + edge_mm * math.cos(angle), ty + edge_mm * math.sin(angle)
    t_in = float(rng.uniform(0.5, 0.8))
    t_out = float(rng.uniform(0.45, 0.8))
    hi = tz + float(rng.uniform(60.0, 140.0))
    keys = [
        ArmKey(contact_t - hold_s - t_in, ox, oy, hi + 80.0, grip_in),
        ArmKey(contact_t - hold_s - 0.15, tx + 15 * math.cos(angle), ty + 15 * math.sin(angle), tz + 10.0, grip_in),
        ArmKey(contact_t - 0.01 if hold_s == 0 else contact_t - hold_s, tx, ty, tz, grip_in),
    ]
    if hold_s > 0:
        keys.append(ArmKey(contact_t - 0.01, tx, ty, tz, grip_in))
    keys.append(ArmKey(contact_t + 0.08, tx, ty, tz + (25.0 if carry_up else 3.0), grip_out))
    if carry_up:
        keys.append(ArmKey(contact_t + 0.35, tx, ty, tz + 90.0, grip_out))
    keys.append(ArmKey(keys[-1].t + t_out, ox, oy, hi + 100.0, grip_out))
    return ArmMotion(tuple(keys), angle, look, bool(rng.random() < 0.5), contact_t)


def arm_capsules(key: ArmKey, angle: float, look: HandLook, left: bool) -> tuple[np.ndarray, np.ndarray]:
    """The arm at one instant: capsules (N_CAPSULES x 7: p0, p1, radius; radius 0 = absent) and colours."""
    s = look.scale
    u = np.array([math.cos(angle), math.sin(angle), 0.0])
    side = np.array([-math.sin(angle), math.cos(angle), 0.0]) * (-1.0 if left else 1.0)
    up = np.array([0.0, 0.0, 1.0])
    pitch = math.radians(35.0)
    back = u * math.cos(pitch) + up * math.sin(pitch)
    f = np.array([key.x, key.y, key.z])
    g = min(max(key.grip, 0.0), 1.0)
    lf, lp, wp = 62.0 * s, 80.0 * s, 74.0 * s
    caps = np.zeros((N_CAPSULES, 7))
    cols = np.zeros((N_CAPSULES, 3))
    skin = np.array(look.skin_bgr, dtype=np.float64)
    radii = (7.0, 7.8, 7.4, 6.2)
    for i, off in enumerate((-1.5, -0.5, 0.5, 1.5)):
        knuckle = f + back * lf + side * off * wp / 4 + up * 6.0 * s
        tip = f + side * off * (4.0 * s + g * 18.0 * s) + back * (abs(off) * 6.0 * s) - up * g * 4.0
        caps[i, :3], caps[i, 3:6], caps[i, 6] = knuckle, tip, radii[i] * s
        cols[i] = skin * (1.0 - 0.03 * i)
    thumb_base = f + back * (lf * 0.95) - side * (wp / 2 + 6.0 * s)
    thumb_tip = f - side * (7.0 * s + g * 28.0 * s) + back * 6.0 * s
    caps[4, :3], caps[4, 3:6], caps[4, 6] = thumb_base, thumb_tip, 8.5 * s
    cols[4] = skin
    wrist = f + back * (lf + lp) + up * 10.0 * s
    for j, off in enumerate((-1.0, 0.0, 1.0)):
        a = f + back * (lf * 0.9) + side * off * wp / 3.2 + up * 6.0 * s
        b = wrist + side * off * wp / 5.0
        caps[5 + j, :3], caps[5 + j, 3:6], caps[5 + j, 6] = a, b, 13.0 * s
        cols[5 + j] = skin * 0.97
    fore_dir = u * math.cos(math.radians(22.0)) + up * math.sin(math.radians(22.0))
    elbow = wrist + fore_dir * 420.0
    caps[8, :3], caps[8, 3:6], caps[8, 6] = wrist, elbow, 27.0 * s
    cols[8] = skin * 0.95
    if look.sleeve_bgr is not None:
        caps[9, :3], caps[9, 3:6], caps[9, 6] = wrist + fore_dir * look.sleeve_from_mm, elbow, 36.0 * s
        cols[9] = np.array(look.sleeve_bgr, dtype=np.float64)
    return caps, cols
