"""Pick a camera source from one configuration string.

``KIND[:ARGUMENT][?OPTION=VALUE&...]``:

- ``picamera2`` or ``picamera2:1``: a Pi camera (options ``fps``, ``size`` as WxH, ``lores`` width)
- ``opencv:0`` or ``opencv:/path/video.mp4``: an OpenCV device or file (options ``width``, ``height``, ``fps``)
- ``recording:/path/to/recording``: a recording directory (options ``realtime`` 0/1, ``speed``)
- ``sim``: the digital twin's camera (options ``seed``, ``style``, ``fps``, ``width``, ``height``)
- ``auto``: ``picamera2`` when picamera2 is installed, else ``opencv:0``

An option a source does not have is an error, not silently ignored: it is probably a typo.
Every source module is imported only when chosen, so picking ``recording`` never loads picamera2.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass

from controller.clock import Clock
from hardware.camera import CameraError, CameraSource


class CameraSpecError(ValueError):
    """A camera string that cannot be understood; the message shows the accepted forms."""


FORMS = "picamera2[:N], opencv:INDEX|PATH, recording:PATH, sim, auto (options after '?', e.g. opencv:0?width=640)"


@dataclass(frozen=True)
class CameraSpec:
    """A parsed camera string."""

    kind: str
    argument: str
    options: dict[str, str]


def parse_camera_spec(spec: str) -> CameraSpec:
    """Split ``KIND[:ARGUMENT][?K=V&...]``; raises :class:`CameraSpecError` on anything else."""
    text = spec.strip()
    if not text:
        raise CameraSpecError(f"empty camera; use one of {FORMS}")
    head, _, query = text.partition("?")
    kind, _, argument = head.partition(":")
    kind = kind.strip().lower()
    if kind not in _BUILDERS:
        raise CameraSpecError(f"unknown camera {kind!r} in {spec!r}; use one of {FORMS}")
    options: dict[str, str] = {}
    for part in filter(None, query.split("&")):
        key, eq, value = part.partition("=")
        if not eq or not key:
            raise CameraSpecError(f"option {part!r} in {spec!r} must be NAME=VALUE")
        options[key.strip().lower()] = value.strip()
    return CameraSpec(kind, argument.strip(), options)


def _take(spec: CameraSpec, allowed: set[str]) -> dict[str, str]:
    unknown = set(spec.options) - allowed
    if unknown:
        raise CameraSpecError(
            f"{spec.kind} has no option {', '.join(sorted(unknown))}; it has {', '.join(sorted(allowed)) or 'none'}"
        )
    return spec.options


def _number(spec: CameraSpec, key: str, value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise CameraSpecError(f"{spec.kind} option {key}={value!r} must be a number") from None


def _size(spec: CameraSpec, value: str) -> tuple[int, int]:
    w, x, h = value.lower().partition("x")
    if not x or not w.isdigit() or not h.isdigit():
        raise CameraSpecError(f"{spec.kind} option size={value!r} must be WIDTHxHEIGHT, e.g. 960x540")
    return int(w), int(h)


def _flag(spec: CameraSpec, key: str, value: str) -> bool:
    if value.lower() in ("1", "true", "yes", "on", ""):
        return True
    if value.lower() in ("0", "false", "no", "off"):
        return False
    raise CameraSpecError(f"{spec.kind} option {key}={value!r} must be 1 or 0")


def _picamera2(spec: CameraSpec, clock: Clock | None) -> CameraSource:
    from hardware.camera_picamera2 import Picamera2CameraSource

    opts = _take(spec, {"fps", "size", "lores"})
    if spec.argument and not spec.argument.isdigit():
        raise CameraSpecError(f"picamera2:{spec.argument}: the argument is the camera number (0, 1)")
    return Picamera2CameraSource(
        camera_num=int(spec.argument or 0),
        fps=_number(spec, "fps", opts["fps"]) if "fps" in opts else 120.0,
        main_size=_size(spec, opts["size"]) if "size" in opts else (960, 540),
        lores_width=int(_number(spec, "lores", opts["lores"])) if "lores" in opts else 320,
        clock=clock,
    )


def _opencv(spec: CameraSpec, clock: Clock | None) -> CameraSource:
    from hardware.camera_opencv import OpenCvCameraSource

    opts = _take(spec, {"width", "height", "fps"})
    arg = spec.argument or "0"
    device: int | str = int(arg) if arg.isdigit() else arg
    return OpenCvCameraSource(
        device,
        width=int(_number(spec, "width", opts["width"])) if "width" in opts else None,
        height=int(_number(spec, "height", opts["height"])) if "height" in opts else None,
        fps=_number(spec, "fps", opts["fps"]) if "fps" in opts else None,
        clock=clock,
    )


def _recording(spec: CameraSpec, clock: Clock | None) -> CameraSource:
    from hardware.camera_recording import RecordingCameraSource

    opts = _take(spec, {"realtime", "speed"})
    if not spec.argument:
        raise CameraSpecError("recording needs a directory: recording:/path/to/recording")
    return RecordingCameraSource(
        spec.argument,
        realtime=_flag(spec, "realtime", opts["realtime"]) if "realtime" in opts else False,
        speed=_number(spec, "speed", opts["speed"]) if "speed" in opts else 1.0,
        clock=clock,
    )


def _sim(spec: CameraSpec, clock: Clock | None) -> CameraSource:
    """The digital twin's camera on a fresh simulated world (hardware/sim is another part's; imported only here).

    The world is empty until something launches a dreidel in it; a table that drives the world
    builds ``SimCamera`` itself with its own world.
    """
    opts = _take(spec, {"seed", "style", "fps", "width", "height"})
    try:
        from hardware.sim.camera import SimCamera
        from hardware.sim.world import SimWorld
    except ImportError as exc:
        raise CameraError(f"the simulator's camera is not available: {exc}") from exc
    from controller.clock import SystemClock

    world = SimWorld(
        seed=int(_number(spec, "seed", opts["seed"])) if "seed" in opts else 0,
        style=opts.get("style") or None,
        fps=_number(spec, "fps", opts["fps"]) if "fps" in opts else 60.0,
        width=int(_number(spec, "width", opts["width"])) if "width" in opts else 640,
        height=int(_number(spec, "height", opts["height"])) if "height" in opts else 480,
    )
    return SimCamera(world, clock or SystemClock())


def _auto(spec: CameraSpec, clock: Clock | None) -> CameraSource:
    opts = _take(spec, {"fps"})
    if importlib.util.find_spec("picamera2") is not None:
        return _picamera2(CameraSpec("picamera2", "", dict(opts)), clock)
    return _opencv(CameraSpec("opencv", "0", dict(opts)), clock)


_BUILDERS: dict[str, Callable[[CameraSpec, Clock | None], CameraSource]] = {
    "picamera2": _picamera2,
    "opencv": _opencv,
    "recording": _recording,
    "sim": _sim,
    "auto": _auto,
}


#: the sources whose frame rate can be chosen
_HAS_FPS = ("picamera2", "opencv", "sim", "auto")


def make_camera(spec: str, clock: Clock | None = None, fps: float | None = None) -> CameraSource:
    """The camera source a string names, not yet opened (use it as a context manager).

    ``fps`` (e.g. the config's ``[camera] fps``) is the frame rate for sources that have one,
    unless the string sets ``?fps=`` itself; a recording keeps its own.
    """
    parsed = parse_camera_spec(spec)
    if fps is not None and parsed.kind in _HAS_FPS and "fps" not in parsed.options:
        if fps <= 0:
            raise CameraSpecError(f"fps must be positive, not {fps}")
        parsed = CameraSpec(parsed.kind, parsed.argument, {**parsed.options, "fps": repr(float(fps))})
    return _BUILDERS[parsed.kind](parsed, clock)
