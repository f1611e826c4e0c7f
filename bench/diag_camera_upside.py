"""Camera-only stable time on upside-down spins against the others (twin): the release's and the onset's
share of the error, and the circling at the true onset against the dreidel's lever.

    .venv/bin/python bench/diag_camera_upside.py --contexts /tmp/h50/ctx --jobs 1 [--rec DIR ...]

Each twin recording is judged once camera-only (``bench_camera_onset.collect``, cached in ``--contexts``).
For every scored spin it prints the kind, upside down or not, the release error (judged - true), the onset
error, the stable-time error, and the period-scaled circling at the true onset (``_at``: a log-linear fit
over 0.2 s either side) as a fraction of the lying length, beside the twin style's own lever ratio
``(handle + body_h / 2) / (tip + body_h / 2)``: how much longer the arm from the contact to the body's
middle is when the dreidel spins on its handle. Then two oracles, which the camera does not have: upside-down
spins read against a level ``k`` times higher, and every spin read against a level scaled by its dreidel's true
arm (``(contact + body_h / 2) / length`` over the median, to a power ``p``). Tuning recordings only.

Found with it (thirteenth session, H50; twin 60001-60008, 61001-61008, 62001-62008, camera only, no letters;
168 scored spins, 24 upside down):

- The two camera-only upside-down spins called short in the twelfth held-out set are 62002 spin 3 (true
  3.25 s, judged 2.99 s) and 62008 spin 6 (3.16 -> 2.90); both are early onsets (-0.20, -0.24 s), not late
  releases (+0.06, +0.01 s). Their dreidels have the two largest lever ratios of the 24 (1.52, 1.55: a handle
  of about 0.85 body widths on a tip of about 0.35); the true tilt at the judged onset was 5.7 and 5.1 degrees.
- Upside down, the circling at the true onset is 0.0406 of the length (median) against 0.0356 upright (+14%),
  and the stable time is signed -0.055 s against +0.022 s; where the true tilt crosses 5.75-6.25 degrees within
  0.05 s, the onset alone is signed -0.059 s upside down against +0.001 s upright. The circling's spin-to-spin
  scatter at the onset (log sd 0.38 upright, 0.27 upside down) is larger than that bias.
- Oracle ``k`` 1.15: upside-down |stable error| median 0.084 -> 0.065 s, signed -0.055 -> +0.001 s, wrong calls
  3 -> 2 (k 1.2: 1), every spin's median 0.088 -> 0.086 s, p95 0.292 s unchanged. The true-arm oracle (p 0.75)
  does no better (0.088 / 0.284 s, 1 wrong call). Knowing the orientation is worth about one call in 168.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_camera_onset import _at, collect_all, load_cases, stable_of  # noqa: E402
from bench.tuning_sets import is_heldout, tuning_recordings  # noqa: E402
from controller.camera_wobble import WobbleSettings, circling_level, wobble_onset  # noqa: E402
from hardware.sim.dreidel import random_style  # noqa: E402


def lever_ratio(rec: Path) -> float:
    """The twin style's arm when on its handle over its arm when on its tip (body middle to contact)."""
    seed = int(json.loads((rec / "meta.json").read_text())["source"].split("seed=")[1].split(",")[0])
    st = random_style(seed)
    return (st.handle_mm + st.body_h_mm / 2) / (st.tip_mm + st.body_h_mm / 2)


def arm_share(rec: Path, upside_down: bool) -> float:
    """The twin style's arm (contact to the body's middle) as a share of its length, tip to handle."""
    seed = int(json.loads((rec / "meta.json").read_text())["source"].split("seed=")[1].split(",")[0])
    st = random_style(seed)
    contact = st.handle_mm if upside_down else st.tip_mm
    return (contact + st.body_h_mm / 2) / st.length_mm


