"""``sevivon sim``: make simulated recordings and stills with the digital twin."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from hardware.sim.dreidel import PRESET_NAMES
from hardware.sim.physics import SpinKind


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise click.BadParameter(f"{text!r}: write the size as WIDTHxHEIGHT, e.g. 640x480") from None
    if w < 160 or h < 120:
        raise click.BadParameter(f"{text}: at least 160x120")
    return w, h


@click.group(name="sim")
def sim() -> None:
    """The digital twin: simulated recordings and stills."""


@sim.command(name="record")
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option("--spins", type=click.IntRange(0, 500), default=3, show_default=True, help="number of spins")
@click.option("--seed", type=int, default=0, show_default=True, help="everything follows from the seed")
@click.option("--fps", type=click.FloatRange(1, 240), default=60.0, show_default=True, help="frames per second")
@click.option("--no-imu", is_flag=True, help="leave out imu.csv")
@click.option("--enroll", is_flag=True, help="also write enroll/ stills of this dreidel, a few per letter")
@click.option(
    "--kinds",
    default=None,
    help=f"comma-separated spin kinds to cycle through ({', '.join(k.value for k in SpinKind)}); "
    "default: realistic random ones",
)
@click.option("--style", default="random", show_default=True, help=f"dreidel: {', '.join(PRESET_NAMES)} or random")
@click.option("--size", default="640x480", show_default=True, help="picture size WIDTHxHEIGHT")
@click.option("--overwrite", is_flag=True, help="replace a recording already in OUT")
@click.option("--quiet", is_flag=True, help="print nothing but errors")
def record(
    out: Path,
    spins: int,
    seed: int,
    fps: float,
    no_imu: bool,
    enroll: bool,
    kinds: str | None,
    style: str,
    size: str,
    overwrite: bool,
    quiet: bool,
) -> None:
    """Write a simulated recording (meta.json, video.avi, frames.csv, imu.csv, truth.json) to OUT."""
    from hardware.sim.physics import parse_kinds
    from hardware.sim.recorder import record_session

    try:
        kind_list = parse_kinds(kinds) if kinds else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--kinds") from None
    wh = _size(size)
    started = time.perf_counter()
    try:
        path = record_session(
            out, spins, seed, fps=fps, imu=not no_imu, enroll=enroll, style=style, kinds=kind_list, size=wh,
            overwrite=overwrite,
        )
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    if not quiet:
        truth = json.loads((path / "truth.json").read_text())
        took = time.perf_counter() - started
        click.echo(f"wrote {path} ({len(truth)} spins) in {took:.1f} s")
        for s in truth:
            verdict = "valid" if s["valid"] else "invalid: " + ", ".join(s["reasons"])
            click.echo(
                f"  spin {s['index']}: {s['kind']:<14} release {s['release_t']:6.2f} s  "
                f"stable {s['stable_s']:5.2f} s  rest {s['rest_t']:6.2f} s  {s['letter']:<5}  {verdict}"
            )


@sim.command(name="still")
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--letter", required=True, help="the letter that lands up: nun, gimel, hey, shin or pe")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--style", default="random", show_default=True, help=f"dreidel: {', '.join(PRESET_NAMES)} or random")
def still(out: Path, letter: str, seed: int, style: str) -> None:
    """Render one overhead still of a dreidel at rest with LETTER up (PNG) and print its truth."""
    import cv2

    from hardware.sim.recorder import render_still

    try:
        image, truth = render_still(style, letter, seed)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(out), image):
        raise click.ClickException(f"cannot write {out} (is the extension .png?)")
    click.echo(json.dumps(truth))


@sim.command(name="gallery")
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--kinds", default="valid", show_default=True, help="comma-separated spin kinds")
@click.option("--style", default="random", show_default=True, help=f"dreidel: {', '.join(PRESET_NAMES)} or random")
@click.option("--sheet", is_flag=True, help="one small contact sheet per kind instead of full-size frames")
@click.option("--docs", is_flag=True, help="write the standard pictures of docs/sim/ instead")
def gallery(out: Path, seed: int, kinds: str, style: str, sheet: bool, docs: bool) -> None:
    """Save a frame of every phase of a spin (empty, hand, sleeping, wobbling, falling, at rest, pickup)."""
    from hardware.sim.gallery import write_docs, write_gallery
    from hardware.sim.physics import parse_kinds

    if docs:
        for p in write_docs(out):
            click.echo(str(p))
        return

    try:
        kind_list = parse_kinds(kinds)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--kinds") from None
    for kind in kind_list:
        for p in write_gallery(out, seed, kind, style, sheet=sheet):
            click.echo(str(p))
