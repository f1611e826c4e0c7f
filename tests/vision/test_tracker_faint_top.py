"""An upright dreidel the colour of the felt under a low lamp: its top is all but invisible, its shadow is not.

Altsim 800000 spin 0: a red plastic dreidel spinning upright on red felt (B, G, R about 39, 40, 148). From
above only the handle's dark glint and a faint rim show; the top is 10-25% darker than the felt, with the felt's
hue, so it reads as a light shadow, and the long cast shadow keeps about 40% of the light. The tracker followed
the deep shadow (3 times as long as wide, still): a dreidel lying still 0.9 s after its release, judged a put-down.
The scenes here are drawn with those figures and that recording's sensor noise. ``DreidelTracker.faint_body``
reads such a top; it is on by default since the thirteenth round (see the tracker's docstring for what it changes
on the tuning data).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from tests.vision.tracker_scenes import felt, track_scenes, with_noise
from vision.tracker import Blob, DreidelTracker

_FELT = np.array([39, 40, 148], np.float32)
_SIZE = (240, 320)
_TOP = (140.0, 146.0)  # the handle, lores px
_TOP_R = 8  # the top's radius, lores px
_SHADOW = (44.0, 30.0)  # how far the shadow reaches (lores px) and its direction (degrees, image y down)


def _scene(rng: np.random.Generator, lying: bool) -> np.ndarray:
    """The felt with an upright top and its long shadow, or (``lying``) a dreidel lying with its letter up."""
    img = felt(_FELT, _SIZE)
    shade = np.zeros(_SIZE, np.uint8)
    cx, cy = _TOP
    if lying:
        body = cv2.ellipse(np.zeros(_SIZE, np.uint8), ((cx + 14, cy + 4), (40, 17), 20.0), 1, -1)
        cv2.ellipse(shade, ((cx + 20, cy + 12), (40, 17), 20.0), 1, -1)
        img[(shade > 0) & (body == 0)] *= 0.4
        img[body > 0] *= 0.85
        # the letter on the face that is up, and the handle: marks no shadow makes
        letter = cv2.putText(np.zeros(_SIZE, np.uint8), "G", (int(cx + 8), int(cy + 10)), cv2.FONT_HERSHEY_SIMPLEX,
                             0.5, 1, 2)
        img[letter > 0] = (40, 200, 230)
        handle = cv2.line(np.zeros(_SIZE, np.uint8), (int(cx - 12), int(cy - 4)), (int(cx - 4), int(cy - 1)), 1, 3)
        img[handle > 0] = (15, 15, 20)
    else:
        reach, angle = _SHADOW
        a = math.radians(angle)
        end = (int(round(cx + reach * math.cos(a))), int(round(cy + reach * math.sin(a))))
        cv2.line(shade, (int(cx), int(cy)), end, 1, 2 * _TOP_R - 2)
        top = cv2.circle(np.zeros(_SIZE, np.uint8), (int(cx), int(cy)), _TOP_R, 1, -1)
        rim = cv2.circle(np.zeros(_SIZE, np.uint8), (int(cx), int(cy)), _TOP_R, 1, 1)
        img[(shade > 0) & (top == 0)] *= 0.4
        img[top > 0] *= 0.8
        img[rim > 0] *= 0.75  # the top's edge, a little darker still
        knob = cv2.circle(np.zeros(_SIZE, np.uint8), (int(cx), int(cy)), 3, 1, -1)
        img[knob > 0] = (12, 12, 14)  # the handle's glint (a dark knob)
    return with_noise(rng, img)


def _empty(rng: np.random.Generator) -> np.ndarray:
    return with_noise(rng, felt(_FELT, _SIZE))


def _tracked(faint_body: bool, lying: bool) -> list[Blob | None]:
    rng = np.random.default_rng(11)
    return track_scenes(DreidelTracker(faint_body=faint_body), lambda: _empty(rng), lambda: _scene(rng, lying), 4)


def assert_top_at_head(seen: list[Blob | None]) -> None:
    """Every frame's dreidel is the upright top: where the top is, compact, and no longer than it."""
    for d in seen:
        assert d is not None
        assert math.hypot(d.x - _TOP[0], d.y - _TOP[1]) < 2.5, (d.x, d.y)
        assert d.elongation < 1.4, "an upright top is compact from above"
        assert d.length < 3.0 * _TOP_R


