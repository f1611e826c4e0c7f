#!/usr/bin/env python3
"""Where the felt's own noise moves the tracker's foreground threshold inside the tray.

The tracker finds the dreidel where a pixel differs from the learned empty tray by more than
max(14, 5 x noise) (``DreidelTracker.thresholds``). ``BackgroundModel`` measures the noise over the whole picture
(``noise``) and over the tray (``tray_noise``). Where most of the picture is a bright table, the first is the
table's, not the felt's: session 16's held-out altsim 1040003 (a black dreidel on black felt) was missed that way,
noise 4.45 over the picture and 2.22 over the felt. Since the seventeenth session the tracker uses the felt's
threshold inside the tray when it is the lower and no hand is in view. This learns each recording's background as
the judge does and prints both noises and both thresholds for the recordings where they differ ("down": the tracker
uses the felt's; "up": the felt is the noisier, and the picture's stays), a scan of the empty tray only: no judging.

    .venv/bin/python bench/diag_tray_noise.py [REC ...]   (default: every tuning recording on this machine)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tuning_sets import is_heldout, tuning_recordings  # noqa: E402

from controller import analyze_cli  # noqa: E402
from vision import background as background_mod  # noqa: E402


class _Learned(Exception):
    """Raised once the background is learned: the scan needs nothing after that."""


def tray_noise(rec: Path) -> tuple[float, float, float]:
    """(noise over the picture, noise over the tray, the tray's share of the picture) as the judge learns them."""
    model = background_mod.BackgroundModel
    finish = model._finish_learning
    got: list[tuple[float, float, float]] = []

    def traced(self: Any) -> None:
        finish(self)
        got.append((self.noise, self.tray_noise, float(np.mean(self.tray.mask > 0))))
        raise _Learned

    model._finish_learning = traced  # type: ignore[method-assign]
    try:
        analyze_cli.analyze_recording(rec, use_imu=False, use_recognizer=False)
    except _Learned:
        pass
    finally:
        model._finish_learning = finish  # type: ignore[method-assign]
    if not got:
        raise SystemExit(f"{rec}: the background was never learned")
    return got[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rec", type=Path, nargs="*")
    args = ap.parse_args()
    recs = args.rec or tuning_recordings()
    moved = []
    for rec in recs:
        if is_heldout(rec):
            raise SystemExit(f"{rec} is held out: never look at it here")
        whole, tray, share = tray_noise(rec)
        old, new = max(14.0, 5.0 * whole), max(14.0, 5.0 * tray)
        if abs(old - new) > 0.5:
            moved.append((old - new, rec.name, whole, tray, share, old, new))
    print(f"{len(recs)} recordings; the felt's threshold differs from the picture's on {len(moved)} "
          f"({sum(m[0] > 0 for m in moved)} down, {sum(m[0] < 0 for m in moved)} up)")
    for _, name, whole, tray, share, old, new in sorted(moved, reverse=True):
        print(f"  {name}: noise {whole:.2f} -> {tray:.2f} (tray {share:.0%} of the picture), threshold {old:.1f} -> {new:.1f}")


if __name__ == "__main__":
    main()
