"""Spoken results for players who cannot see the screen (espeak-ng, optional).

Speaking never blocks the table: phrases go into a short queue that one worker thread feeds to
espeak-ng. When the queue is full the oldest phrase is dropped, because a stale result read out
late is worse than none. The process runner is injected, so tests record the command lines instead
of making noise; a missing espeak-ng disables speech with one clear fault instead of crashing.
"""

from __future__ import annotations

import contextlib
import queue
import shutil
import subprocess
import threading
from collections.abc import Callable, Sequence

#: runs one command line to completion; returns its exit status
Runner = Callable[[Sequence[str]], int]


def run_quietly(argv: Sequence[str]) -> int:
    """The production runner: run ``argv`` with no output, at most 30 s."""
    try:
        return subprocess.run(list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=30, check=False).returncode
    except (OSError, subprocess.TimeoutExpired):
        return -1


class Speaker:
    """Says phrases aloud, one at a time, in the background."""

    def __init__(
        self,
        enabled: bool = True,
        voice: str = "en",
        words_per_minute: int = 150,
        runner: Runner | None = None,
        program: str | None = None,
        on_fault: Callable[[str], None] | None = None,
        max_queue: int = 4,
    ) -> None:
        self.voice = voice
        self.words_per_minute = words_per_minute
        self._runner = runner or run_quietly
        self._on_fault = on_fault
        self._queue: queue.Queue[str | None] = queue.Queue(maxsize=max_queue)
        self._thread: threading.Thread | None = None
        self.program = program if program is not None else (shutil.which("espeak-ng") or "")
        self.enabled = enabled
        if enabled and runner is None and not self.program:
            self.enabled = False
            self._fault("speech is on but espeak-ng is not installed (apt install espeak-ng)")

    def _fault(self, text: str) -> None:
        if self._on_fault:
            self._on_fault(text)

    def command(self, text: str) -> list[str]:
        """The command line that says ``text``."""
        return [self.program or "espeak-ng", "-v", self.voice, "-s", str(self.words_per_minute), "--", text]

    def say(self, text: str) -> None:
        """Queue ``text`` to be spoken; returns at once."""
        if not self.enabled or not text.strip():
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="speech", daemon=True)
            self._thread.start()
        while True:
            try:
                self._queue.put_nowait(text)
                return
            except queue.Full:
                with contextlib.suppress(queue.Empty):
                    self._queue.get_nowait()  # drop the oldest: it is stale by now

    def _work(self) -> None:
        while True:
            text = self._queue.get()
            if text is None:
                return
            status = self._runner(self.command(text))
            if status != 0:
                self._fault(f"espeak-ng failed (status {status}) saying {text!r}")

    def close(self, wait: bool = True) -> None:
        """Stop the worker after the phrases already queued."""
        if self._thread is None:
            return
        self._queue.put(None)
        if wait:
            self._thread.join(timeout=35)
        self._thread = None
