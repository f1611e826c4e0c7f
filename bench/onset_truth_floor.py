"""How sharply the truth's wobble onset is defined, and how the IMU's onset estimators fare against it (H48).

    .venv/bin/python bench/onset_truth_floor.py                      # twin tuning recordings on this machine
    .venv/bin/python bench/onset_truth_floor.py --rec DIR ... --imu  # and replay IMU onset estimators

Both simulators date the onset of wobble where the axis' tilt FIRST reaches 6 degrees
(``hardware.sim.physics.WOBBLE_TILT_DEG``). The tilt does not rise smoothly through it: the felt's
unevenness makes the lean nutate by a degree or so about its slow growth, so a slowly growing wobble
touches 6 degrees on a nutation peak, falls back and crosses for good a few tenths of a second later.
The twin's ``track.csv`` holds the true tilt per frame; this bench asks, per scored spin with a true onset,
when the tilt first reached 6 - d and 6 + d degrees (from 0.05 s after the release): the spread of those
times is how precisely any instrument that reads the tilt to within d degrees can date the onset, whatever
it does. It also prints when the tilt averaged over 0.2 s (what a sensor averaging over a nutation sees)
first reached 6 degrees, against the first touch.

``--imu-contexts`` and ``--cam-contexts`` take the caches of ``bench_imu_timing.py`` and ``bench_camera_onset.py``
(the judge's verdicts with the IMU and camera-only) and print both onsets' errors grouped by that spread
(how long the true tilt took from 5.75 to 6.25 degrees), their correlation, and the stable time of the
IMU's onset moved a share ``w`` of the way to the camera's when they are within 0.3 s.

``--imu`` also replays, on the recordings' ``imu.csv`` with the judge's window taken from the truth (release
+ 0.13 s to the landing knock, which reproduces the judge's IMU onsets on the tuning data), the module's
rocking onset and the variants H48 measured, printing the onset error per renderer: median, p95, and how
many spins are dated more than 0.1 s early or 0.15 s late. Tuning recordings only: held-out ones are refused.

Found with it (twelfth session, 112 twin spins of 60001-60008 and 61001-61008, 29 altsim spins with an IMU):

- The definition itself is sharp only to about 0.2 s on a fifth of the spins: the first reach of 6.25
  degrees comes more than 0.15 s after the first reach of 6.0 on 21% of them (p95 0.30 s), and of 5.75 to
  6.25 degrees on 32% (p95 0.38 s). The 0.2 s average of the tilt reaches 6 degrees after the first touch
  by a median 0.014 s but p90 0.21 s, p95 0.29 s.
- The IMU's rocking onset (onset error median 0.053 s twin, 0.065 s altsim; p95 0.204 / 0.222 s) is
  already better than the 0.2 s averaged tilt would be. Its late tail is those hovering wobbles: at the
  true onset the tray's rocking, even averaged over only 0.1 s, is below the level (0.55-0.96 of it in
  amplitude on the late spins), because the nutation peak that touched 6 degrees is a few hundredths of
  a second long and the chatter it makes is random.
- Both instruments err on the same spins: the IMU's and the camera's onset errors correlate 0.65 on the
  twin. On the half of the spins whose tilt goes from 5.75 to 6.25 degrees within 0.05 s the IMU's onset
  error is median 0.034 s, p95 0.110 s (within the goal) and the camera's 0.078 / 0.200 s; on the third
  that takes over 0.15 s the IMU's is 0.108 / 0.236 s (signed +0.05 s) and the camera's 0.120 / 0.556 s.
  Moving the IMU's onset towards the camera's (w 0.1-0.5) does not lower the p95 on either renderer.
- Replayed (all at the calibrated level): reading the rocking with less averaging (0.05-0.14 s, with or
  without the growth fit); the first short-averaged crossing within the final rise up to 0.4 s before the
  fitted one; an upper envelope (running maximum over a nutation period) with its own level; lower
  levels; a back-dating by the nutation's lead over the growth rate (c (1/s - 1/s0)); and the
  log-normal mean correction (half the local variance of the log power added to its fit). Each trades
  the median or the early spins for the tail on one renderer or the other; none lowers the p95 on both
  renderers without raising a median or dating early spins earlier.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.tuning_sets import UNSCORED, is_heldout, tuning_recordings  # noqa: E402
from controller.imu_features import ImuFeatureExtractor, local_linear, smooth  # noqa: E402
from controller.signal_runs import final_rise_first_crossing, largest_rise_first_crossing  # noqa: E402

WOBBLE_DEG = 6.0


def scored_spins(rec: Path) -> list[dict]:
    """The spins of ``truth.json`` whose stable time ends at a true wobble onset (no touch, not unscored)."""
    truth = json.loads((rec / "truth.json").read_text())
    return [s for s in truth if s.get("wobble_t") is not None and s["kind"] not in UNSCORED and not s.get("touch_t")]


def first_reach(t: np.ndarray, tilt: np.ndarray, level: float) -> float:
    hit = np.flatnonzero(tilt >= level)
    return float(t[hit[0]]) if hit.size else math.nan


def definition_spread(recs: list[Path], band: float) -> None:
    """Per spin: first reach of 6 - band, 6 and 6 + band degrees, and of 6 by the 0.2 s averaged tilt."""
    lead, lag, both, mean_lag = [], [], [], []
    for rec in recs:
        track = rec / "track.csv"
        if not track.is_file():
            continue
        tr = np.genfromtxt(track, delimiter=",", names=True)
        t, tilt = tr["t"], np.nan_to_num(tr["tilt_deg"])
        for s in scored_spins(rec):
            keep = (t >= s["release_t"] + 0.05) & (t <= s["wobble_t"] + 2.0)
            tt, aa = t[keep], tilt[keep]
            if tt.size < 10:
                continue
            lo, hi = first_reach(tt, aa, WOBBLE_DEG - band), first_reach(tt, aa, WOBBLE_DEG + band)
            lead.append(s["wobble_t"] - lo)
            lag.append(hi - s["wobble_t"])
            both.append(hi - lo)
            n = max(1, int(round(0.2 / float(np.median(np.diff(tt))))))
            avg = np.convolve(aa, np.ones(n) / n, mode="same")
            mean_lag.append(first_reach(tt[tt >= s["wobble_t"] - 0.5], avg[tt >= s["wobble_t"] - 0.5], WOBBLE_DEG)
                            - s["wobble_t"])
    if not lead:
        print("no twin recording with track.csv")
        return
    print(f"{len(lead)} twin spins: seconds between the first touch of {WOBBLE_DEG:g} degrees and ...")
    for name, d in ((f"first reach of {WOBBLE_DEG - band:g} (before)", lead),
                    (f"first reach of {WOBBLE_DEG + band:g} (after)", lag),
                    (f"{WOBBLE_DEG - band:g} to {WOBBLE_DEG + band:g}", both),
                    ("0.2 s averaged tilt reaching 6 (after)", mean_lag)):
        a = np.asarray(d, dtype=np.float64)
        print(f"  {name:<40} median {np.nanmedian(a):.3f}  p90 {np.nanpercentile(a, 90):.3f}"
              f"  p95 {np.nanpercentile(a, 95):.3f}  share > 0.15 s {float(np.nanmean(a > 0.15)):.2f}")


def _onset(ts: np.ndarray, power: np.ndarray, clear: np.ndarray, level: float) -> float | None:
    """The module's rule on a given power curve: first crossing in the final rise, else the largest rise."""
    above = (power > level * level) & clear
    near = power > (0.4 * level) ** 2
    got = final_rise_first_crossing(above, near, ts, 20)
    return got if got is not None else largest_rise_first_crossing(above, near, ts, 20, min_high=6)


