"""``python -m bench.altsim``: record sessions, render stills and phase galleries of the alternative table."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
import cv2
import numpy as np

from bench.altsim.record import SIZES, AltTable, SessionSpec, record
from controller.rules.letters import Letter
from hardware.sim.physics import SpinKind, parse_kinds


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise click.BadParameter(f"{text!r}: write the picture size as WIDTHxHEIGHT, e.g. 800x600") from None
    return w, h


@click.group()
def main() -> None:
    """The alternative dreidel-table renderer (an unseen checker's stand-in)."""


@main.command("record")
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option("--seed", type=int, required=True)
@click.option("--spins", type=int, default=2, show_default=True)
@click.option("--kinds", default="", help="comma-separated spin kinds to cycle (default: realistic random)")
@click.option("--size", default="", help=f"WIDTHxHEIGHT (default: from the seed, one of {SIZES})")
@click.option("--fps", type=float, default=None, help="60 or 120 (default: from the seed)")
@click.option("--imu/--no-imu", default=None, help="write imu.csv (default: from the seed)")
@click.option("--enroll/--no-enroll", default=None, help="write enroll/ stills (default: from the seed)")
def record_cmd(out: Path, seed: int, spins: int, kinds: str, size: str, fps: float | None, imu: bool | None,
               enroll: bool | None) -> None:
    """Write one recording in the DESIGN.md format (with truth.json) to OUT."""
    try:
        ks = parse_kinds(kinds) if kinds else None
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--kinds") from None
    spec = SessionSpec.random(seed, spins, ks)
    spec = SessionSpec(
        seed, _size(size) if size else spec.size, fps if fps is not None else spec.fps, spec.kinds,
        spec.imu if imu is None else imu, spec.enroll if enroll is None else enroll,
    )
    summary = record(out, spec, progress=lambda k, n: print(f"\r{k}/{n} frames", end="", file=sys.stderr))
    print(file=sys.stderr)
    print(json.dumps(summary, indent=1))


@main.command()
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--seed", type=int, required=True)
@click.option("--letter", required=True, help="nun, gimel, hey, shin or pe")
@click.option("--size", default="640x480")
@click.option("--n", type=int, default=0, help="which still of this table (varies place and heading)")
def still(out: Path, seed: int, letter: str, size: str, n: int) -> None:
    """An overhead still of the seed's dreidel at rest with LETTER up (prints its truth)."""
    table = AltTable(seed, _size(size))
    want = Letter.parse(letter)
    if want not in table.dreidel.letters:
        want = want.plays_as if want.plays_as in table.dreidel.letters else Letter.PE
    img, truth = table.still(want, n)
    cv2.imwrite(str(out), img)
    print(json.dumps(truth))


@main.command()
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--seed", type=int, required=True)
@click.option("--kind", default="valid")
@click.option("--size", default="640x480")
def gallery(out: Path, seed: int, kind: str, size: str) -> None:
    """A PNG of one spin's phases: empty, hand, release, sleeping, wobble, fall, rest, pick-up."""
    table = AltTable(seed, _size(size))
    end = table.plan_session([SpinKind(kind)])
    ep = table.episodes[0]
    tr = ep.truth
    times = {
        "empty": 0.5,
        "hand": ep.deliver.t_start + 0.5,
        "release": ep.t_release - 0.03,
        "spinning": ep.t_release + min(1.5, 0.5 * (tr["stable_s"] or 1.0)),
        "wobble": (tr["wobble_t"] or tr["rest_t"]) + 0.15,
        "fall": ep.t_release + ep.traj.land_t - 0.02,
        "rest": tr["rest_t"] + 0.3,
        "pickup": ep.pickup.contact_t + 0.25 if ep.pickup is not None else end - 0.1,
    }
    tiles = []
    for name, t in times.items():
        img = table.frame(t).copy()
        cv2.putText(img, f"{name} {t:.2f}s", (8, 26), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255, 255, 255), 2)
        tiles.append(img)
    grid = np.vstack([np.hstack(tiles[:4]), np.hstack(tiles[4:])])
    cv2.imwrite(str(out), grid)
    print(json.dumps({"truth": tr, "scene": table.describe()}))


if __name__ == "__main__":
    main()
