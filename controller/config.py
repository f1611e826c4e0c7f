"""The table's configuration: one TOML file, every key validated.

Like Klipper, a key that nothing reads is an error that names it, because it is almost always a
typo (``[camera] fsp = 30``) that would otherwise be silently ignored. Without a file the defaults
describe a simulated 10-player table on the digital twin, so ``sevivon run`` works out of the box.

Example (every key is optional)::

    [table]
    name = "table-1"
    players = ["Ann", "Ben", "Cy"]
    stack = 18
    ante = 1
    dreidel = "house-1"
    spun_by = { Cy = "launcher" }

    [ante_clock]
    interval_s = 180
    step = 1

    [camera]
    source = "picamera2"      # sim | none | picamera2 | opencv:0 | recording:/path
    [imu]
    source = "auto"           # sim | none | auto (probe the I2C bus)
    bus = 1
    rocking_level_dps = 0.2   # this tray's calibration: `sevivon imu-level` measures it
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

DEFAULT_PLAYERS: tuple[str, ...] = ("Ann", "Ben", "Cy", "Dov", "Eli", "Fay", "Gil", "Hod", "Ida", "Jo")


class ConfigError(ValueError):
    """The configuration is wrong. The message names the file, the key and what to write instead."""


@dataclass(frozen=True)
class TableSettings:
    """Who plays and with what: the ``[table]`` section."""

    name: str = "table-1"
    players: tuple[str, ...] = DEFAULT_PLAYERS
    stack: int = 18
    ante: int = 1
    #: a player who spins first without an opening spin ("" = the tip direction or a judge decides)
    first: str = ""
    prize: int = 100
    #: the dreidel in use, for the fairness statistics
    dreidel: str = "house-1"
    #: accessible spinning: player -> "launcher" or the person who spins for them
    spun_by: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class AnteClockSettings:
    """The ``[ante_clock]`` section: the ante rises by ``step`` every ``interval_s`` seconds."""

    interval_s: float = 180.0
    step: int = 1
    #: start the clock when the table opens (a judge can pause and resume it)
    autostart: bool = True


@dataclass(frozen=True)
class CameraSettings:
    """The ``[camera]`` section."""

    source: str = "sim"
    fps: float = 60.0
    #: seconds between attempts to reopen a failed camera
    retry_s: float = 3.0


@dataclass(frozen=True)
class ImuSettings:
    """The ``[imu]`` section."""

    source: str = "sim"
    bus: int = 1
    retry_s: float = 3.0
    #: how hard (deg/s) this tray rocks under a dreidel leaning at the rules' wobble; the twin's tray is
    #: 0.2, a real tray differs (its stiffness, where the IMU sits): ``sevivon imu-level`` measures it
    rocking_level_dps: float = 0.2


@dataclass(frozen=True)
class GpioSettings:
    """The ``[gpio]`` section: BCM pin numbers (see hardware/README.md's wiring table)."""

    enabled: bool = False
    spin_button: int = 17
    assistive_switch: int = 27
    led_red: int = 5
    led_green: int = 6
    led_blue: int = 13
    buzzer: int = 12
    motor_forward: int = 23
    motor_backward: int = 24
    motor_enable: int = 18
    servo: int = 19
    #: hall-sensor rpm counter; -1 when the launcher has none
    hall: int = -1
    #: the motor never runs longer than this
    motor_max_s: float = 4.0


@dataclass(frozen=True)
class SimSettings:
    """The ``[sim]`` section: the digital twin and its simulated people."""

    seed: int = 7
    speed: float = 1.0
    #: simulated players spin when it is their turn
    autoplay: bool = True
    #: seconds a simulated player takes to pick up the dreidel and spin again
    pause_s: float = 2.5
    #: a simulated judge settles "judge needed" verdicts after this many seconds (0 = never: wait for a person)
    judge_delay_s: float = 10.0
    #: open a new table this many seconds after a table has a winner (0 = never)
    new_table_after_s: float = 30.0


@dataclass(frozen=True)
class WebSettings:
    """The ``[web]`` section."""

    host: str = "127.0.0.1"
    port: int = 8080
    #: a judge's login expires after this many minutes without a page or a form (the live picture does not count)
    session_minutes: float = 30.0
    #: failed logins allowed per address within ``login_window_s`` before it is locked out
    login_attempts: int = 5
    login_window_s: float = 300.0


@dataclass(frozen=True)
class SpeechSettings:
    """The ``[speech]`` section: results spoken aloud with espeak-ng."""

    enabled: bool = False
    voice: str = "en"
    words_per_minute: int = 150


@dataclass(frozen=True)
class Config:
    """The whole configuration. ``simulated`` is true when any device comes from the digital twin."""

    table: TableSettings = field(default_factory=TableSettings)
    ante_clock: AnteClockSettings = field(default_factory=AnteClockSettings)
    camera: CameraSettings = field(default_factory=CameraSettings)
    imu: ImuSettings = field(default_factory=ImuSettings)
    gpio: GpioSettings = field(default_factory=GpioSettings)
    sim: SimSettings = field(default_factory=SimSettings)
    web: WebSettings = field(default_factory=WebSettings)
    speech: SpeechSettings = field(default_factory=SpeechSettings)
    source: str = "<defaults>"

    @property
    def simulated(self) -> bool:
        """True when the camera or the IMU is the digital twin."""
        return self.camera.source == "sim" or self.imu.source == "sim"

    def forced_sim(self) -> Config:
        """This configuration with every device replaced by the digital twin (``sevivon run --sim``)."""
        return replace(
            self,
            camera=replace(self.camera, source="sim"),
            imu=replace(self.imu, source="sim"),
            gpio=replace(self.gpio, enabled=False),
        )


# ---------------------------------------------------------------------------------------------
# validation

Check = Callable[[Any], str | None]  # returns an error text, or None when the value is fine


def _positive(v: Any) -> str | None:
    return None if v > 0 else "must be greater than 0"


def _non_negative(v: Any) -> str | None:
    return None if v >= 0 else "must be 0 or more"


def _pin(v: Any) -> str | None:
    return None if -1 <= v <= 27 else "must be a BCM GPIO number 0..27 (or -1 for none)"


def _port(v: Any) -> str | None:
    return None if 0 <= v <= 65535 else "must be a TCP port 0..65535"


def _camera_source(v: Any) -> str | None:
    if v in ("sim", "none", "picamera2") or v.startswith(("opencv:", "recording:")):
        return None
    return 'must be "sim", "none", "picamera2", "opencv:<index or path>" or "recording:<dir>"'


def _imu_source(v: Any) -> str | None:
    return None if v in ("sim", "none", "auto") else 'must be "sim", "none" or "auto"'


def _name(v: Any) -> str | None:
    return None if v.strip() and len(v) <= 40 else "must be a non-empty name of at most 40 characters"


_SECTIONS: dict[str, type] = {
    "table": TableSettings,
    "ante_clock": AnteClockSettings,
    "camera": CameraSettings,
    "imu": ImuSettings,
    "gpio": GpioSettings,
    "sim": SimSettings,
    "web": WebSettings,
    "speech": SpeechSettings,
}

# Extra checks beyond the type of each key's default.
_CHECKS: dict[tuple[str, str], Check] = {
    ("table", "name"): _name,
    ("table", "stack"): _positive,
    ("table", "ante"): _positive,
    ("table", "prize"): _non_negative,
    ("table", "dreidel"): _name,
    ("ante_clock", "interval_s"): _positive,
    ("ante_clock", "step"): _positive,
    ("camera", "source"): _camera_source,
    ("camera", "fps"): _positive,
    ("camera", "retry_s"): _positive,
    ("imu", "source"): _imu_source,
    ("imu", "bus"): _non_negative,
    ("imu", "retry_s"): _positive,
    ("imu", "rocking_level_dps"): _positive,
    **{("gpio", pin): _pin for pin in GpioSettings.__dataclass_fields__ if pin not in ("enabled", "motor_max_s")},
    ("gpio", "motor_max_s"): _positive,
    ("sim", "speed"): _positive,
    ("sim", "pause_s"): _non_negative,
    ("sim", "judge_delay_s"): _non_negative,
    ("sim", "new_table_after_s"): _non_negative,
    ("web", "port"): _port,
    ("web", "session_minutes"): _positive,
    ("web", "login_attempts"): _positive,
    ("web", "login_window_s"): _positive,
    ("speech", "words_per_minute"): _positive,
}


def _suggest(word: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1)
    return f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(sorted(choices))})"


