"""Sessions of the alternative table, written as recordings (DESIGN.md "Contracts/Recording").

Only the motion of each spin comes from the twin (``hardware.sim.physics``: the heavy top, its fall
and rest, given this dreidel's sizes) and the IMU's signal model (``hardware.sim.imu``). The timeline
(hands delivering, knocking and taking the dreidel away), the ground truth, the camera and all the
pictures are this package's own.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bench.altsim.arm import ArmMotion, arm_capsules, reach
from bench.altsim.render import AltRenderer, DreidelPlacement
from bench.altsim.scene import AltDreidel, AltScene, HandLook
from controller.rules.letters import Letter
from hardware.imu import ImuSample
from hardware.recording import RecordingWriter
from hardware.sim.dreidel import face_of_letter
from hardware.sim.imu import Component, ImuModel
from hardware.sim.physics import (
    Pose,
    SpinKind,
    SpinTrajectory,
    _roll_target,
    plan_spin,
    random_kind,
    simulate_spin,
    up_face,
)
from hardware.sim.world import judge_reasons

#: picture sizes a checker might use
SIZES: tuple[tuple[int, int], ...] = ((640, 480), (800, 600), (1280, 720), (960, 540))
#: enrolment stills per letter
ENROLL_PER_LETTER = 3


@dataclass(frozen=True)
class SessionSpec:
    """What to record: seed, picture size, frame rate, spins (their kinds, None = realistic), IMU, enrol."""

    seed: int
    size: tuple[int, int] = (640, 480)
    fps: float = 60.0
    kinds: tuple[SpinKind | None, ...] = (None, None)
    imu: bool = True
    enroll: bool = False

    @classmethod
    def random(cls, seed: int, spins: int = 2, kinds: Sequence[SpinKind] | None = None) -> SessionSpec:
        """Size, fps, IMU and enrolment drawn from ``seed`` (kinds cycled from ``kinds`` when given)."""
        rng = np.random.default_rng([seed, 0x5E55])
        size = SIZES[int(rng.choice(len(SIZES), p=[0.4, 0.2, 0.25, 0.15]))]
        fps = 120.0 if rng.random() < 0.35 else 60.0
        ks: tuple[SpinKind | None, ...] = tuple(kinds[i % len(kinds)] for i in range(spins)) if kinds else (None,) * spins
        return cls(seed, size, fps, ks, bool(rng.random() < 0.7), bool(rng.random() < 0.5))


@dataclass
class Episode:
    """One spin on the timeline: the hands, the motion and what really happened."""

    index: int
    kind: SpinKind
    traj: SpinTrajectory
    t_release: float
    deliver: ArmMotion
    arms: list[ArmMotion]
    truth: dict[str, Any]
    imu: list[Component]
    rest: DreidelPlacement
    pickup: ArmMotion | None = None
    t_gone: float = math.inf
    extra: dict[str, Any] = field(default_factory=dict)


class AltTable:
    """One table (scene, dreidel, players) and a timeline of spins on it."""

    def __init__(self, seed: int, size: tuple[int, int] = (640, 480), fps: float = 60.0, imu_rate: float | None = None
                 ) -> None:
        rng = np.random.default_rng([seed, 0xA175])
        self.seed = seed
        dreidel = AltDreidel.random(rng)
        self.scene, scale = AltScene.random(rng, size[0], size[1], fps, dreidel.length_mm, seed)
        self.dreidel = dreidel.scaled(scale)
        self.style = self.dreidel.physics_style()
        self.renderer = AltRenderer(self.scene, self.dreidel)
        rate = imu_rate if imu_rate is not None else float(rng.choice([416.0, 833.0, 1000.0]))
        self.imu = ImuModel(seed + 7919, rate)
        self.players = [HandLook.random(rng) for _ in range(3)]
        self.episodes: list[Episode] = []
        self._rng = rng

    # -- geometry -----------------------------------------------------------------------------
    def placement(self, pose: Pose) -> DreidelPlacement:
        """Body -> world for the twin's pose convention (contact at (x, y), lowest point at ``lift``)."""
        r = pose.rotation()
        hull = self.dreidel.hull_points() @ r.T
        contact = r @ np.array([0.0, 0.0, self.dreidel.z_top + self.dreidel.handle_h]) if pose.upside_down else (
            np.zeros(3))
        t = np.array([pose.x - contact[0], pose.y - contact[1], -hull[:, 2].min() + pose.lift])
        return DreidelPlacement(r, t)

    def _measure(self, pl: DreidelPlacement) -> dict[str, Any]:
        sc = self.scene
        centre = pl.R @ self.dreidel.centre + pl.T
        tip = pl.R @ self.dreidel.tip_point + pl.T
        end = pl.R @ np.array([0.0, 0.0, self.dreidel.z_top + self.dreidel.handle_h]) + pl.T
        c_px, tip_px, end_px = sc.project(np.array([centre, tip, end]))
        in_pic = bool(0 <= c_px[0] < sc.width and 0 <= c_px[1] < sc.height)
        return {
            "centre": centre,
            "in_tray": sc.inside_tray(float(centre[0]), float(centre[1])),
            "in_picture": in_pic,
            "rest_px": [round(float(c_px[0]), 1), round(float(c_px[1]), 1)],
            "length_px": round(float(np.linalg.norm(end_px - tip_px)), 1),
            "tip_angle_deg": round(math.degrees(math.atan2(-(tip_px[1] - c_px[1]), tip_px[0] - c_px[0])), 2),
        }

    # -- the timeline ---------------------------------------------------------------------------
    def add_spin(self, kind: SpinKind | None, t0: float) -> Episode:
        """Schedule a spin whose hand starts moving at ``t0``."""
        index = len(self.episodes)
        rng = np.random.default_rng([self.seed, 0xE9, index])
        kind = kind if kind is not None else random_kind(rng)
        ep_seed = int(rng.integers(1 << 31))
        plan = plan_spin(self.style, kind, ep_seed, self.scene.tray_r * 0.9)
        traj = simulate_spin(self.style, plan)
        look = self.players[int(rng.integers(len(self.players)))]
        angle = float(rng.uniform(0, 2 * math.pi))
        hold = float(rng.uniform(0.2, 0.5))
        length = self.dreidel.length_mm
        rest_pl = self.placement(traj.rest_pose)
        if kind is SpinKind.NO_RELEASE:
            c = rest_pl.R @ self.dreidel.centre + rest_pl.T
            target = (float(c[0]), float(c[1]), float(c[2]) + self.dreidel.half_w + 4.0)
            deliver = reach(target, t0 + 0.8 + hold, angle, look, rng, hold_s=hold, grip_in=0.1, grip_out=0.8)
        else:
            target = (plan.x0, plan.y0, length + 3.0)
            deliver = reach(target, t0 + 0.8 + hold, angle, look, rng, hold_s=hold, grip_in=0.0, grip_out=0.7)
        t_release = deliver.contact_t
        arms = [deliver]
        imu: list[Component] = []
        if kind is SpinKind.NO_RELEASE:
            imu.append(self.imu.bump(t_release, float(rng.uniform(0.02, 0.05)), rng, 0.15))
        else:
            imu.extend(self.imu.spin(traj, t_release, rng))
        touch_abs = None
        if kind is SpinKind.HAND_TOUCH and plan.touch_t is not None:
            touch_abs = t_release + min(plan.touch_t, traj.fall_t)
            at = traj.pose_at(touch_abs - t_release)
            knock = reach((at.x, at.y, length * 0.6), touch_abs, plan.touch_dir + math.pi,
                          self.players[int(rng.integers(len(self.players)))], rng, grip_in=0.7, grip_out=0.8)
            arms.append(knock)
            imu.append(self.imu.bump(touch_abs, float(rng.uniform(0.04, 0.09)), rng))
        near_abs = None
        stable_end = traj.wobble_t if traj.wobble_t is not None else traj.fall_t
        if kind is SpinKind.VALID and stable_end > 2.5 and rng.random() < 0.3:
            # a player reaches over the tray near the spinning dreidel without touching it (not interference)
            near_abs = t_release + float(rng.uniform(1.0, stable_end - 1.0))
            at = traj.pose_at(near_abs - t_release)
            side = float(rng.uniform(0, 2 * math.pi))
            gap = float(rng.uniform(70.0, 110.0))
            hover = reach((at.x + gap * math.cos(side), at.y + gap * math.sin(side), length + 35.0), near_abs, side,
                          self.players[int(rng.integers(len(self.players)))], rng, grip_in=0.9, grip_out=0.9)
            arms.append(hover)
        m = self._measure(rest_pl)
        wobble = None if traj.wobble_t is None else t_release + traj.wobble_t
        stable = 0.0 if wobble is None else wobble - t_release
        reasons = judge_reasons(kind, stable, m["in_tray"], touch_abs is not None)
        letter = self.dreidel.letters[up_face(traj.rest_pose)]
        truth = {
            "index": index,
            "kind": kind.value,
            "release_t": round(t_release, 4),
            "wobble_t": None if wobble is None else round(wobble, 4),
            "rest_t": round(t_release + traj.rest_t, 4),
            "letter": letter.value,
            "valid": not reasons,
            "reasons": list(reasons),
            "stable_s": round(stable, 4),
            "upside_down": plan.upside_down,
            "in_tray": m["in_tray"],
            "in_picture": m["in_picture"],
            "tip_angle_deg": m["tip_angle_deg"],
            "rest_px": m["rest_px"],
            "length_px": m["length_px"],
            "launch_t": round(t0, 4),
            "touch_t": None if touch_abs is None else round(touch_abs, 4),
            "spin_rev_s": round(abs(traj.omega0) / (2 * math.pi), 2),
            "by_launcher": False,
            "hand_near_t": None if near_abs is None else round(near_abs, 4),
        }
        ep = Episode(index, kind, traj, t_release, deliver, arms, truth, imu, rest_pl, extra={"centre": m["centre"]})
        self.episodes.append(ep)
        return ep

    def take_away(self, ep: Episode, t: float) -> float:
        """A hand takes the resting dreidel from ``t``; returns when it has left the picture."""
        if not ep.truth["in_picture"]:
            ep.t_gone = t
            return t
        rng = np.random.default_rng([self.seed, 0x7A4E, ep.index])
        c = ep.extra["centre"]
        angle = math.atan2(c[1], c[0]) + float(rng.normal(0, 0.5)) if math.hypot(c[0], c[1]) > 20 else float(
            rng.uniform(0, 2 * math.pi))
        top = float(c[2]) + self.dreidel.half_w + 3.0
        arm = reach((float(c[0]), float(c[1]), top), t + 0.7, angle, self.players[int(rng.integers(3))], rng,
                    grip_in=0.8, grip_out=0.0, carry_up=True)
        ep.pickup = arm
        ep.arms.append(arm)
        ep.t_gone = arm.t_end
        ep.imu.append(self.imu.bump(arm.contact_t, float(rng.uniform(0.01, 0.03)), rng, 0.2))
        return arm.t_end

    def plan_session(self, kinds: Sequence[SpinKind | None]) -> float:
        """Empty tray first (>= 1.2 s), then the spins, each taken away before the next; returns the end."""
        rng = np.random.default_rng([self.seed, 0x5E5])
        t = float(rng.uniform(1.2, 2.0))
        for kind in kinds:
            ep = self.add_spin(kind, t)
            gone = self.take_away(ep, ep.t_release + ep.traj.rest_t + float(rng.uniform(0.8, 1.6)))
            t = gone + float(rng.uniform(0.5, 1.1))
        return t + 0.3

    # -- what the camera sees ---------------------------------------------------------------------
    def _dreidel_pose(self, ep: Episode, t: float) -> DreidelPlacement | None:
        if t < ep.deliver.t_start or t >= ep.t_gone:
            return None
        if t < ep.t_release:
            hk = ep.deliver.at(t)
            put = ep.deliver.at(ep.t_release)
            if ep.kind is SpinKind.NO_RELEASE:
                pl = ep.rest
                return DreidelPlacement(pl.R, pl.T + np.array([hk.x - put.x, hk.y - put.y, max(0.0, hk.z - put.z)]))
            first = ep.traj.pose_at(0.0)
            w = float(ep.traj.omega[0]) if len(ep.traj.omega) else 0.0
            ramp, dt = 0.15, ep.t_release - t
            psi = first.psi - w * dt + w * dt * dt / (2 * ramp) if dt < ramp else first.psi - w * ramp / 2
            lift = max(0.0, hk.z - (self.dreidel.length_mm + 3.0)) + 1.5
            return self.placement(Pose(hk.x, hk.y, first.theta, first.phi, psi, lift, first.upside_down))
        pose = ep.traj.pose_at(t - ep.t_release)
        pl = ep.rest if t - ep.t_release >= float(ep.traj.t[-1]) else self.placement(pose)
        if ep.pickup is not None and t >= ep.pickup.contact_t:
            hk = ep.pickup.at(t)
            grab = ep.pickup.at(ep.pickup.contact_t)
            pl = DreidelPlacement(pl.R, pl.T + np.array([hk.x - grab.x, hk.y - grab.y, max(0.0, hk.z - grab.z)]))
        return pl

    def _episode_at(self, t: float) -> Episode | None:
        found = None
        for e in self.episodes:
            if e.deliver.t_start <= t:
                found = e
        return found

    def frame(self, t: float) -> np.ndarray:
        """The camera's picture at ``t`` (BGR uint8)."""
        sc = self.scene
        exp = sc.exposure_s
        ep = self._episode_at(t)
        n_d = 1
        if ep is not None:
            rel = t - ep.t_release
            if -0.2 < rel < ep.traj.rest_t:
                w = ep.traj.spin_rate_at(max(rel, 0.0)) if rel >= 0 else abs(float(ep.traj.omega[0]))
                n_d = int(min(8, max(1, math.ceil(w * exp / 0.25))))
        arms = [a for e in self.episodes for a in e.arms if a.active(t)]
        n_h = 1
        for a in arms:
            px = a.speed_mm_s(t) * exp * sc.px_per_mm()
            n_h = max(n_h, int(min(6, math.ceil(px / 3.0))))
        n = max(n_d, n_h)
        times = [t] if n == 1 else [t - exp / 2 + exp * (k + 0.5) / n for k in range(n)]
        placements = []
        if ep is not None:
            for s in times[:: max(1, n // n_d)] if n_d > 1 else [t]:
                pl = self._dreidel_pose(ep, s)
                if pl is not None:
                    placements.append(pl)
        caps_list: list[np.ndarray] = []
        cols = np.zeros((0, 3))
        if arms:
            for s in times if n_h > 1 else [t]:
                parts = [arm_capsules(a.at(s), a.angle, a.look, a.left) for a in arms]
                caps_list.append(np.concatenate([p[0] for p in parts]))
                cols = np.concatenate([p[1] for p in parts])
        img = self.renderer.scene_image(placements, caps_list, cols)
        return self.renderer.finish(img, t)

    # -- the IMU --------------------------------------------------------------------------------
    def imu_array(self, t0: float, t1: float) -> np.ndarray:
        """Samples in ``[t0, t1)`` as N x 7 (t, ax, ay, az, gx, gy, gz)."""
        m = self.imu
        n0, n1 = m.sample_index(t0), m.sample_index(t1)
        data = m.floor(n0, n1)
        for e in self.episodes:
            for c in e.imu:
                a, b = max(n0, c.n0), min(n1, c.n1)
                if a < b:
                    data[a - n0 : b - n0] += c.data[a - c.n0 : b - c.n0]
        return np.column_stack([np.arange(n0, n1) / m.rate_hz, data])

    # -- stills ---------------------------------------------------------------------------------
    def still(self, letter: Letter, seed: int) -> tuple[np.ndarray, dict[str, Any]]:
        """An overhead picture of this dreidel at rest with ``letter`` up, somewhere in the tray."""
        rng = np.random.default_rng([self.seed, 0x571, seed])
        face = face_of_letter(self.style, letter)
        phi = float(rng.uniform(0, 2 * math.pi))
        r = self.scene.tray_r * 0.5 * math.sqrt(float(rng.uniform()))
        a = float(rng.uniform(0, 2 * math.pi))
        psi = _roll_target(phi, 0.0, 0.0, face, False) + float(rng.normal(0, math.radians(4)))
        pose = Pose(r * math.cos(a), r * math.sin(a), math.pi / 2, phi, psi, 0.0, False)
        pl = self.placement(pose)
        img = self.renderer.finish(self.renderer.scene_image([pl], [], np.zeros((0, 3))), float(rng.uniform(0, 20)),
                                   jpeg=True)
        m = self._measure(pl)
        up = up_face(pose)
        got = self.dreidel.letters[up]
        quad = self.scene.project(self.face_corners(up) @ pl.R.T + pl.T)
        truth = {"letter": got.value, "rest_px": m["rest_px"], "length_px": m["length_px"],
                 "tip_angle_deg": m["tip_angle_deg"], "font": Path(self.dreidel.font_path).name,
                 "finish": self.dreidel.finish.value, "lettering": self.dreidel.lettering.value,
                 "face_quad_px": [[round(float(x), 2), round(float(y), 2)] for x, y in quad]}
        return img, truth

    def face_corners(self, k: int) -> np.ndarray:
        """The flat part of lettered face ``k`` (body frame, 4 x 3): inside the chamfered edges and below
        the top bevel, ordered as ``vision.features.face_patch`` expects (seen from outside with the handle
        up: top-left, top-right, bottom-right, bottom-left). The texture's column axis is
        (-sin, cos, 0) of the face's angle and its row 0 is at the handle end (``render.face_textures``)."""
        d = self.dreidel
        ang = k * math.pi / 2
        normal = np.array([math.cos(ang), math.sin(ang), 0.0])
        across = np.array([-math.sin(ang), math.cos(ang), 0.0])
        # where the face's plane meets the chamfer planes (render.dreidel_planes)
        half = d.half_w * (1.0 - 0.6 * d.chamfer)
        top = d.z_top - (d.bevel if d.bevel > 0.05 else 0.0)
        centre = normal * d.half_w
        z = np.array([0.0, 0.0, 1.0])
        return np.array([centre - half * across + top * z, centre + half * across + top * z,
                         centre + half * across + d.tip_h * z, centre - half * across + d.tip_h * z])

    def describe(self) -> dict[str, Any]:
        """The scene and dreidel in a few words (for the evaluation's breakdown)."""
        d, sc = self.dreidel, self.scene
        return {
            "size": f"{sc.width}x{sc.height}",
            "fps": sc.fps,
            "font": Path(d.font_path).name,
            "finish": d.finish.value,
            "lettering": d.lettering.value,
            "pe_set": d.pe_set,
            "tray": "round" if sc.tray_round else "square",
            "felt_bgr": list(sc.felt_bgr),
            "table": sc.table_kind,
            "cam_h_mm": round(sc.cam_h, 1),
            "px_per_mm": round(sc.px_per_mm(), 3),
            "dreidel_len_px": round(d.length_mm * sc.px_per_mm(), 1),
        }


def frame_times(table: AltTable, end: float) -> np.ndarray:
    """Capture times: nominal fps with a little jitter, and a few frames dropped after the first second."""
    sc = table.scene
    rng = np.random.default_rng([table.seed, 0xF7])
    n = int(math.ceil(end * sc.fps))
    t = np.arange(n) / sc.fps + rng.normal(0.0, sc.frame_jitter_s, n)
    t[0] = 0.0
    keep = np.ones(n, dtype=bool)
    if sc.dropped_frames and n > 3 * sc.fps:
        keep[rng.choice(np.arange(int(1.5 * sc.fps), n - 1), sc.dropped_frames, replace=False)] = False
    t = t[keep]
    return np.maximum.accumulate(t + np.arange(len(t)) * 1e-9)


def record(
    out_dir: str | Path,
    spec: SessionSpec,
    progress: Callable[[int, int], None] | None = None,
    jpeg_quality: int | None = None,
    copies: Sequence[tuple[str | Path, int]] = (),
) -> dict[str, Any]:
    """Render and write one recording; returns a summary (scene, spins, truth).

    The video is written at the scene's own JPEG quality unless ``jpeg_quality`` overrides it;
    ``copies`` are further (directory, quality) pairs written from the very same rendered frames in the
    same pass (the IMU, truth and enrolment stills are identical in every copy: the override is the
    video's quality only). With neither, the output is byte-identical to what it always was."""
    w, h = spec.size
    table = AltTable(spec.seed, spec.size, spec.fps)
    end = table.plan_session(list(spec.kinds))
    times = frame_times(table, end)
    imu_meta = {"chip": "altsim-lsm6dsox", "rate_hz": table.imu.rate_hz} if spec.imu else None
    outs = [(Path(out_dir), table.scene.jpeg_quality if jpeg_quality is None else int(jpeg_quality))]
    outs += [(Path(d), int(q)) for d, q in copies]
    with ExitStack() as stack:
        writers = [stack.enter_context(RecordingWriter(d, spec.fps, w, h, f"altsim:seed={spec.seed}", imu=imu_meta,
                                                       jpeg_quality=q)) for d, q in outs]
        for k, t in enumerate(times):
            img = table.frame(float(t))
            for writer in writers:
                writer.write_frame(img, float(t))
            if progress is not None and k % 60 == 0:
                progress(k, len(times))
        if spec.imu:
            arr = table.imu_array(0.0, float(times[-1]) + 1.0 / spec.fps)
            samples = [ImuSample(*(float(v) for v in row)) for row in arr]
            for writer in writers:
                writer.write_imu(samples)
        for writer in writers:
            writer.write_truth([e.truth for e in table.episodes])
        if spec.enroll:
            for letter in table.dreidel.letters:
                for j in range(ENROLL_PER_LETTER):
                    img, _ = table.still(letter, 1000 + 10 * j + face_of_letter(table.style, letter))
                    for writer in writers:
                        writer.write_enroll(letter, img)
    return {"seed": spec.seed, "frames": len(times), "duration_s": round(float(times[-1]), 3),
            "imu": spec.imu, "enroll": spec.enroll, "scene": table.describe(),
            "truth": [e.truth for e in table.episodes]}