def variants(ex: ImuFeatureExtractor, t0: float, t1: float) -> dict[str, float | None]:
    """The module's onset and H48's variants on one window."""
    out: dict[str, float | None] = {"module": ex.rocking_onset(t0, t1)}
    wins = ex.windows_between(t0, t1)
    if len(wins) < 10:
        return out
    ts = np.array([w.t for w in wins])
    g = np.array([w.gyro for w in wins])
    hop, level, noise = ex.hop_s, ex.rocking_level_dps, ex.gyro_noise_power()
    clear = smooth(g * g, max(1, int(round(0.2 / hop)))) > (1.25 * ex.gyro_floor()) ** 2
    fit = max(1, int(round(0.3 / hop)))
    for sm in (0.05, 0.1):
        p = smooth(g * g, max(1, int(round(sm / hop)))) - noise
        lp = np.log(np.maximum(p, 0.05**2))
        f = local_linear(ts, lp, fit)
        out[f"{sm:g} s average, fit"] = _onset(ts, np.exp(f), clear, level)
        r2 = (lp - f) ** 2
        c = np.concatenate([[0.0], np.cumsum(r2)])
        i = np.arange(ts.size)
        lo, hi = np.maximum(i - fit, 0), np.minimum(i + fit + 1, ts.size)
        out[f"{sm:g} s average, fit + var/2"] = _onset(ts, np.exp(f + 0.5 * (c[hi] - c[lo]) / (hi - lo)), clear, level)
    for lv in (0.18, 0.16):
        out[f"level {lv:g}"] = ex.rocking_onset(t0, t1, level_dps=lv)
    return out


