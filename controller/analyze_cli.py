"""``sevivon analyze REC``: judge every spin in a recording with the same code as the live table.

``--json`` prints ``{"spins": [...]}`` exactly as DESIGN.md specifies; without it a readable table.
``--evidence DIR`` writes each spin's still, clip and timeline. The recording's ``enroll/`` stills (or
``--enroll DIR``) teach the letter recognizer this dreidel. A recording that cannot be read is an error
that says what is wrong, with exit status 2.

For speed the video is decoded at half size for tracking (JPEG can do that cheaply), and a frame is
decoded at full size only when the judge asks for it (learning the tray, reading the letter).
"""

from __future__ import annotations

import json
import struct
import sys
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import click
import cv2
import numpy as np

from controller.judge import JudgeSettings, LetterReader, SpinJudge, SpinVerdict
from hardware.recording import RecordingError, RecordingReader, read_enroll_dir


class MjpegAvi:
    """The JPEG frames of an MJPG AVI file, read straight from its ``movi`` list (no video decoder).

    Raises :class:`ValueError` if the file is not a plain RIFF AVI of JPEG frames; the caller then falls
    back to OpenCV's decoder.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._data = path.read_bytes()
        if self._data[:4] != b"RIFF" or self._data[8:12] != b"AVI ":
            raise ValueError(f"{path} is not a RIFF AVI file")
        self.offsets = self._index()
        if not self.offsets:
            raise ValueError(f"{path} holds no video frames")
        first = self.jpeg(0)
        if first[:2] != b"\xff\xd8":
            raise ValueError(f"{path}: frames are not JPEG")

    def _index(self) -> list[tuple[int, int]]:
        data = self._data
        out: list[tuple[int, int]] = []
        # walk the top-level RIFF chunks (several for an OpenDML file: RIFF AVI , RIFF AVIX ...)
        pos = 0
        while pos + 12 <= len(data):
            if data[pos : pos + 4] != b"RIFF":
                break
            (riff_size,) = struct.unpack_from("<I", data, pos + 4)
            end = min(pos + 8 + riff_size, len(data))
            self._walk(pos + 12, end, out)
            pos = end + (end & 1)
        return out

    def _walk(self, pos: int, end: int, out: list[tuple[int, int]]) -> None:
        data = self._data
        while pos + 8 <= end:
            fourcc = data[pos : pos + 4]
            (size,) = struct.unpack_from("<I", data, pos + 4)
            if fourcc == b"LIST":
                kind = data[pos + 8 : pos + 12]
                if kind == b"movi":
                    self._walk(pos + 12, min(pos + 8 + size, end), out)
            elif fourcc[2:4] in (b"dc", b"db") and size > 0:
                out.append((pos + 8, size))
            pos += 8 + size + (size & 1)

    def __len__(self) -> int:
        return len(self.offsets)

    def jpeg(self, i: int) -> bytes:
        """The JPEG bytes of frame ``i``."""
        off, size = self.offsets[i]
        return self._data[off : off + size]


def _frames_fast(reader: RecordingReader) -> Iterator[tuple[int, float, bytes]] | None:
    """(index, t, jpeg) for every frame, or None when the AVI cannot be read directly."""
    try:
        avi = MjpegAvi(reader.path / "video.avi")
    except (ValueError, OSError):
        return None
    times = reader.frame_times()
    if len(avi) < len(times):
        raise RecordingError(f"{reader.path / 'video.avi'} has {len(avi)} frames but frames.csv lists {len(times)}")

    def gen() -> Iterator[tuple[int, float, bytes]]:
        for i, t in enumerate(times):
            yield i, float(t), avi.jpeg(i)

    return gen()


class SmallDecoder:
    """Decodes recorded JPEG frames to the tracker's small picture, a few frames ahead of the judge.

    OpenCV decodes without holding Python's lock, so one helper thread decodes the next frames while
    the judge works on this one: on a machine with a spare core (a Pi has four) a recording whose
    frames are large takes up to half the time. The pictures are exactly those decoded in turn.
    """

    def __init__(self, flag: int, size: tuple[int, int], ahead: int = 8) -> None:
        self.flag = flag
        self.size = size
        self.ahead = ahead

    def decode(self, buf: np.ndarray) -> np.ndarray | None:
        """The small picture of one JPEG frame (None if it is not a readable JPEG)."""
        small = cv2.imdecode(buf, self.flag)
        if small is not None and (small.shape[1], small.shape[0]) != self.size:
            small = cv2.resize(small, self.size, interpolation=cv2.INTER_AREA)
        return small

    def decode_ahead(
        self, frames: Iterator[tuple[int, float, bytes]]
    ) -> Iterator[tuple[int, float, np.ndarray, np.ndarray | None]]:
        """(index, t, the JPEG's bytes as an array, the small picture or None) for every frame, in order."""
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="sevivon-decode") as pool:
            pending: deque[tuple[int, float, np.ndarray, Future[np.ndarray | None]]] = deque()
            for index, t, jpg in frames:
                buf = np.frombuffer(jpg, np.uint8)
                pending.append((index, t, buf, pool.submit(self.decode, buf)))
                if len(pending) > self.ahead:
                    i, ti, b, fut = pending.popleft()
                    yield i, ti, b, fut.result()
            while pending:
                i, ti, b, fut = pending.popleft()
                yield i, ti, b, fut.result()


