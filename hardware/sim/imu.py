"""The simulated signal of an IMU fixed under the tray (g and degrees/s).

The sensor feels the tray, not the dreidel's rotation:

- at rest: gravity on z (with the mount's slight tilt), white noise and a gyro zero-rate offset;
- a sleeping dreidel: its tip hums at the spin rate (small, steady);
- a wobbling dreidel: chatter, irregular and growing with the lean, ringing the tray's resonance;
- release, landing and bounces: sharp impacts (decaying rings of the tray);
- a sliding dreidel: a short broadband rustle;
- a hand touching the dreidel or the tray: a bump.

Samples live on a global grid ``t = n / rate``. The noise floor is made in blocks seeded by their
index, and every event is a precomputed :class:`Component`, so any window of samples is the same
however it is asked for: the signal is deterministic for a seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from hardware.sim.physics import SpinTrajectory

_BLOCK = 1024


@dataclass(frozen=True)
class Component:
    """An additive piece of signal: ``data`` (N x 6: ax, ay, az, gx, gy, gz) starting at sample ``n0``."""

    n0: int
    data: np.ndarray

    @property
    def n1(self) -> int:
        return self.n0 + len(self.data)


class ImuModel:
    """The sensor and the tray it is screwed to: noise, offsets, resonance; makes components for events."""

    def __init__(self, seed: int, rate_hz: float = 833.0) -> None:
        if not 50.0 <= rate_hz <= 7000.0:
            raise ValueError(f"imu rate {rate_hz} Hz: choose 50-7000 Hz (833 is the LSM6DSOX default)")
        self.rate_hz = float(rate_hz)
        self.seed = seed
        rng = np.random.default_rng([seed, 0x1A0])
        tilt_x, tilt_y = rng.normal(0.0, math.radians(0.8), 2)
        self.gravity = np.array([math.sin(tilt_x), math.sin(tilt_y), math.cos(tilt_x) * math.cos(tilt_y)])
        self.gyro_bias = rng.normal(0.0, 0.4, 3)
        self.accel_noise_g = float(rng.uniform(0.002, 0.004))
        self.gyro_noise_dps = float(rng.uniform(0.04, 0.09))
        self.resonance_hz = float(rng.uniform(120.0, 230.0))
        self.ring_s = float(rng.uniform(0.012, 0.03))
        self._cache: dict[int, np.ndarray] = {}

    def sample_index(self, t: float) -> int:
        """The first sample at or after ``t``."""
        return int(math.ceil(t * self.rate_hz - 1e-9))

    # -- the noise floor ---------------------------------------------------------------------
    def floor(self, n0: int, n1: int) -> np.ndarray:
        """Gravity, offsets and noise for samples ``n0`` .. ``n1 - 1`` (N x 6)."""
        out = np.empty((max(n1 - n0, 0), 6))
        if n1 <= n0:
            return out
        b0, b1 = n0 // _BLOCK, (n1 - 1) // _BLOCK
        parts = [self._block(b) for b in range(b0, b1 + 1)]
        allp = np.vstack(parts)
        off = n0 - b0 * _BLOCK
        out[:] = allp[off : off + (n1 - n0)]
        return out

    def _block(self, b: int) -> np.ndarray:
        got = self._cache.get(b)
        if got is None:
            rng = np.random.default_rng([self.seed, 0xF100, b])
            z = rng.normal(0.0, 1.0, (_BLOCK, 6))
            z[:, :3] = z[:, :3] * self.accel_noise_g + self.gravity
            z[:, 3:] = z[:, 3:] * self.gyro_noise_dps + self.gyro_bias
            if len(self._cache) > 64:  # keep memory bounded in a long-running table
                self._cache.pop(next(iter(self._cache)))
            self._cache[b] = z
            got = z
        return got

    # -- events ------------------------------------------------------------------------------
    def impact(self, t: float, amp_g: float, rng: np.random.Generator, dur_s: float = 0.12) -> Component:
        """A sharp knock at ``t``: the tray rings at its resonance and dies away."""
        n0 = self.sample_index(t)
        n = int(dur_s * self.rate_hz)
        tt = (np.arange(n) + n0) / self.rate_hz - t
        env = np.exp(-tt / self.ring_s)
        f = self.resonance_hz * float(rng.uniform(0.9, 1.1))
        ring = env * np.sin(2 * math.pi * f * tt + float(rng.uniform(0, 6.28)))
        low = np.exp(-tt / (self.ring_s * 3)) * np.sin(2 * math.pi * f * 0.23 * tt)
        d = np.zeros((n, 6))
        hx, hy = rng.normal(0.0, 0.45, 2)
        d[:, 2] = amp_g * ring
        d[:, 0] = amp_g * hx * ring
        d[:, 1] = amp_g * hy * ring
        gk = 35.0 * amp_g
        d[:, 3] = gk * float(rng.normal(0, 1)) * low
        d[:, 4] = gk * float(rng.normal(0, 1)) * low
        d[:, 5] = 0.3 * gk * float(rng.normal(0, 1)) * low
        return Component(n0, d)

    def bump(self, t: float, amp_g: float, rng: np.random.Generator, dur_s: float = 0.25) -> Component:
        """A soft push (a hand on the tray or the dreidel): a slow swell plus a small ring."""
        n0 = self.sample_index(t)
        n = int(dur_s * self.rate_hz)
        tt = (np.arange(n) + n0) / self.rate_hz - t
        swell = np.sin(np.pi * np.clip(tt / dur_s, 0, 1)) ** 2
        d = np.zeros((n, 6))
        d[:, 2] = amp_g * swell * float(rng.choice([-1.0, 1.0]))
        d[:, 0] = 0.4 * amp_g * swell * float(rng.normal())
        d[:, 1] = 0.4 * amp_g * swell * float(rng.normal())
        d[:, 3] = 25.0 * amp_g * np.gradient(swell) * self.rate_hz * 0.05 * float(rng.normal())
        d[:, 4] = 25.0 * amp_g * np.gradient(swell) * self.rate_hz * 0.05 * float(rng.normal())
        ring = self.impact(t, amp_g * 0.4, rng, dur_s)
        return Component(n0, d + ring.data[: len(d)])

    def motor(self, t_start: float, t_end: float, rng: np.random.Generator) -> Component:
        """The launcher's motor running up on the table frame: a rising whine, stopping at the release."""
        n0 = self.sample_index(t_start)
        n = max(self.sample_index(t_end) - n0, 1)
        tt = np.arange(n) / self.rate_hz
        ramp = np.clip(tt / max(tt[-1], 1e-3), 0, 1)
        freq = float(rng.uniform(40.0, 70.0)) * (0.3 + 0.7 * ramp)  # the rotor's rate, climbing
        phase = 2 * math.pi * np.cumsum(freq) / self.rate_hz
        amp = 0.012 * ramp
        d = np.zeros((n, 6))
        d[:, 2] = amp * np.sin(phase)
        d[:, 0] = 0.5 * amp * np.cos(phase)
        d[:, 1] = 0.5 * amp * np.sin(phase + 0.7)
        d[:, 3:] = 0.2 * amp[:, None] * rng.normal(0.0, 1.0, (n, 3))
        return Component(n0, d)

    def spin(self, traj: SpinTrajectory, t_release: float, rng: np.random.Generator) -> list[Component]:
        """Everything one spin makes the tray feel, from release to rest."""
        comps = [self.impact(t_release, float(rng.uniform(0.05, 0.15)), rng)]
        t_fall = t_release + traj.fall_t
        n0 = self.sample_index(t_release)
        n1 = self.sample_index(t_fall)
        if n1 > n0:
            ts = (np.arange(n0, n1) / self.rate_hz) - t_release
            omega = np.abs(np.interp(ts, traj.t, traj.omega))
            tilt = np.interp(ts, traj.t, np.hypot(traj.ux, traj.uy))
            phase = np.cumsum(omega) / self.rate_hz + float(rng.uniform(0, 6.28))
            # the hum: the tip's contact patch runs round at the spin rate
            hum = 0.002 + 0.006 * np.clip(omega / 120.0, 0, 1) + 0.04 * np.sin(tilt)
            # the chatter: irregular, loud, growing with the lean (it rings the tray)
            lean = np.clip((np.degrees(tilt) - 2.5) / 18.0, 0, 1) ** 1.3
            raw = rng.normal(0.0, 1.0, len(ts))
            k = np.exp(-np.arange(int(self.ring_s * self.rate_hz * 2) + 2) / (self.ring_s * self.rate_hz))
            k *= np.sin(2 * math.pi * self.resonance_hz * np.arange(len(k)) / self.rate_hz)
            rattle = np.convolve(raw * (rng.random(len(ts)) < 0.2), k, mode="same")
            rattle /= max(float(np.std(rattle)), 1e-9)
            chatter = 0.035 * lean * rattle
            d = np.zeros((len(ts), 6))
            d[:, 2] = hum * np.sin(phase) * (1 + 0.3 * np.sin(2 * phase)) + chatter
            d[:, 0] = 0.6 * hum * np.cos(phase) + 0.5 * chatter * np.roll(rattle, 7) / 3
            d[:, 1] = 0.6 * hum * np.sin(phase) + 0.5 * chatter * np.roll(rattle, 13) / 3
            d[:, 3] = 4.0 * lean * np.roll(rattle, 3) * 0.3
            d[:, 4] = 4.0 * lean * np.roll(rattle, 5) * 0.3
            comps.append(Component(n0, d))
        t_land = t_release + traj.land_t
        comps.append(self.impact(t_land, float(rng.uniform(0.25, 0.6)), rng, 0.15))
        for j, tb in enumerate(traj.bounce_ts):
            comps.append(self.impact(t_release + tb, float(rng.uniform(0.06, 0.15)) * (0.4**j), rng))
        # the slide after landing: a short rustle
        s0, s1 = self.sample_index(t_land), self.sample_index(t_release + traj.rest_t)
        if s1 > s0:
            tt = np.arange(s1 - s0) / self.rate_hz
            env = np.clip(1.0 - tt / max(tt[-1], 1e-3), 0, 1)
            d = np.zeros((s1 - s0, 6))
            d[:, 2] = 0.01 * env * rng.normal(0, 1, len(tt))
            d[:, 0] = 0.006 * env * rng.normal(0, 1, len(tt))
            d[:, 1] = 0.006 * env * rng.normal(0, 1, len(tt))
            comps.append(Component(s0, d))
        return comps
