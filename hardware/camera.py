"""The camera interface that every frame source implements.

Sources: ``hardware.camera_picamera2`` (a Pi camera, imported lazily), ``hardware.camera_opencv``
(any OpenCV capture device), ``hardware.camera_recording`` (a recording directory) and
``hardware.sim`` (the digital twin). Each is a context manager that always releases its device.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from types import TracebackType

import numpy as np


class CameraError(RuntimeError):
    """The camera failed or went away. The table degrades to manual entry; it never crashes."""


@dataclass(frozen=True)
class Frame:
    """One captured picture.

    ``image`` is the full-resolution BGR picture (uint8, H x W x 3). ``lores`` is a small greyscale
    picture for tracking when the source makes one natively (the picamera2 lores stream), else None
    and the tracker downsamples ``image`` itself. ``t`` is the capture time in seconds on the
    source's injected clock (for a recording: seconds from its start).
    """

    index: int
    t: float
    image: np.ndarray
    lores: np.ndarray | None = None


class CameraSource(ABC):
    """A source of frames. Use it as a context manager: ``with source: frame = source.read()``."""

    #: nominal frames per second
    fps: float
    #: (width, height) of ``Frame.image``
    size: tuple[int, int]
    #: a short description for ``meta.json``'s "source" and for the health banner
    name: str

    @abstractmethod
    def open(self) -> None:
        """Acquire the device. Raises :class:`CameraError` with a message that says what to check."""

    @abstractmethod
    def close(self) -> None:
        """Release the device. Safe to call twice."""

    @abstractmethod
    def read(self) -> Frame | None:
        """The next frame, or None when a finite source (a recording) has ended.

        Raises :class:`CameraError` when a live device fails.
        """

    def __enter__(self) -> CameraSource:
        self.open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