def load_recognizer(enroll_dir: Path | None) -> tuple[LetterReader | None, str]:
    """The letter recognizer (taught with ``enroll_dir`` when given), and a note for the report."""
    try:
        from vision.recognizer import LetterRecognizer
    except ImportError:
        return None, "no letter recognizer installed: letters are left to a judge"
    try:
        rec: Any = LetterRecognizer.default()
    except Exception as exc:  # a missing or broken model must not stop the judging: letters go to a judge
        return None, f"letter recognizer unavailable ({exc}): letters are left to a judge"
    # without its optional Nun/Gimel second look the recognizer still reads, only more Nuns go to a judge
    lacking = f" ({rec.pair_note})" if getattr(rec, "pair_note", "") else ""
    if enroll_dir is not None:
        samples = read_enroll_dir(enroll_dir)
        if samples:
            names = [p.name for p in sorted(enroll_dir.iterdir()) if not p.name.startswith(".")]
            # a blurred or empty taught still is left out (and named), not fatal: the rest still teach
            rec, skipped = rec.with_usable_enrollment(samples, names)
            note = f"taught with {len(samples) - len(skipped)} stills from {enroll_dir}"
            if skipped:
                note += "; left out: " + "; ".join(skipped)
            return rec, note + lacking
    return rec, "generic letter model" + lacking


def analyze_recording(
    rec_dir: str | Path,
    evidence_dir: str | Path | None = None,
    enroll_dir: str | Path | None = None,
    use_imu: bool = True,
    recognizer: LetterReader | None = None,
    use_recognizer: bool = True,
    settings: JudgeSettings | None = None,
    on_verdict: Callable[[SpinJudge, SpinVerdict], None] | None = None,
) -> tuple[list[SpinVerdict], dict[str, Any]]:
    """Judge a recording. Returns the verdicts and a few facts about the run (frames, imu, recognizer).
    ``settings``: the judge's (e.g. the tray's IMU calibration); the defaults without them. ``on_verdict``:
    called with the judge and each verdict as soon as it is given, before the next frame is judged (where a
    live table acts on it: ``bench/learn_from_rulings.py`` teaches the judge's reader there, as a judge's ruling
    teaches the table).

    Raises :class:`~hardware.recording.RecordingError` for a recording that cannot be read.
    """
    reader = RecordingReader(rec_dir)
    width, height = reader.size
    enroll = Path(enroll_dir) if enroll_dir is not None else reader.path / "enroll"
    if enroll_dir is not None and not enroll.is_dir():
        raise RecordingError(f"--enroll {enroll} is not a directory")
    note = "letters given"
    if recognizer is None and use_recognizer:
        recognizer, note = load_recognizer(enroll if enroll.is_dir() else None)
    imu = reader.imu() if use_imu else None
    judge = SpinJudge(recognizer, imu=imu is not None and imu.shape[0] > 0, evidence_dir=evidence_dir,
                      settings=settings)
    judge.tracker.set_full_size(width, height)
    lores_w, lores_h = judge.tracker._size or (width, height)
    imu_pos = 0
    n = 0
    fast = _frames_fast(reader)

    def feed_imu_until(t: float) -> None:
        # the IMU is fed in chunks of a tenth of a second, as a live driver's FIFO reads arrive
        nonlocal imu_pos
        if imu is None or (imu_pos < imu.shape[0] and imu[imu_pos, 0] > t - 0.1 and t != float("inf")):
            return
        end = int(np.searchsorted(imu[:, 0], t, side="right"))
        if end > imu_pos:
            judge.feed_imu_array(imu[imu_pos:end])
            imu_pos = end

    told = 0

    def tell() -> None:
        nonlocal told
        if on_verdict is None:
            return
        while told < len(judge.verdicts):
            told += 1
            on_verdict(judge, judge.verdicts[told - 1])

    if fast is not None:
        # libjpeg scales while decoding (1/2, 1/4, 1/8): the tracker's small picture costs a fraction
        # of a full decode; the largest factor that still leaves at least the tracking size is used
        reduce = cv2.IMREAD_COLOR
        for factor, flag in ((8, cv2.IMREAD_REDUCED_COLOR_8), (4, cv2.IMREAD_REDUCED_COLOR_4),
                             (2, cv2.IMREAD_REDUCED_COLOR_2)):
            if width >= factor * lores_w and height >= factor * lores_h:
                reduce = flag
                break
        decoder = SmallDecoder(reduce, (lores_w, lores_h))
        for index, t, buf, small in decoder.decode_ahead(fast):
            if small is None:
                raise RecordingError(f"frame {index} of {reader.path / 'video.avi'} is not a readable JPEG")
            feed_imu_until(t)

            def full(buf: np.ndarray = buf, index: int = index) -> np.ndarray:
                img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
                if img is None:
                    raise RecordingError(f"frame {index} is not a readable JPEG")
                return img

            judge.feed_small(index, t, small, full)
            n += 1
            tell()
    else:
        for frame in reader.frames():
            feed_imu_until(frame.t)
            judge.feed_frame(frame)
            n += 1
            tell()
    if imu is not None:
        feed_imu_until(float("inf"))
    judge.finish()
    tell()
    facts = {"frames": n, "imu": imu is not None and imu.shape[0] > 0, "recognizer": note}
    return list(judge.verdicts), facts


