"""The recording format (a contract: DESIGN.md "Contracts/Recording").

A recording is a directory:

- ``meta.json``: ``{"format": 1, "fps": <nominal>, "width": W, "height": H, "source": "...",
  "imu": {"chip": "...", "rate_hz": R} | null}``
- ``video.avi``: MJPG, one image per frame.
- ``frames.csv``: header ``index,t``; ``t`` in seconds from the start, increasing.
- ``imu.csv`` (optional): header ``t,ax,ay,az,gx,gy,gz`` (s, g, degrees/s), same clock as frames.csv.
- ``enroll/`` (optional): ``<letter>_<n>.png`` overhead stills of this recording's dreidel at rest.
- ``truth.json`` (optional, from the simulator): one object per spin.

:class:`RecordingWriter` writes one (``sevivon sim record``, ``sevivon record``);
:class:`RecordingReader` reads one (``sevivon analyze``, the recording camera source).
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

import cv2
import numpy as np

from controller.rules.letters import Letter
from hardware.camera import Frame
from hardware.imu import ImuSample

FORMAT_VERSION = 1
IMU_HEADER = ["t", "ax", "ay", "az", "gx", "gy", "gz"]
_ENROLL_NAME = re.compile(r"^(?P<letter>[a-z]+)_(?P<n>\d+)\.png$")


class RecordingError(ValueError):
    """A recording directory is missing, incomplete or malformed. The message says what to fix."""


class RecordingWriter:
    """Writes a recording directory. Use as a context manager so the video file is always finalised.

    Frame times must increase; a frame whose size differs from ``width`` x ``height`` is an error
    (MJPG in AVI cannot change size mid-stream).
    """

    def __init__(
        self,
        out_dir: str | Path,
        fps: float,
        width: int,
        height: int,
        source: str,
        imu: Mapping[str, Any] | None = None,
        jpeg_quality: int = 92,
    ) -> None:
        if fps <= 0:
            raise RecordingError(f"fps must be positive, not {fps}")
        if width <= 0 or height <= 0:
            raise RecordingError(f"frame size must be positive, not {width}x{height}")
        if not 1 <= int(jpeg_quality) <= 100:
            raise RecordingError(f"jpeg_quality must be 1-100, not {jpeg_quality}")
        if imu is not None and not {"chip", "rate_hz"} <= set(imu):
            raise RecordingError('imu must be {"chip": ..., "rate_hz": ...} or None')
        self.path = Path(out_dir)
        self.fps = float(fps)
        self.width = int(width)
        self.height = int(height)
        self.source = source
        self.imu = dict(imu) if imu is not None else None
        self._quality = jpeg_quality
        self._video: cv2.VideoWriter | None = None
        self._frames_file: Any = None
        self._frames_csv: Any = None
        self._imu_file: Any = None
        self._imu_csv: Any = None
        self._count = 0
        self._last_t = -math.inf
        self._last_imu_t = -math.inf
        self._enroll_counts: dict[str, int] = {}

    # -- lifecycle ---------------------------------------------------------------------------
    def open(self) -> RecordingWriter:
        """Create the directory and start the files."""
        self.path.mkdir(parents=True, exist_ok=True)
        meta = {
            "format": FORMAT_VERSION,
            "fps": self.fps,
            "width": self.width,
            "height": self.height,
            "source": self.source,
            "imu": self.imu,
        }
        (self.path / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
        fourcc = cv2.VideoWriter_fourcc(*"MJPG")
        # OpenCV's own MJPEG writer, not the default (FFmpeg) one: FFmpeg's ignores the quality setting
        # (set() returns False) and writes every frame at about quality 75, which costs letter reads.
        video = cv2.VideoWriter(str(self.path / "video.avi"), cv2.CAP_OPENCV_MJPEG, fourcc, self.fps,
                                (self.width, self.height))
        if not video.isOpened():
            raise RecordingError(f"cannot write {self.path / 'video.avi'}: OpenCV has no MJPG writer here")
        if not video.set(cv2.VIDEOWRITER_PROP_QUALITY, self._quality):
            video.release()
            raise RecordingError(f"cannot write {self.path / 'video.avi'} at JPEG quality {self._quality}: "
                                 "OpenCV's MJPG writer refused the quality (give 1-100)")
        self._video = video
        self._frames_file = open(self.path / "frames.csv", "w", newline="")  # noqa: SIM115 - closed in close()
        self._frames_csv = csv.writer(self._frames_file)
        self._frames_csv.writerow(["index", "t"])
        if self.imu is not None:
            self._imu_file = open(self.path / "imu.csv", "w", newline="")  # noqa: SIM115 - closed in close()
            self._imu_csv = csv.writer(self._imu_file)
            self._imu_csv.writerow(IMU_HEADER)
        return self

    def close(self) -> None:
        """Finalise every file. Safe to call twice."""
        if self._video is not None:
            self._video.release()
            self._video = None
        for name in ("_frames_file", "_imu_file"):
            handle = getattr(self, name)
            if handle is not None:
                handle.close()
                setattr(self, name, None)

    def __enter__(self) -> RecordingWriter:
        return self.open()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- writing -----------------------------------------------------------------------------
    @property
    def frame_count(self) -> int:
        """Frames written so far."""
        return self._count

    def write_frame(self, image_bgr: np.ndarray, t: float) -> int:
        """Append one frame taken at ``t`` seconds; returns its index."""
        if self._video is None:
            raise RecordingError("the writer is not open (use it as a context manager)")
        if image_bgr.shape[:2] != (self.height, self.width):
            raise RecordingError(
                f"frame {self._count} is {image_bgr.shape[1]}x{image_bgr.shape[0]}, "
                f"but the recording is {self.width}x{self.height}"
            )
        if not t > self._last_t:
            raise RecordingError(f"frame times must increase: frame {self._count} at t={t} after t={self._last_t}")
        if image_bgr.ndim == 2:
            image_bgr = cv2.cvtColor(image_bgr, cv2.COLOR_GRAY2BGR)
        self._video.write(np.ascontiguousarray(image_bgr, dtype=np.uint8))
        self._frames_csv.writerow([self._count, f"{t:.6f}"])
        self._last_t = t
        self._count += 1
        return self._count - 1

    def write_imu(self, samples: Iterable[ImuSample]) -> None:
        """Append IMU samples (in time order)."""
        if self._imu_csv is None:
            raise RecordingError("this recording was opened without an IMU (imu=None)")
        rows = []
        for s in samples:
            if s.t < self._last_imu_t:
                raise RecordingError(f"IMU sample times must not go backwards: {s.t} after {self._last_imu_t}")
            self._last_imu_t = s.t
            rows.append(
                [f"{s.t:.6f}", f"{s.ax:.5f}", f"{s.ay:.5f}", f"{s.az:.5f}", f"{s.gx:.4f}", f"{s.gy:.4f}", f"{s.gz:.4f}"]
            )
        self._imu_csv.writerows(rows)

    def write_truth(self, spins: list[dict[str, Any]]) -> None:
        """Write ``truth.json`` (the simulator's ground truth, one object per spin)."""
        self.path.mkdir(parents=True, exist_ok=True)
        (self.path / "truth.json").write_text(json.dumps(spins, indent=2) + "\n")

    def write_enroll(self, letter: Letter | str, image_bgr: np.ndarray) -> Path:
        """Save a labelled still ``enroll/<letter>_<n>.png``; returns its path."""
        name = Letter.parse(str(letter)).value
        enroll = self.path / "enroll"
        enroll.mkdir(parents=True, exist_ok=True)
        n = self._enroll_counts.get(name, 0)
        while (enroll / f"{name}_{n}.png").exists():
            n += 1
        out = enroll / f"{name}_{n}.png"
        if not cv2.imwrite(str(out), image_bgr):
            raise RecordingError(f"cannot write {out}")
        self._enroll_counts[name] = n + 1
        return out


class RecordingReader:
    """Reads a recording directory, checking it against the format as it goes."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_dir():
            raise RecordingError(f"{self.path} is not a recording directory (it does not exist or is a file)")
        meta_path = self.path / "meta.json"
        if not meta_path.is_file():
            raise RecordingError(f"{self.path} has no meta.json: is it a recording made by `sevivon record`?")
        try:
            meta = json.loads(meta_path.read_text())
        except json.JSONDecodeError as exc:
            raise RecordingError(f"{meta_path} is not valid JSON: {exc}") from None
        for key in ("format", "fps", "width", "height"):
            if key not in meta:
                raise RecordingError(f"{meta_path} lacks {key!r}")
        if meta["format"] != FORMAT_VERSION:
            raise RecordingError(f"{meta_path}: format {meta['format']} is not supported (expected {FORMAT_VERSION})")
        for name in ("video.avi", "frames.csv"):
            if not (self.path / name).is_file():
                raise RecordingError(f"{self.path} has no {name}")
        self.meta: dict[str, Any] = meta
        self._times: np.ndarray | None = None

    @property
    def fps(self) -> float:
        return float(self.meta["fps"])

    @property
    def size(self) -> tuple[int, int]:
        return int(self.meta["width"]), int(self.meta["height"])

    @property
    def has_imu(self) -> bool:
        return (self.path / "imu.csv").is_file()

    def frame_times(self) -> np.ndarray:
        """Frame timestamps (seconds), checked to increase."""
        if self._times is None:
            path = self.path / "frames.csv"
            with open(path, newline="") as f:
                reader = csv.reader(f)
                header = next(reader, None)
                if header != ["index", "t"]:
                    raise RecordingError(f"{path}: header must be 'index,t', not {header}")
                times = []
                for lineno, row in enumerate(reader, start=2):
                    try:
                        times.append(float(row[1]))
                    except (IndexError, ValueError):
                        raise RecordingError(f"{path} line {lineno}: expected 'index,t', got {row}") from None
            arr = np.asarray(times, dtype=np.float64)
            if arr.size > 1 and not np.all(np.diff(arr) > 0):
                bad = int(np.argmin(np.diff(arr) > 0)) + 1
                raise RecordingError(f"{path}: times must increase (frame {bad})")
            self._times = arr
        return self._times

    def frames(self) -> Iterator[Frame]:
        """Every frame, in order, with its timestamp from frames.csv."""
        times = self.frame_times()
        cap = cv2.VideoCapture(str(self.path / "video.avi"))
        if not cap.isOpened():
            raise RecordingError(f"cannot open {self.path / 'video.avi'} with OpenCV")
        try:
            for index, t in enumerate(times):
                ok, image = cap.read()
                if not ok:
                    raise RecordingError(
                        f"{self.path / 'video.avi'} ends after {index} frames but frames.csv lists {len(times)}"
                    )
                yield Frame(index=index, t=float(t), image=image)
        finally:
            cap.release()

    def imu(self) -> np.ndarray | None:
        """IMU samples as an N x 7 array (t, ax, ay, az, gx, gy, gz), or None without imu.csv."""
        path = self.path / "imu.csv"
        if not path.is_file():
            return None
        with open(path) as f:
            header = f.readline().strip().split(",")
        if header != IMU_HEADER:
            raise RecordingError(f"{path}: header must be {','.join(IMU_HEADER)}, not {','.join(header)}")
        try:
            data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2, dtype=np.float64)
        except ValueError as exc:
            raise RecordingError(f"{path}: {exc}") from None
        if data.size == 0:
            return np.zeros((0, 7))
        if data.shape[1] != 7:
            raise RecordingError(f"{path}: expected 7 columns, found {data.shape[1]}")
        return data

    def imu_samples(self) -> list[ImuSample]:
        """IMU samples as :class:`ImuSample` objects (empty without imu.csv)."""
        data = self.imu()
        if data is None:
            return []
        return [ImuSample(*map(float, row)) for row in data]

    def truth(self) -> list[dict[str, Any]] | None:
        """The simulator's ground truth, or None."""
        path = self.path / "truth.json"
        if not path.is_file():
            return None
        try:
            data = json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            raise RecordingError(f"{path} is not valid JSON: {exc}") from None
        if not isinstance(data, list):
            raise RecordingError(f"{path} must hold a list of spins")
        return data

    def enroll(self) -> list[tuple[Letter, np.ndarray]]:
        """Labelled stills from ``enroll/`` (empty if there are none)."""
        return read_enroll_dir(self.path / "enroll")


def read_enroll_dir(path: str | Path) -> list[tuple[Letter, np.ndarray]]:
    """Read ``<letter>_<n>.png`` stills. A file that does not follow the pattern is an error naming it."""
    folder = Path(path)
    if not folder.is_dir():
        return []
    out: list[tuple[Letter, np.ndarray]] = []
    for file in sorted(folder.iterdir()):
        if file.name.startswith("."):
            continue
        m = _ENROLL_NAME.match(file.name)
        if m is None:
            raise RecordingError(f"{file}: enroll stills must be named <letter>_<n>.png (e.g. gimel_0.png)")
        try:
            letter = Letter.parse(m.group("letter"))
        except ValueError as exc:
            raise RecordingError(f"{file}: {exc}") from None
        image = cv2.imread(str(file), cv2.IMREAD_COLOR)
        if image is None:
            raise RecordingError(f"{file} is not a readable image")
        out.append((letter, image))
    return out
