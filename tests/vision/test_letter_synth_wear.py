"""The training renderer's rubbed-off paint and its training-only decorative fonts (session 15)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

from controller.rules.letters import Letter
from vision.letter_synth import (
    EXTRA_FONT_DIRS,
    DreidelStyle,
    _glyph_texture,
    extra_training_fonts,
    font_family,
    render_still,
)

Ink = Callable[[np.ndarray, tuple[int, int, int]], np.ndarray]


def _style(fonts: tuple[str, ...]) -> DreidelStyle:
    return replace(DreidelStyle.random(np.random.default_rng(3), fonts), body_bgr=(40, 90, 150),
                   letter_bgr=(230, 230, 230))


def test_worn_paint_shows_the_body_through_part_of_the_letter_and_nowhere_else(fonts: tuple[str, ...], ink: Ink) -> None:
    style = _style(fonts)
    new = ink(_glyph_texture(style, Letter.NUN, 96, 120, np.random.default_rng(0), jitter=False), style.body_bgr)
    worn = ink(_glyph_texture(replace(style, wear=0.6), Letter.NUN, 96, 120, np.random.default_rng(0),
                               jitter=False), style.body_bgr)
    assert (worn & ~new).sum() == 0  # wear takes ink away, it never adds any
    assert 0.2 * new.sum() < worn.sum() < 0.97 * new.sum()


def test_more_wear_rubs_off_more_ink(fonts: tuple[str, ...], ink: Ink) -> None:
    style = _style(fonts)

    def ink_left(wear: float) -> float:
        total = 0
        for seed in range(12):
            total += ink(_glyph_texture(replace(style, wear=wear), Letter.GIMEL, 96, 120,
                                         np.random.default_rng(seed), jitter=False), style.body_bgr).sum()
        return float(total)

    assert ink_left(0.6) < ink_left(0.3) < ink_left(0.0)


def test_no_wear_draws_exactly_what_it_drew_before(fonts: tuple[str, ...]) -> None:
    """The field's default keeps every earlier still (tests, benchmarks, calibration seeds) as it was."""
    style = DreidelStyle.random_varied(np.random.default_rng(11), fonts)
    assert style.wear == 0.0
    a = render_still(style, Letter.PE, np.random.default_rng(4), size=(320, 240))
    b = render_still(replace(style, wear=0.0), Letter.PE, np.random.default_rng(4), size=(320, 240))
    assert np.array_equal(a.image, b.image)


def test_worn_dreidels_are_the_varied_ones_with_three_in_ten_worn(fonts: tuple[str, ...]) -> None:
    worn = 0
    for seed in range(200):
        style = DreidelStyle.random_worn(np.random.default_rng(seed), fonts)
        varied = DreidelStyle.random_varied(np.random.default_rng(seed), fonts)
        assert replace(style, wear=0.0) == varied
        assert style.wear == 0.0 or 0.2 <= style.wear <= 0.6
        worn += style.wear > 0
    assert 40 <= worn <= 80


def test_the_decorative_fonts_never_reach_the_everyday_font_list(fonts: tuple[str, ...], ink: Ink) -> None:
    """hebrew_fonts feeds tests, benchmarks and the held-out font families: installing culmus-fancy and
    fonts-ldco must not change it. The extra fonts are training fonts only, never a held-out family's."""
    assert not any(f"/{folder}/" in path for path in fonts for folder in EXTRA_FONT_DIRS)
    extra = extra_training_fonts()
    assert len(extra) >= 10, "culmus-fancy and fonts-ldco are missing: run scripts/install-system-deps.sh"
    assert len({Path(p).stem for p in extra}) == len(extra)  # one file per face
    held = {font_family(p) for p in fonts} - {font_family(p) for p in extra}
    assert {"Nachlieli", "Yehuda", "Shofar"} <= held
    for path in extra:  # each draws the five letters (render a Shin in it)
        style = replace(_style(fonts), font=path)
        assert ink(_glyph_texture(style, Letter.SHIN, 96, 120, np.random.default_rng(0), jitter=False),
                    style.body_bgr).sum() > 200
