#!/usr/bin/env python3
"""Bank the resting frames the judge reads letters on, then re-read them with any letter model in seconds.

    .venv/bin/python bench/letter_frame_bank.py bank --rec /tmp/tune-twin-540/seed5400*_n9_fps60 --out /tmp/bank
    .venv/bin/python bench/letter_frame_bank.py read --bank /tmp/bank [--model M.onnx] [--no-enroll]

``bank`` judges each recording as ``sevivon analyze`` does (IMU when present), with a letter reader that
keeps every frame the letter vote asks for (cut around the dreidel, with the judge's pose and empty-tray
picture) and abstains, so that the vote always asks for all its frames. Each truly valid spin's frames are
stored with its true letter. ``read`` reads the banked frames with a model (the committed one by default,
taught from the recording's ``enroll/`` stills unless ``--no-enroll``) and runs the judge's vote
(``controller.judge_letters.LetterVote``) over them in order, stopping where the judge would: letters right /
unreadable / WRONG on valid spins, per spin with each frame's reading. A model change is measured on the
judge's own frames without judging the recordings again (minutes each, on a shared machine).
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_letters import model_reader  # noqa: E402

from controller.judge_letters import FrameReading, LetterVote  # noqa: E402
from controller.rules.letters import Letter  # noqa: E402
from vision.pose import RestPose  # noqa: E402
from vision.recognizer import LetterRecognizer, face_side_px  # noqa: E402

#: half the side of the cut kept around the dreidel (px): the face, its nudged outlines and their margins
HALF = 80


@dataclass
class BankedFrame:
    """One frame the judge read: the cut around the dreidel, the judge's pose in its coordinates, when."""

    t: float
    image_png: bytes
    pose: RestPose | None
    background_png: bytes | None


@dataclass
class Abstaining:
    """A letter reader that keeps what it is shown and abstains (the vote then reads all its frames)."""

    frames: list[BankedFrame]

    def read(self, image_bgr: np.ndarray, pose: Any = None, background_bgr: np.ndarray | None = None) -> Any:
        from vision.recognizer import LetterReading

        if pose is None or pose.face_quad is None:
            self.frames.append(BankedFrame(-1.0, b"", None, None))
        else:
            c = np.asarray(pose.face_quad, float).mean(axis=0)
            h, w = image_bgr.shape[:2]
            x0, y0 = int(np.clip(c[0] - HALF, 0, max(0, w - 2 * HALF))), int(np.clip(c[1] - HALF, 0, max(0, h - 2 * HALF)))
            cut = image_bgr[y0:y0 + 2 * HALF, x0:x0 + 2 * HALF]
            bg = None if background_bgr is None else cv2.imencode(".png", background_bgr[y0:y0 + 2 * HALF, x0:x0 + 2 * HALF])[1].tobytes()
            moved = RestPose(center=(pose.center[0] - x0, pose.center[1] - y0), axis_deg=pose.axis_deg,
                             length_px=pose.length_px, tip=(pose.tip[0] - x0, pose.tip[1] - y0),
                             handle=(pose.handle[0] - x0, pose.handle[1] - y0),
                             face_quad=np.asarray(pose.face_quad, float) - [x0, y0], upside_down=pose.upside_down,
                             confidence=pose.confidence, width_px=pose.width_px)
            self.frames.append(BankedFrame(-1.0, cv2.imencode(".png", cut)[1].tobytes(), moved, bg))
        return LetterReading(None, 0.0, {}, pose, reason="banked")


