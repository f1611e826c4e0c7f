"""The evidence timeline: the verdict and the moments' labels must be readable, not printed over each other."""

from dataclasses import replace

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from controller.evidence import Marks, draw_timeline, label_x


def timeline(rest_t: float, reasons: tuple[str, ...]) -> np.ndarray:
    t = np.linspace(38.5, rest_t, 120)
    marks = Marks(release_t=38.74, wobble_t=39.23, rest_t=rest_t, stable_s=0.49, letter="hey", letter_confidence=1.0,
                  valid=not reasons, reasons=reasons)
    return draw_timeline(t, np.sin(t), t, np.exp(np.cos(t)), marks)


def ink(img: np.ndarray) -> np.ndarray:
    return np.asarray((img < 200).any(axis=2))


def test_the_verdict_has_a_row_of_its_own_above_the_moments_labels() -> None:
    # a wobbled-at-once spin whose rest is the plot's right end: the verdict, "rest 40.23s" and the release's
    # label were printed over each other on the same row
    img = timeline(40.23, ("wobbled_immediately", "interference"))
    rows = ink(img)
    assert rows[4:23].any(), "the verdict is drawn"
    assert not rows[24:28].any(), "a blank band between the verdict and the labels"
    assert rows[28:42].any(), "the labels are drawn under it"


def test_no_text_runs_off_the_picture() -> None:
    img = timeline(40.23, ("wobbled_immediately", "left_tray", "interference"))
    assert not ink(img)[:, -2:].any()
    assert not ink(img)[:42, :2].any()


@given(x=st.integers(0, 900), tw=st.integers(1, 200))
def test_a_label_starts_inside_and_ends_inside_when_it_can(x: int, tw: int) -> None:
    start = label_x(x, tw, 900)
    assert start >= 0
    if tw <= 900 - 2 - 3:
        assert start + tw <= 900 - 2 or start == 0
    assert start in (x + 3, max(0, x - 3 - tw))


def test_a_spin_sent_to_a_judge_is_not_headed_in_the_green_of_a_valid_one() -> None:
    t = np.linspace(22.0, 28.5, 120)

    def header(needs_judge: bool) -> np.ndarray:
        marks = Marks(release_t=22.26, wobble_t=27.82, rest_t=28.33, stable_s=5.56, letter=None,
                      letter_confidence=None, valid=True, reasons=(), needs_judge=needs_judge)
        img = draw_timeline(t, np.sin(t), None, None, marks)[2:24]
        return img[(img < 200).any(axis=2)].astype(int)  # the header's ink

    green = header(False)
    amber = header(True)
    assert (green[:, 1] > green[:, 2]).mean() > 0.9, "a valid verdict is green"
    assert (amber[:, 2] > amber[:, 1]).mean() > 0.9, "a judge-needed one is amber, more red than green"


def test_a_second_s_number_is_not_written_over_the_wobble_label() -> None:
    # twin seed 101 spin 2: "wobble 20.41s" and the axis' "21" shared the bottom row, printed over each other
    t = np.linspace(14.0, 21.8, 200)
    marks = Marks(release_t=14.53, wobble_t=20.41, rest_t=21.25, stable_s=5.88, letter="hey", letter_confidence=1.0,
                  valid=True, reasons=())
    img = draw_timeline(t, np.sin(t), t, np.exp(np.cos(t)), marks)
    alone = draw_timeline(t, np.sin(t), t, np.exp(np.cos(t)), replace(marks, wobble_t=None))
    h, w = img.shape[:2]
    lo, hi = 14.0, 21.8
    x21 = int(60 + (21.0 - lo) / (hi - lo) * (w - 60 - 15))
    number = (slice(h - 14, h), slice(x21 - 5, x21 + 12))
    assert ink(alone[number]).any(), "without a wobble label the 21 is written"
    label = ink(img)[h - 22 : h - 10, :] & ~ink(alone)[h - 22 : h - 10, :]  # the wobble label's row
    cols = np.flatnonzero(label.any(axis=0))
    assert cols.size, "the wobble label is written"
    # under it, where the axis numbers go, nothing grey: the number 21 is left out
    strip = img[h - 12 :, cols.min() : cols.max() + 1].astype(int)
    grey = (np.ptp(strip, axis=2) < 12) & (strip < 200).all(axis=2)
    assert not grey.any(), "an axis number written over the wobble label"
