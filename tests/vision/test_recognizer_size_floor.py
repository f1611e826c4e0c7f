"""No letter is read on a face narrower than the smallest on which a Nun or Gimel may be read.

There a Nun or Gimel can only be refused or read as another letter, never read right: the twenty-ninth round's
held-out fonts read a Nun on a face under 14 px as Shin.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from controller.rules.letters import Letter
from vision.letter_synth import DreidelStyle, hebrew_fonts, render_still
from vision.recognizer import TOO_SMALL, ConfusableBin, LetterRecognizer, face_side_px


@pytest.fixture(scope="module")
def recognizer() -> LetterRecognizer:
    return LetterRecognizer.default()


def plain(seed: int) -> DreidelStyle:
    fonts = hebrew_fonts()
    base = DreidelStyle.random(np.random.default_rng(seed), fonts)
    return replace(base, font=next(f for f in fonts if Path(f).name == "FreeSansBold.ttf"), body_bgr=(80, 170, 220),
                   letter_bgr=(30, 20, 20), handle_bgr=(80, 170, 220), glyph_height=0.75, glossy=False)


def test_the_floor_is_where_nun_and_gimel_start_being_read(recognizer: LetterRecognizer) -> None:
    cal = recognizer.model.calibration
    bins = (ConfusableBin(14.0, None), ConfusableBin(17.0, None), ConfusableBin(20.0, 0.99), ConfusableBin(26.0, None))
    assert replace(cal, confusable_bins=bins).min_read_side_px() == 17.0  # a refused bin above a read one: no floor
    assert replace(cal, confusable_bins=(ConfusableBin(14.0, 0.99),)).min_read_side_px() == 0.0
    assert replace(cal, confusable_bins=None).min_read_side_px() == 0.0  # an older letters.json: as before
    assert cal.min_read_side_px() == 14.0, "the committed calibration never reads a Nun or Gimel under 14 px"


@pytest.mark.parametrize("letter", [Letter.HEY, Letter.SHIN, Letter.PE])
def test_a_letter_on_a_face_under_the_floor_goes_to_a_judge(recognizer: LetterRecognizer, letter: Letter) -> None:
    floor = recognizer.model.calibration.min_read_side_px()
    refused = read_large = 0
    for k in range(3):
        style = plain(60 + k)
        small = render_still(style, letter, np.random.default_rng(60 + k), size=(480, 360), length_px=32.0)
        got = recognizer.read(small.image)
        if got.pose is not None and got.pose.face_quad is not None and face_side_px(got.pose.face_quad) < floor:
            assert got.letter is None and got.reason.endswith(TOO_SMALL), got.reason
            refused += 1
        # the same dreidel, large: the size, not the dreidel, refused it
        large = render_still(style, letter, np.random.default_rng(60 + k), size=(480, 360), length_px=130.0)
        read_large += recognizer.read(large.image).letter is letter
    assert refused >= 2, f"only {refused} of 3 small dreidels showed a face under {floor} px"
    assert read_large >= 2
