"""Stills of every phase of a simulated spin, for people to look at (``sevivon sim gallery``)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from hardware.sim.dreidel import DreidelStyle
from hardware.sim.physics import SpinKind
from hardware.sim.world import SimWorld

#: phase name -> where in the spin (a function of its truth and trajectory times)
PHASES: tuple[str, ...] = ("empty", "hand", "sleeping", "wobbling", "falling", "at_rest", "pickup")


def phase_frames(
    seed: int, kind: SpinKind, style: str | DreidelStyle | None = None, size: tuple[int, int] = (640, 480)
) -> dict[str, np.ndarray]:
    """One frame of each phase of one spin of ``kind`` (phases the spin does not have are left out)."""
    world = SimWorld(seed=seed, style=style, width=size[0], height=size[1])
    world.launch(kind, at=1.0)
    truth = world.truths[0]
    ep = world._episodes[0]
    traj = ep.traj
    rel = truth.release_t
    times: dict[str, float] = {"empty": 0.5, "hand": rel - 0.2}
    if kind is not SpinKind.NO_RELEASE:
        times["sleeping"] = rel + min(1.0, 0.5 * truth.stable_s) if truth.stable_s > 0.6 else rel + 0.05
        if truth.wobble_t is not None and truth.touch_t is None:
            times["wobbling"] = rel + 0.5 * (truth.wobble_t - rel + traj.fall_t)
        times["falling"] = rel + 0.5 * (traj.fall_t + traj.land_t)
    times["at_rest"] = truth.rest_t + 0.3
    gone = world.remove(at=truth.rest_t + 1.0)
    if ep.pickup is not None and gone is not None:
        times["pickup"] = ep.pickup.contact_t
    return {name: world.frame_at(t) for name, t in times.items()}


def write_gallery(out_dir: str | Path, seed: int, kind: SpinKind, style: str | DreidelStyle | None = None) -> list[Path]:
    """Write ``<kind>_<phase>.png`` for each phase; returns the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, image in phase_frames(seed, kind, style).items():
        p = out / f"{kind.value}_{name}.png"
        cv2.imwrite(str(p), image)
        paths.append(p)
    return paths
