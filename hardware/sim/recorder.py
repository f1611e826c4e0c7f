"""Simulated recordings (``sevivon sim record``) and labelled stills for the letter recognizer.

:func:`record_session` plays a whole session on a :class:`SimWorld` (the tray empty for over a
second, then spins separated by a hand taking the dreidel away and the tray empty again) and writes
it with :class:`hardware.recording.RecordingWriter` in the recording format of DESIGN.md, with
``truth.json`` and, when asked, ``enroll/`` stills of the same dreidel.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from controller.rules.letters import Letter
from hardware.imu import ImuSample
from hardware.recording import RecordingWriter
from hardware.sim.dreidel import DreidelStyle, face_of_letter, resolve_style
from hardware.sim.physics import Pose, SpinKind, _roll_target
from hardware.sim.render import Renderer, Scene, place
from hardware.sim.world import SimWorld

#: the tray is empty for at least this long at the start (DESIGN.md: the background model needs >= 1 s)
EMPTY_START_S = 1.4
#: stills per letter in ``enroll/``
ENROLL_PER_LETTER = 3


def plan_session(world: SimWorld, spins: int, kinds: Sequence[SpinKind] | None, seed: int) -> float:
    """Schedule ``spins`` spins on ``world``; returns the session's end time (s)."""
    if spins < 0:
        raise ValueError(f"spins must be >= 0, not {spins}")
    rng = np.random.default_rng([seed, 0x5E55])
    t = EMPTY_START_S + float(rng.uniform(0.0, 0.6))
    end = t
    for i in range(spins):
        kind = kinds[i % len(kinds)] if kinds else None
        world.launch(kind, at=t)
        truth = world.truths[-1]
        # the spinner looks at the result for a moment, then takes the dreidel back
        gone = world.remove(at=truth.rest_t + float(rng.uniform(1.2, 2.2)))
        gone = truth.rest_t + 1.5 if gone is None else gone
        t = gone + float(rng.uniform(0.8, 1.5))
        end = gone + 1.0
    return end


def frame_times(n: int, fps: float, seed: int) -> list[float]:
    """Capture times of a real-ish camera: the nominal grid with a little timestamp jitter and, rarely,
    a dropped frame (the next one comes two periods later), as a USB or CSI camera under load does."""
    rng = np.random.default_rng([seed, 0xF7A3E])
    period = 1.0 / fps
    jitter = rng.normal(0.0, 0.04 * period, n).clip(-0.2 * period, 0.2 * period)
    dropped = rng.random(n) < 0.003
    dropped[0] = False
    return [k * period + float(jitter[k]) if k else 0.0 for k in range(n) if not dropped[k]]


def record_session(
    out_dir: str | Path,
    spins: int,
    seed: int,
    fps: float = 60.0,
    imu: bool = True,
    enroll: bool = False,
    style: str | DreidelStyle | None = None,
    kinds: Sequence[SpinKind] | None = None,
    size: tuple[int, int] = (640, 480),
    progress: Callable[[int, int], None] | None = None,
    overwrite: bool = True,
) -> Path:
    """Write a simulated recording of ``spins`` spins to ``out_dir``; returns its path.

    ``kinds`` cycles through the given spin kinds (None: realistic random ones); ``style`` is a
    preset name, ``"random"``/None (from the seed) or a :class:`DreidelStyle`. A recording already in
    ``out_dir`` is replaced (its files are deleted first, so no stale ``imu.csv`` or stills mix in);
    with ``overwrite=False`` a directory that holds any files is refused instead.
    """
    out = Path(out_dir)
    _prepare(out, overwrite)
    world = SimWorld(seed=seed, style=style, fps=fps, width=size[0], height=size[1], history_s=None)
    end = plan_session(world, spins, kinds, seed)
    n_frames = int(math.ceil(end * fps))
    imu_meta = {"chip": "sim", "rate_hz": world.imu.rate_hz} if imu else None
    source = f"sim:seed={seed},style={world.style.name}"
    with RecordingWriter(out, fps, size[0], size[1], source, imu=imu_meta) as writer:
        track_rows = []
        for t in frame_times(n_frames, fps, seed):
            index = writer.write_frame(world.frame_at(t), t)
            track_rows.append(world.track_row(index, t))
            if progress is not None and writer.frame_count % 60 == 0:
                progress(writer.frame_count, n_frames)
        _write_track(out / TRACK_FILE, track_rows)
        if imu:
            arr = world.imu_array(0.0, n_frames / fps)
            writer.write_imu(ImuSample(*(float(v) for v in row)) for row in arr)
        writer.write_truth([t.to_json() for t in world.truths])
        if enroll:
            for letter in world.style.letters:
                for j in range(ENROLL_PER_LETTER):
                    image, _ = render_still(world.style, letter, seed * 1000 + j, scene=world.scene)
                    writer.write_enroll(letter, image)
    return out


