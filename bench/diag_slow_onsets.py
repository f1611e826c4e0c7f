"""How late the IMU dates a slowly growing wobble, and what the judge's close-call window for it refers (H43).

    .venv/bin/python bench/diag_slow_onsets.py                                 # every tuning recording with an IMU
    .venv/bin/python bench/diag_slow_onsets.py --contexts /tmp/h43/ctx --rec /tmp/tune-twin-1010/seed*

The judge times a spin with the IMU from the rocking's onset (``ImuFeatureExtractor.rocking_onset``) and asks
how fast the rocking grew there (``rocking_growth``). Under ``JudgeSettings.slow_growth_per_s`` the onset is a
"slow" one: a slowly growing lean nutates about the rules' 6 degrees, and the averaged rocking crosses its
level after the lean first touched them, so the stable time comes out long more often than short. Such a spin
is timed with the camera's sigma, and its close call reaches ``close_call_imu_s`` below the rule and
``close_call_slow_s`` above it.

The recordings are judged once with their IMU (``bench_imu_timing.py``'s ``--contexts`` cache, shared with
it and ``diag_imu_onset_bias.py``), and the IMU's queries are replayed through the current extractor, which
also reads the growth at each onset. It prints:

- the signed stable-time error (judged minus true) by growth band, per renderer and pooled: median, 5th,
  10th, 90th and 95th percentiles, and the 68th / 80th percentiles of its size (the sigmas and windows of
  ``JudgeSettings``' docstring);
- for the judge's settings and a few others, on the spins decided by their timing alone (valid, short or
  wobbled at once, untouched, in the tray): how many a close call refers, and which valid/invalid calls it
  leaves wrong and unreferred.

Found with it (forty-third session; twin 97001-101016 and second renderer 1680000-1720015, 618 spins timed
by the rocking): growth under 8, 321 spins, signed -0.100 / +0.235 s (5th / 95th), median +0.030; 8 or more,
296 spins, -0.083 / +0.093 s. Of 450 timing-only spins the old settings (4.5, the camera's 0.2 s either side)
referred 45 and left 3 wrong unreferred, all near 3 s and late: twin 101002 spin 7, 101005 spin 4, 101010
spin 8. Growth under 8 with 0.1 s below and 0.25 s above refers 50 and leaves 1 (101010 spin 8, +0.46 s).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_imu_timing import judged_once, match_truth, replay, true_stable  # noqa: E402
from bench.tuning_sets import UNSCORED, context_path  # noqa: E402
from controller.imu_features import ImuFeatureExtractor  # noqa: E402
from controller.judge import JudgeSettings  # noqa: E402

#: reasons that leave a spin decided by its timing alone ("unreadable": the contexts are judged without letters)
TIMING_REASONS = frozenset({"short", "wobbled_immediately", "unreadable"})


class GrowthReadingExtractor(ImuFeatureExtractor):
    """The judge's extractor, noting the rocking's growth at every onset it finds (keyed by the onset)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.growth_at: dict[float, float | None] = {}

    def rocking_onset(self, t0: float, t1: float, *args: Any, **kwargs: Any) -> float | None:
        onset = super().rocking_onset(t0, t1, *args, **kwargs)
        if onset is not None:
            self.growth_at[round(onset, 6)] = self.rocking_growth(t0, t1, onset)
        return onset


@dataclass(frozen=True)
class Timed:
    """One true spin, as the judge (replayed) timed it."""

    sim: str
    rec: str
    spin: int
    judged: float
    true: float
    growth: float | None  # None: not timed by the rocking (the chatter or the camera dated the onset)
    imu_onset: bool
    timing_only: bool


