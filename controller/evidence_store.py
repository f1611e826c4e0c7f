"""Where each spin's evidence lives: ``<data>/evidence/<spin id>/``, written in the background.

The judge keeps a verdict's evidence in memory (a still with its measurements drawn, a timeline plot
and a clip of small JPEG frames). The table gives every spin an id that is unique across restarts and
writes the evidence under it: ``still.png``, ``timeline.png`` and ``clip.webp`` (an animated WebP,
which every browser plays without a plug-in, unlike an MJPG AVI), and, when the letter went to a judge,
``rest.png``: the resting picture with nothing drawn on it, which the judge's ruling may teach the
table. Writing happens on one worker thread so the camera loop never waits for an encoder.
"""

from __future__ import annotations

import io
import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from PIL import Image

#: at most this many frames go into a clip (longer spins are subsampled)
MAX_CLIP_FRAMES = 150


def clip_to_webp(clip: list[tuple[float, bytes]]) -> bytes | None:
    """An animated WebP of JPEG frames with their times (None when no frame decodes)."""
    if len(clip) > MAX_CLIP_FRAMES:
        step = len(clip) / MAX_CLIP_FRAMES
        clip = [clip[int(i * step)] for i in range(MAX_CLIP_FRAMES)]
    frames: list[Image.Image] = []
    times: list[float] = []
    for t, data in clip:
        img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        if img is None:
            continue
        frames.append(Image.fromarray(cv2.cvtColor(img, cv2.COLOR_BGR2RGB)))
        times.append(t)
    if not frames:
        return None
    durations = [max(int(round((b - a) * 1000)), 20) for a, b in zip(times, times[1:], strict=False)] + [1000]
    out = io.BytesIO()
    frames[0].save(out, format="WEBP", save_all=True, append_images=frames[1:], duration=durations, loop=0,
                   quality=70, method=0)
    return out.getvalue()


class EvidenceStore:
    """Writes evidence per spin id on a worker thread; ``on_error`` hears about failures."""

    def __init__(self, root: Path, on_error: Callable[[str], None] | None = None) -> None:
        self.root = Path(root)
        self._on_error = on_error
        self._queue: queue.Queue[tuple[str, Any] | None] = queue.Queue(maxsize=16)
        self._thread: threading.Thread | None = None

    def folder(self, spin_id: str) -> Path:
        """The folder of one spin's evidence."""
        return self.root / spin_id

    def save(self, spin_id: str, evidence: Any) -> None:
        """Queue ``evidence`` (an object with ``still``, ``timeline`` and ``clip``) to be written."""
        if evidence is None:
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="evidence", daemon=True)
            self._thread.start()
        try:
            self._queue.put_nowait((spin_id, evidence))
        except queue.Full:
            self._error(f"evidence of {spin_id} dropped: the writer is behind")

    def write(self, spin_id: str, evidence: Any) -> list[str]:
        """Write one spin's evidence now; returns the file names written."""
        folder = self.folder(spin_id)
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for name, attr in (("still", "still"), ("timeline", "timeline"), ("rest", "rest_image")):
            image = getattr(evidence, attr, None)
            if isinstance(image, np.ndarray) and image.size and cv2.imwrite(str(folder / f"{name}.png"), image):
                written.append(f"{name}.png")
        clip = getattr(evidence, "clip", None)
        if clip:
            data = clip_to_webp(list(clip))
            if data:
                (folder / "clip.webp").write_bytes(data)
                written.append("clip.webp")
        return written

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            spin_id, evidence = item
            try:
                self.write(spin_id, evidence)
            except Exception as e:  # noqa: BLE001 - evidence trouble never stops the table
                self._error(f"evidence of {spin_id} not written: {e}")
            finally:
                self._queue.task_done()

    def flush(self) -> None:
        """Wait until everything queued is written."""
        if self._thread is not None:
            self._queue.join()

    def close(self) -> None:
        """Finish what is queued and stop the worker."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout=30)
            self._thread = None

    def _error(self, text: str) -> None:
        if self._on_error is not None:
            self._on_error(text)
