"""Where the up face ends and the next face's sliver begins (``vision.pose._sliver_cut``, session 20).

A dreidel lying tilted shows a sliver of the next face beside its up face. The pose cuts the sliver off at
the colour step that runs the body's whole length. A letter's stroke along the axis steps the same way; in
some fonts a Nun's stem runs the face's whole length, and a held-out-font Nun was cut to its sliver (a Hey)
and read as Hey at 0.998. A stroke's far side comes back to the face's colour; a sliver's does not."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.letters import Letter
from tests.vision.test_pose import stored_still_pose
from vision.pose import _sliver_cut
from vision.recognizer import LetterRecognizer


def test_a_nun_whose_stem_runs_the_face_is_not_cut_to_its_sliver() -> None:
    """The stored held-out-font still: the face found is the Nun's, and the Nun is read."""
    # the session 19 pose kept the sliver: its quad's IoU with the true face was 0.28 (the helper asks for 0.7)
    meta, image, pose = stored_still_pose("synth99999876_nun")
    reading = LetterRecognizer.default().read(image, pose)
    assert reading.letter is Letter.parse(meta["truth"])


def straightened_body(rows: int, cols: int, sliver_rows: int, sliver_side: int, shade: float,
                      stem: tuple[int, int] | None, paint_l: float, ink_l: float, seed: int) -> np.ndarray:
    """A body section as ``_refine_face`` straightens it (rows across the body, columns along), in Lab:
    the up face's paint, a shaded sliver of ``sliver_rows`` on ``sliver_side`` (0: the first rows) and a
    stroke over ``stem`` rows that runs from 1 column to the last but one, a little blurred and noisy."""
    lab = np.zeros((rows, cols, 3), np.float32)
    lab[..., 0] = paint_l
    lab[..., 1], lab[..., 2] = 8.0, 25.0
    sliver = slice(0, sliver_rows) if sliver_side == 0 else slice(rows - sliver_rows, rows)
    lab[sliver] *= shade
    if stem is not None:
        lab[stem[0]:stem[1], 1:cols - 1] = (ink_l, 0.0, 0.0)
    lab = cv2.GaussianBlur(lab, (3, 3), 0.8)
    lab += np.random.default_rng(seed).normal(0.0, 1.0, lab.shape).astype(np.float32)
    return lab


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(28, 48), cols=st.integers(18, 40), share=st.floats(0.15, 0.38),
       sliver_side=st.integers(0, 1), shade=st.floats(0.55, 0.8), stem_at=st.floats(0.25, 0.75),
       paint_l=st.floats(45.0, 75.0), ink_l=st.floats(3.0, 15.0), seed=st.integers(0, 1000))
def test_the_cut_is_at_the_sliver_not_at_a_full_length_stem(rows: int, cols: int, share: float, sliver_side: int,
                                                            shade: float, stem_at: float, paint_l: float,
                                                            ink_l: float, seed: int) -> None:
    sliver_rows = int(round(share * rows))
    # the stroke lies on the face, clear of its edges (fonts inset their letters), 3-4 rows wide
    face0, face1 = (sliver_rows, rows) if sliver_side == 0 else (0, rows - sliver_rows)
    width = max(3, rows // 10)
    top = face0 + 3 + int(stem_at * (face1 - face0 - 6 - width))
    cut = _sliver_cut(straightened_body(rows, cols, sliver_rows, sliver_side, shade, (top, top + width),
                                        paint_l, ink_l, seed))
    assert cut is not None
    side, k = cut
    assert side == sliver_side
    assert abs(k - sliver_rows) <= 2


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(28, 48), cols=st.integers(18, 40), stem_at=st.floats(0.2, 0.8),
       paint_l=st.floats(45.0, 75.0), ink_l=st.floats(3.0, 15.0), seed=st.integers(0, 1000))
