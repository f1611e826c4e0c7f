#!/usr/bin/env python3
"""Which read faces look like a cast shadow? The shadow-like share of every read face, against the truth.

    .venv/bin/python bench/diag_shadow_faces.py                  # 450 stills per renderer, list shares >= 0.4
    .venv/bin/python bench/diag_shadow_faces.py --n 150 --list 0.2

The pose measures ``RestPose.face_shadowlike``: the share of the face's pixels that darken the felt's three
colour channels alike, as a cast shadow does (``vision.pose.SHADOWLIKE_FACE``; the recognizer refuses a face at
or over it). This bench reads tuning stills untaught with the refusal switched off (the share set to 0 for the
read). It prints, per renderer and with or without an empty-tray picture: the reads right and wrong, how many of
each the bar refuses, the highest share of a right read, the lowest of a wrong one, and every read at or over
``--list``.

The stills are bench_pose.py's (twin, letter_synth and altsim tuning seeds, with their empty tray) and the
rendered stills of the altsim tuning recordings (``same_pose.ALT_STILL_GLOBS``, below the held-out floor).
Held-out seeds are never rendered.

Found with it (session 41, 450 stills per renderer and the 192 stills of 1640000-1680015: 2,892 reads): four
wrong reads had faces 77-81% shadow-like (1680004's Gimel, Hey and Pe as Shin, no empty tray; altsim 700012
still 0, a Nun as Hey with it); every right read was at most 60%.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_pose import TruthStill, alt_stills, synth_stills, twin_stills  # noqa: E402
from same_pose import ALT_HELDOUT_FLOOR, ALT_STILL_GLOBS  # noqa: E402

from vision.pose import SHADOWLIKE_FACE, find_resting_dreidel  # noqa: E402
from vision.recognizer import LetterRecognizer  # noqa: E402


def stills(n: int) -> Iterator[TruthStill]:
    """The recordings' stills, then ``n`` of each renderer's (bench_pose.py's seeds and sizes)."""
    for png in sorted(p for g in ALT_STILL_GLOBS for p in Path(g).glob("*.png")
                      if int(p.name.split("_")[0]) < ALT_HELDOUT_FLOOR):
        truth = json.loads(png.with_suffix(".json").read_text())
        yield TruthStill("recording stills", png.stem, cv2.imread(str(png)), np.array(truth["face_quad_px"]),
                         (-float(truth["tip_angle_deg"])) % 360.0, None, truth["letter"])
    yield from twin_stills(n)
    yield from synth_stills(n)
    yield from alt_stills(n)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=450, help="stills per renderer")
    ap.add_argument("--list", type=float, default=0.4, help="list every read face at least this shadow-like")
    args = ap.parse_args()
    reader = LetterRecognizer.default()
    table: dict[str, dict[str, list[float]]] = {}
    listed: list[str] = []
    for s in stills(args.n):
        for bg in (None, s.background) if s.background is not None else (None,):
            pose = find_resting_dreidel(s.image, background_bgr=bg)
            if pose is None or pose.face_quad is None:
                continue
            reading = reader.read(s.image, replace(pose, face_shadowlike=0.0), background_bgr=bg)
            if reading.letter is None:
                continue
            kind = f"{s.source}, {'with' if bg is not None else 'without'} the empty tray"
            right = reading.letter.value == s.letter
            table.setdefault(kind, {"right": [], "wrong": []})["right" if right else "wrong"].append(pose.face_shadowlike)
            if pose.face_shadowlike >= args.list:
                listed.append(f"  {s.name:24s} {kind:40s} {s.letter:6s} read {reading.letter.value:6s} at "
                              f"{reading.confidence:.3f}, {'right' if right else 'WRONG'}, {pose.face_shadowlike:.2f} "
                              "shadow-like")
    print(f"read faces (untaught; refused at {SHADOWLIKE_FACE:.2f} shadow-like or more)")
    for kind, got in table.items():
        r, w = got["right"], got["wrong"]
        print(f"  {kind:45s} right {len(r):4d} (refused {sum(v >= SHADOWLIKE_FACE for v in r)}, highest "
              f"{max(r, default=0):.2f}), wrong {len(w):3d} (refused {sum(v >= SHADOWLIKE_FACE for v in w)}, "
              f"lowest {min(w, default=math.nan):.2f})")
    print(f"reads at least {args.list:.2f} shadow-like:")
    print("\n".join(listed) if listed else "  none")


if __name__ == "__main__":
    main()
