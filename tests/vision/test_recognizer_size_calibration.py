"""The build script's fit of the Nun/Gimel thresholds by face size (``fit_confusable_bins``)."""

from __future__ import annotations

from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.letters import Letter
from vision.recognizer import LETTERS

NUN, GIMEL, HEY = (LETTERS.index(x) for x in (Letter.NUN, Letter.GIMEL, Letter.HEY))


def right_reads(n: int, side: float, conf: float, letter: int = NUN) -> list[tuple[float, int, int, float, float]]:
    return [(side, letter, letter, conf, conf)] * n


def test_a_bin_with_a_confident_wrong_read_needs_more_than_it(build: ModuleType) -> None:
    edges = (16.0, 20.0, 26.0)
    rows = (right_reads(30, 14, 0.999)  # no wrong read, but smaller bins inherit the larger ones' need
            + right_reads(30, 18, 0.995) + [(18.0, GIMEL, NUN, 0.985, 0.99)]  # wrong at 0.985 (steady 0.99)
            + right_reads(40, 23, 0.97) + [(23.0, HEY, GIMEL, 0.96, 0.0)])  # wrong best, but not steady: 0
    bins, report = build.fit_confusable_bins(rows, 0.95, edges)
    assert [b.below_px for b in bins] == list(edges)
    assert bins[2].threshold == pytest.approx(0.95)  # its wrong best guess was not steady: the floor
    assert bins[1].threshold == pytest.approx(0.985 + build.SMALL_FACE_MARGIN)
    assert bins[0].threshold == pytest.approx(bins[1].threshold)  # never easier than a larger face
    assert report[1][4] == 1  # one wrong read counted in 16-20 px


def test_a_bin_without_enough_right_reads_above_its_threshold_is_never_read(build: ModuleType) -> None:
    edges = (16.0, 26.0)
    rows = (right_reads(build.SMALL_FACE_MIN_READS - 1, 20, 0.99)
            + right_reads(build.SMALL_FACE_MIN_READS, 12, 0.999) + [(12.0, NUN, GIMEL, 0.999, 0.999)])
    bins, _ = build.fit_confusable_bins(rows, 0.95, edges)
    assert bins[1].threshold is None  # too little evidence
    assert bins[0].threshold is None  # a wrong read at 0.999: no safe threshold (and a larger bin is never read)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.floats(10, 33.9), st.sampled_from([NUN, GIMEL, HEY]), st.sampled_from([NUN, GIMEL, HEY]),
                          st.floats(0.5, 1.0), st.floats(0.0, 1.0)), min_size=1, max_size=300))
def test_no_fitted_threshold_reads_a_calibration_face_wrong(build: ModuleType,
                                                            rows: list[tuple[float, int, int, float, float]]) -> None:
    rows = rows + right_reads(60, 21, 0.999, GIMEL)
    bins, _ = build.fit_confusable_bins(rows, 0.95)
    lo = 0.0
    for b in bins:
        if b.threshold is not None:
            assert 0.95 <= b.threshold <= build.SMALL_FACE_MAX_THRESHOLD
            for side, truth, best, conf, steady in rows:
                if lo <= side < b.below_px and best in (NUN, GIMEL) and min(conf, steady) >= b.threshold:
                    assert best == truth
        lo = b.below_px
    need = [2.0 if b.threshold is None else b.threshold for b in bins]
    assert all(a >= b for a, b in zip(need, need[1:], strict=False))