def replay_imu(recs: list[Path]) -> None:
    errs: dict[tuple[str, str], list[float]] = {}
    for rec in recs:
        if not (rec / "imu.csv").is_file():
            continue
        sim = "altsim" if rec.name.startswith("rec_") else "twin"
        imu = np.loadtxt(rec / "imu.csv", delimiter=",", skiprows=1, ndmin=2)
        ex = ImuFeatureExtractor(history_s=1e5)
        for i in range(0, imu.shape[0], 2000):
            ex.feed_array(imu[i : i + 2000])
        for s in scored_spins(rec):
            r = s["release_t"]
            land = ex.landing_impact(r + 0.2, s["rest_t"] + 0.05)
            end = land.t if land is not None else s["rest_t"]
            for name, got in variants(ex, r + 0.13, end + 0.1).items():
                errs.setdefault((sim, name), []).append(math.nan if got is None else got - s["wobble_t"])
    print("\nIMU onset error against the truth (s): median |err|, p95 |err|, early > 0.1 s, late > 0.15 s")
    for (sim, name), e in sorted(errs.items()):
        a = np.asarray(e)
        print(f"  {sim:<7} {name:<32} n {a.size:>3}  median {np.nanmedian(np.abs(a)):.3f}  p95 "
              f"{np.nanpercentile(np.abs(a), 95):.3f}  early {int((a < -0.1).sum()):>2}  late {int((a > 0.15).sum()):>2}")


def _verdicts(path: Path) -> dict[str, Any]:
    return {f.name: json.loads(f.read_text()) for f in sorted(path.glob("*.json"))}


