"""The buzzer: short beep patterns that say what the judge decided without looking.

An active buzzer (it sounds when its pin is high, through a transistor). Patterns are played by
:meth:`Buzzer.tick` on the injected clock; a new pattern replaces the one playing.

| sound          | pattern                                   |
|----------------|-------------------------------------------|
| valid          | one short beep (0.12 s)                   |
| respin         | two short beeps (0.1 s, 0.1 s apart)      |
| judge_needed   | three long beeps (0.3 s, 0.15 s apart)    |
| fault          | one long beep (0.8 s)                     |
"""

from __future__ import annotations

import threading
from enum import StrEnum

from gpiozero import Buzzer as GpioBuzzer
from gpiozero.pins import Factory

from controller.clock import Clock, SystemClock


class Sound(StrEnum):
    """What the buzzer can say."""

    VALID = "valid"
    RESPIN = "respin"
    JUDGE_NEEDED = "judge_needed"
    FAULT = "fault"


#: (on seconds, off seconds) per beep
SOUNDS: dict[Sound, tuple[tuple[float, float], ...]] = {
    Sound.VALID: ((0.12, 0.0),),
    Sound.RESPIN: ((0.1, 0.1), (0.1, 0.0)),
    Sound.JUDGE_NEEDED: ((0.3, 0.15), (0.3, 0.15), (0.3, 0.0)),
    Sound.FAULT: ((0.8, 0.0),),
}


class Buzzer:
    """An active buzzer on one pin, playing :class:`Sound` patterns."""

    def __init__(
        self,
        pin: int = 12,
        clock: Clock | None = None,
        pin_factory: Factory | None = None,
        muted: bool = False,
    ) -> None:
        self.clock: Clock = clock or SystemClock()
        self.muted = muted
        self._buzzer = GpioBuzzer(pin, pin_factory=pin_factory)
        self._lock = threading.Lock()
        self._edges: list[tuple[float, bool]] = []  # (time, on) still to come

    @property
    def sounding(self) -> bool:
        """The buzzer is on right now."""
        return bool(self._buzzer.is_active)

    @property
    def playing(self) -> bool:
        """A pattern is still under way."""
        return bool(self._edges) or self.sounding

    def play(self, sound: Sound | str) -> None:
        """Start ``sound`` now, cutting off whatever was playing."""
        pattern = SOUNDS[Sound(sound)]
        with self._lock:
            t = self.clock.monotonic()
            edges: list[tuple[float, bool]] = []
            for on_s, off_s in pattern:
                edges.append((t, True))
                edges.append((t + on_s, False))
                t += on_s + off_s
            self._edges = [] if self.muted else edges
            self._buzzer.off()
        self.tick()

    def tick(self) -> None:
        """Switch the buzzer for every edge that is due."""
        with self._lock:
            now = self.clock.monotonic()
            while self._edges and self._edges[0][0] <= now:
                _, on = self._edges.pop(0)
                if on:
                    self._buzzer.on()
                else:
                    self._buzzer.off()

    def stop(self) -> None:
        """Silence now."""
        with self._lock:
            self._edges = []
            self._buzzer.off()

    def close(self) -> None:
        """Silence and release the pin."""
        self.stop()
        self._buzzer.close()
