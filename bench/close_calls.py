#!/usr/bin/env python3
"""How far the judge's stable time strays from the truth, and what the close-call windows refer to a judge.

    .venv/bin/python bench/same_verdicts.py run --tree . --out /tmp/run.json --no-letters REC...   # tuning only
    .venv/bin/python bench/close_calls.py /tmp/run.json [--camera 0.2 --imu 0.1]

Reads the verdicts of ``same_verdicts.py run`` outputs (each recording judged with its IMU and camera only)
against each recording's ``truth.json`` and prints, by renderer and mode and pooled by mode:

- the percentiles of the absolute stable-time error (``JudgeSettings.timing_sigma_s`` is the camera's 68th,
  ``imu_sigma_factor`` the IMU's over it; ``close_call_s`` and ``close_call_imu_s`` the 80th);
- for windows from 0 to 0.5 s: how many spins a close-call rule of that width would refer to a judge (a spin
  only its timing decides, valid or short, timed within the window of 3 s), and how many valid/invalid calls
  it leaves wrong and unreferred, on every spin and on those more than 0.15 s from 3 s (the issue's measure);
- the same for the windows given (``--camera``, ``--imu``), with the referred spins by the twin's kind.

The mode is the run's (with or without the IMU), not each verdict's ``imu_used``: with its IMU nearly every
spin is IMU-timed. The windows apply to the judge's own stable time; the truth only scores them.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_unseen import match  # noqa: E402

#: the rule's stable time and the issue's "clear" spins (more than this from it)
RULE_S, CLEAR_S = 3.0, 0.15
#: reasons that leave a spin decided by its timing alone
TIMING_REASONS = frozenset({"short", "wobbled_immediately", "unreadable"})
#: below this a spin "wobbled immediately" (JudgeSettings.immediate_s): never a close call
IMMEDIATE_S = 0.5


@dataclass(frozen=True)
class Timed:
    """One true spin and the verdict matched to it."""

    group: str  # "twin imu", "alt cam", ...
    kind: str
    true_stable: float | None
    judged_stable: float | None
    judged_valid: bool
    true_valid: bool
    timing_only: bool

    @property
    def mode(self) -> str:
        return self.group.split()[1]

    @property
    def wrong(self) -> bool:
        return self.judged_valid != self.true_valid

    @property
    def clear(self) -> bool:
        return self.true_stable is None or abs(self.true_stable - RULE_S) > CLEAR_S

    def referred(self, window: float) -> bool:
        s = self.judged_stable
        return self.timing_only and s is not None and s >= IMMEDIATE_S and abs(s - RULE_S) < window


def load(paths: list[Path]) -> list[Timed]:
    """Every matched (truth, verdict) pair of the runs (recordings whose truth.json is gone are skipped)."""
    out: list[Timed] = []
    for path in paths:
        for r in json.loads(path.read_text())["results"]:
            truth_file = Path(r["rec"]) / "truth.json"
            if not truth_file.exists():
                continue
            truth = json.loads(truth_file.read_text())
            got, _ = match(truth, r["spins"])
            group = ("twin" if Path(r["rec"]).name.startswith("seed") else "alt") + (" imu" if r["imu"] else " cam")
            for tr, g in zip(truth, got, strict=True):
                if g is None:
                    continue
                out.append(Timed(group, tr["kind"], tr.get("stable_s"), g.get("stable_s"), bool(g["valid"]),
                                 bool(tr["valid"]), set(g.get("reasons") or ()) <= TIMING_REASONS))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", type=Path, help="same_verdicts.py run outputs")
    ap.add_argument("--camera", type=float, default=0.2, help="the camera-only window (s)")
    ap.add_argument("--imu", type=float, default=0.1, help="the IMU window (s)")
    args = ap.parse_args()
    spins = load(args.runs)
    print("absolute stable-time error (s), spins with a true and a judged stable time (put-downs left out)")
    errs: dict[str, list[float]] = {}
    for t in spins:
        if t.true_stable is not None and t.judged_stable is not None and t.kind != "no_release":
            e = abs(t.judged_stable - t.true_stable)
            errs.setdefault(t.group, []).append(e)
            errs.setdefault(f"{t.mode} pooled", []).append(e)
    for name, v in sorted(errs.items()):
        a = np.array(v)
        print(f"  {name:<11} n={a.size:4d} " + " ".join(f"p{q}={np.percentile(a, q):.3f}" for q in (50, 68, 80, 90, 95)))
    print("windows: referred / wrong and unreferred (all spins) / wrong and unreferred (clear spins)")
    for group in sorted({t.group for t in spins}):
        rows = [t for t in spins if t.group == group]
        print(f"  {group} ({len(rows)} spins)")
        for w in (0.0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5):
            left = [t for t in rows if not t.referred(w)]
            clear = [t for t in left if t.clear]
            n_ref = len(rows) - len(left)
            print(f"    {w:.2f} s: {n_ref:4d} ({n_ref / len(rows):5.1%})  {sum(t.wrong for t in left):3d} of {len(left):4d}"
                  f"  {sum(t.wrong for t in clear):3d} of {len(clear):4d}")
    print(f"the windows given (camera only {args.camera} s, IMU {args.imu} s), pooled by mode")
    for mode, w in (("cam", args.camera), ("imu", args.imu)):
        rows = [t for t in spins if t.mode == mode]
        if not rows:
            continue
        ref = [t for t in rows if t.referred(w)]
        left = [t for t in rows if not t.referred(w)]
        kinds = {k: sum(1 for t in ref if t.kind == k) for k in sorted({t.kind for t in ref})}
        print(f"  {mode}: {len(rows)} spins, referred {len(ref)} ({len(ref) / len(rows):.1%}) {kinds}; wrong and "
              f"unreferred {sum(t.wrong for t in rows)} -> {sum(t.wrong for t in left)}; on clear spins "
              f"{sum(t.wrong for t in rows if t.clear)} of {sum(t.clear for t in rows)} -> "
              f"{sum(t.wrong for t in left if t.clear)} of {sum(t.clear for t in left)}")


if __name__ == "__main__":
    main()
