#!/usr/bin/env python3
"""Which rule refuses the Nuns and Gimels that go unread, and at what face size (H47, tuning data only).

    .venv/bin/python bench/diag_nun_gimel.py render --set twin --seed0 8500000 --dreidels 12 --out /tmp/h47/twin85
    .venv/bin/python bench/diag_nun_gimel.py render --set synth --seed0 99800000 --dreidels 12 --out /tmp/h47/syn998
    .venv/bin/python bench/diag_nun_gimel.py diagnose /tmp/h47/twin85 /tmp/tune-alt-940/stills [--taught] [--png DIR]

``render`` stores bench_letters' stills (3 taught + Q queries per dreidel and letter) as PNGs with a
``stills.json`` index, so that every later reading uses the very same pictures. ``diagnose`` reads every query
(an altsim ``stills`` folder of eval_unseen is read as is: ``<seed>_<letter>.png``, generic only) as
``LetterRecognizer.read`` does and sorts each Nun and Gimel into the rule that refused it:

- ``read`` / ``WRONG``: read right / read as another letter;
- ``pose``: no dreidel or no face (or no contrast);
- ``guess``: the network's best letter is another letter (below every threshold);
- ``letter_thr``: the best guess is right but below the letter's own threshold (0.95);
- ``size_never``: a face size never read (below 14 px);
- ``size_thr``: above the letter's threshold but below its face size's (``confusable_bins``);
- ``unsteady``: above the size threshold, but a nudged cut named another letter or the mean fell under it;
- ``conflict``: taught and generic disagree.

``--png DIR`` writes, for every refused Nun/Gimel, the still's face (cut at 32 px as the network sees it and at
96 px from the same outline) and its two network channels, enlarged, to look at.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.rules.letters import Letter  # noqa: E402
from vision.features import face_channels, face_input, face_patch  # noqa: E402
from vision.pose import find_resting_dreidel  # noqa: E402
from vision.recognizer import (  # noqa: E402
    CONFUSABLE,
    DEFAULT_MODEL,
    DEFAULT_PAIR_MODEL,
    LETTERS,
    MIN_CONTRAST,
    LetterModel,
    LetterRecognizer,
    PairLook,
    face_side_px,
)

SIZE_BINS = (0.0, 14.0, 17.0, 20.0, 23.0, 26.0, 30.0, 34.0, 1e9)


def render(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    import bench_letters as bl  # noqa: PLC0415

    make = {"twin": bl.twin_stills, "synth": bl.synth_stills, "altsim": bl.altsim_stills}[args.set]
    spread = {"twin": 1000, "synth": 1, "altsim": 1}[args.set]
    if args.set != "altsim":
        bl.tuning_seed0(args.seed0, args.dreidels, spread)
    sets = make(args.dreidels, args.queries, args.seed0)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    index = []
    for teach, ask in sets:
        for role, stills in (("teach", teach), ("query", ask)):
            for k, s in enumerate(stills):
                name = f"d{s.dreidel:02d}_{role}_{s.letter.value}_{k}.png"
                cv2.imwrite(str(out / name), s.image)
                index.append({"image": name, "letter": s.letter.value, "dreidel": s.dreidel, "role": role})
    (out / "stills.json").write_text(json.dumps({"set": args.set, "seed0": args.seed0, "stills": index}, indent=1))
    print(f"{len(index)} stills in {out}")


def load_set(folder: Path) -> list[dict]:
    """Rows of one stored set: image path, letter, dreidel, role."""
    idx = folder / "stills.json"
    if idx.is_file():
        meta = json.loads(idx.read_text())
        return [{**r, "path": folder / r["image"], "set": folder.name} for r in meta["stills"]]
    rows = []
    name = f"{folder.parent.name}/{folder.name}"  # eval_unseen's <out>/stills: the out folder names the set
    for p in sorted(folder.glob("*_*.png")):
        seed, letter = p.stem.split("_", 1)
        rows.append({"path": p, "letter": letter, "dreidel": int(seed), "role": "query", "set": name})
    return rows


def by_dreidel(folder: Path) -> list[tuple[int, list[dict]]]:
    """One stored set's rows grouped by dreidel, in dreidel order."""
    groups: dict[int, list[dict]] = defaultdict(list)
    for r in load_set(folder):
        groups[r["dreidel"]].append(r)
    return sorted(groups.items())


def taught_stills(rows: list[dict]) -> list[tuple[Letter, np.ndarray]]:
    """The teaching stills among one dreidel's rows, read, as (letter, picture)."""
    return [(Letter.parse(r["letter"]), cv2.imread(str(r["path"]))) for r in rows if r["role"] == "teach"]