def replay(rows: list, onset_of: Callable[[Any, bool], float | None]) -> str:
    """Every spin's stable time with the onset ``onset_of(case, upside_down)`` instead of the judge's: the
    error over all spins, over the upside-down ones, and the valid/invalid calls it gets wrong (spins more
    than 0.15 s from 3 s whose verdict rests on the stable time alone)."""
    errs, wrong, up_err = [], 0, []
    for r in rows:
        c, up = r[0], r[1]
        st = stable_of(c, onset_of(c, up))
        if c.true_onset is not None:
            errs.append(abs(st - c.true_stable))
            if up:
                up_err.append(st - c.true_stable)
        other = [q for q in c.verdict["reasons"] if q not in ("short", "wobbled_immediately", "unreadable")]
        if abs(c.true_stable - 3.0) > 0.15 and not other and (st >= 3.0) != c.true_valid:
            wrong += 1
    return (f"all spins |err| median {np.median(errs):.3f} p95 {np.percentile(errs, 95):.3f}; "
            f"upside down signed median {np.median(up_err):+.3f} |err| {np.median(np.abs(up_err)):.3f} "
            f"max {np.max(np.abs(up_err)):.3f}; wrong calls {wrong}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rec", type=Path, nargs="*", default=None)
    ap.add_argument("--contexts", type=Path, default=Path("/tmp/h50/ctx"))
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    recs = args.rec if args.rec else [r for r in tuning_recordings() if "alt" not in r.parent.name]
    recs = [r for r in recs if not is_heldout(r)]
    collect_all(recs, args.contexts, args.jobs)
    cases = [c for c in load_cases(recs, args.contexts) if c.sim == "twin"]
    ws = WobbleSettings()
    rows = []
    for c in cases:
        rec = Path("/tmp") / c.rec
        truth = json.loads((rec / "truth.json").read_text())[c.spin]
        up = bool(truth["upside_down"])
        st = stable_of(c, c.judged_onset)
        e_rel = c.track.release_t - c.true_release
        e_on = (c.judged_onset - c.true_onset) if (c.judged_onset is not None and c.true_onset is not None) else float("nan")
        lvl = float("nan")
        if c.true_onset is not None:
            t, lv = circling_level(c.track, ws)
            lvl = _at(t, lv, c.true_onset)
        ratio = lever_ratio(rec)
        rows.append((c, up, e_rel, e_on, st - c.true_stable, lvl, ratio))
        flag = " <-- call wrong" if abs(c.true_stable - 3.0) > 0.15 and (st >= 3.0) != c.true_valid and \
            not [r for r in c.verdict["reasons"] if r not in ("short", "wobbled_immediately", "unreadable")] else ""
        print(f"{c.rec:<36} {c.spin} {c.kind:<14} {'UP' if up else '  '} true {c.true_stable:5.2f} judged {st:5.2f} "
              f"err {st - c.true_stable:+.3f} rel {e_rel:+.3f} onset {e_on:+.3f} lvl@onset {lvl:.4f} "
              f"ratio {ratio:.2f}{flag}")
    for name, sel in (("upright", [r for r in rows if not r[1]]), ("upside down", [r for r in rows if r[1]])):
        on = np.array([r[3] for r in sel if np.isfinite(r[3])])
        lv = np.array([r[5] for r in sel if np.isfinite(r[5])])
        err = np.array([r[4] for r in sel if r[0].true_onset is not None])
        rel = np.array([r[2] for r in sel])
        if not sel:
            continue
        print(f"{name:<12} n={len(sel):>3}  stable err |median| {np.median(np.abs(err)):.3f} signed {np.median(err):+.3f}"
              f"  release signed {np.median(rel):+.3f}  onset signed {np.median(on):+.3f}  "
              f"level@true onset median {np.median(lv):.4f} (log sd {np.std(np.log(lv)):.2f})")
    # what knowing the orientation would buy: upside-down spins read against a level k times higher
    # (the lever from the handle is longer), every other spin as today
    for k in (1.0, 1.1, 1.15, 1.2, 1.3):
        print(f"oracle k={k:.2f}: " + replay(rows, lambda c, up, k=k: (
            wobble_onset(c.track, WobbleSettings(level=ws.level * k)) if up else c.judged_onset)))
    # the ceiling of measuring the lever itself: every spin read against a level scaled by its dreidel's true
    # arm (contact to the body's middle, from the twin's style) over the median arm, to the power p
    shares = {id(r[0]): arm_share(Path("/tmp") / r[0].rec, r[1]) for r in rows}
    mid = float(np.median(list(shares.values())))
    for p in (0.0, 0.5, 0.75, 1.0):
        print(f"true-arm oracle p={p:.2f}: " + replay(rows, lambda c, up, p=p: (
            wobble_onset(c.track, WobbleSettings(level=ws.level * (shares[id(c)] / mid) ** p)) if p > 0
            else c.judged_onset)))
    ups = [r for r in rows if r[1] and np.isfinite(r[5])]
    if len(ups) >= 3:
        rr = np.array([r[6] for r in ups])
        ll = np.array([r[5] for r in ups])
        print(f"upside down: corr(log level@onset, log lever ratio) {np.corrcoef(np.log(ll), np.log(rr))[0, 1]:+.2f}; "
              f"level / ratio median {np.median(ll / rr):.4f}")


if __name__ == "__main__":
    main()
