#!/usr/bin/env python3
"""Letters on altsim recordings by case, against the stills of the very same dreidels.

    .venv/bin/python bench/letters_by_case.py --out /tmp/tune-alt-820 /tmp/tune-alt-840 ... --key size

``bench/eval_unseen.py`` breaks its letter figures down by case (picture size, table, finish, spin kind...).
A case can read badly because something in the pipeline fails for it (a coordinate slip between the tracking
and the main picture at some size) or because the dreidels that happened to land in it are hard to read
(a thin font, a small face, a Nun or Gimel up). This script tells the two apart: for every valid spin of the
runs in ``--out`` (their ``report.json``, written by eval_unseen) it takes whether the recording's letter was
read, and reads the still of the same dreidel with the same letter up (``<out>/stills/<seed>_<letter>.png``)
with the generic recognizer. A case whose recordings read as its stills do has no pipeline fault to find;
one whose stills read and recordings do not has.

Per value of ``--key`` it prints: the recordings' letters read (camera judgings, or ``--mode imu``), the same
dreidels' stills read, the spins where the two disagree each way, the share of Nun or Gimel up (the two
letters the model tells apart worst) and the median length of the resting dreidel; then every still of the
runs read per value (all letters, not only the ones that landed up). ``--list VALUE`` lists that value's spins.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.tuning_sets import HELDOUT_ALT  # noqa: E402
from vision.recognizer import LetterRecognizer  # noqa: E402

#: the scene facts eval_unseen's summary.json keeps, and the spin's own
KEYS = ("size", "table", "finish", "font", "lettering", "fps", "kind", "letter")


@dataclass(frozen=True)
class Spin:
    """One valid spin of one judging mode: its case values, whether the recording read its letter, and
    whether the still of the same dreidel with the same letter up reads."""

    seed: int
    index: int
    mode: str
    facts: dict[str, str]
    read: bool
    still_read: bool | None
    length_px: float


def still_reading(recognizer: LetterRecognizer, path: Path, letter: str, cache: dict[Path, bool]) -> bool | None:
    """Whether the still at ``path`` reads ``letter`` (None when there is no such still)."""
    if path not in cache:
        if not path.is_file():
            return None
        img = cv2.imread(str(path))
        if img is None:
            raise SystemExit(f"{path} is not a readable picture: re-render it with bench/eval_unseen.py")
        got = recognizer.read(img)
        cache[path] = got.letter is not None and got.letter.value == letter
    return cache[path]


def collect(outs: list[Path], recognizer: LetterRecognizer) -> tuple[list[Spin], dict[tuple[str, str], list[bool]]]:
    """Every valid spin of every run, and every still read per (key, value)."""
    spins: list[Spin] = []
    cache: dict[Path, bool] = {}
    for out in outs:
        report = out / "report.json"
        if not report.is_file():
            raise SystemExit(f"{report} is missing: run bench/eval_unseen.py --out {out} first")
        failed = {f["where"] for f in json.loads(report.read_text())["failures"] if "letter" in f["what"]}
        for rec in sorted(out.glob("rec_*")):
            summary = json.loads((rec / "summary.json").read_text())
            seed = int(summary["seed"])
            if seed >= HELDOUT_ALT:
                raise SystemExit(f"{rec}: seed {seed} is held out, not read")
            sc = summary["scene"]
            scene = {"size": sc["size"], "table": sc["table"], "finish": sc["finish"], "font": sc["font"],
                     "lettering": sc["lettering"], "fps": f"{sc['fps']:g}"}
            for tr in summary["truth"]:
                if not tr["valid"]:
                    continue
                still = still_reading(recognizer, out / "stills" / f"{seed}_{tr['letter']}.png", tr["letter"], cache)
                for mode in ("camera", "imu") if summary["imu"] else ("camera",):
                    where = f"seed {seed} spin {tr['index']} ({tr['kind']}, {mode})"
                    facts = dict(scene, kind=tr["kind"], letter=tr["letter"])
                    spins.append(Spin(seed, tr["index"], mode, facts, where not in failed, still,
                                      float(tr["length_px"])))
    stills: dict[tuple[str, str], list[bool]] = {}
    for out in outs:
        for rec in sorted(out.glob("rec_*")):
            summary = json.loads((rec / "summary.json").read_text())
            sc = summary["scene"]
            for png in sorted((out / "stills").glob(f"{summary['seed']}_*.png")):
                letter = png.stem.split("_", 1)[1]
                got = still_reading(recognizer, png, letter, cache)
                if got is None:
                    continue
                for key, value in (("size", sc["size"]), ("table", sc["table"]), ("finish", sc["finish"]),
                                   ("letter", letter)):
                    stills.setdefault((key, value), []).append(got)
    return spins, stills


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, nargs="+", required=True, help="eval_unseen output folders (tuning only)")
    ap.add_argument("--key", choices=KEYS, nargs="+", default=["size"], help="one table per key")
    ap.add_argument("--mode", choices=("camera", "imu"), default="camera")
    ap.add_argument("--list", default=None, help="list the spins of this value of (the first) --key")
    args = ap.parse_args()
    for out in args.out:
        if any(part.startswith("heldout") for part in out.resolve().parts):
            raise SystemExit(f"{out} is held-out data: not read")
    cv2.setNumThreads(1)
    spins, stills = collect(args.out, LetterRecognizer.default())
    mine = [s for s in spins if s.mode == args.mode]
    for key in args.key:
        table(key, mine, stills)
    if args.list is not None:
        for s in mine:
            if s.facts[args.key[0]] == args.list:
                print(json.dumps({"seed": s.seed, "spin": s.index, "read": s.read, "still_read": s.still_read,
                                  "length_px": s.length_px, **s.facts}))


def table(key: str, mine: list[Spin], stills: dict[tuple[str, str], list[bool]]) -> None:
    """One table: per value of ``key``, the recordings' letters against the same dreidels' stills."""
    print(f"\n{key:<28} {'recordings':>10} {'stills':>8} {'rec only':>8} {'still only':>10} {'nun/gimel':>9} "
          f"{'len px':>6}")
    for value in sorted({s.facts[key] for s in mine}):
        sel = [s for s in mine if s.facts[key] == value]
        n = len(sel)
        rec = sum(s.read for s in sel)
        still = sum(bool(s.still_read) for s in sel)
        rec_only = sum(s.read and not s.still_read for s in sel)
        still_only = sum((not s.read) and bool(s.still_read) for s in sel)
        ng = sum(s.facts["letter"] in ("nun", "gimel") for s in sel)
        print(f"{value:<28} {f'{rec}/{n}':>10} {f'{still}/{n}':>8} {rec_only:>8} {still_only:>10} {f'{ng}/{n}':>9} "
              f"{statistics.median(s.length_px for s in sel):>6.0f}")
    if key in ("size", "table", "finish", "letter"):
        print(f"every still of these runs by {key}: read / all")
        for (k, value), got in sorted(stills.items()):
            if k == key:
                print(f"  {value:<26} {sum(got)}/{len(got)} ({100 * sum(got) / len(got):.0f}%)")

if __name__ == "__main__":
    main()
