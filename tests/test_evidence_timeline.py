"""The evidence timeline: the verdict and the moments' labels must be readable, not printed over each other."""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.evidence import Marks, draw_timeline, label_x, place_labels


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


@given(spans=st.lists(st.tuples(st.integers(0, 900), st.integers(1, 160)), max_size=4))
def test_labels_on_the_same_row_never_touch(spans: list[tuple[int, int]]) -> None:
    places = place_labels(spans, 900)
    assert len(places) == len(spans)
    boxes = [(lx, lx + tw, row) for (lx, row), (_, tw) in zip(places, spans, strict=True)]
    for i, (a0, a1, ra) in enumerate(boxes):
        assert a0 == label_x(spans[i][0], spans[i][1], 900), "each label stays beside its line"
        for b0, b1, rb in boxes[i + 1 :]:
            assert ra != rb or a1 + 6 <= b0 or b1 + 6 <= a0


def ink_box(mask: np.ndarray) -> tuple[int, int, int, int] | None:
    ys, xs = np.nonzero(mask)
    return None if not ys.size else (int(ys.min()), int(ys.max()), int(xs.min()), int(xs.max()))


@pytest.mark.parametrize("rest_t", [705.05, 705.07])
def test_release_and_rest_close_in_time_are_not_written_over_each_other(rest_t: float) -> None:
    # H56, table-1-0030: a dreidel put down, not spun; release 705.05 and rest at the same moment printed
    # their labels on top of each other ("rele/rest 705.05/7s")
    t = np.linspace(704.5, 706.2, 100)
    marks = Marks(release_t=705.05, wobble_t=None, rest_t=rest_t, stable_s=0.0, letter=None,
                  letter_confidence=None, valid=False, reasons=("no_release",))
    img = draw_timeline(t, np.zeros_like(t), t, np.exp(np.cos(7 * t)), marks).astype(int)
    b, g, r = img[..., 0], img[..., 1], img[..., 2]
    band = np.zeros(b.shape, bool)
    band[26:80, 200:] = True  # above the plot, right of the panels' names; the header is above row 24
    # the moments' lines are vertical: only text has ink in several columns of one row
    blue = band & (b > g + 60) & (b > r + 60)
    red = band & (r > g + 60) & (r > b + 60)
    for mask in (blue, red):
        cols = mask.sum(axis=0)
        mask[:, cols > 20] = False  # the lines
    rb, rr = ink_box(blue), ink_box(red)
    assert rb is not None, "the release's label is written"
    if rr is not None:  # two labels: they share no pixel box
        assert rb[1] < rr[0] or rr[1] < rb[0] or rb[3] < rr[2] or rr[3] < rb[2], (rb, rr)


def grey_columns(img: np.ndarray, y0: int, y1: int) -> np.ndarray:
    part = img[y0:y1].astype(int)
    grey = (np.ptp(part, axis=2) < 12) & (part.min(axis=2) > 125) & (part.max(axis=2) < 175)
    return np.flatnonzero(grey.sum(axis=0) >= 12)


def test_a_light_dashed_line_marks_release_plus_3_s() -> None:
    # H56: a spin of 2.81 s left the judge to do the sum; the line shows whether the wobble came before 3 s
    t = np.linspace(69.9, 74.85, 200)
    marks = Marks(release_t=70.39, wobble_t=73.12, rest_t=74.35, stable_s=2.73, letter=None, letter_confidence=None,
                  valid=False, reasons=("short",))
    img = draw_timeline(t, np.sin(t), t, np.exp(np.cos(t)), marks)
    x = int(60 + (73.39 - 69.9) / (74.85 - 69.9) * (900 - 60 - 15))
    assert list(grey_columns(img, 60, 280)) == [x]
    # a dreidel put down, not spun, has no such line
    put_down = Marks(release_t=70.39, wobble_t=None, rest_t=70.39, stable_s=0.0, letter=None,
                     letter_confidence=None, valid=False, reasons=("no_release",))
    assert not grey_columns(draw_timeline(t, np.sin(t), t, np.exp(np.cos(t)), put_down), 60, 280).size


def test_the_3_s_line_of_a_very_short_spin_is_inside_the_plot() -> None:
    t = np.linspace(9.5, 11.5, 80)
    marks = Marks(release_t=10.0, wobble_t=10.4, rest_t=11.0, stable_s=0.4, letter=None, letter_confidence=None,
                  valid=False, reasons=("short",))
    cols = grey_columns(draw_timeline(t, np.sin(t), t, np.exp(np.cos(t)), marks), 60, 280)
    assert cols.size == 1 and 60 < cols[0] < 900 - 15