def classify(reader: LetterRecognizer, image: np.ndarray, truth: Letter) -> dict:
    """The read and, for a refusal, the rule that refused it (see the module docstring)."""
    c0 = time.process_time()
    pose = find_resting_dreidel(image)
    got = reader.read(image, pose)
    cpu_ms = 1000 * (time.process_time() - c0)
    row: dict = {"cpu_ms": cpu_ms, "read": None if got.letter is None else got.letter.value, "conf": round(got.confidence, 4),
                 "reason": got.reason, "side": 0.0, "best": None}
    if pose is None or pose.face_quad is None:
        row["cause"] = "pose"
        return row
    row["side"] = round(face_side_px(pose.face_quad), 1)
    row["quad"] = np.asarray(pose.face_quad).tolist()
    best = max(got.scores, key=got.scores.__getitem__)
    row["best"] = best.value
    row["p_truth"] = round(got.scores[truth], 4)
    if got.letter is not None:
        row["cause"] = "read" if got.letter is truth else "WRONG"
        if got.letter is truth and "second look" in got.reason:
            row["cause"] = "read2"
        return row
    face = face_input(image, pose.face_quad)
    r = got.reason
    if face.contrast < MIN_CONTRAST or "no letter" in r:
        row["cause"] = "pose"
    elif "taught and the generic" in r:
        row["cause"] = "conflict"
    elif best is not truth:
        row["cause"] = "guess"
    elif "too small" in r:
        row["cause"] = "size_never"
    elif "not sure enough at that size" in r:
        row["cause"] = "size_thr"
    elif "not steady" in r:
        row["cause"] = "unsteady"
    elif "not sure enough" in r:
        row["cause"] = "letter_thr"
    else:
        row["cause"] = "other"
    if best in CONFUSABLE and best is truth:
        bi = LETTERS.index(best)
        row["steady"] = round(reader.steadiness(image, pose.face_quad, bi, got.confidence, pose.confidence), 4)
    return row


def save_png(out: Path, name: str, image: np.ndarray, quad: list) -> None:
    q = np.array(quad)
    p32 = face_patch(image, q)
    p96 = face_patch(image, q, size=96)
    ch = face_channels(p32).tensor
    big = cv2.resize(p32, (192, 192), interpolation=cv2.INTER_NEAREST)
    big96 = cv2.resize(p96, (192, 192), interpolation=cv2.INTER_CUBIC)

    def gray(c: np.ndarray, lo: float, hi: float) -> np.ndarray:
        g = np.clip((c - lo) / (hi - lo) * 255, 0, 255).astype(np.uint8)
        return cv2.cvtColor(cv2.resize(g, (192, 192), interpolation=cv2.INTER_NEAREST), cv2.COLOR_GRAY2BGR)

    row = np.hstack([big, big96, gray(ch[0], 0, 1.5), gray(ch[1], -1.5, 1.5)])
    cv2.imwrite(str(out / f"{name}.png"), row)


def reader_of(args: argparse.Namespace) -> LetterRecognizer:
    """The recognizer asked for: ``--pair none`` reads without the second look, ``--pair M.onnx`` with that one,
    else the default (with the shipped second look when there is one)."""
    model = LetterModel.load(Path(args.model)) if args.model else LetterModel.load(DEFAULT_MODEL)
    if args.pair == "none":
        return LetterRecognizer(model)
    return LetterRecognizer(model, pair=PairLook.load(Path(args.pair) if args.pair else DEFAULT_PAIR_MODEL))


def diagnose(args: argparse.Namespace) -> None:
    generic = reader_of(args)
    out_png = Path(args.png) if args.png else None
    if out_png:
        out_png.mkdir(parents=True, exist_ok=True)
    all_rows = []
    for folder in args.folders:
        for d, rs in by_dreidel(Path(folder)):
            reader = generic
            if args.taught:
                teach = taught_stills(rs)
                if not teach:
                    continue
                try:
                    reader = generic.with_enrollment(teach)
                except ValueError:
                    continue
            for r in rs:
                if r["role"] != "query":
                    continue
                image = cv2.imread(str(r["path"]), cv2.IMREAD_COLOR)
                truth = Letter.parse(r["letter"])
                got = classify(reader, image, truth)
                got.update({"set": r["set"], "image": str(r["path"]), "truth": truth.value, "dreidel": d})
                all_rows.append(got)
                if out_png and truth in CONFUSABLE and got["cause"] != "read" and "quad" in got:
                    save_png(out_png, f"{r['set'].replace('/', '_')}_{Path(r['path']).stem}_{got['cause']}_{got['side']:.0f}px",
                             image, got["quad"])
    report(all_rows)
    if args.json:
        Path(args.json).write_text(json.dumps([{k: v for k, v in r.items() if k != "quad"} for r in all_rows],
                                              indent=0))


