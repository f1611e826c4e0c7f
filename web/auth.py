"""The judge's login: a hashed password, rate-limited logins, expiring sessions, CSRF tokens.

- The password is set at install or first start (``sevivon run --set-password``, the environment
  variable ``SEVIVON_JUDGE_PASSWORD`` on first start, or a prompt on a terminal). There is never a
  default: with no password the judge console says how to set one and every write is refused.
- It is stored only as a werkzeug hash (scrypt) in a file readable by its owner alone.
- Failed logins are counted per address; too many within a window lock that address out for a while.
- A login lasts until it has been idle for the configured minutes (checked on the injected clock).
- Every form carries a CSRF token tied to the session; a write without it is refused with 403.
"""

from __future__ import annotations

import hmac
import os
import secrets
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from werkzeug.security import check_password_hash, generate_password_hash

from controller.clock import Clock

MIN_PASSWORD_LENGTH = 8


class PasswordError(ValueError):
    """The password cannot be set (too short, or the file cannot be written)."""


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` readable by its owner only, atomically."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


class PasswordStore:
    """The judge password's hash in one file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def is_set(self) -> bool:
        """True when a password has been set."""
        return self.path.is_file() and self.path.read_text(encoding="utf-8").strip() != ""

    def set(self, password: str) -> None:
        """Store the hash of ``password`` (at least 8 characters)."""
        if len(password) < MIN_PASSWORD_LENGTH:
            raise PasswordError(f"the judge password needs at least {MIN_PASSWORD_LENGTH} characters")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _write_private(self.path, generate_password_hash(password) + "\n")

    def check(self, password: str) -> bool:
        """True when ``password`` is the judge password (always False when none is set)."""
        if not self.is_set():
            return False
        return check_password_hash(self.path.read_text(encoding="utf-8").strip(), password)


def load_secret_key(path: str | Path) -> bytes:
    """The key that signs session cookies, made once per data folder so logins survive a restart."""
    p = Path(path)
    if p.is_file():
        key = bytes.fromhex(p.read_text(encoding="utf-8").strip())
        if len(key) >= 32:
            return key
    p.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(32)
    _write_private(p, key.hex() + "\n")
    return key


@dataclass(frozen=True)
class LoginVerdict:
    """May this address try to log in now? If not, after how many seconds."""

    allowed: bool
    retry_after_s: float = 0.0


class LoginLimiter:
    """At most ``attempts`` failed logins per address within ``window_s`` seconds.

    Counting failures (not attempts) means a judge who types the password right is never slowed;
    someone guessing gets ``attempts`` tries per window. Time comes from the injected clock.
    """

    def __init__(self, clock: Clock, attempts: int = 5, window_s: float = 300.0) -> None:
        self._clock = clock
        self.attempts = attempts
        self.window_s = window_s
        self._failures: dict[str, deque[float]] = {}

    def _recent(self, addr: str) -> deque[float]:
        now = self._clock.monotonic()
        times = self._failures.setdefault(addr, deque())
        while times and now - times[0] >= self.window_s:
            times.popleft()
        return times

    def check(self, addr: str) -> LoginVerdict:
        """Whether ``addr`` may try now."""
        times = self._recent(addr)
        if len(times) < self.attempts:
            return LoginVerdict(True)
        return LoginVerdict(False, times[0] + self.window_s - self._clock.monotonic())

    def failed(self, addr: str) -> None:
        """Count a failed login from ``addr``."""
        self._recent(addr).append(self._clock.monotonic())

    def succeeded(self, addr: str) -> None:
        """Forget ``addr``'s failures."""
        self._failures.pop(addr, None)


def new_csrf_token() -> str:
    """A fresh random token for one session."""
    return secrets.token_urlsafe(32)


def csrf_matches(expected: str | None, given: str | None) -> bool:
    """Constant-time comparison of the session's token with the one a form sent."""
    return bool(expected) and bool(given) and hmac.compare_digest(str(expected), str(given))
