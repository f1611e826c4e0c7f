"""SimCamera: the digital twin's overhead camera as a :class:`hardware.camera.CameraSource`."""

from __future__ import annotations

import math

import cv2

from controller.clock import Clock
from hardware.camera import CameraError, CameraSource, Frame
from hardware.sim.world import SimWorld


class SimCamera(CameraSource):
    """Frames of a :class:`SimWorld` at the camera's frame times on an injected clock.

    Like a real camera with ``queue=False``, ``read()`` waits (on the clock) for the next frame time
    and never returns a stale frame: a reader that falls behind skips frames, and ``Frame.index``
    shows the gap on a clock that runs on its own (:class:`~controller.clock.ScaledClock`, real time).
    On the simulated table's :class:`~controller.clock.PacedClock` time passes only while ``read()``
    waits, so no frame is ever skipped: the world slows down for a slow reader instead, at most
    ``--sim-speed`` times real time. With a :class:`~controller.clock.FakeClock` the waits cost nothing.

    ``fail()`` / ``recover()`` make it behave like an unplugged camera (for testing how the table
    degrades): ``read()`` raises :class:`CameraError` until it recovers. ``lores=(w, h)`` also
    delivers a small greyscale picture in ``Frame.lores``, the way picamera2's lores stream does.
    """

    def __init__(
        self, world: SimWorld, clock: Clock, fps: float | None = None, lores: tuple[int, int] | None = None
    ) -> None:
        self.world = world
        self.clock = clock
        self.fps = float(fps or world.fps)
        if self.fps <= 0:
            raise ValueError(f"fps must be positive, not {self.fps}")
        self.size = world.size
        self.name = f"sim:seed={world.seed},style={world.style.name}"
        if world.clock is None:
            world.clock = clock
        self._t0: float | None = None
        self._next = 0
        self._failed = False
        if lores is not None and (lores[0] < 16 or lores[1] < 16):
            raise ValueError(f"lores size {lores}: at least 16x16")
        self.lores = lores

    def open(self) -> None:
        self._t0 = self.clock.monotonic()
        self._next = 0

    def close(self) -> None:
        self._t0 = None

    def fail(self) -> None:
        """From now on ``read()`` raises :class:`CameraError` (a cable pulled)."""
        self._failed = True

    def recover(self) -> None:
        """The camera answers again."""
        self._failed = False

    def read(self) -> Frame | None:
        if self._t0 is None:
            raise CameraError("the simulated camera is not open (use it as a context manager)")
        if self._failed:
            raise CameraError("simulated camera failure (SimCamera.fail() was called)")
        now = self.clock.monotonic()
        latest = int(math.floor((now - self._t0) * self.fps + 1e-9))
        index = max(self._next, latest)
        t = self._t0 + index / self.fps
        if t > now:
            self.clock.sleep(t - now)
        self._next = index + 1
        image = self.world.frame_at(t)
        small = None
        if self.lores is not None:
            grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
            small = cv2.resize(grey, self.lores, interpolation=cv2.INTER_AREA)
        return Frame(index=index, t=t, image=image, lores=small)