def _coerce(where: str, value: Any, default: Any) -> Any:
    """Check ``value`` against the type of ``default`` and convert it (ints are accepted for floats)."""
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{where} must be true or false, not {value!r}")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where} must be a whole number, not {value!r}")
        return value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{where} must be a number, not {value!r}")
        return float(value)
    if isinstance(default, str):
        if not isinstance(value, str):
            raise ConfigError(f"{where} must be a string, not {value!r}")
        return value
    if isinstance(default, tuple):
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise ConfigError(f"{where} must be a list of names, like [\"Ann\", \"Ben\"]")
        return tuple(x.strip() for x in value)
    if isinstance(default, Mapping):
        if not isinstance(value, Mapping) or not all(isinstance(x, str) for x in value.values()):
            raise ConfigError(f"{where} must be a table of names, like {{ Ann = \"launcher\" }}")
        return {str(k): str(v).strip() for k, v in value.items()}
    raise TypeError(f"no rule to check {where}")  # pragma: no cover - a programming error


def _section(file: str, name: str, raw: Any, cls: type) -> Any:
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{file}: [{name}] must be a table of keys")
    defaults = cls()
    known = list(cls.__dataclass_fields__)
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in known:
            raise ConfigError(
                f"{file}: unknown key [{name}] {key}: nothing reads it{_suggest(key, known)}"
            )
        where = f"{file}: [{name}] {key}"
        value = _coerce(where, value, getattr(defaults, key))
        check = _CHECKS.get((name, key))
        problem = check(value) if check else None
        if problem:
            raise ConfigError(f"{where} = {value!r} {problem}")
        values[key] = value
    return replace(defaults, **values)


