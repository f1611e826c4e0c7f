"""The camera-only judge on the same recordings written at different JPEG qualities, spin by spin (H45).

Each ``--set NAME=DIR`` holds recordings with the same names (rendered from the same frames at one
quality, see ``bench/jpeg_twin_copies.py`` and ``eval_unseen.py --jpeg-quality/--also-jpeg``); every
recording is judged with ``sevivon analyze REC --json --no-imu`` (cached in ``--cache``, never in the recordings' folders)
and each true spin is matched to the reported one whose release is nearest. Printed per spin: the true
release, wobble and stable time, and per set the judged release, wobble and stable time's error;
then, per set, the stable error's median / p95 over the spins eval_judge / eval_unseen count.

    .venv/bin/python bench/jpeg_quality_compare.py --set q92=/tmp/h45/alt-q92 --set q55=/tmp/h45/alt-q55 \
        --set native=/tmp/tune-alt-920
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.eval_unseen import match  # noqa: E402

SEVIVON = ROOT / ".venv" / "bin" / "sevivon"
UNSCORED = ("hand_touch", "no_release")


def judged(rec: Path, cache: Path, imu: bool = False) -> dict[str, Any] | None:
    cache.parent.mkdir(parents=True, exist_ok=True)
    if cache.is_file():
        return dict(json.loads(cache.read_text()))
    cmd = [str(SEVIVON), "analyze", str(rec), "--json"] + ([] if imu else ["--no-imu"])
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if p.returncode != 0:
        print(f"analyze {rec} failed: {p.stderr.strip()[-300:]}", file=sys.stderr)
        return None
    cache.write_text(p.stdout)
    return dict(json.loads(p.stdout))



def _truth(rec: Path) -> list[dict[str, Any]]:
    data = json.loads((rec / "truth.json").read_text())
    return list(data["spins"] if isinstance(data, dict) else data)


def main(argv: Iterable[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", action="append", required=True, metavar="NAME=DIR")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--imu", action="store_true", help="judge with the IMU instead (cached apart)")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/h45/judged"), help="analyze's answers, per set")
    ap.add_argument("--json", type=Path, default=None, help="write the per-spin rows here")
    args = ap.parse_args(list(argv) if argv is not None else None)
    sets = [(n, Path(d)) for n, _, d in (s.partition("=") for s in args.set)]
    names = sorted({r.name for _, d in sets for r in d.iterdir() if (r / "truth.json").is_file()})
    names = [n for n in names if all((d / n / "truth.json").is_file() for _, d in sets)]
    jobs = [(sn, d / n) for n in names for sn, d in sets]
    mode = "imu" if args.imu else "cam"

    def one(job: tuple[str, Path]) -> dict[str, Any] | None:
        sn, rec = job
        return judged(rec, args.cache / sn / f"{rec.name}_{mode}.json", args.imu)

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        outs = {rec: res for (_, rec), res in zip(jobs, pool.map(one, jobs), strict=True)}
    rows = []
    errs: dict[str, list[float]] = {n: [] for n, _ in sets}
    head = f"{'rec':<22}{'#':>2} {'kind':<15}{'rel':>7}{'wob':>7}{'stab':>6} |" + "".join(
        f" {n + ' rel/wob/err':>22}" for n, _ in sets)
    print(head)
    for name in names:
        truth = _truth(sets[0][1] / name)
        per = []
        for _, d in sets:
            res = outs[d / name]
            per.append(match(truth, list(res.get("spins", [])))[0] if res else [None] * len(truth))
        for k, tr in enumerate(truth):
            counted = tr.get("wobble_t") is not None and tr["kind"] not in UNSCORED
            line = (f"{name:<22}{k:>2} {tr['kind']:<15}{tr['release_t']:>7.2f}"
                    f"{(tr['wobble_t'] if tr['wobble_t'] is not None else float('nan')):>7.2f}{tr['stable_s']:>6.2f} |")
            row: dict[str, Any] = {"rec": name, "spin": k, "kind": tr["kind"], "truth": {
                x: tr.get(x) for x in ("release_t", "wobble_t", "stable_s", "valid")}}
            for (sn, _), got in zip(sets, per, strict=True):
                g = got[k]
                if g is None or g.get("stable_s") is None:
                    line += f" {'-':>22}"
                    continue
                e = float(g["stable_s"]) - float(tr["stable_s"])
                wob = g.get("wobble_t")
                line += f" {g['release_t']:>7.2f}/{(wob if wob is not None else float('nan')):>6.2f}/{e:>+6.2f}"
                row[sn] = {x: g.get(x) for x in ("release_t", "wobble_t", "stable_s", "valid", "reasons")}
                row[sn]["err"] = e
                if counted:
                    errs[sn].append(abs(e))
            rows.append(row)
            print(line + ("" if counted else "  (not counted)"))
    print()
    for sn, xs in errs.items():
        if xs:
            print(f"{sn:<10} n={len(xs):>3}  stable |err| median {np.median(xs):.3f}  p95 {np.percentile(xs, 95):.3f}"
                  f"  mean {np.mean(xs):.3f}  >0.15: {sum(x > 0.15 for x in xs)}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