#: per-frame ground truth of the dreidel (an extra beside the contract's files; readers may ignore it)
TRACK_FILE = "track.csv"
TRACK_HEADER = ("index", "t", "visible", "x_px", "y_px", "tilt_deg", "spin_rev_s", "hands")
_RECORDING_FILES = ("meta.json", "video.avi", "frames.csv", "imu.csv", "truth.json", TRACK_FILE)


def _write_track(path: Path, rows: list[tuple[float, ...]]) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(TRACK_HEADER)
        for r in rows:
            w.writerow([int(r[0]), f"{r[1]:.6f}", int(r[2]), f"{r[3]:.2f}", f"{r[4]:.2f}", f"{r[5]:.2f}",
                        f"{r[6]:.2f}", int(r[7])])


def _prepare(out: Path, overwrite: bool) -> None:
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} is a file: give a directory for the recording")
    if not out.is_dir() or not any(out.iterdir()):
        return
    if not overwrite:
        raise ValueError(f"{out} is not empty: choose a new directory, or overwrite it (--overwrite)")
    for name in _RECORDING_FILES:
        (out / name).unlink(missing_ok=True)
    enroll = out / "enroll"
    if enroll.is_dir():
        for png in enroll.glob("*.png"):
            png.unlink()


def render_still(
    style: str | DreidelStyle | None,
    letter: Letter | str,
    seed: int,
    scene: Scene | None = None,
) -> tuple[np.ndarray, dict[str, Any]]:
    """An overhead picture of a dreidel at rest with ``letter`` up, and its truth.

    The dreidel lies at a random place near the tray's centre with a random heading; ``scene``
    (default: one drawn from ``seed``) fixes the camera, tray and light. The truth has ``letter``,
    ``rest_px`` (the body's centre in the picture), ``length_px``, ``tip_angle_deg`` and ``face_quad_px``:
    the up face's corners in pixels, in :func:`vision.features.face_patch` order (handle-side left,
    handle-side right, tip-side right, tip-side left, as seen from the camera with the handle up).
    """
    st = resolve_style(style, seed)
    want = Letter.parse(str(letter))
    face = face_of_letter(st, want)
    sc = scene or Scene.random(seed)
    rng = np.random.default_rng([seed, 0x5711])
    phi = float(rng.uniform(0, 2 * math.pi))
    r = sc.tray_radius_mm * 0.45 * math.sqrt(float(rng.uniform()))
    a = float(rng.uniform(0, 2 * math.pi))
    psi = _roll_target(phi, 0.0, 0.0, face, False)
    pose = Pose(r * math.cos(a), r * math.sin(a), math.pi / 2, phi, psi, 0.0, False)
    renderer = Renderer(sc, st)
    image = renderer.render(float(rng.uniform(0, 30)), [pose], [])
    vw, _ = place(renderer.mesh, pose)
    px = sc.project(vw)
    centre = sc.project(vw.mean(axis=0)[None, :])[0]
    tip = px[int(np.argmin(np.hypot(renderer.mesh.verts[:, 0], renderer.mesh.verts[:, 1]) + renderer.mesh.verts[:, 2]))]
    # the up face's polygon is mesh face ``face``, already in texture order (handle-side corners first)
    quad = px[list(renderer.mesh.faces[face])]
    truth = {
        "letter": want.value,
        "style": st.name,
        "rest_px": [round(float(centre[0]), 1), round(float(centre[1]), 1)],
        "length_px": round(float(np.linalg.norm(px.max(axis=0) - px.min(axis=0))), 1),
        "tip_angle_deg": round(math.degrees(math.atan2(-(tip[1] - centre[1]), tip[0] - centre[0])), 2),
        "face_quad_px": [[round(float(x), 2), round(float(y), 2)] for x, y in quad],
    }
    return image, truth
