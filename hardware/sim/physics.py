"""The motion of one spin: a symmetric heavy top with friction, then the fall, the bounce and the slide.

The spinning phase integrates the heavy top near upright in the complex tilt ``u = theta * e^(i phi)``
(theta: the axis' angle from vertical, phi: its azimuth), with the tip as the pivot:

    u'' = i s rho w u' + G sin|u| u/|u| - d u' + i s k(w) u + noise

``w`` is the spin rate (rad/s, decaying by tip and air friction: ``w' = -(a + b w)``), ``s`` the spin
sense, ``rho = I3/I1``, ``G = m g l / I1``. The upright top is stable ("sleeps") while
``rho w > 2 sqrt(G)``: the linearised roots then are a slow precession and a fast nutation. Below that
threshold the roots become complex and the tilt grows exponentially while it precesses: the wobble.
``k(w)`` is the tip's sliding friction, which lifts a fast top back up (why real tops sleep) and the
noise is the felt's unevenness. When the tilt reaches the angle at which the body's edge touches the
tray, the top falls onto a face, bounces, rolls to the face that the dreidel's bias chose, slides to a
stop and rests.

Everything is deterministic for a seed. Times here are relative to the release; the world adds the
absolute start.
"""

from __future__ import annotations

import cmath
import math
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from controller.rules.letters import Letter
from hardware.sim.dreidel import DreidelStyle, face_of_letter

#: integration step (s); the gyroscopic rotation is applied exactly, so this is stable at 25 rev/s
DT = 0.002
#: the rules' minimum stable time (RULES.md "Valid spin")
STABLE_MIN_S = 3.0
#: the twin's definition of the onset of wobble: the axis leans this far from vertical
WOBBLE_TILT_DEG = 6.0
#: a spin that wobbles within this time of its release "wobbled immediately" (RULES.md leaves it open)
WOBBLED_IMMEDIATELY_S = 0.5
#: "at rest": no point of the dreidel moves more than this (mm) any more (about half a pixel)
REST_MM = 0.4
#: felt's sliding friction times g, in mm/s^2 (mu ~ 0.35)
SLIDE_DECEL_MM_S2 = 3400.0


class SpinKind(StrEnum):
    """What kind of spin to simulate. ``None`` in the world's API means "a realistic random one"."""

    VALID = "valid"  # sleeps >= 3.5 s, lands in the tray, nobody touches it
    SHORT = "short"  # wobbles between 0.6 s and 2.6 s after release
    NEAR_3S = "near_3s"  # wobbles about 2.7-3.35 s after release: the judge's hardest call
    WOBBLE_AT_ONCE = "wobble_at_once"  # a bad release: wobbling within 0.5 s
    UPSIDE_DOWN = "upside_down"  # spins on its handle; valid when the rest of the rule holds
    LEFT_TRAY = "left_tray"  # flung out of the tray when it falls (rests outside, or out of the picture)
    HAND_TOUCH = "hand_touch"  # a hand reaches in and knocks it between release and rest
    HAND_NEAR = "hand_near"  # a hand reaches over the tray near it but touches nothing: still valid
    NO_RELEASE = "no_release"  # a hand puts it down without spinning it


#: how often each kind happens at a real table (used when the kind is not given)
REALISTIC_KIND_WEIGHTS: dict[SpinKind, float] = {
    SpinKind.VALID: 0.55,
    SpinKind.SHORT: 0.12,
    SpinKind.NEAR_3S: 0.07,
    SpinKind.WOBBLE_AT_ONCE: 0.06,
    SpinKind.UPSIDE_DOWN: 0.05,
    SpinKind.LEFT_TRAY: 0.05,
    SpinKind.HAND_TOUCH: 0.05,
    SpinKind.HAND_NEAR: 0.03,
    SpinKind.NO_RELEASE: 0.02,
}


