"""H49: on which frames of a recording does the tracker's lost-top rule (``_top_lost_in_shadow``) fire?

    .venv/bin/python bench/diag_lost_top_fires.py [--imu] --out X.jsonl REC...

Judges each recording (letters off; camera-only unless ``--imu``) with the working tree's tracker and a spy
on the rule, and appends one JSON line per recording: the times of the frames where it left the frame
without a dreidel, and the verdicts. Where it never fires the tracking, and so every verdict, is the same as
without the rule (it is the change's only effect). Never pass held-out recordings.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tuning_sets import is_heldout  # noqa: E402

from controller import analyze_cli  # noqa: E402
from vision import tracker as tracker_mod  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--imu", action="store_true")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("recs", type=Path, nargs="+")
    args = ap.parse_args()
    cls = tracker_mod.DreidelTracker
    rule = cls._top_lost_in_shadow
    fired: list[float] = []

    def spy(self: Any, box: Any, area_raw: int) -> bool:
        r = rule(self, box, area_raw)
        if r:
            fired.append(round(self._now, 4))
        return r

    cls._top_lost_in_shadow = spy  # type: ignore[method-assign]
    for rec in args.recs:
        if is_heldout(rec):
            raise SystemExit(f"{rec} is held out: never look at it here")
        if args.imu and not (rec / "imu.csv").exists() and not any(rec.glob("imu*")):
            continue
        fired.clear()
        t0 = time.time()
        verdicts, facts = analyze_cli.analyze_recording(rec, use_imu=args.imu, use_recognizer=False)
        row = dict(rec=str(rec), imu=facts["imu"], fired=len(fired), times=fired[:200],
                   verdicts=[v.to_json() for v in verdicts], secs=round(time.time() - t0, 1))
        print(rec.name, "imu" if facts["imu"] else "cam", "fired", len(fired), f"{row['secs']} s", flush=True)
        with args.out.open("a") as f:
            f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
