"""One spin's camera-only wobble onset, frame by frame: the circling levels the judge read, against the true tilt.

    .venv/bin/python bench/diag_camera_frames.py /tmp/tune-alt-980/rec_980006 --spin 0 [--to 4.0] [--every 1]
        [--ctx /tmp/h53/ctx]

Judges the recording camera-only once (``bench_camera_onset.collect`` with the lead-in frames and the blob's
shape, cached under ``--ctx``), then prints for each frame of the spin's series (the frames seen while the
release was made sure of marked ``L``; they are not in the judge's series) the centroid, area and
elongation, the circling radius as the moving average leaves it (``raw``) and scaled for the precession's
period (``corr``), both as a fraction of the lever and as the log-linear growth fit the judge dates on
(``fraw``, ``fcorr``), the measured period, and the true tilt (altsim: the spin rebuilt from its seed,
``diag_onset_truth._table``; twin: its ``track.csv``). Then the judge's release and onset against the truth, how
:func:`controller.camera_wobble.wobble_onset` reached its answer (first frame measured, crossings of the raw
and corrected fits), and the frame gaps in the series. Tuning recordings only: held-out ones are refused.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_camera_onset import collect  # noqa: E402
from bench.tuning_sets import context_path, is_heldout  # noqa: E402
from controller.camera_wobble import (  # noqa: E402
    CameraTrack,
    WobbleSettings,
    _crossing,
    _fitted,
    _levels,
    lever,
    precession_period,
    read_onset,
)
from controller.imu_features import smooth  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rec", type=Path)
    ap.add_argument("--spin", type=int, default=0, help="the true spin's index (truth.json)")
    ap.add_argument("--to", type=float, default=None, help="print frames up to this time (s)")
    ap.add_argument("--every", type=int, default=1, help="print every n-th frame")
    ap.add_argument("--ctx", type=Path, default=Path("/tmp/h53/ctx"), help="cache of the judged series")
    args = ap.parse_args()
    if is_heldout(args.rec):
        raise SystemExit(f"{args.rec} is held out: never look at it here")
    path = context_path(args.ctx, args.rec)
    if not path.is_file():
        args.ctx.mkdir(parents=True, exist_ok=True)
        collect((str(args.rec), str(path), True))
    ctx = json.loads(path.read_text())
    truth = json.loads((args.rec / "truth.json").read_text())[args.spin]
    s = min(ctx["spins"], key=lambda q: abs(q["release_t"] - truth["release_t"]))
    tilt = None
    if "alt" in args.rec.parent.name:
        from bench.diag_onset_truth import _table

        ep = _table(args.rec).episodes[args.spin]
        tilt = lambda t: math.degrees(ep.traj.tilt_at(t - ep.t_release))  # noqa: E731
    elif (args.rec / "track.csv").is_file():  # the twin writes the true tilt per frame
        import csv

        with (args.rec / "track.csv").open() as f:
            rows = [(float(r["t"]), float(r["tilt_deg"])) for r in csv.DictReader(f) if r["tilt_deg"] != "nan"]
        tt_true, tilt_true = np.array([r[0] for r in rows]), np.array([r[1] for r in rows])
        tilt = lambda t: float(np.interp(t, tt_true, tilt_true))  # noqa: E731
    lead = np.asarray(s.get("lead") or np.empty((0, 4)), float).reshape(-1, 4)
    t = np.asarray(s["t"], float)
    fps = 1.0 / float(np.median(np.diff(t)))
    st = s["settings"]
    ws = WobbleSettings(skip_s=st["onset_skip_s"], window_s=st["circle_window_s"], level=st["circle_level"],
                        hold_s=st["circle_hold_s"], gap_s=st["circle_gap_s"])
    track = CameraTrack(t=t, x=np.asarray(s["x"], float), y=np.asarray(s["y"], float),
                        area=np.asarray(s["area"], float), release_t=s["release_t"], fall_t=s["fall_t"], fps=fps,
                        body_length=s["rest_length"], lead=lead)
    tt, raw, corr = _levels(track, ws)
    half = max(2, int(round(ws.fit_s * fps)))
    fraw, fcorr = _fitted(tt, raw, half), _fitted(tt, corr, half)
    keep = (t >= s["release_t"] + ws.skip_s) & (t <= s["fall_t"])
    x, y = track.x[keep], track.y[keep]
    k = max(3, int(round(ws.window_s * fps)))
    z = (x - smooth(x, k)) + 1j * (y - smooth(y, k))
    period = precession_period(tt, z, max(3, int(round(ws.period_fit_s * fps))))
    print(f"{args.rec.name} spin {args.spin}: {truth['kind']}, true release {truth['release_t']:.3f} onset "
          f"{truth['wobble_t']} stable {truth['stable_s']}; judged release {s['release_t']:.3f} onset {s['onset']} "
          f"fall {s['fall_t']:.3f}; fps {fps:.1f}; lever {lever(track, track.area, ws):.1f} px (rest length "
          f"{s['rest_length']}, true {truth['length_px']}); level {ws.level}")
    shape = np.asarray(s.get("shape") or [], float).reshape(-1, 6)
    lshape = np.asarray(s.get("lead_shape") or [], float).reshape(-1, 6)
    for i, row in enumerate(lead):
        if args.to is not None and row[0] > args.to:
            break
        if i % args.every == 0:
            el = lshape[i, 3] if i < lshape.shape[0] else math.nan
            tl = f" tilt {tilt(row[0]):5.2f}" if tilt else ""
            print(f" L {row[0]:7.3f} ({row[1]:6.1f},{row[2]:6.1f}) area {row[3]:6.0f} el {el:4.2f}{tl}")
    j = 0
    for i in range(t.size):
        if args.to is not None and t[i] > args.to:
            break
        if i % args.every:
            if keep[i]:
                j += 1
            continue
        el = shape[i, 3] if i < shape.shape[0] else s["elong"][i]
        tl = f" tilt {tilt(t[i]):5.2f}" if tilt else ""
        line = f"   {t[i]:7.3f} ({track.x[i]:6.1f},{track.y[i]:6.1f}) area {track.area[i]:6.0f} el {el:4.2f}{tl}"
        if keep[i]:
            line += (f"  raw {raw[j]:.4f} corr {corr[j]:.4f} fraw {fraw[j]:.4f} fcorr {fcorr[j]:.4f}"
                     f" period {period[j]:.2f}")
            j += 1
        print(line)
    first = float(tt[int(np.flatnonzero(np.isfinite(raw))[0])]) if np.isfinite(raw).any() else None
    reading = read_onset(track, ws)  # what wobble_onset returns, and whether it was read against the jitter
    print(f"first measured {first}; raw fit crosses {_crossing(tt, raw, ws, fps)}; corrected fit crosses "
          f"{_crossing(tt, corr, ws, fps)}; wobble_onset {reading.onset} (read against the outline's "
          f"jitter: {reading.jitter is not None})")
    gaps = np.flatnonzero(np.diff(t) > 1.5 / fps)
    print("gaps in the series:", [(round(float(t[g]), 3), round(float(t[g + 1] - t[g]), 3)) for g in gaps][:20])
    if tilt:
        ts = np.arange(truth["release_t"], s["fall_t"], 0.005)
        print("true tilt first over 3/4/5/6 deg:",
              [round(float(ts[np.argmax([tilt(v) >= d for v in ts])]), 3) for d in (3, 4, 5, 6)])


if __name__ == "__main__":
    main()
