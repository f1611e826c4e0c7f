"""Server-Sent Events: one broker, many spectator streams.

The table session publishes; each browser holds one stream. Every subscriber has its own short
queue: a slow phone never slows the table or the other screens. When a subscriber falls behind,
its oldest messages are dropped, which is safe because every ``state`` message carries the whole
table (a late screen only needs the newest one).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import queue
import threading
from collections.abc import Iterator
from types import TracebackType


def format_message(event: str, data: object, msg_id: int | None = None) -> bytes:
    """One SSE message: ``id``, ``event`` and ``data`` lines and a blank line."""
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    lines = [f"id: {msg_id}"] if msg_id is not None else []
    lines.append(f"event: {event}")
    lines.extend(f"data: {part}" for part in text.split("\n"))
    return ("\n".join(lines) + "\n\n").encode("utf-8")


#: a comment line that keeps proxies and phones from closing an idle stream
HEARTBEAT = b": keep-alive\n\n"


class Subscription:
    """One client's stream. Iterate :meth:`messages`, and close it (or use ``with``) when done."""

    def __init__(self, broker: SseBroker, max_queue: int) -> None:
        self._broker = broker
        self._queue: queue.Queue[bytes | None] = queue.Queue(maxsize=max_queue)
        self.dropped = 0

    def offer(self, message: bytes | None) -> None:
        """Queue a message, dropping the oldest one when this client is behind."""
        while True:
            try:
                self._queue.put_nowait(message)
                return
            except queue.Full:
                with contextlib.suppress(queue.Empty):
                    self._queue.get_nowait()
                    self.dropped += 1

    def get(self, timeout: float | None) -> bytes | None:
        """The next message; ``HEARTBEAT`` after ``timeout`` seconds of silence; None when the broker closed."""
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return HEARTBEAT

    def messages(self, first: bytes | None = None, heartbeat_s: float = 15.0) -> Iterator[bytes]:
        """The stream's bytes, starting with ``first`` (the current state), until the broker closes."""
        try:
            if first is not None:
                yield first
            while True:
                message = self.get(heartbeat_s)
                if message is None:
                    return
                yield message
        finally:
            self.close()

    def close(self) -> None:
        """Leave the broker (idempotent)."""
        self._broker.unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class SseBroker:
    """Fans each published message out to every subscriber."""

    def __init__(self, max_queue: int = 32) -> None:
        self._max_queue = max_queue
        self._subs: set[Subscription] = set()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._closed = False

    def subscribe(self) -> Subscription:
        """A new stream. It receives every message published from now on."""
        sub = Subscription(self, self._max_queue)
        with self._lock:
            if self._closed:
                sub.offer(None)
            else:
                self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Forget a stream."""
        with self._lock:
            self._subs.discard(sub)

    @property
    def clients(self) -> int:
        """How many streams are open."""
        with self._lock:
            return len(self._subs)

    def message(self, event: str, data: object) -> bytes:
        """Format a message with the next id (for a first message sent to one client)."""
        return format_message(event, data, next(self._ids))

    def publish(self, event: str, data: object) -> int:
        """Send ``data`` (JSON-serialisable, serialised once) as ``event`` to every stream; returns how many."""
        message = self.message(event, data)
        with self._lock:
            subs = list(self._subs)
        for sub in subs:
            sub.offer(message)
        return len(subs)

    def close(self) -> None:
        """End every stream (the server is shutting down)."""
        with self._lock:
            self._closed = True
            subs = list(self._subs)
            self._subs.clear()
        for sub in subs:
            sub.offer(None)
