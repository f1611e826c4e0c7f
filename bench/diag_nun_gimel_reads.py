#!/usr/bin/env python3
"""Every Nun/Gimel the recognizer reads on stored stills, with what a veto could weigh (H52, tuning data only).

    .venv/bin/python bench/diag_nun_gimel_reads.py collect /tmp/h52/twin87 /tmp/tune-alt-980/stills --out rows.json
    .venv/bin/python bench/diag_nun_gimel_reads.py show rows.json

``collect`` reads every query of the folders that ``bench/diag_nun_gimel.py render`` wrote (or an altsim
``stills`` folder as is) like ``diag_nun_gimel.py diagnose`` (generic, or ``--taught``) and keeps, for each read
whose best letter is a Nun or Gimel: the truth, the letter read (None: refused), its confidence, the face's side,
the steadiness, the second look's p(letter read) on the face's own cut and its least over the nudged cuts, the
pose's confidence, when taught how alike the face is to the nearest taught face of the letter read (likeness) and
of the other one (rival), and, for twin stills, the dreidel's paint wear and font (from its seed: for the diagnosis only,
the recognizer never sees them). ``show`` prints the wrong reads and how many right reads each candidate veto
would cost.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from diag_nun_gimel import by_dreidel, taught_stills  # noqa: E402

from controller.rules.letters import Letter  # noqa: E402
from vision.features import face_input  # noqa: E402
from vision.pose import find_resting_dreidel  # noqa: E402
from vision.recognizer import CONFUSABLE, LETTERS, PAIR_PATCH, LetterRecognizer, face_side_px, nudged_quads  # noqa: E402


def style_of(folder: Path, dreidel: int) -> dict:
    """The twin dreidel's wear and font (diagnosis only); {} for other sets."""
    idx = folder / "stills.json"
    if not idx.is_file():
        return {}
    meta = json.loads(idx.read_text())
    if meta["set"] != "twin":
        return {}
    from hardware.sim.dreidel import resolve_style  # noqa: PLC0415

    s = resolve_style(None, int(meta["seed0"]) + dreidel)
    return {"wear": round(s.wear, 3), "font": Path(s.font_path).name, "material": s.material.value}


def collect(args: argparse.Namespace) -> None:
    generic = LetterRecognizer.default()
    assert generic.pair is not None, generic.pair_note
    rows = []
    for folder in map(Path, args.folders):
        for d, rs in by_dreidel(folder):
            reader = generic
            if args.taught:
                teach = taught_stills(rs)
                if not teach:
                    continue
                reader, _ = generic.with_usable_enrollment(teach)
            style = style_of(folder, d)
            for r in rs:
                if r["role"] != "query":
                    continue
                image = cv2.imread(str(r["path"]), cv2.IMREAD_COLOR)
                pose = find_resting_dreidel(image)
                got = reader.read(image, pose)
                if pose is None or pose.face_quad is None:
                    continue
                best = max(got.scores, key=got.scores.__getitem__)
                if best not in CONFUSABLE:
                    continue
                quad = np.asarray(pose.face_quad, np.float64)
                bi = LETTERS.index(best)
                compared = reader.taught_comparison(face_input(image, quad), bi, pose.confidence)
                taught = {} if compared is None else {"likeness": round(compared.likeness, 4),
                                                      "rival": round(compared.rival, 4)}
                pair = generic.pair
                p = pair.p_gimel([face_input(image, q, size=PAIR_PATCH).tensor for q in [quad, *nudged_quads(quad)]])
                p = p if best is Letter.GIMEL else 1.0 - p
                rows.append({
                    "set": r["set"], "image": str(r["path"]), "dreidel": d, "truth": r["letter"], "best": best.value,
                    "read": None if got.letter is None else got.letter.value, "conf": round(got.confidence, 4),
                    "reason": got.reason, "side": round(face_side_px(quad), 1), "pose": round(pose.confidence, 3),
                    "steady": round(reader.steadiness(image, quad, bi, got.confidence, pose.confidence), 4),
                    "pair_own": round(float(p[0]), 4), "pair_min": round(float(p.min()), 4), **taught, **style})
    Path(args.out).write_text(json.dumps(rows, indent=0))
    print(f"{len(rows)} Nun/Gimel guesses from {len(args.folders)} folders -> {args.out}")


def show(args: argparse.Namespace) -> None:
    rows = [r for f in args.rows for r in json.loads(Path(f).read_text())]
    read = [r for r in rows if r["read"] is not None]
    wrong = [r for r in read if r["read"] != r["truth"]]
    right = [r for r in read if r["read"] == r["truth"]]
    print(f"{len(rows)} Nun/Gimel guesses, {len(read)} read: {len(right)} right, {len(wrong)} wrong")
    for r in wrong:
        print(f"  WRONG {r['set']:>8s} {Path(r['image']).stem:22s} {r['truth']}->{r['read']} conf {r['conf']:.4f} "
              f"side {r['side']:.1f} steady {r['steady']:.4f} pair {r['pair_own']:.3f}/{r['pair_min']:.3f} "
              f"wear {r.get('wear', '-')} {r.get('font', '')}")
    print("right reads by set:", dict(sorted(_count(right).items())))
    for name, veto in (("pair_min < 0.95", lambda r: r["pair_min"] < 0.95),
                       ("pair_min < 0.98", lambda r: r["pair_min"] < 0.98),
                       ("pair_own < 0.98", lambda r: r["pair_own"] < 0.98),
                       ("conf < 0.998", lambda r: r["conf"] < 0.998),
                       ("conf < 0.998 and side < 30", lambda r: r["conf"] < 0.998 and r["side"] < 30)):
        lost = [r for r in right if veto(r)]
        caught = [r for r in wrong if veto(r)]
        print(f"  veto {name:28s}: wrong caught {len(caught)}/{len(wrong)}, right lost {len(lost)}/{len(right)} "
              f"{dict(sorted(_count(lost).items()))}")
    if any("rival" in r for r in right):
        for rival, margin in ((0.85, 0.1), (0.85, 0.05), (0.0, 0.0)):
            lost = [r for r in right if "rival" in r and r["rival"] >= rival and r["rival"] - r["likeness"] >= margin]
            print(f"  taught veto rival >= {rival} and rival - likeness >= {margin}: right lost {len(lost)}/{len(right)}")
    if any("wear" in r for r in right):
        worn = [r for r in right if r.get("wear", 0) > 0]
        print(f"right twin reads on worn dreidels: {len(worn)}; wear of the wrong reads: "
              f"{[r.get('wear') for r in wrong]}")


def _count(rows: list[dict]) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for r in rows:
        out[r["set"]] += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("folders", nargs="+")
    c.add_argument("--taught", action="store_true")
    c.add_argument("--out", required=True)
    s = sub.add_parser("show")
    s.add_argument("rows", nargs="+")
    args = ap.parse_args()
    (collect if args.cmd == "collect" else show)(args)


if __name__ == "__main__":
    main()
