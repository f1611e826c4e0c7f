"""A dreidel the colour of the felt: its faces change the felt by less than one pixel's threshold.

Altsim 840002 spin 0: an upside-down red plastic dreidel lying on red felt, its face 10-18 grey levels off
the felt (blue +17, red +10) against a threshold of 22; only its letter, its outline and its shadow changed
clearly. The scenes here are drawn with those figures and the sensor noise of that recording.
"""

from __future__ import annotations

import numpy as np

from tests.vision.tracker_scenes import track_scenes
from vision.background import BackgroundModel
from vision.tracker import Blob, DreidelTracker

_FELT = np.array([28, 36, 140], np.float32)  # B, G, R of the red felt (altsim 840002)
_FACE = np.array([45, 36, 150], np.float32)  # the red dreidel's face on it
_SIZE = (240, 320)
_BODY = (slice(110, 126), slice(140, 178))  # a lying body, 38 x 16 lores px, centre (158.5, 117.5)


def _picture(rng: np.random.Generator, face: np.ndarray | None) -> np.ndarray:
    img = np.empty((*_SIZE, 3), np.float32)
    img[:] = _FELT
    if face is not None:
        img[_BODY] = face
        img[126:131, 142:180] = _FELT * 0.35  # its shadow along the lower side, deep and clear
        img[114:122, 154:160] = (40, 200, 230)  # the letter, clear
    img += rng.normal(0.0, 3.0, img.shape).astype(np.float32)
    return np.clip(img + 0.5, 0, 255).astype(np.uint8)


def _tracked(face: np.ndarray, faint_parts: bool) -> list[Blob | None]:
    rng = np.random.default_rng(7)
    return track_scenes(DreidelTracker(faint_parts=faint_parts), lambda: _picture(rng, None),
                        lambda: _picture(rng, face), 5)


def test_a_felt_coloured_body_is_tracked_whole_with_its_faint_parts() -> None:
    body_area = 38 * 16
    seen = _tracked(_FACE, faint_parts=True)
    assert all(d is not None for d in seen)
    for d in seen:
        assert d.area > 0.75 * body_area, f"only {d.area:.0f} of the body's {body_area} px"
        assert abs(d.x - 158.5) < 3.0 and abs(d.y - 117.5) < 3.0, (d.x, d.y)
        assert d.elongation > 1.8, "a lying body is long"


def test_without_faint_parts_the_same_body_is_seen_as_a_fragment() -> None:
    """The old reading of that scene: the letter (and the shadow's rim), not the body."""
    seen = _tracked(_FACE, faint_parts=False)
    assert all(d is None or d.area < 0.5 * 38 * 16 for d in seen)


def test_a_clearly_coloured_body_is_tracked_the_same_with_or_without_faint_parts() -> None:
    """Pixels faintly changed only next to a clear change are added; a body that stands out clearly, with
    no faint parts around it, is measured exactly as before."""
    bright = np.array([200, 200, 220], np.float32)
    with_faint = _tracked(bright, faint_parts=True)
    without = _tracked(bright, faint_parts=False)
    assert all(d is not None for d in with_faint)
    assert with_faint == without


def test_the_noise_of_an_empty_tray_is_not_faintly_changed() -> None:
    rng = np.random.default_rng(3)
    model = BackgroundModel(learn_s=1.0)
    t = 0.0
    while not model.observe(_picture(rng, None), t):
        t += 1 / 15
    assert model.noise > 3.0
    faint = model.faint_foreground(_picture(rng, None), max(7.0, 2.5 * model.noise))
    assert np.count_nonzero(faint) == 0
    # while the felt-coloured face stands out once averaged, though hardly a pixel of it passes the clear threshold
    shown = _picture(rng, _FACE)
    inner = np.zeros_like(faint)
    inner[112:124, 142:176] = 255  # the face away from its outline
    inner[113:123, 153:161] = 0  # and from the letter
    clear = model.foreground(shown, max(14.0, 5.0 * model.noise))
    faint = model.faint_foreground(shown, max(7.0, 2.5 * model.noise))
    assert np.count_nonzero(clear & inner) < 0.05 * np.count_nonzero(inner)
    assert np.count_nonzero(faint & inner) > 0.95 * np.count_nonzero(inner)
