"""What the judge's tracker sees, frame by frame, over a stretch of a recording (camera-only judging).

    .venv/bin/python bench/diag_tracking.py /tmp/tune-alt-800/rec_800000 --from 10 --to 12 [--no-faint-body]
        [--every 6] [--png /tmp/h46/png]

Runs ``analyze_recording`` (no IMU, no letters) with the tracker's ``process_small`` traced, and prints for
each frame in the window the tracked dreidel (centroid, area, length, elongation, bbox), the hands and
``merged``; ``--png`` also saves every ``--every``-th frame's lores picture with the dreidel's box (green)
and the hands' boxes (red), four times enlarged. ``--no-faint-body`` turns the tracker's ``faint_body``
reading off (on by default since the thirteenth round; a blob read so is marked ``faint``). Then the verdicts.
Never pass held-out recordings.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tuning_sets import is_heldout  # noqa: E402

from controller import analyze_cli  # noqa: E402
from vision import tracker as tracker_mod  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rec", type=Path)
    ap.add_argument("--from", dest="t0", type=float, default=0.0)
    ap.add_argument("--to", dest="t1", type=float, default=1e9)
    ap.add_argument("--no-faint-body", action="store_true", help="track without the faint-top reading")
    ap.add_argument("--imu", action="store_true", help="judge with the IMU too")
    ap.add_argument("--every", type=int, default=0, help="save every n-th frame of the window (with --png)")
    ap.add_argument("--png", type=Path)
    args = ap.parse_args()
    if is_heldout(args.rec):
        raise SystemExit(f"{args.rec} is held out: never look at it here")
    cls = tracker_mod.DreidelTracker
    init = cls.__init__
    process = cls.process_small

    def patched_init(self: Any, *a: Any, **k: Any) -> None:
        init(self, *a, **k)
        if args.no_faint_body:
            self.faint_body = False

    count = [0]

    def traced(self: Any, index: int, t: float, small: Any, full: Any = None) -> Any:
        tr = process(self, index, t, small, full)
        if tr is None or not args.t0 <= t <= args.t1:
            return tr
        d = tr.dreidel
        ds = "-" if d is None else (f"({d.x:6.1f},{d.y:6.1f}) a={d.area:6.0f} L={d.length:5.1f} e={d.elongation:4.2f} "
                                    f"box={d.bbox}{' faint' if d.faint else ''}")
        hs = " ".join(f"H({h.x:.0f},{h.y:.0f} a={h.area:.0f})" for h in tr.hands)
        print(f"{index:5d} t={t:7.3f} {ds} mot={tr.motion:5.2f} {'MERGED ' if tr.merged else ''}{hs}")
        if args.png is not None and args.every and count[0] % args.every == 0:
            pic = small.copy()
            if d is not None:
                x, y, w, h = d.bbox
                cv2.rectangle(pic, (x, y), (x + w, y + h), (0, 255, 0), 1)
            for hb in tr.hands:
                x, y, w, h = hb.bbox
                cv2.rectangle(pic, (x, y), (x + w, y + h), (0, 0, 255), 1)
            big = cv2.resize(pic, None, fx=4, fy=4, interpolation=cv2.INTER_NEAREST)
            args.png.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(args.png / f"{args.rec.name}_{t:07.3f}.png"), big)
        count[0] += 1
        return tr

    cls.__init__ = patched_init  # type: ignore[method-assign]
    cls.process_small = traced  # type: ignore[method-assign]
    verdicts, _ = analyze_cli.analyze_recording(args.rec, use_imu=args.imu, use_recognizer=False)
    for i, v in enumerate(verdicts):
        j = v.to_json()
        print(i, {k: j[k] for k in ("valid", "reasons", "release_t", "rest_t", "stable_s") if k in j})


if __name__ == "__main__":
    main()
