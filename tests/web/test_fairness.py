"""Dreidel fairness: exact chi-square survival and the bias flag."""

from __future__ import annotations

import math

import pytest

from controller.fairness import chi2_sf, fairness, fairness_by_dreidel
from controller.rules.letters import Letter


# scipy.stats.chi2.sf reference values
@pytest.mark.parametrize(
    ("x", "df", "expected"),
    [(7.814727903, 3, 0.05), (11.34486673, 3, 0.01), (3.841458821, 1, 0.05), (5.991464547, 2, 0.05),
     (9.487729037, 4, 0.05), (0.0, 3, 1.0), (20.51500565, 5, 0.001)],
)
def test_chi2_survival_matches_tables(x: float, df: int, expected: float) -> None:
    assert math.isclose(chi2_sf(x, df), expected, rel_tol=1e-6)


def test_the_published_biased_dreidel_is_flagged() -> None:
    # 800 spins: 302 Nun, 109 Gimel; the other 389 split between Hey and Shin
    letters = [Letter.NUN] * 302 + [Letter.GIMEL] * 109 + [Letter.HEY] * 195 + [Letter.SHIN] * 194
    report = fairness("old-wood", letters)
    assert report.biased and report.p_value is not None and report.p_value < 1e-15
    assert report.to_json()["counts"] == {"nun": 302, "gimel": 109, "hey": 195, "shin": 194}


def test_a_fair_dreidel_is_not_flagged_and_pe_counts_as_shin() -> None:
    letters = [Letter.NUN] * 25 + [Letter.GIMEL] * 24 + [Letter.HEY] * 26 + [Letter.PE] * 25
    report = fairness("house-1", letters)
    assert not report.biased and report.counts[Letter.SHIN] == 25 and report.p_value > 0.5  # type: ignore[operator]


def test_too_few_spins_say_nothing() -> None:
    report = fairness("new", [Letter.NUN] * 10)
    assert report.p_value is None and not report.biased


def test_reports_per_dreidel() -> None:
    reports = fairness_by_dreidel([("b", Letter.NUN), ("a", Letter.HEY), ("b", Letter.GIMEL)])
    assert [(r.dreidel, r.spins) for r in reports] == [("a", 1), ("b", 2)]
