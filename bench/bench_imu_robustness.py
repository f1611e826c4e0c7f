"""How the IMU-assisted judge holds up on a tray and an IMU that are not the twin's.

The judge's IMU levels (the rocking level in deg/s, the knock levels in g) were set on the digital
twin's IMU model, and the independent renderer (bench/altsim) reuses that model, so nothing else has
tested them. A real tray may rock half or twice as much under the same wobble, its IMU may be noisier,
sampled at another rate, or drift. This script re-judges recordings with their ``imu.csv`` changed in
those ways (the video is shared, by symbolic links) and prints the IMU-mode figures per change:

    .venv/bin/python bench/bench_imu_robustness.py --rec /tmp/tune-twin-530/seed5300{1,2,3,4}_n9_fps60

Changes (``--changes``, comma-separated; default all):
- ``as-recorded``: the recording as it is (the reference row);
- ``tray-x0.5`` / ``tray-x2``: every motion signal (gyro minus its zero-rate offset, accelerometer
  minus gravity) scaled; for x0.5 white noise is added back so the sensor's noise floor stays, for x2
  the noise doubles with the signal (a looser tray with a cheaper part);
- ``gyro-noise-x3``: white gyro noise added to three times the recorded floor;
- ``rate-416``: pairs of samples averaged (an 833 Hz part run at 416 Hz);
- ``gyro-drift``: the zero-rate offset wanders by up to 1 deg/s over a minute (a part warming up).

Only the IMU-assisted mode is judged, without letters (they do not depend on the IMU).

``--calibrate-on REC...`` measures each changed tray first, as a table's volunteer would
(``sevivon imu-level`` on other recordings of the same tray, changed the same way), and judges ``--rec``
with the measured level instead of the twin's 0.2 deg/s:

    .venv/bin/python bench/bench_imu_robustness.py --rec /tmp/tune-twin-530/seed5300{5,6,7,8}_n9_fps60 \
        --calibrate-on /tmp/tune-twin-530/seed5300{1,2,3,4}_n9_fps60
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.eval_judge import Tally, score  # noqa: E402
from controller.analyze_cli import analyze_recording  # noqa: E402
from controller.imu_level import measure_recordings  # noqa: E402
from controller.judge import JudgeSettings  # noqa: E402

Change = Callable[[np.ndarray, np.random.Generator], np.ndarray]


def white_sigma(x: np.ndarray) -> float:
    """The white-noise level of a signal, from its sample-to-sample steps (robust to the knocks in it)."""
    d = np.diff(x)
    return float(1.4826 * np.median(np.abs(d - np.median(d))) / np.sqrt(2.0))


def scaled(k: float) -> Change:
    """Every motion signal scaled by ``k``; the noise floor kept when ``k`` < 1."""

    def change(imu: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        out = imu.copy()
        for col in range(1, 7):
            rest = float(np.median(imu[:, col]))  # gravity or the gyro's zero-rate offset
            sigma = white_sigma(imu[:, col])
            out[:, col] = rest + k * (imu[:, col] - rest)
            if k < 1.0:
                out[:, col] += rng.normal(0.0, sigma * np.sqrt(1.0 - k * k), imu.shape[0])
        return out

    return change


def gyro_noise(factor: float) -> Change:
    def change(imu: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        out = imu.copy()
        for col in (4, 5, 6):
            sigma = white_sigma(imu[:, col])
            out[:, col] += rng.normal(0.0, sigma * np.sqrt(factor * factor - 1.0), imu.shape[0])
        return out

    return change


def halve_rate(imu: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    n = imu.shape[0] // 2 * 2
    return imu[:n].reshape(-1, 2, 7).mean(axis=1)


def gyro_drift(imu: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    out = imu.copy()
    t = imu[:, 0]
    for col in (4, 5, 6):
        phase = rng.uniform(0, 2 * np.pi)
        out[:, col] += 0.5 * np.sin(2 * np.pi * t / 60.0 + phase) + 0.5 * (t - t[0]) / max(t[-1] - t[0], 1.0)
    return out


CHANGES: dict[str, Change | None] = {
    "as-recorded": None,
    "tray-x0.5": scaled(0.5),
    "tray-x2": scaled(2.0),
    "gyro-noise-x3": gyro_noise(3.0),
    "rate-416": halve_rate,
    "gyro-drift": gyro_drift,
}


def changed_copy(rec: Path, out: Path, name: str, seed: int) -> Path:
    """``rec`` with its imu.csv changed by CHANGES[name] (everything else linked), made once."""
    dst = out / name / rec.name
    if (dst / "imu.csv").is_file():
        return dst
    change = CHANGES[name]
    dst.mkdir(parents=True, exist_ok=True)
    for item in rec.iterdir():
        if item.name in ("imu.csv", "meta.json", "__no_enroll__"):
            continue
        link = dst / item.name
        if not link.exists():
            link.symlink_to(item.resolve())
    meta = json.loads((rec / "meta.json").read_text())
    if change is None:
        shutil.copyfile(rec / "imu.csv", dst / "imu.csv.part")
    else:
        imu = np.loadtxt(rec / "imu.csv", delimiter=",", skiprows=1)
        new = change(imu, np.random.default_rng(seed))
        if name == "rate-416" and meta.get("imu"):
            meta["imu"]["rate_hz"] = meta["imu"]["rate_hz"] / 2
        np.savetxt(dst / "imu.csv.part", new, delimiter=",", header="t,ax,ay,az,gx,gy,gz", comments="",
                   fmt=["%.6f", "%.5f", "%.5f", "%.5f", "%.4f", "%.4f", "%.4f"])
    (dst / "meta.json").write_text(json.dumps(meta, indent=2))
    (dst / "imu.csv.part").rename(dst / "imu.csv")  # last: a half-written copy is never judged
    return dst


def judge_imu(args: tuple[str, float]) -> tuple[str, list[dict[str, object]], list[bool]]:
    """Judge one recording with its IMU at the given rocking level, without letters."""
    import cv2

    cv2.setNumThreads(1)
    rec, level = args
    verdicts, _ = analyze_recording(rec, use_imu=True, use_recognizer=False,
                                    settings=JudgeSettings(rocking_level_dps=level))
    return rec, [v.to_json() for v in verdicts], [v.needs_judge for v in verdicts]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rec", type=Path, nargs="+", required=True, help="recordings with imu.csv and truth.json")
    ap.add_argument("--out", type=Path, default=Path("/tmp/sevivon-imu-robustness"))
    ap.add_argument("--changes", type=str, default=",".join(CHANGES))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--calibrate-on", type=Path, nargs="*", default=None,
                    help="measure each changed tray's rocking level on these recordings first (sevivon imu-level)")
    args = ap.parse_args()
    names = [n.strip() for n in args.changes.split(",")]
    unknown = [n for n in names if n not in CHANGES]
    if unknown:
        ap.error(f"unknown change(s) {', '.join(unknown)}; choose from {', '.join(CHANGES)}")
    for rec in args.rec + (args.calibrate_on or []):
        if not (rec / "imu.csv").is_file() or not (rec / "truth.json").is_file():
            ap.error(f"{rec} has no imu.csv or truth.json: pass simulated recordings made with an IMU")
        if "heldout" in str(rec.resolve()):
            ap.error(f"{rec} is held out: this script is for tuning data")
    levels = {n: JudgeSettings.rocking_level_dps for n in names}
    copies = [(changed_copy(rec, args.out, n, 1000 + i), n) for n in names for i, rec in enumerate(args.rec)]
    tallies = {n: Tally() for n in names}
    # everything that runs OpenCV runs in the pool: a process forked after OpenCV started its threads hangs
    with ProcessPoolExecutor(args.jobs) as ex:
        if args.calibrate_on:
            cals = [[changed_copy(rec, args.out, n, 2000 + i) for i, rec in enumerate(args.calibrate_on)] for n in names]
            for n, level in zip(names, ex.map(measure_recordings, cals), strict=True):
                levels[n] = level.level_dps
        jobs = [(str(c), levels[n]) for c, n in copies]
        for (copy, name), (rec, verdicts, needs) in zip(copies, ex.map(judge_imu, jobs), strict=True):
            truth = json.loads((Path(rec) / "truth.json").read_text())
            score(tallies[name], f"{name}/{copy.name}", truth, verdicts, needs)
    head = (f"{'IMU change':<15} {'level':>6} {'spins':>5} {'miss':>4} {'inv':>4} {'valid/invalid right':>22} "
            f"{'stable err med':>14} {'p95':>7} {'rest<=0.3s':>18}")
    how = (f"rocking level measured on {len(args.calibrate_on)} other recordings of each tray" if args.calibrate_on
           else f"the twin's rocking level {JudgeSettings.rocking_level_dps} deg/s")
    print(f"{len(args.rec)} recordings, IMU mode, no letters, {how}")
    print(head)
    print("-" * len(head))
    for n in names:
        t = tallies[n]
        se = np.abs(np.array(t.stable_err)) if t.stable_err else np.array([np.nan])
        re_ = np.abs(np.array(t.rest_err)) if t.rest_err else np.array([np.nan])
        clear = f"{100.0 * t.clear_right / max(t.clear_total, 1):.1f}% ({t.clear_right}/{t.clear_total})"
        rest = f"{100.0 * (re_ <= 0.3).sum() / re_.size:.1f}% ({int((re_ <= 0.3).sum())}/{re_.size})"
        print(f"{n:<15} {levels[n]:>6.3f} {t.spins:>5} {t.missed:>4} {t.invented:>4} {clear:>22} {np.median(se):>13.3f}s "
              f"{np.percentile(se, 95):>6.3f}s {rest:>18}")


if __name__ == "__main__":
    main()
