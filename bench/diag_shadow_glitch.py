"""H49: why a felt-coloured top is tracked with its cast shadow on some frames (camera-only judging).

    .venv/bin/python bench/diag_shadow_glitch.py REC --from 2.9 --to 10.6 [--dump DIR] [--every-glitch N]

Runs ``analyze_recording`` (no IMU, no letters) with ``DreidelTracker._without_shadow`` traced: for every
call inside the window it records the component's area, its pixels per ``shadow_depth`` class (object, light,
deep, felt), the body returned and whether it was cut. Prints a summary: frames whose body is more than twice
the median body area ("glitches") and the depth counts of both kinds. ``--dump`` saves, for glitch frames, the
lores crop, the depth map (object white, light grey, deep dark grey, felt black) and the body mask, enlarged.
Never pass held-out recordings.
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rec", type=Path)
    ap.add_argument("--from", dest="t0", type=float, default=0.0)
    ap.add_argument("--to", dest="t1", type=float, default=1e9)
    ap.add_argument("--dump", type=Path)
    ap.add_argument("--max-dump", type=int, default=12)
    args = ap.parse_args()
    if is_heldout(args.rec):
        raise SystemExit(f"{args.rec} is held out: never look at it here")
    cls = tracker_mod.DreidelTracker
    orig = cls._without_shadow
    proc = cls.process_small
    now = [0.0]
    rows: list[dict[str, Any]] = []

    def traced_proc(self: Any, index: int, t: float, small: Any, full: Any = None) -> Any:
        now[0] = t
        return proc(self, index, t, small, full)

    def traced(self: Any, small: Any, comp: Any, box: Any, area_raw: int, min_area: float) -> Any:
        body, cut = orig(self, small, comp, box, area_raw, min_area)
        t = now[0]
        if args.t0 <= t <= args.t1 and area_raw < 2000:
            depth = self.background.shadow_depth(small, box)
            counts = np.bincount(depth[comp > 0], minlength=4).tolist()
            bd = np.bincount(depth[body > 0], minlength=4).tolist()
            rows.append(dict(t=t, area=area_raw, counts=counts, body=int(np.count_nonzero(body)), body_counts=bd,
                             cut=cut, small=small[box[1]:box[1] + box[3], box[0]:box[0] + box[2]].copy(),
                             depth=depth, comp=comp.copy(), bodym=body.copy(), box=box,
                             bg=self.background._bg[box[1]:box[1] + box[3], box[0]:box[0] + box[2]] * self.background.gain))
        return body, cut

    cls._without_shadow = traced  # type: ignore[method-assign]
    cls.process_small = traced_proc  # type: ignore[method-assign]
    verdicts, _ = analyze_cli.analyze_recording(args.rec, use_imu=False, use_recognizer=False)
    for i, v in enumerate(verdicts):
        j = v.to_json()
        print(i, {k: j[k] for k in ("valid", "reasons", "release_t", "rest_t", "stable_s") if k in j})
    # one row per frame: the component the tracker would follow is the one nearest the median body size
    if not rows:
        print("no calls in window")
        return
    med = float(np.median([r["body"] for r in rows]))
    glitch = [r for r in rows if r["body"] > 2.0 * med]
    ok = [r for r in rows if r["body"] <= 2.0 * med]
    print(f"calls {len(rows)}  median body {med:.0f}  glitches {len(glitch)}")
    for name, rs in (("ok", ok), ("glitch", glitch)):
        if not rs:
            continue
        c = np.array([r["counts"] for r in rs], float)
        b = np.array([r["body_counts"] for r in rs], float)
        cut = np.mean([r["cut"] for r in rs])
        print(f"{name:6s} n={len(rs)} comp area {np.median([r['area'] for r in rs]):.0f} comp obj/light/deep/felt "
              f"{np.median(c, axis=0)} body obj/light/deep/felt {np.median(b, axis=0)} cut {cut:.2f} "
              f"deepshare {np.median(c[:, 2] / c.sum(1)):.3f}")
    for r in glitch[:40]:
        print(f"  t={r['t']:.3f} area={r['area']} counts={r['counts']} body={r['body']} bodycounts={r['body_counts']} cut={r['cut']}")
    if args.dump:
        args.dump.mkdir(parents=True, exist_ok=True)
        pal = np.array([255, 150, 70, 0], np.uint8)
        for r in (glitch[: args.max_dump] + ok[:: max(len(ok) // 4, 1)][:4]):
            d = cv2.cvtColor(pal[r["depth"]], cv2.COLOR_GRAY2BGR)
            d[r["comp"] == 0] //= 3
            m = cv2.cvtColor(r["bodym"] * 255, cv2.COLOR_GRAY2BGR)
            pic = np.hstack([r["small"], d, m])
            big = cv2.resize(pic, None, fx=8, fy=8, interpolation=cv2.INTER_NEAREST)
            tag = "g" if r in glitch else "o"
            cv2.imwrite(str(args.dump / f"{tag}_{r['t']:07.3f}.png"), big)
            np.savez(args.dump / f"{tag}_{r['t']:07.3f}.npz", small=r["small"], bg=r["bg"], depth=r["depth"],
                     comp=r["comp"], body=r["bodym"])


if __name__ == "__main__":
    main()
