"""A recording's video decoded and written again at another JPEG quality (H45's cheap probe).

Everything but ``video.avi`` is copied (frames.csv, imu.csv, truth.json, track.csv, enroll/). A second
JPEG pass over an already coded picture is not the same as coding the rendered frame once, but from a
quality-92 source it is close to it; the renderers' own copies (``bench/jpeg_twin_copies.py``,
``eval_unseen.py --also-jpeg``) are the clean comparison.

    .venv/bin/python bench/jpeg_reencode.py --quality 55 --out /tmp/h45/re55 /tmp/tune-twin-600/seed60001_n9_fps60
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from hardware.recording import RecordingReader, RecordingWriter  # noqa: E402


def reencode(src: Path, dst: Path, quality: int) -> Path:
    if (dst / "truth.json").is_file():
        return dst
    meta = json.loads((src / "meta.json").read_text())
    reader = RecordingReader(src)
    with RecordingWriter(dst, meta["fps"], meta["width"], meta["height"], meta["source"], imu=meta["imu"],
                         jpeg_quality=quality) as w:
        for f in reader.frames():
            w.write_frame(f.image, f.t)
    for name in ("imu.csv", "truth.json", "track.csv", "frames.csv", "summary.json"):
        if (src / name).is_file():
            shutil.copy(src / name, dst / name)
    if (src / "enroll").is_dir():
        shutil.copytree(src / "enroll", dst / "enroll", dirs_exist_ok=True)
    return dst


def main(argv: Iterable[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rec", type=Path, nargs="+")
    ap.add_argument("--quality", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(list(argv) if argv is not None else None)
    for r in args.rec:
        print(reencode(r, args.out / r.name, args.quality))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
