"""Motion signals for the emulated IMUs: what the chip under the tray feels.

A :data:`Motion` maps an array of sample times (seconds, on the emulation's clock) to an
``(n, 6)`` array of ``ax, ay, az`` in g and ``gx, gy, gz`` in degrees/s. Vectorised, so an emulated
chip at 1.66 kHz costs little.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

Motion = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Still:
    """A chip lying flat and still: 1 g on z, nothing else."""

    gravity_g: float = 1.0

    def __call__(self, t: np.ndarray) -> np.ndarray:
        out = np.zeros((len(t), 6))
        out[:, 2] = self.gravity_g
        return out


@dataclass(frozen=True)
class Hum:
    """Gravity plus a sine on every axis: the tip of a sleeping dreidel humming at ``freq_hz``.

    Each axis gets its own amplitude and phase, so a test can tell axes apart (a swapped or
    mis-scaled axis shows up as a wrong value, not a coincidence).
    """

    freq_hz: float = 17.0
    accel_amp_g: tuple[float, float, float] = (0.05, 0.08, 0.11)
    gyro_amp_dps: tuple[float, float, float] = (3.0, 5.0, 7.0)

    def __call__(self, t: np.ndarray) -> np.ndarray:
        t = np.asarray(t, dtype=float)[:, None]
        phases = np.arange(6)[None, :] * 0.7
        amps = np.array([*self.accel_amp_g, *self.gyro_amp_dps])[None, :]
        out = amps * np.sin(2 * np.pi * self.freq_hz * t + phases)
        out[:, 2] += 1.0
        return out


@dataclass(frozen=True)
class Ramp:
    """Every channel rising linearly in time (``slope`` per second): sample order and timing made visible."""

    slope: float = 1.0
    #: the time at which every channel is zero
    t0: float = 0.0

    def __call__(self, t: np.ndarray) -> np.ndarray:
        t = np.asarray(t, dtype=float)[:, None] - self.t0
        scale = np.array([0.1, 0.2, 0.3, 10.0, 20.0, 30.0])[None, :]
        out: np.ndarray = self.slope * t * scale
        return out
