"""``sevivon classify IMAGE [--enroll DIR] [--json]``: read the letter of a dreidel at rest in a still."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

if TYPE_CHECKING:
    import numpy as np


@click.command(name="classify")
@click.argument("image", type=click.Path(path_type=Path))
@click.option("--enroll", "enroll_dir", type=click.Path(path_type=Path), default=None,
              help="A folder of taught stills of this dreidel, named <letter>_<n>.png.")
@click.option("--background", type=click.Path(path_type=Path), default=None,
              help="A picture of the empty tray from the same camera (better segmentation).")
@click.option("--json", "as_json", is_flag=True, help='Print {"letter": ..., "confidence": ...} only.')
def classify(image: Path, enroll_dir: Path | None, background: Path | None, as_json: bool) -> None:
    """Read the up letter of the dreidel resting in IMAGE (an overhead picture).

    The letter is null (unreadable) rather than a guess when the recognizer is not sure.
    """
    import cv2  # imported here so that `sevivon --help` stays instant

    from vision.recognizer import LetterRecognizer, ModelError
    from vision.tip import tip_bearing_deg

    def fail(message: str) -> NoReturn:
        click.echo(f"sevivon classify: {message}", err=True)
        sys.exit(2)

    def load(path: Path, what: str) -> np.ndarray:
        if not path.is_file():
            fail(f"{what} {path} does not exist")
        picture = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if picture is None:
            fail(f"{what} {path} is not a picture OpenCV can read (PNG or JPEG)")
        return picture

    picture = load(image, "image")
    bg = load(background, "background") if background is not None else None
    if bg is not None and bg.shape != picture.shape:
        fail(f"background {background} is {bg.shape[1]}x{bg.shape[0]}, the image is "
             f"{picture.shape[1]}x{picture.shape[0]}: use the same camera mode")
    try:
        recognizer = LetterRecognizer.default()
        if recognizer.pair_note:
            # it still reads; only a Nun or Gimel its face size refuses has no second look
            click.echo(f"warning: {recognizer.pair_note}", err=True)
        if enroll_dir is not None:
            recognizer = LetterRecognizer.from_enroll_dir(
                enroll_dir, base=recognizer, on_skip=lambda m: click.echo(f"warning: left out {m}", err=True))
        reading = recognizer.read(picture, background_bgr=bg)
    except (ModelError, ValueError) as exc:
        fail(str(exc))
    if as_json:
        click.echo(json.dumps(reading.to_json()))
        return
    if reading.letter is None and reading.confidence > 0:
        line = f"unreadable ({reading.reason}; best guess {max(reading.scores, key=reading.scores.__getitem__).value} " \
               f"at {reading.confidence:.2f}): ask a judge"
    elif reading.letter is None:  # refused before the letter was scored (no face, too small, a shadow): no guess
        line = f"unreadable ({reading.reason}): ask a judge"
    else:
        line = f"{reading.letter.value} ({reading.letter.hebrew}) confidence {reading.confidence:.3f}"
        if reading.letter.plays_as is not reading.letter:
            line += f", plays as {reading.letter.plays_as.value}"
        if reading.reason:  # read by a rule past the plain threshold (the second look, the taught faces): say which
            line += f", {reading.reason}"
    if reading.pose is not None:
        line += f"; tip points at {tip_bearing_deg(reading.pose):.0f} deg (image, 0 = right, 90 = down)"
    if enroll_dir is not None:
        line += f"; taught from {enroll_dir}"
    click.echo(line)