def _check_table(file: str, t: TableSettings) -> None:
    if not 2 <= len(t.players) <= 10:
        raise ConfigError(f"{file}: [table] players must name 2 to 10 players, not {len(t.players)}")
    for p in t.players:
        if _name(p):
            raise ConfigError(f"{file}: [table] players: {p!r} must be a non-empty name of at most 40 characters")
    if len(set(t.players)) != len(t.players):
        raise ConfigError(f"{file}: [table] players: each name must be different")
    if t.first and t.first not in t.players:
        raise ConfigError(f"{file}: [table] first = {t.first!r} is not one of the players")
    for p, who in t.spun_by.items():
        if p not in t.players:
            raise ConfigError(f"{file}: [table] spun_by: {p!r} is not one of the players")
        if not who:
            raise ConfigError(f"{file}: [table] spun_by: say who spins for {p} (\"launcher\" or a name)")


def parse_config(text: str, source: str = "<text>") -> Config:
    """Read a configuration from TOML text. Raises :class:`ConfigError` naming the key at fault."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{source}: not valid TOML: {e}") from None
    values: dict[str, Any] = {}
    for name, section in raw.items():
        if name not in _SECTIONS:
            raise ConfigError(
                f"{source}: unknown section [{name}]: nothing reads it{_suggest(name, list(_SECTIONS))}"
            )
        values[name] = _section(source, name, section, _SECTIONS[name])
    config = Config(source=source, **values)
    _check_table(source, config.table)
    return config


def load_config(path: str | Path | None) -> Config:
    """The configuration in ``path``, or the simulated defaults when ``path`` is None."""
    if path is None:
        return default_sim_config()
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"cannot read the configuration {p}: {e.strerror or e}") from None
    return parse_config(text, str(p))


def default_sim_config() -> Config:
    """The demo table: 10 simulated players, one spinning through the launcher, one helped by a friend."""
    return replace(Config(), table=replace(TableSettings(), spun_by={"Dov": "launcher", "Gil": "Hod"}))