def parse_kinds(text: str) -> list[SpinKind]:
    """``"valid,short"`` -> kinds; ``ValueError`` naming the choices on a bad name."""
    kinds = []
    for part in text.split(","):
        name = part.strip().lower()
        if not name:
            continue
        try:
            kinds.append(SpinKind(name))
        except ValueError:
            choices = ", ".join(k.value for k in SpinKind)
            raise ValueError(f"unknown spin kind {name!r}: expected one of {choices}") from None
    if not kinds:
        raise ValueError("no spin kinds given")
    return kinds


def random_kind(rng: np.random.Generator) -> SpinKind:
    """A kind drawn with :data:`REALISTIC_KIND_WEIGHTS`."""
    kinds = list(REALISTIC_KIND_WEIGHTS)
    p = np.array([REALISTIC_KIND_WEIGHTS[k] for k in kinds])
    return kinds[int(rng.choice(len(kinds), p=p / p.sum()))]


@dataclass(frozen=True)
class SpinPlan:
    """The sampled conditions of one spin (all times relative to the release)."""

    kind: SpinKind
    letter: Letter  # the face that will end up on top
    x0: float  # release point on the tray (mm, tray centre = 0)
    y0: float
    target_stable_s: float | None  # wanted release -> wobble time (None: knocked or placed)
    touch_t: float | None  # when a hand knocks it (HAND_TOUCH) or passes closest (HAND_NEAR)
    touch_dir: float  # direction of the knock (rad)
    upside_down: bool
    seed: int
    tray_radius_mm: float = math.inf


@dataclass(frozen=True)
class Pose:
    """The dreidel's state at one instant: contact point (mm), axis tilt/azimuth, spin angle, lift."""

    x: float
    y: float
    theta: float
    phi: float
    psi: float
    lift: float
    upside_down: bool

    def rotation(self) -> np.ndarray:
        """Body -> world rotation: spin ``psi`` about the axis, then tilt ``theta`` toward ``phi``."""
        r = rot_z(self.phi) @ rot_y(self.theta) @ rot_z(self.psi - self.phi)
        return r @ FLIP if self.upside_down else r


@dataclass
class SpinTrajectory:
    """One spin sampled every :data:`DT` from the release (t = 0) to rest, with its key times."""

    plan: SpinPlan
    t: np.ndarray
    x: np.ndarray
    y: np.ndarray
    ux: np.ndarray
    uy: np.ndarray
    psi: np.ndarray
    lift: np.ndarray
    omega: np.ndarray  # spin rate about the axis (rad/s, signed)
    wobble_t: float | None  # onset of wobble (tilt >= WOBBLE_TILT_DEG), None if it never wobbled
    fall_t: float  # the body's edge touches the tray
    land_t: float  # lying on a face (first impact)
    rest_t: float  # nothing moves any more
    bounce_ts: tuple[float, ...]  # later, smaller impacts
    omega0: float

    def pose_at(self, t: float) -> Pose:
        """The pose ``t`` seconds after the release (clamped to the trajectory)."""
        tc = min(max(t, 0.0), float(self.t[-1]))
        i = min(int(tc / DT), len(self.t) - 2)
        f = (tc - self.t[i]) / DT
        f = min(max(f, 0.0), 1.0)

        def lerp(a: np.ndarray) -> float:
            return float(a[i] + (a[i + 1] - a[i]) * f)

        ux, uy = lerp(self.ux), lerp(self.uy)
        theta = math.hypot(ux, uy)
        phi = math.atan2(uy, ux)
        return Pose(lerp(self.x), lerp(self.y), theta, phi, lerp(self.psi), lerp(self.lift), self.plan.upside_down)

    @property
    def rest_pose(self) -> Pose:
        return self.pose_at(float(self.t[-1]))

    def spin_rate_at(self, t: float) -> float:
        """|spin rate| in rad/s at ``t`` after release."""
        return float(abs(np.interp(t, self.t, self.omega)))

    def tilt_at(self, t: float) -> float:
        """The axis' lean from vertical (rad) at ``t`` after release."""
        return float(np.interp(t, self.t, np.hypot(self.ux, self.uy)))