def bank(recs: list[Path], out: Path) -> None:
    from controller import judge
    from controller.analyze_cli import analyze_recording

    out.mkdir(parents=True, exist_ok=True)
    cv2.setNumThreads(1)
    for rec in recs:
        if any(part.startswith("heldout") for part in rec.resolve().parts):
            raise SystemExit(f"{rec} is held-out data: not banked")
        reader = Abstaining([])
        times: list[float] = []
        orig = judge.SpinJudge._read_letter

        def logged(j: Any, t: float, image: np.ndarray, obs: Any, *rest: Any, _orig: Any = orig,
                   _times: list[float] = times) -> Any:
            got = _orig(j, t, image, obs, *rest)
            _times.append(t)
            return got

        judge.SpinJudge._read_letter = logged  # type: ignore[method-assign]
        try:
            verdicts, _ = analyze_recording(rec, use_imu=(rec / "imu.csv").is_file(), recognizer=reader,
                                            use_recognizer=True)
        finally:
            judge.SpinJudge._read_letter = orig  # type: ignore[method-assign]
        for f, t in zip(reader.frames, times, strict=True):
            f.t = t
        truth = json.loads((rec / "truth.json").read_text())
        spins, used = [], set()
        for tr in truth:
            if not tr.get("valid"):
                continue
            best, best_d = None, 2.0
            for j, v in enumerate(verdicts):
                if j not in used and v.rest_t is not None and abs(v.rest_t - tr["rest_t"]) < best_d:
                    best, best_d = j, abs(v.rest_t - tr["rest_t"])
            frames: list[BankedFrame] = []
            if best is not None:
                used.add(best)
                rest = verdicts[best].rest_t
                frames = [f for f in reader.frames if rest - 0.5 <= f.t <= rest + 2.0]
            spins.append({"spin": tr["index"], "truth": tr["letter"], "frames": frames})
        (out / f"{rec.name}.pkl").write_bytes(pickle.dumps({"rec": str(rec), "spins": spins}))
        print(f"{rec.name}: {len(spins)} valid spins, {sum(len(s['frames']) for s in spins)} frames", flush=True)


def read(bank_dir: Path, model: Path | None, enroll: bool, verbose: bool, pair_path: Path | None = None) -> None:
    cv2.setNumThreads(1)
    generic = model_reader(model, pair_path) if model is not None or pair_path is not None else (
        LetterRecognizer.default())
    tally = {"right": 0, "unreadable": 0, "WRONG": 0}
    for path in sorted(bank_dir.glob("*.pkl")):
        data = pickle.loads(path.read_bytes())
        rec = Path(data["rec"])
        reader = generic
        if enroll and (rec / "enroll").is_dir():
            reader = LetterRecognizer.from_enroll_dir(rec / "enroll", base=generic, on_skip=lambda _m: None)
        for spin in data["spins"]:
            vote = LetterVote(start_t=0.0)
            lines = []
            for f in spin["frames"]:
                if vote.done:
                    break
                if f.pose is None:
                    vote.add(FrameReading(f.t, None, 0.0, {}, reason="no dreidel found"))
                    lines.append("no pose")
                    continue
                image = cv2.imdecode(np.frombuffer(f.image_png, np.uint8), cv2.IMREAD_COLOR)
                bg = None if not f.background_png else cv2.imdecode(np.frombuffer(f.background_png, np.uint8),
                                                                    cv2.IMREAD_COLOR)
                got = reader.read(image, pose=f.pose, background_bgr=bg)
                vote.add(FrameReading.of(f.t, got))
                best = max(got.scores, key=got.scores.__getitem__) if got.scores else None
                lines.append(f"{got.letter.value if got.letter else '-'} {got.confidence:.3f} "
                             f"[{best.value if best else '-'}] {face_side_px(f.pose.face_quad):.0f}px {got.reason}")
            result = vote.result()
            truth = Letter.parse(spin["truth"])
            outcome = "unreadable" if result.letter is None else ("right" if result.letter is truth else "WRONG")
            tally[outcome] += 1
            if verbose or outcome != "right":
                print(f"{rec.name} spin {spin['spin']} {truth.value}: {outcome}")
                for line in lines:
                    print(f"    {line}")
    n = sum(tally.values())
    print(f"valid spins {n}: right {tally['right']} ({tally['right'] / max(1, n):.1%}), unreadable "
          f"{tally['unreadable']}, WRONG {tally['WRONG']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("bank")
    b.add_argument("--rec", type=Path, nargs="+", required=True)
    b.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("read")
    r.add_argument("--bank", type=Path, required=True)
    r.add_argument("--model", type=Path, default=None)
    r.add_argument("--no-enroll", action="store_true")
    r.add_argument("--pair", type=Path, default=None,
                   help="the Nun/Gimel second look (.onnx with its .json) fitted to --model (default: <stem>.pair.onnx "
                        "beside it, else the committed one)")
    r.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    if args.cmd == "bank":
        bank(args.rec, args.out)
    else:
        read(args.bank, args.model, not args.no_enroll, args.verbose, args.pair)


if __name__ == "__main__":
    main()
