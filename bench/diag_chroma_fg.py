"""H51: would a colour-aware foreground find a top the colour of the felt? (camera-only, tuning data only)

    .venv/bin/python bench/diag_chroma_fg.py /tmp/tune-alt-960/rec_960013 --frames 462,600,750 [--png DIR]
        [--k 4] [--box x0,y0,x1,y1]

Runs ``analyze_recording`` (no IMU, no letters) and, on the frames asked for, compares the tracker's foreground
(any channel off the model by more than max(14, 5 x noise)) with a chroma difference: the frame scaled to the
model's brightness pixel by pixel, ``max_c |F_c * S_bg / S_f - B_c|`` (S = B + G + R), a shadow's dimming taken
out. The chroma noise is measured on the tray's unchanged pixels of each frame (1.4826 x median). Prints, per
frame, the pixels of the tracker's mask, the extra pixels the chroma test adds at ``k`` x its noise (among those
no darker than ``--lo`` of the model: a deep shadow's chroma is mostly noise), inside ``--box`` (lores px, the
top's neighbourhood) and in the rest of the tray (false changes); ``--png`` saves the lores picture with both
masks (white: the tracker's, magenta: added), four times enlarged. Never pass held-out recordings.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tuning_sets import is_heldout  # noqa: E402

from controller import analyze_cli  # noqa: E402
from vision import tracker as tracker_mod  # noqa: E402


def chroma_diff(small: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(max-channel chroma difference in the model's grey levels, brightness ratio S_f / S_bg), float32."""
    f = small.astype(np.float32) + 1.0
    b = ref.astype(np.float32) + 1.0
    sf = f.sum(axis=2)
    sb = b.sum(axis=2)
    ratio = sf / sb
    norm = f / ratio[..., None]
    return np.abs(norm - b).max(axis=2), ratio


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rec", type=Path)
    ap.add_argument("--frames", required=True, help="frame indices, comma-separated")
    ap.add_argument("--k", type=float, default=4.0)
    ap.add_argument("--lo", type=float, default=0.7)
    ap.add_argument("--box", default=None, help="x0,y0,x1,y1 (lores px)")
    ap.add_argument("--png", type=Path)
    args = ap.parse_args()
    if is_heldout(args.rec):
        raise SystemExit(f"{args.rec} is held out: never look at it here")
    want = {int(s) for s in args.frames.split(",")}
    box = tuple(int(v) for v in args.box.split(",")) if args.box else None
    cls = tracker_mod.DreidelTracker
    process = cls.process_small

    def traced(self: Any, index: int, t: float, small: Any, full: Any = None) -> Any:
        if index in want and self.background.ready:
            bg = self.background
            ref = cv2.convertScaleAbs(bg._bg, alpha=bg.gain)
            thr = max(14.0, 5.0 * bg.noise)
            fg = bg.foreground(small, thr) > 0
            cd, ratio = chroma_diff(small, ref)
            tray = bg.tray.mask > 0 if bg.tray is not None else np.ones(fg.shape, bool)
            quiet = tray & ~cv2.dilate(fg.astype(np.uint8), np.ones((3, 3), np.uint8), iterations=3).astype(bool)
            cnoise = float(np.median(cd[quiet]) * 1.4826)
            add = (cd > args.k * cnoise) & (ratio >= args.lo) & ~fg & tray
            inbox = np.zeros_like(fg)
            if box is not None:
                inbox[box[1]:box[3], box[0]:box[2]] = True
            print(f"{index:5d} t={t:6.3f} noise={bg.noise:.2f} thr={thr:.1f} chroma_noise={cnoise:.2f} "
                  f"fg box/tray={int((fg & inbox).sum())}/{int((fg & tray).sum())} "
                  f"added box/rest={int((add & inbox).sum())}/{int((add & ~inbox).sum())} "
                  f"chroma p99 quiet={float(np.percentile(cd[quiet], 99)):.1f}")
            if box is not None:
                sub = cd[box[1]:box[3], box[0]:box[2]]
                print("   chroma/noise in box (every 2nd row):")
                for row in (sub[::2] / max(cnoise, 1e-3)).round().astype(int):
                    print("   " + " ".join(f"{v:2d}" for v in row))
            if args.png is not None:
                pic = small.copy()
                pic[fg] = (255, 255, 255)
                pic[add] = (255, 0, 255)
                args.png.mkdir(parents=True, exist_ok=True)
                big = cv2.resize(pic, None, fx=4, fy=4, interpolation=cv2.INTER_NEAREST)
                cv2.imwrite(str(args.png / f"{args.rec.name}_{index:05d}.png"), big)
        return process(self, index, t, small, full)

    cls.process_small = traced  # type: ignore[method-assign]
    analyze_cli.analyze_recording(args.rec, use_imu=False, use_recognizer=False)


if __name__ == "__main__":
    main()
