#!/usr/bin/env python3
"""How many letters a table reads when every letter a judge gives teaches it that face.

    .venv/bin/python bench/learn_from_rulings.py --rec /tmp/tune-twin-910/seed910*_n9_fps60 [--taught] [--jobs 2]

At the table, a valid spin whose letter the machine could not read goes to a judge, who says which letter is up;
the table then learns the resting picture as a taught still of that letter (``confirm`` with ``teach``, see
``controller/table_commands.py``), and the next time that face lands it is read like a taught one. This script
plays that on recordings (each has ``truth.json``): each is judged as ``sevivon analyze`` does (IMU when
present; untaught unless ``--taught``, which starts from the recording's ``enroll/`` stills), once as it is and
once learning from rulings: when a verdict of a truly valid spin has no letter, the picture the judge read first
at rest (the table's ``rest.png``) is taught with the true letter before the next frame, as a judge's ruling
would teach it. Reported per mode: letters read right / unread / WRONG on truly valid spins, and how many stills
the rulings taught. A wrong letter after learning is what the feature must never cause.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.analyze_cli import analyze_recording, load_recognizer  # noqa: E402
from controller.judge import SpinJudge, SpinVerdict  # noqa: E402
from controller.rules.letters import Letter  # noqa: E402
from controller.table_commands import RULING_TEACHES_UP_TO  # noqa: E402


class FirstRestPicture:
    """A letter reader that remembers the first picture it was asked to read since ``forget``: the judge's
    resting picture of the spin being read (the evidence still's frame, ``rest.png`` at the table)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.first: np.ndarray | None = None

    def read(self, image_bgr: np.ndarray, pose: Any = None, background_bgr: np.ndarray | None = None) -> Any:
        if self.first is None:
            self.first = image_bgr
        return self.inner.read(image_bgr, pose=pose, background_bgr=background_bgr)

    def forget(self) -> None:
        self.first = None


def _truth_of(truth: list[dict[str, Any]], v: SpinVerdict) -> dict[str, Any] | None:
    """The true spin whose rest (or release) is nearest the verdict's, within 2 s."""
    t = v.rest_t if v.rest_t is not None else v.release_t
    if t is None:
        return None
    key = "rest_t" if v.rest_t is not None else "release_t"
    best = min(truth, key=lambda s: abs(s[key] - t), default=None)
    return best if best is not None and abs(best[key] - t) < 2.0 else None


def judge_one(rec: Path, taught: bool, learn: bool) -> dict[str, Any]:
    """Judge ``rec``, learning from rulings when ``learn``; letters on truly valid spins."""
    truth = json.loads((rec / "truth.json").read_text())
    enroll = rec / "enroll" if taught and (rec / "enroll").is_dir() else None
    inner, _ = load_recognizer(enroll)
    reader = FirstRestPicture(inner)
    learned: list[str] = []

    def ruling(judge: SpinJudge, v: SpinVerdict) -> None:
        first, reader.first = reader.first, None
        tr = _truth_of(truth, v)
        if not learn or v.letter is not None or first is None or tr is None or not tr["valid"]:
            return
        letter = Letter.parse(tr["letter"])
        reader.inner, skipped = reader.inner.with_usable_enrollment([(letter, first)], [f"spin {tr['index']}"])
        if not skipped:
            learned.append(f"{tr['index']}:{letter.value}")

    verdicts, _ = analyze_recording(rec, recognizer=reader, enroll_dir=None, on_verdict=ruling)
    right = unread = 0
    wrong: list[str] = []
    for tr in truth:
        if not tr["valid"]:
            continue
        v = next((v for v in verdicts if _truth_of(truth, v) is tr), None)
        got = None if v is None or v.letter is None else v.letter.value
        if got is None:
            unread += 1
        elif got == tr["letter"]:
            right += 1
        else:
            wrong.append(f"{rec.name} spin {tr['index']}: {got} for {tr['letter']}")
    return {"rec": rec.name, "right": right, "unread": unread, "wrong": wrong, "learned": learned}


def stills_stream(kind: str, dreidels: int, per_letter: int, seed: int) -> dict[str, int]:
    """A game's letters on stills: per dreidel, ``per_letter`` stills of each of its letters in a random order, read
    one after the other by the untaught reader, by one that every ruling on an unread still teaches (up to
    ``RULING_TEACHES_UP_TO`` per letter, never a still the generic reader clearly reads as another letter, as at
    the table), and by one taught three stills per letter before the game (``enroll/``, read on the rest)."""
    import bench_letters

    make = {"twin": bench_letters.twin_stills, "altsim": bench_letters.altsim_stills}[kind]
    sets = make(dreidels, per_letter - bench_letters.TEACH)
    generic, _ = load_recognizer(None)
    out = {k: 0 for k in ("stills", "generic right", "generic WRONG", "learning right", "learning WRONG",
                          "taught by rulings", "taught in advance right", "taught in advance WRONG",
                          "taught in advance stills")}
    rng = np.random.default_rng(seed)
    for teach, ask in sets:
        stream = [x for _, x in sorted(zip(rng.random(len(teach) + len(ask)), [*teach, *ask], strict=True),
                                       key=lambda p: p[0])]
        learning = generic
        per: dict[Letter, int] = {}
        for still in stream:
            out["stills"] += 1
            g = generic.read(still.image)
            out["generic right"] += g.letter is still.letter
            out["generic WRONG"] += g.letter not in (None, still.letter)
            got = learning.read(still.image) if learning is not generic else g
            out["learning right"] += got.letter is still.letter
            out["learning WRONG"] += got.letter not in (None, still.letter)
            if got.letter is None and per.get(still.letter, 0) < RULING_TEACHES_UP_TO and \
                    g.letter in (None, still.letter):
                learning, skipped = learning.with_usable_enrollment([(still.letter, still.image)])
                if not skipped:
                    per[still.letter] = per.get(still.letter, 0) + 1
                    out["taught by rulings"] += 1
        advance, _ = generic.with_usable_enrollment([(x.letter, x.image) for x in teach])
        for still in ask:
            got = advance.read(still.image)
            out["taught in advance stills"] += 1
            out["taught in advance right"] += got.letter is still.letter
            out["taught in advance WRONG"] += got.letter not in (None, still.letter)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rec", type=Path, nargs="+", default=[])
    ap.add_argument("--taught", action="store_true", help="start from each recording's enroll/ stills")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--stills", choices=["twin", "altsim"], default=None,
                    help="instead of recordings: a game's letters on tuning stills of this renderer")
    ap.add_argument("--dreidels", type=int, default=12)
    ap.add_argument("--per-letter", type=int, default=6, help="stills of each letter per dreidel (--stills)")
    args = ap.parse_args(argv)
    if args.stills:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        got = stills_stream(args.stills, args.dreidels, args.per_letter, seed=1)
        print(json.dumps(got))
        wrong = got["learning WRONG"]
        print(f"{args.stills} stills, {args.dreidels} dreidels, {got['stills']} stills in a random order: "
              f"untaught {got['generic right']} right, {got['generic WRONG']} WRONG; learning from rulings "
              f"{got['learning right']} right, {wrong} WRONG ({got['taught by rulings']} stills taught); "
              f"taught 3 per letter in advance, on the other {got['taught in advance stills']}: "
              f"{got['taught in advance right']} right, {got['taught in advance WRONG']} WRONG")
        return 1 if wrong else 0
    if not args.rec:
        ap.error("give --rec recordings or --stills")
    recs = [r for r in args.rec if (r / "truth.json").is_file()]
    if not recs:
        ap.error("no recording with truth.json among --rec")
    totals: dict[str, dict[str, int]] = {}
    wrongs: dict[str, list[str]] = {}
    with ProcessPoolExecutor(args.jobs) as ex:
        for learn in (False, True):
            name = "learning from rulings" if learn else "as it is"
            rows = list(ex.map(judge_one, recs, [args.taught] * len(recs), [learn] * len(recs)))
            for row in rows:
                if learn:
                    print(json.dumps(row), flush=True)
            totals[name] = {k: sum(r[k] for r in rows) for k in ("right", "unread")}
            totals[name]["taught from rulings"] = sum(len(r["learned"]) for r in rows)
            wrongs[name] = [w for r in rows for w in r["wrong"]]
    start = "taught from enroll/" if args.taught else "untaught"
    print(f"{len(recs)} recordings, {start}; letters on truly valid spins:")
    for name, t in totals.items():
        n = t["right"] + t["unread"] + len(wrongs[name])
        print(f"  {name:>22}: right {t['right']} of {n}, unread {t['unread']}, WRONG {len(wrongs[name])}"
              f"; stills taught by rulings {t['taught from rulings']}")
        for w in wrongs[name]:
            print(f"      WRONG {w}")
    return 1 if wrongs["learning from rulings"] else 0


if __name__ == "__main__":
    sys.exit(main())
