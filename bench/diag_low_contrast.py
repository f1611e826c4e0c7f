"""Look at what the tracker sees on a recording: save the lores picture, its change from the empty tray
and the foreground mask, side by side, with the tracked dreidel's box, at chosen times.

    .venv/bin/python bench/diag_low_contrast.py /tmp/tune-alt-800/rec_800000 --times 4,6,8 --out /tmp/h39/diag

Used to study dreidels whose colour is close to the felt's (red on red, grey on grey). ``--faint-body`` draws
what the tracker sees with :attr:`DreidelTracker.faint_body` on (an upright felt-coloured top at the head of its
deep shadow, altsim 800000), ``--no-faint-body`` with it off. Never pass held-out recordings.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tuning_sets import is_heldout  # noqa: E402

from hardware.camera import Frame  # noqa: E402
from vision.tracker import DreidelTracker  # noqa: E402


def _panel(tracker: DreidelTracker, small: np.ndarray, box: tuple[int, int, int, int] | None) -> np.ndarray:
    bg = tracker.background
    diff = bg.difference(small)
    thr = max(14.0, 5.0 * bg.noise)
    mask = (diff > thr).astype(np.uint8) * 255
    stretched = cv2.convertScaleAbs(diff, alpha=255.0 / max(2.0 * thr, 1.0))
    pic = small.copy()
    if box is not None:
        x, y, w, h = box
        cv2.rectangle(pic, (x, y), (x + w, y + h), (0, 255, 0), 1)
    return np.hstack([pic, cv2.cvtColor(stretched, cv2.COLOR_GRAY2BGR), cv2.cvtColor(mask, cv2.COLOR_GRAY2BGR)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rec", type=Path)
    ap.add_argument("--times", required=True, help="comma-separated seconds")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--faint-body", action=argparse.BooleanOptionalAction, default=None,
                    help="the tracker's faint_body option (default: the tracker's own default)")
    args = ap.parse_args()
    if is_heldout(args.rec):
        raise SystemExit(f"{args.rec} is held out: never look at it here")
    times = sorted(float(v) for v in args.times.split(","))
    args.out.mkdir(parents=True, exist_ok=True)
    cap = cv2.VideoCapture(str(args.rec / "video.avi"))
    fps = cap.get(cv2.CAP_PROP_FPS) or 60.0
    tracker = DreidelTracker() if args.faint_body is None else DreidelTracker(faint_body=args.faint_body)
    index = 0
    while times:
        ok, image = cap.read()
        if not ok:
            break
        t = index / fps
        tr = tracker.process(Frame(index=index, t=t, image=image))
        if tr is not None and t >= times[0]:
            times.pop(0)
            small = tracker.last_small
            assert small is not None
            d = tr.dreidel
            print(f"t={t:.3f} faint_body={tracker.faint_body} noise={tracker.background.noise:.2f} dreidel="
                  f"{None if d is None else (round(d.x), round(d.y), round(d.area), round(d.length, 1))} "
                  f"hands={len(tr.hands)} merged={tr.merged}")
            cv2.imwrite(str(args.out / f"{args.rec.name}_{t:07.3f}.png"), _panel(tracker, small, d.bbox if d else None))
        index += 1


if __name__ == "__main__":
    main()
