"""The training renderer's finishes (session 7): metal sheen, faint paint, outlined and brushed letters, harsh scenes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from controller.rules.letters import Letter
from vision.features import face_input
from vision.letter_synth import DreidelStyle, _glyph_texture, render_still

Ink = Callable[[np.ndarray, tuple[int, int, int]], np.ndarray]


def test_an_outlined_letter_is_the_contour_of_the_painted_one(fonts: tuple[str, ...], ink: Ink) -> None:
    style = replace(DreidelStyle.random(np.random.default_rng(3), fonts), body_bgr=(200, 200, 200),
                    letter_bgr=(20, 20, 20))
    painted = ink(_glyph_texture(style, Letter.GIMEL, 96, 120, np.random.default_rng(0), jitter=False),
                   style.body_bgr)
    hollow = ink(_glyph_texture(replace(style, hollow=True), Letter.GIMEL, 96, 120, np.random.default_rng(0),
                                 jitter=False), style.body_bgr)
    assert 0.15 * painted.sum() < hollow.sum() < 0.8 * painted.sum()
    assert (hollow & ~painted).sum() <= 0.02 * hollow.sum()  # the contour lies on the glyph, not beside it


def test_a_brushed_letter_keeps_its_shape_with_ragged_edges(fonts: tuple[str, ...], ink: Ink) -> None:
    style = replace(DreidelStyle.random(np.random.default_rng(5), fonts), body_bgr=(40, 120, 200),
                    letter_bgr=(240, 240, 240))
    painted = ink(_glyph_texture(style, Letter.SHIN, 96, 120, np.random.default_rng(0), jitter=False),
                   style.body_bgr)
    brushed = ink(_glyph_texture(replace(style, soft=0.04), Letter.SHIN, 96, 120, np.random.default_rng(0),
                                  jitter=False), style.body_bgr)
    overlap = (painted & brushed).sum() / max(1, (painted | brushed).sum())
    assert 0.4 < overlap < 0.97  # the same letter, but not the same strokes


def test_a_metal_sheen_washes_out_the_face(fonts: tuple[str, ...]) -> None:
    """A polished body's band of light lowers the letter's contrast on the face (the network must read faint
    letters), and the stronger the sheen, the fainter they get."""
    def median_contrast(sheen: float) -> float:
        out = []
        for seed in range(16):
            rng = np.random.default_rng(seed)
            style = replace(DreidelStyle.random(rng, fonts), body_bgr=(60, 170, 210), letter_bgr=(20, 30, 40),
                            glossy=False, sheen=sheen)
            still = render_still(style, Letter.HEY, rng, size=(320, 240), length_px=120.0)
            out.append(face_input(still.image, still.face_quad).contrast)
        return float(np.median(out))

    assert median_contrast(0.95) < 0.85 * median_contrast(0.0)


def test_finished_dreidels_cover_every_finish_and_stay_in_the_picture(fonts: tuple[str, ...]) -> None:
    seen = {"metal": 0, "outline": 0, "brushed": 0, "harsh": 0}
    for seed in range(40):
        rng = np.random.default_rng(seed)
        style = DreidelStyle.random_finished(rng, fonts)
        seen["metal"] += style.sheen > 0
        seen["outline"] += style.hollow
        seen["brushed"] += style.soft > 0
        seen["harsh"] += style.harsh
        still = render_still(style, Letter.NUN, rng, size=(320, 240))
        assert still.image.shape == (240, 320, 3)
        q = np.asarray(still.face_quad)
        assert (q >= 0).all() and (q[:, 0] < 320).all() and (q[:, 1] < 240).all()
    assert all(count > 0 for count in seen.values()), seen
