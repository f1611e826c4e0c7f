#!/usr/bin/env python3
"""Would a lower floor for the Nun/Gimel second look be safe? (tuning stills only)

    .venv/bin/python bench/diag_second_look_floor.py --out /tmp/floor.json /tmp/h47/twin85 /tmp/tune-alt-960/stills ...

The second look (``vision/models/nun_gimel.onnx``) vouches for a Nun or Gimel that the letter network reads at the
letter's own threshold, steadily, but that its face size refuses, when it agrees at ``pair_bins``' threshold, which
the build never lets below 0.95 (``scripts/build_nun_gimel_model.py`` ``FLOOR``). On the judge's tuning frames the
refused Nuns often have the second look at 0.90-0.95, so a lower floor would read more of them. This reads every Nun
and Gimel query still of the folders given (``bench/diag_nun_gimel.py render`` folders with a ``stills.json``, or an
altsim ``stills`` folder of ``<seed>_<letter>.png``), keeps those whose best letter is Nun or Gimel at the letter's
threshold and steady (the second look's candidates, 14 px faces and up), and prints, for floors from 0.95 down,
how many right reads the face size refused would be added and how many reads of the wrong letter would reach it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tuning_sets import is_heldout  # noqa: E402

from vision.features import face_input  # noqa: E402
from vision.pose import find_resting_dreidel  # noqa: E402
from vision.recognizer import CONFUSABLE, LETTERS, LetterRecognizer, face_side_px  # noqa: E402

FLOORS = (0.95, 0.93, 0.92, 0.90, 0.88, 0.85)


def queries(folder: Path) -> Iterator[tuple[Path, str]]:
    """The Nun and Gimel query stills of a folder and their true letters."""
    index = folder / "stills.json"
    if index.is_file():
        for r in json.loads(index.read_text())["stills"]:
            if r["role"] == "query" and r["letter"] in ("nun", "gimel"):
                yield folder / r["image"], r["letter"]
        return
    for p in sorted(folder.glob("*_*.png")):
        letter = p.stem.split("_")[1]
        if letter in ("nun", "gimel"):
            yield p, letter


def candidates(folders: list[Path]) -> list[dict[str, object]]:
    """Every steady Nun/Gimel read at the letter's threshold, with the second look's agreement."""
    cv2.setNumThreads(1)
    rec = LetterRecognizer.default()
    if rec.pair is None:
        raise SystemExit("no second look (vision/models/nun_gimel.onnx) to measure")
    rows: list[dict[str, object]] = []
    for folder in folders:
        if is_heldout(folder) or "heldout" in str(folder):
            raise SystemExit(f"{folder} is held-out data")
        for path, truth in queries(folder):
            img = cv2.imread(str(path))
            pose = find_resting_dreidel(img)
            if img is None or pose is None or pose.face_quad is None:
                continue
            side = face_side_px(pose.face_quad)
            generic, _ = rec._face_scores([face_input(img, pose.face_quad)], pose.confidence)[0]
            conf = generic.confidence
            best = int(np.argmax(conf))
            threshold = rec.letter_thresholds[best]
            if LETTERS[best] not in CONFUSABLE or conf[best] < threshold or side < 14.0:
                continue
            steady = rec.steadiness(img, pose.face_quad, best, float(conf[best]), pose.confidence)
            if steady < threshold:
                continue
            agree = rec.pair.agreement(img, pose.face_quad, LETTERS[best])
            read = rec.read(img, pose=pose).letter
            rows.append({"still": str(path), "truth": truth, "best": LETTERS[best].value, "side": round(side, 1),
                         "conf": round(float(conf[best]), 4), "steady": round(float(steady), 4),
                         "agree": round(float(agree), 4), "read": None if read is None else read.value})
        print(f"{folder}: {len(rows)} candidates so far", file=sys.stderr, flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", type=Path, nargs="+")
    ap.add_argument("--out", type=Path, default=None, help="write the rows here (JSON)")
    args = ap.parse_args()
    rows = candidates(args.folders)
    if args.out is not None:
        args.out.write_text(json.dumps(rows, indent=1))
    wrong = [r for r in rows if r["best"] != r["truth"]]
    refused_right = [r for r in rows if r["best"] == r["truth"] and r["read"] is None]
    print(f"{len(rows)} steady Nun/Gimel reads at the letter's threshold: {len(wrong)} of the wrong letter, "
          f"{len(refused_right)} right but refused")
    for r in sorted(wrong, key=lambda r: -float(r["agree"])):  # type: ignore[arg-type]
        print(f"  WRONG {r['still']}: {r['truth']} read {r['best']} at {r['conf']} ({r['side']} px), "
              f"second look {r['agree']}, read now as {r['read']}")
    for floor in FLOORS:
        added = sum(1 for r in refused_right if float(r["agree"]) >= floor)  # type: ignore[arg-type]
        bad = sum(1 for r in wrong if float(r["agree"]) >= floor)  # type: ignore[arg-type]
        print(f"  floor {floor:.2f}: {added} right reads added, {bad} wrong reads reach it")


if __name__ == "__main__":
    main()
