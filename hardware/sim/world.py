"""The live digital twin: a tray, a dreidel, hands and an IMU that can be asked for any instant.

:class:`SimWorld` keeps a timeline of spins. ``launch()`` schedules one (a hand takes away the last
dreidel if it is still lying there, a hand brings the dreidel in, twists and lets go; physics does the
rest) and records its ground truth. ``frame_at(t)`` and ``imu_between(t0, t1)`` render whatever the
timeline says at those times: the world never sleeps and never keeps a clock of its own beyond the
one it is given, so it runs as fast as it is asked. Same seed, same calls: same pictures, same samples.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from controller.clock import Clock
from controller.rules.letters import Letter
from hardware.imu import ImuSample
from hardware.sim.dreidel import DreidelStyle, resolve_style
from hardware.sim.hand import HandAction, HandLook, HandMotion, approach
from hardware.sim.imu import Component, ImuModel
from hardware.sim.physics import (
    STABLE_MIN_S,
    WOBBLED_IMMEDIATELY_S,
    Pose,
    SpinKind,
    SpinPlan,
    SpinTrajectory,
    plan_spin,
    random_kind,
    simulate_spin,
    up_face,
)
from hardware.sim.render import Renderer, Scene, place

#: with the launcher, the dreidel comes into view this long before its release
LAUNCHER_DROP_S = 0.25


@dataclass(frozen=True)
class SpinTruth:
    """What really happened in one simulated spin (``truth.json``; DESIGN.md "Contracts/Recording").

    Times are seconds on the world's clock. ``stable_s`` = ``wobble_t`` - ``release_t`` (the knock
    time when a hand interfered first). ``tip_angle_deg`` is where the tip points at rest, in the
    picture: counter-clockwise from the image's +x axis with image "up" at +90.
    """

    index: int
    kind: SpinKind
    release_t: float
    wobble_t: float | None
    rest_t: float
    letter: Letter
    valid: bool
    reasons: tuple[str, ...]
    stable_s: float
    upside_down: bool
    in_tray: bool
    in_picture: bool
    tip_angle_deg: float
    rest_px: tuple[float, float]
    length_px: float
    launch_t: float
    touch_t: float | None
    spin_rev_s: float
    by_launcher: bool = False
    hand_near_t: float | None = None  # a hand passed close without touching (not interference)

    def to_json(self) -> dict[str, Any]:
        """The ``truth.json`` object of this spin."""
        return {
            "index": self.index,
            "kind": self.kind.value,
            "release_t": round(self.release_t, 4),
            "wobble_t": None if self.wobble_t is None else round(self.wobble_t, 4),
            "rest_t": round(self.rest_t, 4),
            "letter": self.letter.value,
            "valid": self.valid,
            "reasons": list(self.reasons),
            "stable_s": round(self.stable_s, 4),
            "upside_down": self.upside_down,
            "in_tray": self.in_tray,
            "in_picture": self.in_picture,
            "tip_angle_deg": round(self.tip_angle_deg, 2),
            "rest_px": [round(self.rest_px[0], 1), round(self.rest_px[1], 1)],
            "length_px": round(self.length_px, 1),
            "launch_t": round(self.launch_t, 4),
            "touch_t": None if self.touch_t is None else round(self.touch_t, 4),
            "spin_rev_s": round(self.spin_rev_s, 2),
            "by_launcher": self.by_launcher,
            "hand_near_t": None if self.hand_near_t is None else round(self.hand_near_t, 4),
        }


def judge_reasons(
    kind: SpinKind, stable_s: float, in_tray: bool, touched: bool
) -> tuple[str, ...]:
    """The rules' reason codes for a spin (RULES.md "Valid spin"; DESIGN.md codes).

    ``wobbled_immediately`` when the wobble starts within :data:`WOBBLED_IMMEDIATELY_S` of release,
    ``short`` when it starts later but before 3.0 s; the two never appear together.
    """
    reasons: list[str] = []
    if kind is SpinKind.NO_RELEASE:
        reasons.append("no_release")
    elif stable_s < WOBBLED_IMMEDIATELY_S:
        reasons.append("wobbled_immediately")
    elif stable_s < STABLE_MIN_S:
        reasons.append("short")
    if not in_tray:
        reasons.append("left_tray")
    if touched:
        reasons.append("interference")
    return tuple(reasons)


@dataclass
class _Episode:
    index: int
    kind: SpinKind
    t_start: float
    t_release: float
    traj: SpinTrajectory
    hands: list[HandMotion]
    deliver: HandMotion
    truth: SpinTruth
    imu: list[Component]
    pickup: HandMotion | None = None
    t_gone: float | None = None  # the dreidel has left the picture (picked up)
    body_centre: tuple[float, float, float] = (0.0, 0.0, 0.0)
    extra_imu: list[Component] = field(default_factory=list)
    by_launcher: bool = False


class SimWorld:
    """The simulated table: one tray, one dreidel style, players' hands, an IMU under the tray.

    ``clock`` (optional) is only used to know "now" when ``launch()``/``remove()`` get no time:
    :class:`~hardware.sim.camera.SimCamera` and :class:`~hardware.sim.imu_source.SimImu` pass the
    table's clock. Thread-safe: the camera and IMU threads of a live table may call it together.
    """

    def __init__(
        self,
        seed: int = 0,
        style: str | DreidelStyle | None = None,
        fps: float = 60.0,
        imu_rate: float = 833.0,
        width: int = 640,
        height: int = 480,
        clock: Clock | None = None,
        history_s: float | None = 300.0,
    ) -> None:
        if fps <= 0 or fps > 240:
            raise ValueError(f"fps {fps}: choose 1-240 frames per second")
        self.seed = seed
        self.fps = float(fps)
        self.style = resolve_style(style, seed)
        self.scene = Scene.random(seed, width, height)
        self.renderer = Renderer(self.scene, self.style)
        self.imu = ImuModel(seed, imu_rate)
        self.clock = clock
        self._rng = np.random.default_rng([seed, 0x3031D])
        self._episodes: list[_Episode] = []
        self._truths: list[SpinTruth] = []
        # A table runs all day: spins older than this (seconds before the newest launch) are dropped,
        # keeping only their truth. None keeps everything (a recording asks for its IMU at the end).
        self.history_s = history_s
        self._last_t = 0.0
        self._lock = threading.RLock()
        self._launch_lock = threading.Lock()
        self._pending = False
        self._players = [HandLook.random(self._rng) for _ in range(4)]

    # -- time ---------------------------------------------------------------------------------
    def now(self) -> float:
        """The clock's time if there is one, else the latest time anything was asked for."""
        if self.clock is not None:
            return self.clock.monotonic()
        return self._last_t

    @property
    def size(self) -> tuple[int, int]:
        return (self.scene.width, self.scene.height)

    @property
    def truths(self) -> list[SpinTruth]:
        """The ground truth of every spin launched so far (including ones still in motion)."""
        with self._lock:
            return list(self._truths)

    @property
    def busy(self) -> bool:
        """A spin is scheduled or in progress now (launched and not yet at rest)."""
        with self._lock:
            if self._pending:
                return True
            return bool(self._episodes) and self.now() < self._episodes[-1].truth.rest_t

    def free_at(self) -> float:
        """When the last scheduled spin comes to rest (or 0 with none)."""
        with self._lock:
            return self._episodes[-1].truth.rest_t if self._episodes else 0.0

    # -- making things happen ------------------------------------------------------------------
    def launch(
        self,
        kind: SpinKind | None = None,
        at: float | None = None,
        letter: Letter | None = None,
        by_launcher: bool = False,
    ) -> None:
        """Start a spin at ``at`` (default: now): a realistic random one when ``kind`` is None.

        A dreidel still lying in the tray is taken away first; a spin still in motion is let finish.
        ``letter`` forces the face that lands up (else the dreidel's bias decides). ``by_launcher``:
        the table's motorised chuck spins it (no hand in the picture; the dreidel drops into view
        just before the release).
        """
        # The physics of a spin takes a moment to compute. It does not depend on when the spin
        # happens, so it runs first and outside the world's lock (the camera and IMU keep going);
        # only then is "now" read and the spin put on the timeline, so a fast clock (--sim-speed)
        # cannot run past the start of a spin while it is being computed. One launch at a time.
        with self._launch_lock:
            with self._lock:
                chosen = kind if kind is not None else random_kind(self._rng)
                if by_launcher and chosen in (SpinKind.NO_RELEASE, SpinKind.UPSIDE_DOWN):
                    chosen = SpinKind.VALID  # a launcher's chuck holds the handle and always spins
                index = len(self._truths)
                looks = (self._player(), self._player())
                self._pending = True
            try:
                ep_seed = int(np.random.default_rng([self.seed, 0xE915, index]).integers(1 << 31))
                plan = plan_spin(self.style, chosen, ep_seed, self.scene.tray_radius_mm, letter)
                traj = simulate_spin(self.style, plan)
                with self._lock:
                    t = self.now() if at is None else float(at)
                    if self._episodes:
                        prev = self._episodes[-1]
                        t = max(t, prev.truth.rest_t + 0.3)
                        if prev.t_gone is None:
                            self._schedule_pickup(prev, t)
                        t = max(t, prev.t_gone or t)
                    episode = self._build_episode(chosen, t, by_launcher, index, looks, ep_seed, plan, traj)
                    self._truths.append(episode.truth)
                    self._forget_before(t)
                    self._episodes.append(episode)
            finally:
                with self._lock:
                    self._pending = False

    def remove(self, at: float | None = None) -> float | None:
        """A hand takes the resting dreidel away (from ``at``, default now). Returns when it is gone."""
        with self._lock:
            if not self._episodes:
                return None
            prev = self._episodes[-1]
            if prev.t_gone is None:
                t = self.now() if at is None else float(at)
                self._schedule_pickup(prev, max(t, prev.truth.rest_t + 0.2))
            return prev.t_gone

    def timeline(self, index: int) -> dict[str, float | None]:
        """Key instants of spin ``index`` (world seconds): launch, release, wobble, fall (the edge touches),
        land (first impact), rest, pickup (the hand grabs it; None until removed) and gone.
        Only spins still in the world's history have one; ``KeyError`` otherwise."""
        with self._lock:
            for e in self._episodes:
                if e.index == index:
                    rel = e.t_release
                    return {
                        "launch": e.truth.launch_t,
                        "release": rel,
                        "wobble": e.truth.wobble_t,
                        "fall": rel + e.traj.fall_t,
                        "land": rel + e.traj.land_t,
                        "rest": e.truth.rest_t,
                        "pickup": None if e.pickup is None else e.pickup.contact_t,
                        "gone": e.t_gone,
                    }
        raise KeyError(f"spin {index} is not in the world's history (launched: {len(self._truths)})")

    def hands_in_picture(self, t: float) -> int:
        """How many hands are over the table at ``t``."""
        with self._lock:
            return len(self._hands_at(t))

    def _player(self) -> HandLook:
        return self._players[int(self._rng.integers(len(self._players)))]

    def _schedule_pickup(self, ep: _Episode, t: float) -> None:
        if not ep.truth.in_picture:
            ep.t_gone = t  # it fell off the table: someone fetches it out of sight
            return
        rng = np.random.default_rng([self.seed, 0x91C, ep.index])
        x, y, z = ep.body_centre
        arm = math.atan2(y, x) + float(rng.normal(0.0, 0.6)) if math.hypot(x, y) > 20 else float(
            rng.uniform(0, 2 * math.pi)
        )
        hand = approach(
            HandAction.PICKUP, (x, y), z + 4.0, t + 0.6, arm, self._player(), rng, carry=True
        )
        ep.pickup = hand
        ep.hands.append(hand)
        ep.t_gone = hand.t_end
        ep.extra_imu.append(self.imu.bump(hand.contact_t, float(rng.uniform(0.01, 0.03)), rng, 0.2))

    def _build_episode(
        self,
        kind: SpinKind,
        t0: float,
        by_launcher: bool,
        index: int,
        looks: tuple[HandLook, HandLook],
        ep_seed: int,
        plan: SpinPlan,
        traj: SpinTrajectory,
    ) -> _Episode:
        """Put a computed spin on the timeline from ``t0``: its hands, IMU signal and truth."""
        rng = np.random.default_rng([ep_seed, 1])
        look, other = looks
        arm = float(rng.uniform(0, 2 * math.pi))
        hold = float(rng.uniform(0.25, 0.5))
        length = self.style.length_mm
        if kind is SpinKind.NO_RELEASE:
            rest = traj.rest_pose
            vw, _ = place(self.renderer.mesh, rest)
            grip_z = float(vw[:, 2].max()) + 3.0
            cx, cy = float(vw[:, 0].mean()), float(vw[:, 1].mean())
            deliver = approach(HandAction.PLACE, (cx, cy), grip_z, t0 + 0.7 + hold, arm, look, rng, hold_s=hold)
        else:
            deliver = approach(
                HandAction.DELIVER, (plan.x0, plan.y0), length + 3.0, t0 + 0.7 + hold, arm, look, rng, hold_s=hold
            )
        t_release = deliver.contact_t
        hands = [] if by_launcher else [deliver]
        imu = self.imu.spin(traj, t_release, rng) if kind is not SpinKind.NO_RELEASE else []
        if kind is SpinKind.NO_RELEASE:
            imu.append(self.imu.bump(t_release, float(rng.uniform(0.02, 0.05)), rng, 0.15))
        if by_launcher:
            imu.append(self.imu.motor(t_release - float(rng.uniform(0.5, 0.9)), t_release, rng))
        touch_abs = None
        if kind is SpinKind.HAND_TOUCH and plan.touch_t is not None:
            touch_abs = t_release + min(plan.touch_t, traj.fall_t)
            at_touch = traj.pose_at(touch_abs - t_release)
            knock = approach(
                HandAction.KNOCK,
                (at_touch.x, at_touch.y),
                length * 0.7,
                touch_abs,
                plan.touch_dir + math.pi,
                other,
                rng,
            )
            hands.append(knock)
            imu.append(self.imu.bump(touch_abs, float(rng.uniform(0.04, 0.09)), rng))
        near_abs = None
        if kind is SpinKind.HAND_NEAR and plan.touch_t is not None:
            near_abs = t_release + min(plan.touch_t, traj.fall_t)
            at_near = traj.pose_at(near_abs - t_release)
            miss = float(rng.uniform(45.0, 80.0))
            side = plan.touch_dir + math.pi / 2
            hover = approach(
                HandAction.HOVER,
                (at_near.x + miss * math.cos(side), at_near.y + miss * math.sin(side)),
                length + float(rng.uniform(30.0, 70.0)),
                near_abs,
                plan.touch_dir + math.pi,
                other,
                rng,
            )
            hands.append(hover)
        rest = traj.rest_pose
        truth, centre = self._truth(index, kind, plan.upside_down, t0, t_release, traj, rest, touch_abs)
        truth = replace(truth, by_launcher=by_launcher, hand_near_t=near_abs)
        return _Episode(
            index=index,
            kind=kind,
            t_start=deliver.t_start,
            t_release=t_release,
            traj=traj,
            hands=hands,
            deliver=deliver,
            truth=truth,
            imu=imu,
            by_launcher=by_launcher,
            body_centre=centre,
        )

    def _truth(
        self,
        index: int,
        kind: SpinKind,
        upside_down: bool,
        t0: float,
        t_release: float,
        traj: SpinTrajectory,
        rest: Pose,
        touch_abs: float | None,
    ) -> tuple[SpinTruth, tuple[float, float, float]]:
        vw, _ = place(self.renderer.mesh, rest)
        centre = vw.mean(axis=0)
        in_tray = self.scene.inside_tray(float(centre[0]), float(centre[1]))
        px = self.scene.project(vw)
        c_px = self.scene.project(centre[None, :])[0]
        tip_world = vw[_tip_vertex(self.renderer.mesh.verts)]
        tip_px = self.scene.project(tip_world[None, :])[0]
        angle = math.degrees(math.atan2(-(tip_px[1] - c_px[1]), tip_px[0] - c_px[0]))
        in_pic = bool(
            (px[:, 0] > 0).any()
            and (px[:, 0] < self.scene.width).any()
            and (px[:, 1] > 0).any()
            and (px[:, 1] < self.scene.height).any()
            and 0 <= c_px[0] < self.scene.width
            and 0 <= c_px[1] < self.scene.height
        )
        wobble = None if traj.wobble_t is None else t_release + traj.wobble_t
        stable = 0.0 if wobble is None else wobble - t_release
        touched = touch_abs is not None
        reasons = judge_reasons(kind, stable, in_tray, touched)
        letter = self.style.letters[up_face(rest)]
        length_px = float(np.linalg.norm(px.max(axis=0) - px.min(axis=0)))
        truth = SpinTruth(
            index=index,
            kind=kind,
            release_t=t_release,
            wobble_t=wobble,
            rest_t=t_release + traj.rest_t,
            letter=letter,
            valid=not reasons,
            reasons=reasons,
            stable_s=stable,
            upside_down=upside_down,
            in_tray=in_tray,
            in_picture=in_pic,
            tip_angle_deg=angle,
            rest_px=(float(c_px[0]), float(c_px[1])),
            length_px=length_px,
            launch_t=t0,
            touch_t=touch_abs,
            spin_rev_s=abs(traj.omega0) / (2 * math.pi),
        )
        return truth, (float(centre[0]), float(centre[1]), float(vw[:, 2].max()))

    def _forget_before(self, t: float) -> None:
        if self.history_s is None:
            return
        horizon = t - self.history_s
        keep = [e for e in self._episodes if e.t_gone is None or e.t_gone >= horizon]
        self._episodes = keep[-8:] if len(keep) > 8 else keep

    # -- what the camera sees ------------------------------------------------------------------
    def _episode_at(self, t: float) -> _Episode | None:
        found = None
        for e in self._episodes:
            if e.t_start <= t:
                found = e
        if found is not None and found.t_gone is not None and t >= found.t_gone:
            return None
        return found

    def dreidel_pose(self, t: float) -> Pose | None:
        """The dreidel's pose at ``t``, or None when it is not on the table."""
        with self._lock:
            e = self._episode_at(t)
            return None if e is None else self._pose(e, t)

    def _pose(self, e: _Episode, t: float) -> Pose | None:
        if e.by_launcher and t < e.t_release - LAUNCHER_DROP_S:
            return None  # still up in the launcher's chuck, out of the picture
        if t < e.t_release:
            hp = e.deliver.at(t)
            if e.kind is SpinKind.NO_RELEASE:
                rest = e.traj.rest_pose
                put = e.deliver.at(e.t_release)
                lift = max(0.0, hp.z - put.z)
                return Pose(rest.x + hp.x - put.x, rest.y + hp.y - put.y, rest.theta, rest.phi, rest.psi, lift, False)
            # held by the handle: the fingers wind it up over the last 0.15 s before letting go,
            # reaching the release spin rate exactly at the release (psi and its rate are continuous)
            first = e.traj.pose_at(0.0)
            ramp = 0.15
            dt = e.t_release - t
            w = float(e.traj.omega[0]) if len(e.traj.omega) else 0.0
            psi = first.psi - w * dt + w * dt * dt / (2 * ramp) if dt < ramp else first.psi - w * ramp / 2
            lift = max(0.0, hp.z - (self.style.length_mm + 3.0)) + 2.0
            if e.by_launcher:
                lift = 2.0 + 60.0 * dt  # lowered by the chuck
            return Pose(hp.x, hp.y, first.theta, first.phi, psi, lift, first.upside_down)
        pose = e.traj.pose_at(t - e.t_release)
        if e.pickup is not None and t >= e.pickup.contact_t:
            hp = e.pickup.at(t)
            grab = e.pickup.at(e.pickup.contact_t)
            return Pose(
                pose.x + hp.x - grab.x, pose.y + hp.y - grab.y, pose.theta, pose.phi, pose.psi,
                pose.lift + max(0.0, hp.z - grab.z), pose.upside_down,
            )
        return pose

    def track_row(self, index: int, t: float) -> tuple[float, ...]:
        """Per-frame truth for ``track.csv``: (index, t, visible, x_px, y_px, tilt_deg, spin_rev_s, hands).

        ``x_px, y_px`` is the body's centre in the picture (NaN when no dreidel is on the table),
        ``tilt_deg`` the axis' lean from vertical (90 lying), ``spin_rev_s`` the spin rate about the
        axis, ``hands`` how many hands are in the picture.
        """
        with self._lock:
            e = self._episode_at(t)
            pose = None if e is None else self._pose(e, t)
            n_hands = len(self._hands_at(t))
            if pose is None or e is None:
                return (index, t, 0, math.nan, math.nan, math.nan, 0.0, n_hands)
            vw, _ = place(self.renderer.mesh, pose)
            u, v = self.scene.project(vw.mean(axis=0)[None, :])[0]
            rel = t - e.t_release
            rate = e.traj.spin_rate_at(rel) / (2 * math.pi) if 0 <= rel <= e.traj.rest_t else 0.0
            visible = int(0 <= u < self.scene.width and 0 <= v < self.scene.height)
            return (index, t, visible, float(u), float(v), math.degrees(pose.theta), rate, n_hands)

    def _hands_at(self, t: float) -> list[tuple[HandMotion, Any]]:
        out = []
        for e in self._episodes:
            for h in e.hands:
                if h.active(t):
                    out.append((h, h.at(t)))
        return out

    def blur_times(self, t: float, e: _Episode | None) -> list[float]:
        """Sub-frame instants over the exposure: more of them the faster the dreidel turns."""
        if e is None:
            return [t]
        exp = self.scene.exposure_s
        rel = t - e.t_release
        if rel < -0.15 or rel > e.traj.rest_t:
            return [t]
        w = e.traj.spin_rate_at(max(rel, 0.0)) if rel >= 0 else abs(e.traj.omega[0])
        n = int(min(8, max(1, math.ceil(w * exp / 0.3))))
        if n == 1:
            return [t]
        return [t - exp / 2 + exp * (k + 0.5) / n for k in range(n)]

    def frame_at(self, t: float) -> np.ndarray:
        """The camera's picture at ``t`` (BGR uint8, height x width x 3)."""
        with self._lock:
            self._last_t = max(self._last_t, t)
            e = self._episode_at(t)
            found = [] if e is None else [self._pose(e, s) for s in self.blur_times(t, e)]
            poses = [p for p in found if p is not None]
            return self.renderer.render(t, poses, self._hands_at(t))

    # -- what the IMU feels --------------------------------------------------------------------
    def imu_array(self, t0: float, t1: float) -> np.ndarray:
        """Samples with ``t0 <= t < t1`` as an N x 7 array (t, ax, ay, az, gx, gy, gz)."""
        with self._lock:
            self._last_t = max(self._last_t, t1)
            m = self.imu
            n0, n1 = m.sample_index(t0), m.sample_index(t1)
            data = m.floor(n0, n1)
            for e in self._episodes:
                for c in e.imu + e.extra_imu:
                    a, b = max(n0, c.n0), min(n1, c.n1)
                    if a < b:
                        data[a - n0 : b - n0] += c.data[a - c.n0 : b - c.n0]
            ts = np.arange(n0, n1) / m.rate_hz
            return np.column_stack([ts, data]) if len(ts) else np.empty((0, 7))

    def imu_between(self, t0: float, t1: float) -> list[ImuSample]:
        """IMU samples with ``t0 <= t < t1``."""
        arr = self.imu_array(t0, t1)
        return [ImuSample(*(float(v) for v in row)) for row in arr]


