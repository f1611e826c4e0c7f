"""A hand and arm reaching into the tray: where it is at each instant, and how open its fingers are.

A :class:`HandMotion` is a short list of keyframes (fingertip position in tray millimetres, height,
grip) eased between, plus the direction the arm comes from. The world makes one for every
delivery (the spinner's hand releases the dreidel), knock (interference) and pickup (the spinner
takes the dreidel back); the renderer draws it; the IMU feels it when it touches something.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

import numpy as np


class HandAction(StrEnum):
    DELIVER = "deliver"  # holds the dreidel by its handle, twists and lets go
    KNOCK = "knock"  # reaches in and touches the spinning dreidel
    PICKUP = "pickup"  # takes the resting dreidel away
    PLACE = "place"  # puts a dreidel down on its side without spinning it
    HOVER = "hover"  # reaches over the tray near the dreidel but touches nothing


@dataclass(frozen=True)
class HandKey:
    """The fingertip at time ``t``: position (mm), height above the tray (mm), grip 0 (pinched) .. 1 (open)."""

    t: float
    x: float
    y: float
    z: float
    grip: float


@dataclass(frozen=True)
class HandPose:
    x: float
    y: float
    z: float
    grip: float
    arm_angle: float  # direction (rad) from the fingertips back toward the shoulder


@dataclass(frozen=True)
class HandLook:
    """How one player's hand looks: skin and sleeve colours (BGR) and size."""

    skin_bgr: tuple[int, int, int]
    sleeve_bgr: tuple[int, int, int]
    scale: float
    side: int  # +1 right hand, -1 left hand (which side the thumb is on)

    @classmethod
    def random(cls, rng: np.random.Generator) -> HandLook:
        # skin tones from light to dark (BGR), with some jitter
        tones = ((150, 180, 225), (125, 160, 210), (105, 140, 195), (80, 110, 160), (55, 80, 120), (40, 60, 95))
        base = np.array(tones[int(rng.integers(len(tones)))], dtype=float) + rng.normal(0, 8, 3)
        sleeves = ((40, 40, 40), (150, 90, 40), (200, 200, 200), (60, 60, 150), (90, 120, 60), (30, 30, 110))
        sl = np.array(sleeves[int(rng.integers(len(sleeves)))], dtype=float) + rng.normal(0, 10, 3)
        return cls(
            skin_bgr=_bgr(base),
            sleeve_bgr=_bgr(sl),
            scale=float(rng.uniform(0.85, 1.15)),
            side=1 if rng.random() < 0.85 else -1,
        )


@dataclass(frozen=True)
class HandMotion:
    """One hand's visit to the tray."""

    action: HandAction
    keys: tuple[HandKey, ...]
    arm_angle: float
    look: HandLook
    contact_t: float  # when it touches the dreidel (grab, let go or knock)

    @property
    def t_start(self) -> float:
        return self.keys[0].t

    @property
    def t_end(self) -> float:
        return self.keys[-1].t

    def active(self, t: float) -> bool:
        return self.t_start <= t <= self.t_end

    def at(self, t: float) -> HandPose:
        """The eased pose at ``t`` (clamped to the motion)."""
        keys = self.keys
        if t <= keys[0].t:
            k = keys[0]
            return HandPose(k.x, k.y, k.z, k.grip, self.arm_angle)
        for a, b in zip(keys, keys[1:], strict=False):
            if t <= b.t:
                s = (t - a.t) / max(b.t - a.t, 1e-9)
                s = s * s * (3.0 - 2.0 * s)
                return HandPose(
                    a.x + (b.x - a.x) * s,
                    a.y + (b.y - a.y) * s,
                    a.z + (b.z - a.z) * s,
                    a.grip + (b.grip - a.grip) * s,
                    self.arm_angle,
                )
        k = keys[-1]
        return HandPose(k.x, k.y, k.z, k.grip, self.arm_angle)


#: fingertips this far from the tray centre are outside any picture we render
OFF_PICTURE_MM = 520.0


def approach(
    action: HandAction,
    target: tuple[float, float],
    target_z: float,
    contact_t: float,
    arm_angle: float,
    look: HandLook,
    rng: np.random.Generator,
    hold_s: float = 0.0,
    carry: bool = False,
) -> HandMotion:
    """A hand that comes in from ``arm_angle``, reaches ``target`` at ``contact_t`` and goes back.

    ``hold_s`` keeps it at the target before the contact (a spinner winding up); ``carry`` lifts
    straight up first (taking the dreidel with it).
    """
    ox = target[0] + OFF_PICTURE_MM * math.cos(arm_angle)
    oy = target[1] + OFF_PICTURE_MM * math.sin(arm_angle)
    t_in = float(rng.uniform(0.45, 0.7))
    t_out = float(rng.uniform(0.45, 0.75))
    high = target_z + float(rng.uniform(50.0, 110.0))
    open_in = 0.0 if action in (HandAction.DELIVER, HandAction.PLACE) else 0.8
    keys = [
        HandKey(contact_t - hold_s - t_in, ox, oy, high + 60.0, open_in),
        HandKey(contact_t - hold_s - 0.12, target[0] + 12 * math.cos(arm_angle), target[1] + 12 * math.sin(arm_angle),
                target_z + 8.0, open_in),
    ]
    if hold_s > 0:
        keys.append(HandKey(contact_t - 0.02, target[0], target[1], target_z, 0.0 if open_in == 0.0 else 0.3))
    else:
        keys.append(HandKey(contact_t - 0.02, target[0], target[1], target_z, 0.5))
    if action is HandAction.DELIVER or action is HandAction.PLACE:
        keys.append(HandKey(contact_t + 0.08, target[0], target[1], target_z + 6.0, 0.7))
    elif action is HandAction.HOVER:
        keys.append(HandKey(contact_t + float(rng.uniform(0.15, 0.4)), target[0], target[1], target_z + 5.0, 0.6))
    elif action is HandAction.PICKUP:
        keys.append(HandKey(contact_t + 0.15, target[0], target[1], target_z, 0.0))
        if carry:
            keys.append(HandKey(contact_t + 0.35, target[0], target[1], target_z + 40.0, 0.0))
    else:
        keys.append(HandKey(contact_t + 0.06, target[0] - 25 * math.cos(arm_angle), target[1] - 25 * math.sin(arm_angle),
                            target_z + 4.0, 0.6))
    last = keys[-1]
    keys.append(HandKey(last.t + 0.5 * t_out, (last.x + ox) / 2, (last.y + oy) / 2, high, last.grip))
    keys.append(HandKey(last.t + t_out, ox, oy, high + 60.0, last.grip))
    return HandMotion(action=action, keys=tuple(keys), arm_angle=arm_angle, look=look, contact_t=contact_t)


def _bgr(v: np.ndarray) -> tuple[int, int, int]:
    c = np.clip(v, 0, 255).astype(int)
    return (int(c[0]), int(c[1]), int(c[2]))
