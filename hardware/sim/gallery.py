"""Stills of every phase of a simulated spin, for people to look at (``sevivon sim gallery``)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from PIL import Image

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
    rel = truth.release_t
    key = world.timeline(0)
    fall, land = float(key["fall"] or rel), float(key["land"] or rel)
    times: dict[str, float] = {"empty": 0.5, "hand": rel - 0.2}
    if kind is not SpinKind.NO_RELEASE:
        times["sleeping"] = rel + min(1.0, 0.5 * truth.stable_s) if truth.stable_s > 0.6 else rel + 0.05
        if truth.wobble_t is not None and truth.touch_t is None:
            times["wobbling"] = 0.5 * (truth.wobble_t + fall)
        times["falling"] = 0.5 * (fall + land)
    times["at_rest"] = truth.rest_t + 0.3
    world.remove(at=truth.rest_t + 1.0)
    pickup = world.timeline(0)["pickup"]
    if pickup is not None:
        times["pickup"] = pickup
    return {name: world.frame_at(t) for name, t in times.items()}


def write_gallery(
    out_dir: str | Path, seed: int, kind: SpinKind, style: str | DreidelStyle | None = None, sheet: bool = False
) -> list[Path]:
    """Write ``<kind>_<phase>.png`` for each phase, or with ``sheet`` one small labelled contact sheet
    ``<kind>_phases.png`` (half size, 256 colours: small enough for docs/); returns the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    frames = phase_frames(seed, kind, style)
    if not sheet:
        paths = []
        for name, image in frames.items():
            p = out / f"{kind.value}_{name}.png"
            cv2.imwrite(str(p), image)
            paths.append(p)
        return paths
    tiles = []
    for name, image in frames.items():
        tile = cv2.resize(image, (image.shape[1] // 2, image.shape[0] // 2), interpolation=cv2.INTER_AREA)
        cv2.putText(tile, name, (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(tile, name, (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1, cv2.LINE_AA)
        tiles.append(tile)
    while len(tiles) % 4:
        tiles.append(np.zeros_like(tiles[0]))
    rows = [np.hstack(tiles[i : i + 4]) for i in range(0, len(tiles), 4)]
    grid = np.vstack(rows)
    p = out / f"{kind.value}_phases.png"
    Image.fromarray(grid[:, :, ::-1]).quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        p, optimize=True
    )
    return [p]


def zoom_sheet(
    seed: int, kind: SpinKind, style: str | DreidelStyle | None, t_from: float, step: float, count: int = 12
) -> np.ndarray:
    """A strip of crops following the dreidel every ``step`` s from ``t_from`` after the release (4x zoom)."""
    world = SimWorld(seed=seed, style=style)
    world.launch(kind, at=1.0)
    rel = world.truths[0].release_t
    crops = []
    for k in range(count):
        t = rel + t_from + k * step
        image = world.frame_at(t)
        pose = world.dreidel_pose(t)
        u, v = world.scene.project(np.array([[pose.x, pose.y, 0.0]]))[0] if pose else (320.0, 240.0)
        u = int(np.clip(u, 48, image.shape[1] - 48))
        v = int(np.clip(v, 48, image.shape[0] - 48))
        crop = cv2.resize(image[v - 48 : v + 48, u - 48 : u + 48], (192, 192), interpolation=cv2.INTER_NEAREST)
        cv2.putText(crop, f"{t - rel:+.2f}s", (6, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
        crops.append(crop)
    rows = [np.hstack(crops[i : i + 6]) for i in range(0, len(crops), 6)]
    return np.vstack(rows)


def letters_sheet(styles: tuple[str, ...], seed: int) -> np.ndarray:
    """Each style's letters at rest (crops around the dreidel, 2x), one row per style."""
    from hardware.sim.dreidel import resolve_style
    from hardware.sim.recorder import render_still

    rows = []
    for name in styles:
        st = resolve_style(name, seed)
        crops = []
        for letter in st.letters:
            image, truth = render_still(st, letter, seed)
            u, v = (int(c) for c in truth["rest_px"])
            u = int(np.clip(u, 64, image.shape[1] - 64))
            v = int(np.clip(v, 64, image.shape[0] - 64))
            crop = cv2.resize(image[v - 64 : v + 64, u - 64 : u + 64], (256, 256), interpolation=cv2.INTER_CUBIC)
            cv2.putText(crop, f"{st.name}: {letter.value}", (6, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1,
                        cv2.LINE_AA)
            crops.append(crop)
        rows.append(np.hstack(crops))
    return np.vstack(rows)


def imu_trace(seed: int, kind: SpinKind) -> np.ndarray:
    """The IMU's az (top) and gx (bottom) through one spin, with release/wobble/rest marked."""
    world = SimWorld(seed=seed, style="wood", width=320, height=240)
    world.launch(kind, at=0.5)
    truth = world.truths[0]
    world.remove(at=truth.rest_t + 1.0)
    a = world.imu_array(0.0, truth.rest_t + 2.5)
    h, w = 220, 1200
    img = np.full((2 * h + 30, w, 3), 255, np.uint8)
    t = a[:, 0]
    x = (t / t[-1] * (w - 1)).astype(np.int32)
    for row, (col, scale, off, label) in enumerate(((3, 250.0, 1.0, "az - 1 g"), (4, 3.0, 0.0, "gx deg/s"))):
        y = np.clip(h * row + h / 2 - (a[:, col] - off) * scale, h * row, h * row + h - 1).astype(np.int32)
        cv2.polylines(img, [np.stack([x, y], 1)], False, (40, 40, 40), 1)
        cv2.putText(img, label, (6, h * row + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
    marks = ((truth.release_t, (0, 160, 0), "release"), (truth.wobble_t, (0, 0, 220), "wobble"),
             (truth.rest_t, (200, 0, 0), "rest"))
    for tt, colour, label in marks:
        if tt is None:
            continue
        xx = int(tt / t[-1] * (w - 1))
        cv2.line(img, (xx, 0), (xx, 2 * h), colour, 1)
        cv2.putText(img, label, (xx + 3, 2 * h + 20), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
    return img


def write_docs(out_dir: str | Path) -> list[Path]:
    """The pictures in docs/sim/: a spin's phases, zoomed strips, letters of three styles, an IMU trace."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = write_gallery(out, 0, SpinKind.VALID, "big_wood", sheet=True)
    paths += write_gallery(out, 3, SpinKind.HAND_TOUCH, None, sheet=True)
    sheets = {
        "wobble_fall_rest.png": zoom_sheet(8, SpinKind.SHORT, None, 1.1, 0.08),
        "upside_down.png": zoom_sheet(9, SpinKind.UPSIDE_DOWN, None, 6.3, 0.1),
        "letters.png": letters_sheet(("wood", "painted", "israeli"), 2),
        "imu_trace.png": imu_trace(21, SpinKind.VALID),
    }
    for name, image in sheets.items():
        p = out / name
        Image.fromarray(image[:, :, ::-1]).quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
            p, optimize=True
        )
        paths.append(p)
    return paths
