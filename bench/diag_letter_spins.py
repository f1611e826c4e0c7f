#!/usr/bin/env python3
"""Why a valid spin got no letter: every letter reading the judge made, per valid spin, with its cause.

    .venv/bin/python bench/diag_letter_spins.py --rec /tmp/tune-twin-520/seed52001_n9_fps60 ... [--png DIR]

Each recording (it must have truth.json) is judged as ``sevivon analyze`` does (IMU when present, its
``enroll/`` stills unless ``--no-enroll``), with the recognizer wrapped so that every frame the letter vote
read is kept. For each truly valid spin the report lists the readings (time after the true rest, letter
or abstention, confidence, top guess, the face's size in pixels) and the vote's outcome, and sorts a spin
without a letter into one cause (a spin given the wrong letter is ``WRONG``); it also gives the process CPU
the vote spent per spin (``vote_cpu_ms``: the pose and the recognizer on every frame it read) and their median:

- ``no_reads``: the vote read no frame (rest never declared, or the dreidel was lost);
- ``pose``: most readings found no dreidel or no letter on the face, or the face's size jumped by half
  between frames of the resting dreidel (the crop);
- ``wrong_guess``: the best guess of most readings was another letter (the model);
- ``low_conf``: the best guess was right but below the threshold on most readings (the model's
  confidence or the threshold);
- ``vote``: at least one frame read the right letter clearly but the vote's rules refused it (too
  few reads, a disagreeing frame, the mean).

With ``--later`` the frames 0.5, 1 and 2 s after the true rest are read too (did settling matter?).
With ``--stills`` the stills of the same dreidel with the same letter up are read by the same recognizer
(altsim: ``<out>/stills/<seed>_<letter>.png`` next to ``rec_<seed>``; twin: the recording's own
``enroll/<letter>_*.png``, so pass ``--no-enroll`` with it there, or the stills read themselves): a spin
whose still is unread too is the recognizer's on that dreidel, not the recording's; the tally then splits
each cause by whether the stills read (``cause/still_read``, ``cause/still_unread``).
``--png DIR`` writes, for every spin without a letter or with a wrong one (every valid spin with ``--png-all``),
the frames read with the face outline and the network's 32 x 32 input channels, to look at.
``--lores-width N`` judges with a tracking picture N px wide instead of the judge's default (320): the same
recording then runs at another main/lores ratio (800x600 is 2.5x at 320 and 2x at 400), which tells a
letter lost between the two coordinate frames from one lost in the picture.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.analyze_cli import _frames_fast, analyze_recording, load_recognizer  # noqa: E402
from hardware.recording import RecordingReader  # noqa: E402
from vision.features import face_input  # noqa: E402
from vision.pose import find_resting_dreidel  # noqa: E402
from vision.recognizer import NO_LETTER  # noqa: E402


@dataclass
class Read:
    """One reading made by the judge (or by this script, for ``--later``)."""

    t: float
    image: np.ndarray
    background: np.ndarray | None
    reading: Any
    #: the process CPU the judge spent on this reading (pose and recognizer), in seconds
    cpu_s: float = 0.0


class ReadLog:
    """Every letter reading the judge makes while installed (it wraps ``SpinJudge._read_letter``)."""

    def __init__(self) -> None:
        self.reads: list[Read] = []

    def __enter__(self) -> ReadLog:
        from controller import judge

        self._orig = judge.SpinJudge._read_letter
        log = self

        def logged(j: Any, t: float, image: np.ndarray, obs: Any, *rest: Any) -> Any:
            c0 = time.process_time()
            got = log._orig(j, t, image, obs, *rest)
            cpu = time.process_time() - c0
            log.reads.append(Read(t, image.copy(), j.background.full_image, log.last, cpu))
            return got

        def read_wrap(inner_read: Any) -> Any:
            def read(image_bgr: np.ndarray, pose: Any = None, background_bgr: np.ndarray | None = None) -> Any:
                log.last = inner_read(image_bgr, pose=pose, background_bgr=background_bgr)
                return log.last
            return read

        self.read_wrap = read_wrap
        self.last: Any = None
        judge.SpinJudge._read_letter = logged  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        from controller import judge

        judge.SpinJudge._read_letter = self._orig  # type: ignore[method-assign]


@dataclass
class WrappedReader:
    """Passes reads to ``inner`` through the log (to keep the recognizer's full reading)."""

    inner: Any
    log: ReadLog

    def read(self, image_bgr: np.ndarray, pose: Any = None, background_bgr: np.ndarray | None = None) -> Any:
        return self.log.read_wrap(self.inner.read)(image_bgr, pose=pose, background_bgr=background_bgr)


def face_side(reading: Any) -> float:
    pose = getattr(reading, "pose", None)
    if pose is None or pose.face_quad is None:
        return 0.0
    q = np.asarray(pose.face_quad, float).reshape(4, 2)
    return float((np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2)


def face_quad(reading: Any) -> list[list[float]] | None:
    """The face outline the recognizer was given (full-resolution px, 0.1 px), or None."""
    pose = getattr(reading, "pose", None)
    if pose is None or pose.face_quad is None:
        return None
    return [[round(float(v), 1) for v in c] for c in np.asarray(pose.face_quad, float).reshape(4, 2)]


def top_guess(reading: Any) -> str:
    scores = getattr(reading, "scores", None) or {}
    if not scores:
        return "-"
    best = max(scores, key=scores.__getitem__)
    return f"{best.value}:{scores[best]:.2f}"


def cause(truth_letter: str, reads: list[Any]) -> str:
    if not reads:
        return "no_reads"
    n = len(reads)
    no_face = sum(1 for r in reads if r.reason in ("no dreidel found", NO_LETTER)
                  or (r.reason == "no letter on the face"))
    sides = [face_side(r) for r in reads if face_side(r) > 0]
    # a crop that jumps between frames of a resting dreidel (by half its size) is the pose's doing
    if no_face * 2 >= n or (sides and max(sides) > 1.5 * min(sides)):
        return "pose"
    right_top = sum(1 for r in reads if r.scores and max(r.scores, key=r.scores.__getitem__).value == truth_letter)
    right_read = sum(1 for r in reads if r.letter is not None and r.letter.value == truth_letter)
    if right_read >= 1:
        return "vote"
    if right_top * 2 > n:
        return "low_conf"
    return "wrong_guess"


def save_png(out: Path, name: str, reads: list[Read]) -> None:
    tiles = []
    for rd in reads:
        pose = getattr(rd.reading, "pose", None)
        img = rd.image
        if pose is not None and pose.face_quad is not None:
            q = np.asarray(pose.face_quad, float).reshape(4, 2)
            c = q.mean(axis=0)
            r = int(max(40, 2.5 * face_side(rd.reading)))
            x0, y0 = int(max(0, c[0] - r)), int(max(0, c[1] - r))
            crop = img[y0:int(c[1] + r), x0:int(c[0] + r)].copy()
            cv2.polylines(crop, [np.int32(q - [x0, y0])], True, (0, 0, 255), 1)
            crop = cv2.resize(crop, (192, 192), interpolation=cv2.INTER_NEAREST)
            fi = face_input(img, pose.face_quad).tensor
            ch = [cv2.resize(np.uint8(np.clip((fi[k] + (1.5 if k else 0)) / (3.0 if k else 1.5), 0, 1) * 255),
                             (96, 96), interpolation=cv2.INTER_NEAREST) for k in range(2)]
            chans = cv2.cvtColor(np.vstack(ch), cv2.COLOR_GRAY2BGR)
            tile = np.hstack([crop, chans])
        else:
            tile = np.zeros((192, 288, 3), np.uint8)
        label = f"{rd.reading.letter.value if rd.reading.letter else '-'} {rd.reading.confidence:.2f} {top_guess(rd.reading)}"
        cv2.putText(tile, label, (3, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 255, 255), 1)
        tiles.append(tile)
    if tiles:
        out.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(out / f"{name}.png"), np.vstack(tiles))


def frames_at(rec: Path, times: list[float]) -> dict[float, np.ndarray]:
    """The full-resolution frames nearest each wanted time."""
    reader = RecordingReader(rec)
    ft = reader.frame_times()
    want = {int(np.argmin(np.abs(ft - t))): t for t in times}
    out: dict[float, np.ndarray] = {}
    fast = _frames_fast(reader)
    if fast is None:
        return out
    for i, _, jpg in fast:
        if i in want:
            out[want[i]] = cv2.imdecode(np.frombuffer(jpg, np.uint8), cv2.IMREAD_COLOR)
    return out


def same_dreidel_stills(rec: Path, letter: str) -> list[Path]:
    """The stills of the recording's own dreidel with ``letter`` up (see ``--stills``); [] when none."""
    if rec.name.startswith("rec_"):  # an altsim recording from bench/eval_unseen.py
        p = rec.parent / "stills" / f"{rec.name[4:]}_{letter}.png"
        return [p] if p.is_file() else []
    return sorted((rec / "enroll").glob(f"{letter}_*.png"))


def read_stills(inner: Any, paths: list[Path], letter: str) -> tuple[list[str], int]:
    """Each still's reading (as the report lists them) and how many read ``letter``."""
    out, right = [], 0
    for p in paths:
        img = cv2.imread(str(p))
        if img is None:
            raise SystemExit(f"{p} is not a readable picture: re-render it or drop --stills")
        got = inner.read(img)
        right += int(got.letter is not None and got.letter.value == letter)
        out.append(f"{p.name} {got.letter.value if got.letter else '-'} {got.confidence:.2f} [{top_guess(got)}] "
                   f"side {face_side(got):.0f}px {got.reason}")
    return out, right


class LoresWidth:
    """While installed, ``analyze_recording`` builds its judge with a tracking picture ``width`` px wide."""

    def __init__(self, width: int | None) -> None:
        self.width = width

    def __enter__(self) -> LoresWidth:
        from controller import analyze_cli

        self._orig = analyze_cli.SpinJudge
        if self.width is not None:
            width, base = self.width, self._orig

            class Judge(base):  # type: ignore[valid-type, misc]
                def __init__(self, *a: Any, **kw: Any) -> None:
                    kw.setdefault("lores_width", width)
                    super().__init__(*a, **kw)

            analyze_cli.SpinJudge = Judge  # type: ignore[misc]
        return self

    def __exit__(self, *exc: object) -> None:
        from controller import analyze_cli

        analyze_cli.SpinJudge = self._orig  # type: ignore[misc]


def diagnose(rec: Path, enroll: bool, use_imu: bool, later: bool, png: Path | None, variants: bool = False,
             stills: bool = False, lores_width: int | None = None, png_all: bool = False) -> list[dict[str, Any]]:
    cv2.setNumThreads(1)
    enroll_dir = rec / "enroll" if enroll and (rec / "enroll").is_dir() else None
    inner, _ = load_recognizer(enroll_dir)
    with ReadLog() as log, LoresWidth(lores_width):
        verdicts, _ = analyze_recording(rec, use_imu=use_imu, recognizer=WrappedReader(inner, log),
                                        use_recognizer=True)
    truth = json.loads((rec / "truth.json").read_text())
    rows = []
    per_verdict: list[list[Read]] = [
        [r for r in log.reads if v.rest_t is not None and v.rest_t - 0.5 <= r.t <= v.rest_t + 2.0] for v in verdicts
    ]
    used: set[int] = set()
    for tr in truth:
        if not tr.get("valid"):
            continue
        best, best_d = None, 2.0
        for j, v in enumerate(verdicts):
            if j in used or v.rest_t is None:
                continue
            d = abs(v.rest_t - tr["rest_t"])
            if d < best_d:
                best, best_d = j, d
        row: dict[str, Any] = {"rec": rec.name, "spin": tr["index"], "truth": tr["letter"], "kind": tr["kind"]}
        if best is None:
            row.update(got=None, cause="no_verdict", reads=[])
            rows.append(row)
            continue
        used.add(best)
        v = verdicts[best]
        reads = per_verdict[best]
        row["got"] = None if v.letter is None else v.letter.value
        row["rest_err"] = round(v.rest_t - tr["rest_t"], 3)
        row["vote_cpu_ms"] = round(1000 * sum(r.cpu_s for r in reads), 1)
        row["reads"] = [
            f"+{r.t - tr['rest_t']:.2f}s {r.reading.letter.value if r.reading.letter else '-'} {r.reading.confidence:.2f} "
            f"[{top_guess(r.reading)}] side {face_side(r.reading):.0f}px {r.reading.reason}"
            for r in reads
        ]
        if v.letter is None:
            row["cause"] = cause(tr["letter"], [r.reading for r in reads])
        else:
            row["cause"] = "read" if v.letter.value == tr["letter"] else "WRONG"
        if variants:
            # the same frames, the pose found without the empty-tray picture nor the judge's disc
            var = []
            for r in reads:
                got = inner.read(r.image)
                var.append(f"{got.letter.value if got.letter else '-'} {got.confidence:.2f} [{top_guess(got)}]")
            row["no_background"] = var
        if v.letter is None and later:
            times = [tr["rest_t"] + d for d in (0.5, 1.0, 2.0)]
            frames = frames_at(rec, times)
            bg = reads[0].background if reads else None
            lat = []
            for t, img in sorted(frames.items()):
                pose = find_resting_dreidel(img, background_bgr=bg)
                got = inner.read(img, pose=pose, background_bgr=bg)
                lat.append(f"+{t - tr['rest_t']:.1f}s {got.letter.value if got.letter else '-'} {got.confidence:.2f} "
                           f"[{top_guess(got)}] side {face_side(got):.0f}px")
            row["later"] = lat
        if stills:
            paths = same_dreidel_stills(rec, tr["letter"])
            row["stills"], right = read_stills(inner, paths, tr["letter"])
            if paths:
                row["still_split"] = "still_read" if 2 * right > len(paths) else "still_unread"
        row["quads"] = [face_quad(r.reading) for r in reads]
        if (row["cause"] != "read" or png_all) and png is not None:
            save_png(png, f"{rec.name}_{tr['index']}_{'en' if enroll_dir else 'gen'}",
                     reads)
        rows.append(row)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rec", type=Path, nargs="+", required=True)
    ap.add_argument("--no-enroll", action="store_true")
    ap.add_argument("--no-imu", action="store_true")
    ap.add_argument("--later", action="store_true")
    ap.add_argument("--png", type=Path, default=None)
    ap.add_argument("--variants", action="store_true", help="also read each frame without the empty-tray picture")
    ap.add_argument("--stills", action="store_true", help="also read the stills of the same dreidel and letter")
    ap.add_argument("--png-all", action="store_true", help="with --png: every valid spin's frames, read or not")
    ap.add_argument("--lores-width", type=int, default=None,
                    help="the judge's tracking picture width (default: the judge's own, 320)")
    args = ap.parse_args()
    if args.lores_width is not None and args.lores_width < 16:
        raise SystemExit(f"--lores-width {args.lores_width}: give the tracking picture's width, at least 16 px")
    tally: dict[str, int] = {}
    cpu_ms: list[float] = []
    for rec in args.rec:
        if any(part.startswith("heldout") for part in rec.resolve().parts):
            raise SystemExit(f"{rec} is held-out data: not diagnosed")
        for row in diagnose(rec, not args.no_enroll, not args.no_imu, args.later, args.png, args.variants,
                            args.stills, args.lores_width, args.png_all):
            tally[row["cause"]] = tally.get(row["cause"], 0) + 1
            if "vote_cpu_ms" in row:
                cpu_ms.append(row["vote_cpu_ms"])
            if "still_split" in row:
                key = f"{row['cause']}/{row['still_split']}"
                tally[key] = tally.get(key, 0) + 1
            print(json.dumps(row))
    print("causes:", json.dumps(tally))
    if cpu_ms:
        print(f"the vote's CPU per valid spin (pose + recognizer, all its frames): median {statistics.median(cpu_ms):.1f} ms, "
              f"max {max(cpu_ms):.1f} ms over {len(cpu_ms)} spins")


if __name__ == "__main__":
    main()