def rows_for(rec: Path, contexts: Path) -> list[Timed]:
    ctx = json.loads(context_path(contexts, rec).read_text())
    truth = json.loads((rec / "truth.json").read_text())
    reps, ex = replay(rec, ctx, make=GrowthReadingExtractor)
    assert isinstance(ex, GrowthReadingExtractor)
    sim = "twin" if (rec / "track.csv").is_file() else "altsim"
    out = []
    for tr, rp in match_truth(truth, reps):
        s_true, v = true_stable(tr), rp.verdict
        if tr["kind"] in UNSCORED or s_true is None or v["stable_s"] is None:
            continue
        growth = ex.growth_at.get(round(rp.onset, 6)) if rp.onset is not None and rp.source == "rocking" else None
        untouched = tr.get("touch_t") is None and tr.get("in_tray", True)
        out.append(Timed(sim, rec.name, int(tr["index"]), float(v["stable_s"]), float(s_true), growth,
                         rp.source in ("rocking", "chatter"),
                         untouched and set(v["reasons"]) <= TIMING_REASONS and v["stable_s"] >= 0.5))
    return out


def window(t: Timed, bar: float, slow: tuple[float, float], imu_s: float, camera_s: float) -> tuple[float, float]:
    """The close-call window (below, above the rule) the judge's logic gives this spin, with a slow onset's bar and
    window ``slow`` (below, above)."""
    if not t.imu_onset:
        return camera_s, camera_s
    if t.growth is not None and t.growth < bar:
        return slow
    return imu_s, imu_s


def report(rows: list[Timed], settings: JudgeSettings) -> None:
    rule = settings.min_stable_s
    timed = [r for r in rows if r.growth is not None]
    print("signed stable-time error (judged - true, s) of spins timed by the rocking, by its growth at the onset:")
    print("  renderer  growth      n   median     p5    p10    p90    p95 | |err| p68  p80")
    for sim in ("twin", "altsim", "all"):
        for lo, hi in ((-math.inf, 4.5), (4.5, 8.0), (8.0, 10.0), (10.0, math.inf),
                       (-math.inf, settings.slow_growth_per_s), (settings.slow_growth_per_s, math.inf)):
            e = np.array([r.judged - r.true for r in timed if (sim == "all" or r.sim == sim)
                          and r.growth is not None and lo <= r.growth < hi])
            if e.size:
                p5, p10, p90, p95 = np.percentile(e, [5, 10, 90, 95])
                a68, a80 = np.percentile(np.abs(e), [68, 80])
                print(f"  {sim:<8} {lo:5.1f}-{hi:<5.1f} {e.size:4d} {np.median(e):+.3f} {p5:+.3f} {p10:+.3f}"
                      f" {p90:+.3f} {p95:+.3f} | {a68:.3f} {a80:.3f}")
    decided = [r for r in rows if r.timing_only]
    print(f"\nclose calls on {len(decided)} spins decided by their timing alone, by a slow onset's growth bar and "
          f"window (else the IMU's {settings.close_call_imu_s:.2f} s, camera only {settings.close_call_s:.2f} s):")
    s = settings
    camera = (s.close_call_s, s.close_call_s)
    for bar, slow in ((4.5, camera), (s.slow_growth_per_s, (s.close_call_imu_s, s.close_call_slow_s)),
                      (s.slow_growth_per_s, camera), (6.0, (s.close_call_imu_s, s.close_call_slow_s))):
        referred, wrong = 0, []
        for r in decided:
            below, above = window(r, bar, slow, s.close_call_imu_s, s.close_call_s)
            close = -below < r.judged - rule < above
            referred += close
            if (r.judged >= rule) != (r.true >= rule) and not close:
                wrong.append(f"{r.rec} spin {r.spin} ({r.true:.3f} s timed {r.judged:.3f})")
        print(f"  under {bar:4.1f}: {slow[0]:.2f} below, {slow[1]:.2f} above: referred {referred:3d}, wrong and "
              f"unreferred {len(wrong)}" + (": " + "; ".join(wrong) if wrong else ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rec", type=Path, nargs="*", default=None, help="recordings (default: the tuning ones)")
    ap.add_argument("--contexts", type=Path, default=Path("/tmp/h14/contexts"), help="bench_imu_timing's cache")
    args = ap.parse_args()
    recs = judged_once(args.rec, args.contexts)
    report([row for r in recs for row in rows_for(r, args.contexts)], JudgeSettings())


if __name__ == "__main__":
    main()