def test_an_upright_felt_coloured_top_is_tracked_at_the_head_of_its_shadow() -> None:
    assert_top_at_head(_tracked(faint_body=True, lying=False))


def test_without_the_faint_top_the_shadow_is_taken_for_a_dreidel_lying_still() -> None:
    """The old reading of the same scene: the deep shadow, long and away from the handle."""
    seen = _tracked(faint_body=False, lying=False)
    assert all(d is not None and d.elongation > 2.0 for d in seen)
    assert all(d is not None and math.hypot(d.x - _TOP[0], d.y - _TOP[1]) > 10.0 for d in seen)


def test_a_dreidel_lying_with_its_letter_up_is_read_as_before() -> None:
    """A lying dreidel of the felt's colour shows its letter: its marks are many and spread, so it is not
    read as a top above its shadow, and the tracker sees what it saw without the faint top."""
    with_top = _tracked(faint_body=True, lying=True)
    without = _tracked(faint_body=False, lying=True)
    assert all(d is not None for d in with_top)
    assert with_top == without


# A dark top under a low lamp (twentieth round). Altsim 1220012 spin 1 is a black dreidel spinning upright on green
# felt: from above its top is a dark disc, as dark as the long shadow it throws, and its glints (the knob's
# highlight) are about 6% of the blob of top and shadow, over the 4% the faint top allowed until then; the pair was
# read as a dreidel put down. (Altsim 1160009 is read right since; 1220012 is not yet, a quarter of its frames
# showing more than the 7% allowed now.) The scene here is drawn with a glint of about 5%.
_GREEN = np.array([40, 150, 45], np.float32)


def _black_top(rng: np.random.Generator) -> np.ndarray:
    """Green felt with a black top spinning upright, its highlight, and its long deep shadow."""
    img = felt(_GREEN, _SIZE)
    cx, cy = _TOP
    reach, angle = _SHADOW
    a = math.radians(angle)
    end = (int(round(cx + reach * math.cos(a))), int(round(cy + reach * math.sin(a))))
    shade = cv2.line(np.zeros(_SIZE, np.uint8), (int(cx), int(cy)), end, 1, 2 * _TOP_R - 2)
    top = cv2.circle(np.zeros(_SIZE, np.uint8), (int(cx), int(cy)), _TOP_R, 1, -1)
    img[(shade > 0) & (top == 0)] *= 0.4
    img[top > 0] *= 0.3  # black plastic: from above as dark as its shadow, and as neutral a darkening
    glint = cv2.circle(np.zeros(_SIZE, np.uint8), (int(cx - 2), int(cy - 2)), 4, 1, -1)
    img[glint > 0] = (215, 220, 225)
    return with_noise(rng, img)


def test_a_black_top_with_a_bright_glint_is_tracked_at_the_head_of_its_shadow() -> None:
    rng = np.random.default_rng(12)
    frame = _black_top(np.random.default_rng(99))
    glint = int(np.count_nonzero(np.all(frame > 180, axis=2)))
    blob = int(np.count_nonzero(np.any(np.abs(frame.astype(int) - _GREEN.astype(int)) > 30, axis=2)))
    assert 0.04 < glint / blob < 0.07, "the glint's share of the blob is over the old 4% and under the 7% allowed"
    assert_top_at_head(track_scenes(DreidelTracker(), lambda: _green_empty(rng), lambda: _black_top(rng), 4))


def _green_empty(rng: np.random.Generator) -> np.ndarray:
    return with_noise(rng, felt(_GREEN, _SIZE))