# -- rotations --------------------------------------------------------------------------------


def rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rot_y(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


#: upside down: the body turned over, so its handle is the contact
FLIP = np.array([[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, -1.0]])


def up_face(pose: Pose) -> int:
    """The face (0..3) whose outward normal points most nearly up."""
    r = pose.rotation()
    normals = np.array([[math.cos(k * math.pi / 2), math.sin(k * math.pi / 2), 0.0] for k in range(4)])
    return int(np.argmax((normals @ r.T)[:, 2]))


# -- the heavy top ------------------------------------------------------------------------------


@dataclass(frozen=True)
class TopConstants:
    """The effective constants of one dreidel spinning on its tip (or handle)."""

    G: float  # m g l / I1 (1/s^2)
    rho: float  # I3 / I1
    omega_c: float  # sleep threshold (rad/s)
    decay_a: float  # rad/s^2
    decay_b: float  # 1/s
    fall_tilt: float  # rad: the body's edge meets the tray
    tip_radius_mm: float

    @classmethod
    def of(cls, style: DreidelStyle, upside_down: bool) -> TopConstants:
        contact = style.handle_mm if upside_down else style.tip_mm
        lever = contact + style.body_h_mm / 2.0
        k2 = (style.body_mm**2 + style.body_h_mm**2) / 12.0
        g_term = 9810.0 * lever / (lever**2 + k2)
        omega_c = 2.0 * math.pi * style.sleep_threshold_rev_s * (1.15 if upside_down else 1.0)
        # rho is the effective I3/I1 that puts the threshold where this dreidel's tip friction keeps it.
        rho = 2.0 * math.sqrt(g_term) / omega_c
        edge = style.body_mm / 2.0
        fall = math.atan2(contact, edge)
        tip_r = style.handle_r_mm if upside_down else (2.2 if style.tip_shape == "rounded" else 0.6)
        return cls(
            G=g_term,
            rho=rho,
            omega_c=omega_c,
            decay_a=2.0 * math.pi * style.spin_decay_rev_s2,
            decay_b=style.spin_decay_per_s,
            fall_tilt=fall,
            tip_radius_mm=tip_r,
        )

    def time_to_threshold(self, omega0: float) -> float:
        """Seconds for the spin to decay from ``omega0`` to the sleep threshold (0 if already below)."""
        if omega0 <= self.omega_c:
            return 0.0
        a, b = self.decay_a, self.decay_b
        return math.log((a + b * omega0) / (a + b * self.omega_c)) / b

    def omega_for_time(self, t: float) -> float:
        """The release spin rate that reaches the threshold after ``t`` seconds."""
        a, b = self.decay_a, self.decay_b
        return ((a + b * self.omega_c) * math.exp(b * max(t, 0.0)) - a) / b


@dataclass
class _SpinPhase:
    t: list[float]
    x: list[float]
    y: list[float]
    u: list[complex]
    psi: list[float]
    omega: list[float]
    wobble_t: float | None
    end_t: float
    u_dot: complex
    v: complex


def _integrate_spin(
    c: TopConstants,
    omega0: float,
    sense: int,
    u0: complex,
    v0: complex,
    seed: int,
    stop_at: float | None,
    wobble_only: bool,
    limit_s: float = 40.0,
    origin: complex = 0j,
    tray_r: float = math.inf,
) -> _SpinPhase:
    """Integrate the spinning top from release until it falls (or ``stop_at``, or, with ``wobble_only``, the wobble)."""
    rng = np.random.default_rng([seed, 0x70B])
    n_max = int(limit_s / DT)
    kicks = rng.normal(0.0, 1.0, (n_max, 2))
    # the felt is never flat: the tip is pushed about at random (its own stream, so the tilt dynamics
    # do not depend on it), and a tray sags a little, so near the rim it drifts back in
    wander = np.random.default_rng([seed, 0x3A0D]).normal(0.0, 1.0, (n_max, 2))
    wander_sigma = 18.0  # mm/s^1.5: a wander of a few centimetres over a long spin
    dish_r = 0.7 * tray_r
    sigma = 0.3  # felt unevenness (rad/s^2 per sqrt(step)); gives a sleeping tilt of about 1-2 degrees
    damp = 1.0
    rise = 1.0
    wobble_tilt = math.radians(WOBBLE_TILT_DEG)
    u, ud, w, psi = u0, 0j, omega0 * sense, 0.0
    pos, vel = 0j, v0
    ts, xs, ys, us, psis, ws = [0.0], [0.0], [0.0], [u0], [0.0], [w]
    wobble_t: float | None = None
    below_once = False
    t = 0.0
    tau_v = 0.9
    for n in range(n_max):
        aw = abs(w)
        # the gyroscopic term rotates u' exactly (stable at any spin rate); then damping
        ud *= cmath.exp(1j * sense * c.rho * aw * DT) * math.exp(-damp * DT)
        th = abs(u)
        grav = c.G * math.sin(th) / th * u if th > 1e-9 else 0j
        lift = 1j * sense * rise * max(0.0, aw - c.omega_c) * u
        noise = sigma * complex(kicks[n, 0], kicks[n, 1]) / math.sqrt(DT)
        ud += (grav + lift + noise * (1.0 + 2.0 * th)) * DT
        u += ud * DT
        # the tip rolls sideways to its lean (a tilted top walks in circles), plus the release push
        roll = 1j * sense * aw * c.tip_radius_mm * u
        vel += (roll - vel) / tau_v * DT + wander_sigma * math.sqrt(DT) * complex(wander[n, 0], wander[n, 1])
        where = origin + pos
        if abs(where) > dish_r:
            vel -= 40.0 * (abs(where) - dish_r) * (where / abs(where)) * DT
        pos += vel * DT
        decay = c.decay_a + c.decay_b * aw
        aw = max(aw - decay * DT, 0.0)
        w = aw * sense
        psi += w * DT
        t += DT
        th = abs(u)
        if th < wobble_tilt * 0.6:
            below_once = True
        if wobble_t is None and th >= wobble_tilt and (below_once or t > 0.08):
            wobble_t = t
            if wobble_only:
                break
        ts.append(t)
        xs.append(pos.real)
        ys.append(pos.imag)
        us.append(u)
        psis.append(psi)
        ws.append(w)
        if th >= c.fall_tilt or (stop_at is not None and t >= stop_at):
            break
    return _SpinPhase(ts, xs, ys, us, psis, ws, wobble_t, t, ud, vel)


def _search_omega(
    c: TopConstants, target: float, sense: int, u0: complex, v0: complex, seed: int, tol: float = 0.04
) -> tuple[float, _SpinPhase]:
    """The release spin rate whose simulated wobble comes ``target`` s after release (within ``tol``).

    Newton-like steps on the decay law first; once the answer is bracketed (more spin, later wobble),
    bisection, which cannot fail to converge.
    """
    delay = 0.45
    best: tuple[float, float, _SpinPhase] | None = None
    floor_w, ceil_w = 0.25 * c.omega_c, 2.0 * math.pi * 32.0
    lo: float | None = None  # spun too little (wobbled early)
    hi: float | None = None  # spun too much
    for i in range(18):
        if lo is not None and hi is not None and i >= 3:
            omega0 = 0.5 * (lo + hi)
        else:
            omega0 = min(max(c.omega_for_time(target - delay), floor_w), ceil_w)
            if lo is not None and omega0 <= lo:
                omega0 = min(lo * 1.15, ceil_w)
            if hi is not None and omega0 >= hi:
                omega0 = max(hi / 1.15, floor_w)
        ph = _integrate_spin(c, omega0, sense, u0, v0, seed, stop_at=target + 3.0, wobble_only=True)
        got = ph.wobble_t if ph.wobble_t is not None else ph.end_t
        err = got - target
        if best is None or abs(err) < abs(best[0]):
            best = (err, omega0, ph)
        if abs(err) < tol:
            break
        if err < 0:
            lo = omega0 if lo is None else max(lo, omega0)
        else:
            hi = omega0 if hi is None else min(hi, omega0)
        delay = got - c.time_to_threshold(omega0)
    assert best is not None
    return best[1], best[2]


def simulate_spin(style: DreidelStyle, plan: SpinPlan) -> SpinTrajectory:
    """The whole motion of one spin, from release to rest."""
    rng = np.random.default_rng([plan.seed, 0x5417])
    c = TopConstants.of(style, plan.upside_down)
    sense = 1 if rng.random() < 0.5 else -1
    tilt0 = math.radians(float(rng.uniform(1.0, 3.0)))
    u0 = cmath.rect(tilt0, float(rng.uniform(0, 2 * math.pi)))
    push = float(rng.uniform(10.0, 70.0))
    v0 = cmath.rect(push, float(rng.uniform(0, 2 * math.pi)))

    if plan.kind is SpinKind.NO_RELEASE:
        return _placed(style, plan, rng)

    if plan.kind is SpinKind.WOBBLE_AT_ONCE:
        # a clumsy release: leaning already and spun barely at the threshold
        tilt0 = math.radians(float(rng.uniform(1.5, 3.5)))
        u0 = cmath.rect(tilt0, float(rng.uniform(0, 2 * math.pi)))
        omega0, ph = _search_omega(c, float(rng.uniform(0.12, 0.42)), sense, u0, v0, plan.seed)
        for _ in range(8):
            if ph.wobble_t is not None and ph.wobble_t < WOBBLED_IMMEDIATELY_S - 0.05:
                break
            omega0 *= 0.8
            ph = _integrate_spin(c, omega0, sense, u0, v0, plan.seed, None, wobble_only=True)
    else:
        target = plan.target_stable_s if plan.target_stable_s is not None else 5.0
        omega0, _ = _search_omega(c, target, sense, u0, v0, plan.seed)

    stop_at = plan.touch_t if plan.kind is SpinKind.HAND_TOUCH else None
    ph = _integrate_spin(
        c, omega0, sense, u0, v0, plan.seed, stop_at=stop_at, wobble_only=False,
        origin=complex(plan.x0, plan.y0), tray_r=plan.tray_radius_mm,
    )
    wobble_t = ph.wobble_t
    knocked = plan.kind is SpinKind.HAND_TOUCH and stop_at is not None and ph.end_t >= stop_at - DT
    if knocked and (wobble_t is None or wobble_t > ph.end_t):
        wobble_t = ph.end_t  # the knock ends the stable spin
    return _fall_and_rest(style, plan, c, ph, wobble_t, knocked, rng, omega0)


def _fall_and_rest(
    style: DreidelStyle,
    plan: SpinPlan,
    c: TopConstants,
    ph: _SpinPhase,
    wobble_t: float | None,
    knocked: bool,
    rng: np.random.Generator,
    omega0: float,
) -> SpinTrajectory:
    t_f = ph.end_t
    u_f = ph.u[-1]
    th0 = abs(u_f)
    phi0 = cmath.phase(u_f) if th0 > 1e-6 else 0.0
    # the tilt rate along the lean, and the precession rate, at the moment the edge touches
    th_dot = (ph.u_dot * u_f.conjugate()).real / max(th0, 1e-6)
    prec = (ph.u_dot * u_f.conjugate()).imag / max(th0**2, 1e-6)
    prec = max(-12.0, min(12.0, prec))
    if knocked:
        phi0 = plan.touch_dir
        th_dot = float(rng.uniform(5.0, 9.0))
        prec = 0.0
    th_dot = max(th_dot, 0.6)
    w_f = ph.omega[-1]

    # 1) topple about the edge until lying (theta = pi/2)
    g_fall = c.G * 1.3
    ts, ths = [0.0], [th0]
    th, thd, tt = th0, th_dot, 0.0
    while th < math.pi / 2 and tt < 2.0:
        thd += g_fall * math.sin(th) * DT
        th += thd * DT
        tt += DT
        ts.append(tt)
        ths.append(min(th, math.pi / 2))
    t_land = tt
    # 2) bounces: hops of the raised end, each smaller
    hop1 = math.radians(float(rng.uniform(2.5, 7.0))) * min(1.5, thd / 6.0)
    hops = [(hop1, float(rng.uniform(0.07, 0.1))), (hop1 * 0.3, float(rng.uniform(0.04, 0.06)))]
    bounce_ts = []
    tb = t_land
    for amp, dur in hops:
        n = max(2, int(dur / DT))
        for j in range(1, n + 1):
            s = j / n
            ts.append(tb + s * dur)
            ths.append(math.pi / 2 - amp * math.sin(math.pi * s))
        tb += dur
        bounce_ts.append(tb)
    t_bounced = tb

    # 3) azimuth: the lean's precession carries on and, with the lying body's pivot, is stopped by
    #    dry friction (constant deceleration, so it stops at a definite time)
    yaw_rate = prec * 0.6 + float(rng.normal(0.0, 2.0))
    t_yaw = float(rng.uniform(0.25, 0.6))
    d_phi = 0.5 * yaw_rate * t_yaw
    # 4) slide: the tip's velocity plus a kick from the fall, decelerated by felt friction
    v_f = ph.v
    kick = cmath.rect(float(rng.uniform(20.0, 120.0)), phi0 + math.pi + float(rng.normal(0, 0.5)))
    v_s = v_f + kick
    if knocked:
        v_s = cmath.rect(float(rng.uniform(180.0, 420.0)), plan.touch_dir + float(rng.normal(0, 0.3)))
    p_f = complex(ph.x[-1], ph.y[-1]) + complex(plan.x0, plan.y0)
    if plan.kind is SpinKind.LEFT_TRAY:
        v_s = _fling_out(p_f, rng)
    speed = abs(v_s)
    t_slide = speed / SLIDE_DECEL_MM_S2
    # 5) roll about the axis to the face the bias chose, then rock to a stop
    phi_end = phi0 + d_phi
    psi_f = ph.psi[-1]
    target_face = face_of_letter(style, plan.letter)
    psi_end = _roll_target(phi_end, psi_f, w_f, target_face, plan.upside_down)
    dist = psi_end - psi_f
    t_roll = min(1.2, max(0.15, 1.6 * abs(dist) / max(abs(w_f), 1.0)))
    rock_amp = math.radians(float(rng.uniform(2.0, 6.0))) * (1 if dist >= 0 else -1)
    rock_f = float(rng.uniform(6.0, 10.0))
    rock_tau = float(rng.uniform(0.05, 0.09))
    t_rock_end = t_roll + rock_tau * math.log(abs(math.degrees(rock_amp)) / 0.3)
    t_yaw_end = t_yaw
    settle = max(t_bounced, t_slide, t_rock_end, t_yaw_end) + 0.02
    # fill the rest of the grid after the bounces
    n_more = int((settle - t_bounced) / DT) + 2
    for j in range(1, n_more + 1):
        ts.append(t_bounced + j * DT)
        ths.append(math.pi / 2)
    tf = np.array(ts)
    thf = np.array(ths)
    yq = np.clip(tf / t_yaw, 0.0, 1.0)
    phif = phi0 + d_phi * (1.0 - (1.0 - yq) ** 2)
    uf = thf * np.exp(1j * phif)
    slide_q = np.clip(tf / t_slide, 0.0, 1.0) if t_slide > 0 else np.ones_like(tf)
    travel = speed * t_slide * (slide_q - 0.5 * slide_q * slide_q)
    dirn = v_s / speed if speed > 1e-9 else 0j
    pf: np.ndarray = p_f + dirn * travel
    # roll: cubic Hermite from (psi_f, w_f) to (psi_end, 0), then a damped rock
    roll_q = np.clip(tf / t_roll, 0.0, 1.0)
    m0 = w_f * t_roll / dist if abs(dist) > 1e-9 else 0.0
    m0 = max(0.0, min(m0, 2.8))
    roll_h = (m0 - 2.0) * roll_q**3 + (3.0 - 2.0 * m0) * roll_q**2 + m0 * roll_q
    psif = psi_f + dist * roll_h
    after = np.clip(tf - t_roll, 0.0, None)
    psif = psif + np.where(tf > t_roll, rock_amp * np.exp(-after / rock_tau) * np.sin(2 * math.pi * rock_f * after), 0.0)
    liftf = np.zeros_like(tf)
    omegaf = w_f * np.exp(-tf / 0.15)

    # At rest = no point of the body moves more than REST_MM from where it ends up, from then on:
    # what a camera (or a person) would call "stopped".
    half_len, half_w = style.length_mm / 2.0, style.body_mm / 2.0
    dev = np.maximum.reduce([
        np.abs(pf - pf[-1]),
        half_len * np.abs(thf - thf[-1]),
        half_len * np.abs(phif - phif[-1]),
        half_w * np.abs(psif - psif[-1]),
    ])
    moving = np.nonzero(dev > REST_MM)[0]
    rest_rel = float(tf[moving[-1] + 1]) if len(moving) and moving[-1] + 1 < len(tf) else float(tf[-1])
    rest_rel = max(rest_rel, t_land)

    t_all = np.concatenate([np.array(ph.t), t_f + tf[1:]])
    u_sp = np.array(ph.u)
    p_sp = np.array(ph.x) + 1j * np.array(ph.y) + complex(plan.x0, plan.y0)
    return SpinTrajectory(
        plan=plan,
        t=t_all,
        x=np.concatenate([p_sp.real, pf.real[1:]]),
        y=np.concatenate([p_sp.imag, pf.imag[1:]]),
        ux=np.concatenate([u_sp.real, uf.real[1:]]),
        uy=np.concatenate([u_sp.imag, uf.imag[1:]]),
        psi=np.concatenate([np.array(ph.psi), psif[1:]]),
        lift=np.concatenate([np.zeros(len(ph.t)), liftf[1:]]),
        omega=np.concatenate([np.array(ph.omega), omegaf[1:]]),
        wobble_t=wobble_t,
        fall_t=t_f,
        land_t=t_f + t_land,
        rest_t=t_f + rest_rel,
        bounce_ts=tuple(t_f + b for b in bounce_ts),
        omega0=omega0,
    )


def _roll_target(phi_end: float, psi_f: float, w_f: float, face: int, upside_down: bool) -> float:
    """The spin angle near the natural coast of the roll at which ``face`` is up, lying along ``phi_end``."""
    chi = None
    for q in range(4):
        cand = phi_end + q * math.pi / 2
        if up_face(Pose(0.0, 0.0, math.pi / 2, phi_end, cand, 0.0, upside_down)) == face:
            chi = cand
            break
    assert chi is not None
    coast = psi_f + w_f * 0.12
    m = round((coast - chi) / (2 * math.pi))
    target = chi + 2 * math.pi * m
    # roll on in the spin's own sense, at least a little (the body cannot reverse instantly)
    if w_f > 0 and target < psi_f + 0.3:
        target += 2 * math.pi
    elif w_f < 0 and target > psi_f - 0.3:
        target -= 2 * math.pi
    return target


def _fling_out(p: complex, rng: np.random.Generator) -> complex:
    """A slide velocity that carries the dreidel from ``p`` over the tray's rim (mm/s)."""
    outward = cmath.phase(p) if abs(p) > 5 else float(rng.uniform(0, 2 * math.pi))
    direction = outward + float(rng.normal(0.0, 0.35))
    # land 20-160 mm beyond any tray we draw (radius <= 200 mm): beside the tray or out of the picture
    reach = 230.0 + float(rng.uniform(0.0, 140.0))
    go = max(reach - abs(p) * math.cos(direction - outward), 120.0)
    speed = math.sqrt(2.0 * SLIDE_DECEL_MM_S2 * go)
    return cmath.rect(speed, direction)


def _placed(style: DreidelStyle, plan: SpinPlan, rng: np.random.Generator) -> SpinTrajectory:
    """A dreidel put down on its side by hand (no spin): it only settles."""
    phi = float(rng.uniform(0, 2 * math.pi))
    face = face_of_letter(style, plan.letter)
    psi = _roll_target(phi, 0.0, 0.0, face, False)
    n = int(0.12 / DT) + 2
    t = np.arange(n) * DT
    rock = math.radians(2.0) * np.exp(-t / 0.03) * np.sin(2 * math.pi * 9.0 * t)
    return SpinTrajectory(
        plan=plan,
        t=t,
        x=np.full(n, plan.x0),
        y=np.full(n, plan.y0),
        ux=np.full(n, math.pi / 2 * math.cos(phi)),
        uy=np.full(n, math.pi / 2 * math.sin(phi)),
        psi=psi + rock,
        lift=np.zeros(n),
        omega=np.zeros(n),
        wobble_t=None,
        fall_t=0.0,
        land_t=0.0,
        rest_t=float(t[-1]),
        bounce_ts=(),
        omega0=0.0,
    )


def plan_spin(
    style: DreidelStyle,
    kind: SpinKind,
    seed: int,
    tray_radius_mm: float,
    letter: Letter | None = None,
) -> SpinPlan:
    """Sample the conditions of one spin of ``kind``: where it is released, how long it should sleep,
    which face the bias sends up."""
    rng = np.random.default_rng([seed, 0x91A7])
    probs = style.letter_probabilities()
    letters = list(probs)
    if letter is None:
        p = np.array([probs[k] for k in letters])
        letter = letters[int(rng.choice(len(letters), p=p / p.sum()))]
    r = tray_radius_mm * float(np.sqrt(rng.uniform(0.0, 0.12)))
    a = float(rng.uniform(0, 2 * math.pi))
    target: float | None
    touch_t = None
    if kind is SpinKind.VALID:
        target = float(rng.uniform(3.6, 8.5))
    elif kind is SpinKind.SHORT:
        target = float(rng.uniform(0.7, 2.55))
    elif kind is SpinKind.NEAR_3S:
        target = float(rng.uniform(2.78, 3.22))
    elif kind is SpinKind.UPSIDE_DOWN:
        target = float(rng.uniform(1.5, 7.0))
    elif kind is SpinKind.LEFT_TRAY:
        target = float(rng.uniform(2.0, 7.0))
    elif kind is SpinKind.HAND_TOUCH:
        target = float(rng.uniform(3.0, 8.0))
        touch_t = float(rng.uniform(0.9, target - 0.3))
    elif kind is SpinKind.HAND_NEAR:
        target = float(rng.uniform(3.6, 8.0))
        touch_t = float(rng.uniform(1.0, target))
    else:
        target = None
    return SpinPlan(
        kind=kind,
        letter=letter,
        x0=r * math.cos(a),
        y0=r * math.sin(a),
        target_stable_s=target,
        touch_t=touch_t,
        touch_dir=float(rng.uniform(0, 2 * math.pi)),
        upside_down=kind is SpinKind.UPSIDE_DOWN,
        seed=int(rng.integers(1 << 31)),
        tray_radius_mm=tray_radius_mm,
    )
