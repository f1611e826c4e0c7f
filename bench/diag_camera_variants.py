"""Camera-only onset variants replayed on the judge's cached series, with the reason code each verdict would get.

    .venv/bin/python bench/diag_camera_variants.py --contexts /tmp/h53/ctx [--lead judge|front|none] [--changes]

``bench_camera_onset.py`` scores stable time and valid/invalid; this also counts the timing reason the
verdict would carry (``wobbled_immediately`` below ``immediate_s``, ``short`` below 3 s, none above) against
the truth's, per simulator, and with ``--changes`` lists every spin whose reason or valid call moves (or whose
stable time moves by more than 0.05 s) from the first variant's. Variants are :class:`controller.camera_wobble.WobbleSettings` overrides (see
:func:`variants`). The cache is ``bench_camera_onset.py --contexts DIR --lead-and-shape``'s (the judge's
series, each with the frames seen while its release was made sure of; ``--lead judge``, the default, replays
what the judge sees, see ``bench_camera_onset.load_cases``); tuning recordings only.

Found with it (fourteenth session, H53, 289 spins of 71 tuning recordings, the lead-in left out as the judge
then did, now ``--lead none``): reading a piece of
path too short for the phase fit at the reference period (``period_span`` 1.0) moves 4 altsim spins and no
twin spin; altsim stable-time error median/p95 0.076/0.615 -> 0.073/0.560 s, valid/invalid 56/57 both, the
timing reason right on 53 -> 54 of 58 (980010 spin 1 wobbled immediately, no longer short).

H54 (same session): with the lead-in frames handed over as ``CameraTrack.lead``, as the judge does now
(``--lead judge``), dating a spin that wobbled at once on them (``lead_in``) moves 11 such spins (all kept
wobbled immediately): twin median 0.089 -> 0.085 s, p95 0.281 both; altsim 0.073/0.560 both.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_camera_onset import LEAD_MODES, Case, load_cases, stable_of, valid_of  # noqa: E402
from bench.tuning_sets import context_path, tuning_recordings  # noqa: E402
from controller.camera_wobble import WobbleSettings, wobble_onset  # noqa: E402

IMMEDIATE_S = 0.5


def reason_of(case: Case, stable: float) -> str:
    """The timing reason a verdict with this stable time carries ('' for none); a touch, a left tray or a
    put-down keep their own codes (they are not scored here)."""
    if stable < IMMEDIATE_S:
        return "wobbled_immediately"
    return "short" if stable < 3.0 else ""


def true_reason(case: Case) -> str:
    return reason_of(case, case.true_stable)


def variants() -> dict[str, dict[str, Any]]:
    return {
        "no lead-in (H54 base)": {"lead_in": False},
        "module (lead-in)": {},
    }


def run(cases: list[Case], kw: dict[str, Any]) -> list[tuple[Case, float | None, float, bool, str]]:
    ws = WobbleSettings(**kw)
    rows = []
    for c in cases:
        on = wobble_onset(c.track, ws)
        st = stable_of(c, on)
        rows.append((c, on, st, valid_of(c, st), reason_of(c, st)))
    return rows


def summary(name: str, rows: list[tuple[Case, float | None, float, bool, str]]) -> None:
    for sim in ("twin", "altsim"):
        sel = [r for r in rows if r[0].sim == sim]
        if not sel:
            continue
        err = np.abs([r[2] - r[0].true_stable for r in sel])
        clear = [r for r in sel if abs(r[0].true_stable - 3.0) > 0.15]
        right = sum(r[3] == r[0].true_valid for r in clear)
        timing = [r for r in sel if not [c for c in r[0].verdict["reasons"]
                                         if c not in ("short", "wobbled_immediately", "unreadable")]]
        reason_ok = sum(r[4] == true_reason(r[0]) for r in timing)
        at_once = [r for r in timing if true_reason(r[0]) == "wobbled_immediately"]
        at_once_ok = sum(r[4] == "wobbled_immediately" for r in at_once)
        false_at_once = sum(r[4] == "wobbled_immediately" and true_reason(r[0]) != "wobbled_immediately"
                            for r in timing)
        print(f"{name:<20} {sim:<6} n {len(sel):>3} stable err median {np.median(err):.3f} p95 "
              f"{np.percentile(err, 95):.3f} | valid/invalid {right}/{len(clear)} | reason {reason_ok}/{len(timing)}"
              f" | at once {at_once_ok}/{len(at_once)}, called at once wrongly {false_at_once}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--contexts", type=Path, default=Path("/tmp/h53/ctx"))
    ap.add_argument("--lead", choices=LEAD_MODES, default="judge",
                    help="the frames seen while the release was made sure of: as the judge hands them over "
                         "(default), in front of the series, or left out")
    ap.add_argument("--changes", action="store_true", help="list the spins whose reason or valid call moves")
    args = ap.parse_args()
    recs = [r for r in tuning_recordings() if context_path(args.contexts, r).is_file()]
    cases = load_cases(recs, args.contexts, lead_mode=args.lead)
    print(f"{len(recs)} recordings, {len(cases)} scored spins (the lead-in frames: {args.lead})")
    base = None
    for name, kw in variants().items():
        rows = run(cases, kw)
        summary(name, rows)
        if base is None:
            base = rows
            continue
        if args.changes:
            for b, r in zip(base, rows, strict=True):
                if b[4] != r[4] or b[3] != r[3] or abs(b[2] - r[2]) > 0.05:
                    c = r[0]
                    print(f"    {c.rec.split('/')[-1]:<22} spin {c.spin} {c.kind:<15} true {c.true_stable:.3f} "
                          f"{true_reason(c) or 'valid':<19} | {b[2]:.3f} {b[4] or 'valid':<19} -> {r[2]:.3f} "
                          f"{r[4] or 'valid'}")


if __name__ == "__main__":
    main()