def _table(verdicts: list[SpinVerdict]) -> str:
    head = f"{'#':>3} {'release':>8} {'wobble':>8} {'rest':>8} {'stable':>7} {'letter':>7} {'valid':>6} {'conf':>5}  reasons / notes"
    lines = [head, "-" * len(head)]

    def f(v: float | None) -> str:
        return "-" if v is None else f"{v:.2f}"

    for v in verdicts:
        # a spin sent to a judge shows the machine's call with a question mark: a suggestion, not a verdict
        call = ("yes" if v.valid else "no") + ("?" if v.needs_judge else "")
        extra = ", ".join(v.reasons)
        if v.needs_judge:
            extra = (extra + "; " if extra else "") + "JUDGE NEEDED: " + "; ".join(v.notes)
        lines.append(
            f"{v.spin_id:>3} {f(v.release_t):>8} {f(v.wobble_t):>8} {f(v.rest_t):>8} {f(v.stable_s):>7} "
            f"{(v.letter.value if v.letter else '?'):>7} {call:>6} {v.confidence:5.2f}  {extra}"
        )
    if not verdicts:
        lines.append("(no spins found)")
    return "\n".join(lines)


@click.command()
@click.argument("rec", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help='Print {"spins": [...]} as DESIGN.md specifies.')
@click.option("--evidence", "evidence_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write each spin's still, clip and timeline into this directory.")
@click.option("--enroll", "enroll_dir", type=click.Path(path_type=Path), default=None,
              help="Taught stills <letter>_<n>.png (default: REC/enroll when present).")
@click.option("--no-imu", is_flag=True, help="Ignore imu.csv (judge with the camera alone).")
@click.option("--rocking-level", "rocking_level", type=click.FloatRange(min=0.0, min_open=True),
              default=JudgeSettings.rocking_level_dps, show_default=True,
              help="The tray's IMU calibration in deg/s (the table config's [imu] rocking_level_dps; "
                   "`sevivon imu-level` measures it).")
def analyze(rec: Path, as_json: bool, evidence_dir: Path | None, enroll_dir: Path | None, no_imu: bool,
            rocking_level: float) -> None:
    """Judge every spin in the recording REC."""
    try:
        verdicts, facts = analyze_recording(rec, evidence_dir=evidence_dir, enroll_dir=enroll_dir, use_imu=not no_imu,
                                            settings=JudgeSettings(rocking_level_dps=rocking_level))
    except RecordingError as exc:
        click.echo(f"sevivon analyze: {exc}", err=True)
        sys.exit(2)
    if as_json:
        click.echo(json.dumps({"spins": [v.to_json() for v in verdicts]}))
        return
    click.echo(f"{rec}: {facts['frames']} frames, {'camera + IMU' if facts['imu'] else 'camera only'}, {facts['recognizer']}")
    click.echo(_table(verdicts))
    if evidence_dir is not None:
        click.echo(f"evidence written to {evidence_dir}")