def test_a_full_length_stem_alone_is_not_an_edge(rows: int, cols: int, stem_at: float, paint_l: float, ink_l: float,
                                                 seed: int) -> None:
    """No sliver: nothing is cut, however strongly the stem steps."""
    width = max(3, rows // 10)
    top = 3 + int(stem_at * (rows - 6 - width))
    assert _sliver_cut(straightened_body(rows, cols, 0, 0, 1.0, (top, top + width), paint_l, ink_l, seed)) is None


def wooden_body(rows: int, cols: int, period: float, phase: float, paint_l: float, sliver_rows: int, shade: float,
                seed: int) -> np.ndarray:
    """A straightened wooden body as the twin paints one (hardware.sim.dreidel.material_texture): dark grain
    lines along the axis, ``(sin)^3`` of period ``period`` rows and up to 16% darker, with a sliver shaded
    ``shade`` over the first ``sliver_rows`` rows (none when 0)."""
    r = np.arange(rows, dtype=np.float32)[:, None]
    grain = (np.sin(r * 2.0 * np.pi / period + phase) * 0.5 + 0.5) ** 3
    lab = np.zeros((rows, cols, 3), np.float32)
    lab[..., 0] = paint_l * (1.0 - 0.16 * grain)
    lab[..., 1], lab[..., 2] = 10.0, 28.0
    lab[:sliver_rows] *= shade
    lab = cv2.GaussianBlur(lab, (3, 3), 0.8)
    lab += np.random.default_rng(seed).normal(0.0, 1.0, lab.shape).astype(np.float32)
    return lab


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(28, 48), cols=st.integers(18, 40), period=st.floats(5.0, 14.0), phase=st.floats(0.0, 6.28),
       paint_l=st.floats(50.0, 75.0), share=st.floats(0.15, 0.38), shade=st.floats(0.55, 0.75),
       seed=st.integers(0, 1000))
def test_a_shaded_sliver_of_a_wooden_dreidel_is_still_cut(rows: int, cols: int, period: float, phase: float,
                                                         paint_l: float, share: float, shade: float,
                                                         seed: int) -> None:
    """The grain lines run along the axis like the sliver's edge; the sliver, wholly darker, is still the cut.

    For a sliver at least 25% darker than the paint. A lighter one is a known limit of the cut, not covered here: the grain
    lines are up to 16% darker, and at 20-22% (``shade`` 0.78-0.8) a grain line beside the edge can pass for it. On
    20,000 bodies drawn with ``shade`` 0.72-0.8, 68 were cut 3 or more rows off, on the wrong side or not at all, every
    one at 0.78 or more (38 x 20 rows, period 9.6, ``shade`` 0.78: cut at row 14 for 11); none of 20,000 drawn with
    ``shade`` 0.55-0.75.
    """
    sliver_rows = int(round(share * rows))
    cut = _sliver_cut(wooden_body(rows, cols, period, phase, paint_l, sliver_rows, shade, seed))
    assert cut is not None
    side, k = cut
    assert side == 0
    assert abs(k - sliver_rows) <= 2


def test_grain_lines_alone_are_seldom_taken_for_a_sliver() -> None:
    """Without a sliver, a grain line's two sides are the same wood: the pose cut 65 of these 200 bodies
    before the sides' colours were weighed (``_sets_apart``) and 27 after; under 40 is asked."""
    rng = np.random.default_rng(7)
    cuts = 0
    for i in range(200):
        rows, cols = int(rng.integers(28, 48)), int(rng.integers(18, 40))
        body = wooden_body(rows, cols, float(rng.uniform(5.0, 14.0)), float(rng.uniform(0.0, 6.28)),
                           float(rng.uniform(50.0, 75.0)), 0, 1.0, i)
        cuts += _sliver_cut(body) is not None
    assert cuts < 40


def test_a_grain_line_across_a_wooden_face_is_not_its_edge() -> None:
    """The stored twin still: a grain line ran the face's whole length through the Shin, and the pose cut the
    face there (IoU 0.64 with the true face). The wood on both sides of it is alike; the face is kept whole."""
    stored_still_pose("twin7400427_shin", min_iou=0.75)