def _tip_vertex(verts: np.ndarray) -> int:
    """The mesh's tip: the vertex on the axis with the smallest z."""
    on_axis = np.where(np.hypot(verts[:, 0], verts[:, 1]) < 1e-6)[0]
    return int(on_axis[np.argmin(verts[on_axis, 2])]) if len(on_axis) else int(np.argmin(verts[:, 2]))


class AutoPlayer:
    """A simulated player who spins when asked, after a human pause (``sevivon run`` autoplay).

    ``request_spin()`` schedules the spin on the world ``reaction`` seconds from now (a player picks
    up the dreidel, winds up and lets go) and returns when the hand starts moving. ``kinds`` limits
    what they throw (default: the realistic mix of :data:`~hardware.sim.physics.REALISTIC_KIND_WEIGHTS`).
    """

    def __init__(
        self,
        world: SimWorld,
        clock: Clock,
        seed: int = 0,
        reaction_s: tuple[float, float] = (0.5, 1.8),
        kinds: list[SpinKind] | None = None,
    ) -> None:
        if reaction_s[0] < 0 or reaction_s[1] < reaction_s[0]:
            raise ValueError(f"reaction_s={reaction_s}: need 0 <= low <= high")
        self.world = world
        self.clock = clock
        if world.clock is None:
            world.clock = clock
        self.reaction_s = reaction_s
        self.kinds = kinds
        self._rng = np.random.default_rng([seed, 0xA070])

    def request_spin(self, kind: SpinKind | None = None) -> float:
        """Spin soon; returns the world time at which the player starts."""
        at = self.clock.monotonic() + float(self._rng.uniform(*self.reaction_s))
        if kind is None and self.kinds:
            kind = self.kinds[int(self._rng.integers(len(self.kinds)))]
        self.world.launch(kind, at=at)
        return at