def report(rows: list[dict]) -> None:
    sets = sorted({r["set"] for r in rows})
    for s in sets + ["ALL"]:
        sel = [r for r in rows if s in ("ALL", r["set"])]
        right = sum(r["cause"] in ("read", "read2") for r in sel)
        wrong = sum(r["cause"] == "WRONG" for r in sel)
        print(f"\n=== {s}: {len(sel)} queries: right {right}, unreadable {len(sel) - right - wrong}, wrong {wrong} ===")
        for letter in LETTERS:
            ls = [r for r in sel if r["truth"] == letter.value]
            if not ls:
                continue
            c = Counter(r["cause"] for r in ls)
            print(f"  {letter.value:6s} {len(ls):4d}: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
        ng = [r for r in sel if r["truth"] in ("nun", "gimel")]
        print("  Nun/Gimel by face size (px): causes")
        for lo, hi in zip(SIZE_BINS[:-1], SIZE_BINS[1:], strict=True):
            b = [r for r in ng if lo <= r["side"] < hi and not (lo == 0 and r["cause"] == "pose")]
            if lo == 0:
                b = [r for r in ng if r["cause"] == "pose"] + [r for r in ng if 0 < r["side"] < hi and r["cause"] != "pose"]
            if b:
                c = Counter(f"{r['truth'][0]}:{r['cause']}" for r in b)
                print(f"    {lo:3.0f}-{hi:<4.0f} {len(b):3d}: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
    cpu = [r["cpu_ms"] for r in rows]
    print(f"\npose + letter CPU per still: median {np.median(cpu):.1f} ms, p90 {np.percentile(cpu, 90):.1f} ms")
    print("\nRefused Nun/Gimel (truth, cause, side, best, conf, p_truth, steady):")
    for r in rows:
        if r["truth"] in ("nun", "gimel") and r["cause"] != "read":
            print(f"  {r['set']:>10s} {Path(r['image']).stem:28s} {r['truth']:5s} {r['cause']:10s} {r['side']:5.1f} "
                  f"{r['best']!s:5s} {r['conf']:.3f} {r.get('p_truth', 0):.3f} {r.get('steady', '')}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("render")
    r.add_argument("--set", choices=["twin", "synth", "altsim"], required=True)
    r.add_argument("--seed0", type=int, required=True)
    r.add_argument("--dreidels", type=int, default=12)
    r.add_argument("--queries", type=int, default=2)
    r.add_argument("--out", required=True)
    d = sub.add_parser("diagnose")
    d.add_argument("folders", nargs="+")
    d.add_argument("--model", default=None, help="another letters.onnx (with its .json)")
    d.add_argument("--taught", action="store_true", help="teach each dreidel its 3 stills per letter first")
    d.add_argument("--png", default=None)
    d.add_argument("--json", default=None)
    d.add_argument("--pair", default=None, help="'none', or a nun_gimel.onnx (default: the shipped one)")
    b = sub.add_parser("bank", help="bench/letter_frame_bank.py read, with or without a second look")
    b.add_argument("--bank", required=True)
    b.add_argument("--no-enroll", action="store_true")
    b.add_argument("--verbose", action="store_true")
    b.add_argument("--pair", default=None, help="'none', or a nun_gimel.onnx (default: the shipped one)")
    args = ap.parse_args()
    if args.cmd == "bank":
        read_bank(args)
        return
    (render if args.cmd == "render" else diagnose)(args)


def read_bank(args: argparse.Namespace) -> None:
    import vision.recognizer as rec  # noqa: PLC0415

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    import letter_frame_bank  # noqa: PLC0415

    rec.DEFAULT_PAIR_MODEL = Path("/nonexistent/nun_gimel.onnx") if args.pair == "none" else Path(
        args.pair) if args.pair else DEFAULT_PAIR_MODEL
    # the bank pickles its frames as the __main__ of letter_frame_bank.py
    sys.modules["__main__"].BankedFrame = letter_frame_bank.BankedFrame  # type: ignore[attr-defined]
    letter_frame_bank.read(Path(args.bank), None, not args.no_enroll, args.verbose)


if __name__ == "__main__":
    main()
