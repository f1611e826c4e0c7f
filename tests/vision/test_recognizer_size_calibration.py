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


# -- the rate rule (session 16) -------------------------------------------------------------------------------


@pytest.mark.parametrize(("wrong", "reads", "bound"), [
    (0, 600, 0.00498),  # the "rule of three": about 3 / n after no wrong read
    (0, 100, 0.0295),
    (2, 1198, 0.00525),
    (5, 100, 0.1023),   # Clopper-Pearson's exact one-sided 95% bound (tables: 0.1023)
])
def test_the_wrong_share_bound_is_the_exact_binomial_one(build: ModuleType, wrong: int, reads: int,
                                                         bound: float) -> None:
    assert build.wrong_share_bound(wrong, reads) == pytest.approx(bound, abs=2e-4)


def test_the_bound_needs_reads_and_grows_with_the_wrong_ones(build: ModuleType) -> None:
    assert build.wrong_share_bound(0, 0) == 1.0
    assert build.wrong_share_bound(3, 3) == 1.0
    bounds = [build.wrong_share_bound(w, 1000) for w in range(6)]
    assert all(a < b for a, b in zip(bounds, bounds[1:], strict=False))
    assert all(w / 1000 < b for w, b in enumerate(bounds))


def test_the_rate_rule_takes_the_lowest_threshold_whose_bound_holds(build: ModuleType) -> None:
    """700 right reads at 0.999 and two wrong ones at 0.97 and 0.985: above 0.95 the bound on 2 in 702 is 0.95%,
    too much for 0.5%; from 0.9855 none of 700 is wrong (bound 0.43%)."""
    rows = (right_reads(350, 20, 0.999) + right_reads(350, 30, 0.999, GIMEL)
            + [(18.0, GIMEL, NUN, 0.97, 0.99), (25.0, NUN, GIMEL, 0.985, 0.99)])
    t, right, wrong = build.rate_threshold(rows, 0.95, 0.005)
    assert t == pytest.approx(0.9855) and (right, wrong) == (700, 0)
    t, right, wrong = build.rate_threshold(rows, 0.95, 0.01)  # 1% allows both wrong reads
    assert t == pytest.approx(0.95) and (right, wrong) == (700, 2)


def test_the_rate_rule_never_reads_when_the_evidence_is_too_thin(build: ModuleType) -> None:
    """100 right reads and no wrong one bound the share at 3%: no threshold makes it 0.5%."""
    rows = right_reads(100, 20, 0.999)
    assert build.rate_threshold(rows, 0.95, 0.005) == (None, 0, 0)
    bins, _ = build.fit_confusable_bins(rows, 0.95, max_wrong_share=0.005)
    assert all(b.threshold is None for b in bins[:-1])


def test_the_rate_rule_gives_the_small_faces_one_threshold_and_the_large_bin_its_margin(build: ModuleType) -> None:
    rows = [r for side in (15, 18, 21, 24, 27, 31) for r in right_reads(150, side, 0.998)]
    rows += [(16.0, NUN, GIMEL, 0.996, 0.997)]  # one confident wrong read on a small face
    rows += right_reads(30, 50, 0.999) + [(50.0, GIMEL, NUN, 0.97, 0.97)]  # and one on a large face
    bins, report = build.fit_confusable_bins(rows, 0.95, max_wrong_share=0.005)
    small = [b.threshold for b in bins if b.below_px <= 34.0]
    assert small[0] is None  # under 14 px: no reads there, fewer than SMALL_FACE_MIN_READS
    assert small[1:] == [pytest.approx(0.9965)] * 6  # just above the wrong read: none of 900 wrong above it
    assert bins[-1].threshold == pytest.approx(0.9965)  # the margin rule's 0.975, raised to the small faces' need
    # the margin rule instead closes the 14-17 px bin (0.996 + margin is over its cap: 150 right reads lost) and
    # reads every other small face from the large bin's 0.975
    margin, _ = build.fit_confusable_bins(rows, 0.95)
    assert margin[1].threshold is None and margin[3].threshold == pytest.approx(0.975)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.floats(10, 33.9), st.sampled_from([NUN, GIMEL, HEY]), st.sampled_from([NUN, GIMEL, HEY]),
                          st.floats(0.9, 1.0), st.floats(0.9, 1.0)), min_size=1, max_size=300),
       st.integers(0, 1500))
def test_the_rate_rule_holds_its_bound_on_the_reads_it_fitted(build: ModuleType,
                                                              rows: list[tuple[float, int, int, float, float]],
                                                              extra: int) -> None:
    rows = rows + right_reads(extra, 21, 0.9999, GIMEL)
    bins, _ = build.fit_confusable_bins(rows, 0.95, build.SMALL_FACE_EDGES[:-1], max_wrong_share=0.005)
    right = wrong = 0
    lo = 0.0
    for b in bins:
        for side, truth, best, conf, steady in rows:
            if (b.threshold is not None and lo <= side < b.below_px and best in (NUN, GIMEL)
                    and min(conf, steady) >= b.threshold):
                right, wrong = right + (best == truth), wrong + (best != truth)
        lo = b.below_px
    if right + wrong:
        assert build.wrong_share_bound(wrong, right + wrong) <= 0.005 + 1e-9
    need = [2.0 if b.threshold is None else b.threshold for b in bins]
    assert all(a >= b for a, b in zip(need, need[1:], strict=False))


def test_under_the_rate_rule_a_large_face_never_needs_less_than_the_small_ones(build: ModuleType) -> None:
    rows = [r for side in (15, 18, 21, 24, 27, 31) for r in right_reads(150, side, 0.998)]
    rows += [(16.0, NUN, GIMEL, 0.996, 0.997)]
    rows += right_reads(60, 50, 0.999) + [(50.0, GIMEL, NUN, 0.97, 0.97)]  # its margin rule alone: 0.975
    bins, _ = build.fit_confusable_bins(rows, 0.95, max_wrong_share=0.005)
    assert bins[-1].threshold == pytest.approx(bins[-2].threshold) == pytest.approx(0.9965)