def instruments(imu_dir: Path, cam_dir: Path) -> None:
    """The judge's IMU and camera-only onsets against the truth, by how sharply the truth is defined."""
    imu, cam = _verdicts(imu_dir), _verdicts(cam_dir)
    rows: list[tuple[str, float, float, float, float, float]] = []  # sim, spread, imu err, cam err, imu/cam stable err
    for name in sorted(set(imu) & set(cam)):
        rec = Path(imu[name]["rec"])
        if is_heldout(rec):
            sys.exit(f"{rec}: held-out recordings are not for tuning")
        sim = "altsim" if rec.name.startswith("rec_") else "twin"
        track = rec / "track.csv"
        tr = np.genfromtxt(track, delimiter=",", names=True) if track.is_file() else None
        for s in scored_spins(rec):
            vi = min(imu[name]["verdicts"], key=lambda v: abs(v["release_t"] - s["release_t"]))
            vc = min(cam[name]["verdicts"], key=lambda v: abs(v["release_t"] - s["release_t"]))
            if max(abs(vi["release_t"] - s["release_t"]), abs(vc["release_t"] - s["release_t"])) > 0.5:
                continue
            if vi["wobble_t"] is None or vc["wobble_t"] is None:
                continue
            spread = math.nan
            if tr is not None:
                keep = (tr["t"] >= s["release_t"] + 0.05) & (tr["t"] <= s["wobble_t"] + 2.0)
                tt, aa = tr["t"][keep], np.nan_to_num(tr["tilt_deg"][keep])
                spread = first_reach(tt, aa, WOBBLE_DEG + 0.25) - first_reach(tt, aa, WOBBLE_DEG - 0.25)
            fused = vi["stable_s"]
            if abs(vc["wobble_t"] - vi["wobble_t"]) < 0.3:
                fused += 0.2 * (vc["wobble_t"] - vi["wobble_t"])
            rows.append((sim, spread, vi["wobble_t"] - s["wobble_t"], vc["wobble_t"] - s["wobble_t"],
                         vi["stable_s"] - s["stable_s"], fused - s["stable_s"]))
    if not rows:
        print("no spin judged in both caches")
        return
    print("\nonset error (s) by how long the true tilt took from 5.75 to 6.25 degrees: median |err|, p95, signed median")
    for sim in ("twin", "altsim"):
        sel = [r for r in rows if r[0] == sim]
        if not sel:
            continue
        a = np.array([r[1:] for r in sel])
        print(f"  {sim}: {len(sel)} spins, IMU and camera onset errors correlate {np.corrcoef(a[:, 1], a[:, 2])[0, 1]:.2f};"
              f" stable time IMU median {np.median(np.abs(a[:, 3])):.3f} p95 {np.percentile(np.abs(a[:, 3]), 95):.3f},"
              f" moved 0.2 of the way to the camera {np.median(np.abs(a[:, 4])):.3f} / {np.percentile(np.abs(a[:, 4]), 95):.3f}")
        for lo, hi in ((0.0, 0.05), (0.05, 0.15), (0.15, math.inf)):
            m = (a[:, 0] >= lo) & (a[:, 0] < hi)
            if not m.any():
                continue
            parts = []
            for j, label in ((1, "IMU"), (2, "camera")):
                e = a[m, j]
                parts.append(f"{label} {np.median(np.abs(e)):.3f} / {np.percentile(np.abs(e), 95):.3f} / {np.median(e):+.3f}")
            print(f"    spread {lo:.2f}-{hi:.2f} s: {int(m.sum()):>3} spins | " + " | ".join(parts))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rec", type=Path, nargs="*", default=None, help="recordings (default: the tuning ones)")
    ap.add_argument("--band", type=float, default=0.25, help="degrees either side of 6 (default 0.25)")
    ap.add_argument("--imu", action="store_true", help="also replay the IMU onset estimators")
    ap.add_argument("--imu-contexts", type=Path, help="bench_imu_timing.py's cache (the judge with the IMU)")
    ap.add_argument("--cam-contexts", type=Path, help="bench_camera_onset.py's cache (the judge camera-only)")
    args = ap.parse_args()
    recs = args.rec if args.rec else tuning_recordings()
    for r in recs:
        if is_heldout(r):
            sys.exit(f"{r}: held-out recordings are not for tuning")
    definition_spread(recs, args.band)
    if args.imu:
        replay_imu(recs)
    if args.imu_contexts and args.cam_contexts:
        instruments(args.imu_contexts, args.cam_contexts)


if __name__ == "__main__":
    main()
