"""Twin recordings written at several JPEG qualities from the very same rendered frames (H45's probe).

``hardware.sim.recorder.record_session`` always writes at the recorder's default quality (92); this
tool swaps in a writer that sends every frame, IMU sample, truth and still to one recording per
quality, so the only difference between the copies is the video's JPEG quality. Layout as
``bench/eval_judge.py``'s cache (``DIR/qQ/seed{S}_n{N}_fps{F}``), so ``eval_judge.py --rec`` reads them.

    .venv/bin/python bench/jpeg_twin_copies.py --out /tmp/h45/twin --seeds 52001,52002 --qualities 92,55
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import hardware.sim.recorder as recorder  # noqa: E402
from bench.eval_judge import KINDS  # noqa: E402
from bench.tuning_sets import HELDOUT_TWIN  # noqa: E402
from hardware.recording import RecordingWriter  # noqa: E402
from hardware.sim.physics import parse_kinds  # noqa: E402


class TeeWriter:
    """Looks like one RecordingWriter; writes to one per (directory, quality)."""

    def __init__(self, outs: list[tuple[Path, int]], *args: Any, **kw: Any) -> None:
        self.writers = [RecordingWriter(d, *args, jpeg_quality=q, **kw) for d, q in outs]

    def __enter__(self) -> TeeWriter:
        for w in self.writers:
            w.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        for w in self.writers:
            w.__exit__(*exc)

    @property
    def frame_count(self) -> int:
        return self.writers[0].frame_count

    def write_frame(self, image: Any, t: float) -> int:
        return [w.write_frame(image, t) for w in self.writers][0]

    def write_imu(self, samples: Iterable[Any]) -> None:
        rows = list(samples)
        for w in self.writers:
            w.write_imu(rows)

    def write_truth(self, truth: Any) -> None:
        for w in self.writers:
            w.write_truth(truth)

    def write_enroll(self, letter: Any, image: Any) -> None:
        for w in self.writers:
            w.write_enroll(letter, image)


def render(out: Path, seed: int, qualities: list[int], spins: int = 9, fps: float = 60.0) -> list[Path]:
    name = f"seed{seed}_n{spins}_fps{int(fps)}"
    dirs = [out / f"q{q}" / name for q in qualities]
    if all((d / "truth.json").is_file() for d in dirs):
        return dirs
    primary = dirs[0]
    outs = list(zip(dirs, qualities, strict=True))
    orig = recorder.RecordingWriter
    recorder.RecordingWriter = lambda _out, *a, **kw: TeeWriter(outs, *a, **kw)  # type: ignore[assignment,misc]
    try:
        kinds = parse_kinds(KINDS)
        k = seed % len(kinds)
        recorder.record_session(primary, spins=spins, seed=seed, fps=fps, imu=True, enroll=True,
                                kinds=kinds[k:] + kinds[:k])
    finally:
        recorder.RecordingWriter = orig  # type: ignore[misc]
    for d in dirs[1:]:
        shutil.copy(primary / recorder.TRACK_FILE, d / recorder.TRACK_FILE)
    return dirs


def main(argv: Iterable[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seeds", type=lambda s: [int(x) for x in s.split(",")], required=True)
    ap.add_argument("--qualities", type=lambda s: [int(x) for x in s.split(",")], default=[92, 55])
    ap.add_argument("--spins", type=int, default=9)
    ap.add_argument("--fps", type=float, default=60.0)
    args = ap.parse_args(list(argv) if argv is not None else None)
    for s in args.seeds:
        if s >= HELDOUT_TWIN:
            ap.error(f"twin seeds from {HELDOUT_TWIN} on are held out ({s})")
        for d in render(args.out, s, args.qualities, args.spins, args.fps):
            print(d)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
