"""Which rests the judge asks a judge about at the tray's edge, for several reaches along the dreidel's axis (H43).

    .venv/bin/python bench/diag_edge_reach.py REC... [--jobs 2] [--imu]

The judge asks a judge whether a dreidel lying at the tray's edge is in the tray when its centre lies within
``JudgeSettings.edge_call`` of its length of the edge, or when the points on its long axis within
``edge_axis_call`` of its length from its centre lie on both sides of the edge (it lies across it). Each
recording (with truth.json) is judged camera only (``--imu``: with its IMU) and without letters; at each rest the
tray decides (the judge's own test), the axis test is also made at the reaches ``REACHES``. It prints, per reach,
how many of those rests a judge is asked about and which in/out calls are left wrong and unreferred, then the
rests nearest the edge.

Found with it (forty-third session; twin 97001-102016, 96 recordings, 353 tray-decided rests): at 0.3 it
referred 4 and left 102008 spin 3 wrong (centre 0.36 of its length outside, in the tray by the twin's truth);
at 0.4 it refers 7 and leaves none. Second renderer 1680000-1740015 (59 rests): none referred at 0.3 or 0.4.

Never pass held-out recordings (``tuning_sets.is_heldout``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tuning_sets import is_heldout  # noqa: E402

#: the axis reaches tried (in the dreidel's lengths from its centre)
REACHES = (0.3, 0.35, 0.4, 0.45, 0.5)


def rests(args: tuple[str, bool]) -> list[dict[str, Any]]:
    """Judge one recording and return, per tray-decided rest, its centre's distance from the edge (lengths,
    positive inside), whether it lies across the edge at each reach, the call and the truth."""
    rec, use_imu = args
    import cv2

    from controller import judge as judge_mod
    from controller.analyze_cli import analyze_recording

    cv2.setNumThreads(1)
    seen: list[dict[str, Any]] = []
    original = judge_mod.SpinJudge._rest_off_edge

    def measured(self: Any, spin: Any) -> tuple[float, bool] | None:
        got = original(self, spin)
        tray, obs = self.background.tray, spin.rest_obs
        across: dict[float, bool] = {}
        if got is not None and spin.rest_axis_deg is not None:
            sc, a = self.tracker.scale, math.radians(spin.rest_axis_deg)
            for reach in REACHES:
                ux, uy = reach * obs.length * math.cos(a), reach * obs.length * math.sin(a)
                ends = [tray.distance_inside((obs.x + k * ux) / sc, (obs.y + k * uy) / sc) for k in (-1.0, 1.0)]
                across[reach] = min(ends) < 0.0 < max(ends)
        seen.append({"release_t": spin.release_t, "centre": None if got is None else got[0], "across": across})
        return got

    judge_mod.SpinJudge._rest_off_edge = measured  # type: ignore[method-assign]
    try:
        verdicts, _ = analyze_recording(rec, use_imu=use_imu, use_recognizer=False)
    finally:
        judge_mod.SpinJudge._rest_off_edge = original  # type: ignore[method-assign]
    truth = json.loads((Path(rec) / "truth.json").read_text())
    out = []
    for row in seen:
        if row["centre"] is None:
            continue
        tr = min(truth, key=lambda t: abs(t["release_t"] - row["release_t"]))
        v = min(verdicts, key=lambda v: abs(v.release_t - row["release_t"]))
        if abs(tr["release_t"] - row["release_t"]) > 1.0:
            continue
        out.append({**row, "rec": Path(rec).name, "spin": tr["index"], "in_tray": bool(tr["in_tray"]),
                    "called_out": "left_tray" in v.reasons})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("recs", type=Path, nargs="+")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--imu", action="store_true", help="judge with the recordings' IMU (default: camera only)")
    args = ap.parse_args()
    for r in args.recs:
        if is_heldout(r):
            sys.exit(f"{r}: held-out recordings are not for tuning")
    from controller.judge import JudgeSettings

    edge_call = JudgeSettings().edge_call
    with ProcessPoolExecutor(args.jobs) as ex:
        rows = [row for out in ex.map(rests, [(str(r), args.imu) for r in args.recs]) for row in out]
    print(f"{len(rows)} rests decided by the tray in {len(args.recs)} recordings")
    wrong = [r for r in rows if r["called_out"] == r["in_tray"]]
    for reach in REACHES:
        asked = [r for r in rows if abs(r["centre"]) < edge_call or r["across"].get(reach, False)]
        left = [f"{r['rec']} spin {r['spin']}" for r in wrong if r not in asked]
        print(f"  reach {reach:.2f}: a judge asked about {len(asked):3d}; in/out wrong and unreferred {len(left)}"
              + (": " + ", ".join(left) if left else ""))
    print("nearest the edge (centre in lengths, positive inside; in the tray by the truth; called out; across at "
          "each reach):")
    for r in sorted(rows, key=lambda r: abs(r["centre"]))[:12]:
        marks = "".join("x" if r["across"].get(reach) else "." for reach in REACHES)
        print(f"  {r['rec']:<22} spin {r['spin']} {r['centre']:+.3f} {r['in_tray']!s:<5} {r['called_out']!s:<5} {marks}")


if __name__ == "__main__":
    main()
