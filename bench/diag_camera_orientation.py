"""Can the camera tell a dreidel spinning on its handle from one on its tip, while it sleeps? (twin, offline)

    .venv/bin/python bench/diag_camera_orientation.py --contexts /tmp/h50/ctx [--scale 2]

From above, a dreidel sleeping on its tip shows its flat top face (one even shade) with the handle in the middle;
one on its handle shows the pyramid of its tip, whose facets face the light differently, so one side of the
blob is brighter than the other even when blurred by the spin. The measure: over an annulus of the blob
(0.3-0.7 of its half-width, which leaves out the handle), the first azimuthal harmonic of the brightness over
its mean (``shade_contrast``), median over frames sampled in the sleeping part of the spin (from 0.5 s after
the release to 0.3 s before the judged onset). Uses the contexts ``diag_camera_upside.py`` caches and reads the
recordings' videos (at the tracker's lores width, 320 px, or ``--lores 0`` for full resolution). Tuning recordings only.

Found with it (thirteenth session, H50): the twin separates the two only roughly, and the unseen renderer not at
all. Twin (24 recordings, 60001-62008): upright spins max 0.103 (p95 0.080), upside down min 0.076, median
0.185, with 9 of 145 upright spins at or over that minimum; relative to the same recording's upright median the
overlap remains (upright up to 2.34 times it, upside down from 1.76). Altsim (7 recordings, 8 upright spins with a
sleeping stretch): upright spins reach 0.286, over the twin's upside-down median. So the shading is no cue for
the judge to act on (see ``diag_camera_upside.py`` for what knowing the orientation would be worth).
"""

from __future__ import annotations

import argparse
import glob
import json
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.tuning_sets import is_heldout  # noqa: E402


def shade_contrast(gray: np.ndarray, cx: float, cy: float, half: float) -> float:
    """First azimuthal harmonic of the brightness over 0.3-0.7 of ``half`` around (cx, cy), over its mean."""
    r_out = 0.7 * half
    x0, x1 = int(np.floor(cx - r_out)), int(np.ceil(cx + r_out)) + 1
    y0, y1 = int(np.floor(cy - r_out)), int(np.ceil(cy + r_out)) + 1
    if x0 < 0 or y0 < 0 or x1 > gray.shape[1] or y1 > gray.shape[0]:
        return float("nan")
    yy, xx = np.mgrid[y0:y1, x0:x1]
    dx, dy = xx - cx, yy - cy
    r = np.hypot(dx, dy)
    ring = (r >= 0.3 * half) & (r <= r_out)
    if ring.sum() < 12:
        return float("nan")
    v = gray[y0:y1, x0:x1][ring].astype(np.float64)
    a = np.arctan2(dy[ring], dx[ring])
    m = float(v.mean())
    c1 = 2.0 * float(np.mean(v * np.cos(a)))
    s1 = 2.0 * float(np.mean(v * np.sin(a)))
    return float(np.hypot(c1, s1) / max(m, 1.0))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--contexts", type=Path, default=Path("/tmp/h50/ctx"))
    ap.add_argument("--lores", type=int, default=320, help="picture width measured on (0: full resolution)")
    ap.add_argument("--frames", type=int, default=8)
    args = ap.parse_args()
    rows = []
    for f in sorted(glob.glob(str(args.contexts / "*.json"))):
        ctx = json.loads(Path(f).read_text())
        rec = Path(ctx["rec"])
        if is_heldout(rec):
            continue
        sim = "altsim" if "alt" in rec.parent.name else "twin"
        width = int(json.loads((rec / "meta.json").read_text())["width"])
        truth = json.loads((rec / "truth.json").read_text())
        ft = np.loadtxt(rec / "frames.csv", delimiter=",", skiprows=1)
        want: dict[int, list[tuple[int, float, float, float]]] = {}
        spins = []
        for k, s in enumerate(ctx["spins"]):
            tr = min(truth, key=lambda q: abs(q["release_t"] - s["release_t"]))
            if abs(tr["release_t"] - s["release_t"]) > 0.5:
                continue
            t = np.asarray(s["t"], float)
            end = (s["onset"] if s["onset"] is not None else s["fall_t"]) - 0.3
            sel = np.flatnonzero((t >= s["release_t"] + 0.5) & (t <= end) & np.isfinite(np.asarray(s["x"], float)))
            if sel.size == 0:
                spins.append((tr, None))
                continue
            pick = sel[np.linspace(0, sel.size - 1, min(args.frames, sel.size)).astype(int)]
            half = 0.5 * float(np.sqrt(np.median(np.asarray(s["area"], float)[sel])))
            for i in pick:
                fi = int(np.argmin(np.abs(ft[:, 1] - t[i])))
                want.setdefault(fi, []).append((k, float(s["x"][i]), float(s["y"][i]), half))
            spins.append((tr, k))
        got: dict[int, list[float]] = {}
        cap = cv2.VideoCapture(str(rec / "video.avi"))
        fi = 0
        while want:
            ok, im = cap.read()
            if not ok:
                break
            if fi in want:
                g = cv2.cvtColor(im, cv2.COLOR_BGR2GRAY)
                sc = width / args.lores if args.lores else 1.0
                if sc != 1.0:
                    g = cv2.resize(g, (int(round(g.shape[1] / sc)), int(round(g.shape[0] / sc))), interpolation=cv2.INTER_AREA)
                for k, x, y, half in want.pop(fi):
                    got.setdefault(k, []).append(shade_contrast(g, x / sc, y / sc, half / sc))
            fi += 1
        for tr, k in spins:
            vals = np.asarray(got.get(k, []) if k is not None else [], float)
            vals = vals[np.isfinite(vals)]
            c = float(np.median(vals)) if vals.size else float("nan")
            rows.append((rec.name, tr["index"], tr["kind"], bool(tr.get("upside_down")), c, vals.size, sim))
    for r in sorted(rows, key=lambda r: (r[6], r[3], r[4])):
        print(f"{r[6]:<6} {r[0]} {r[1]} {r[2]:<14} {'UPSIDE' if r[3] else 'upright'} contrast {r[4]:.3f} ({r[5]} frames)")
    for sim in ("twin", "altsim"):
        up = np.array([r[4] for r in rows if r[6] == sim and r[3] and np.isfinite(r[4])])
        dn = np.array([r[4] for r in rows if r[6] == sim and not r[3] and np.isfinite(r[4])])
        if dn.size:
            print(f"{sim}: upright n={dn.size} max {dn.max():.3f} p95 {np.percentile(dn, 95):.3f}", end="")
        if up.size:
            print(f"; upside down n={up.size} min {up.min():.3f} median {np.median(up):.3f} "
                  f"(upright at or over that min: {int((dn >= up.min()).sum())})", end="")
        print()


if __name__ == "__main__":
    main()
