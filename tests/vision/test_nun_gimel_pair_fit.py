"""The second look's fit (``scripts/build_nun_gimel_model.py``, ``fit_pair_bins``), with the rate rule of session 16:
the reads of faces of 14-34 px that the face size and the second look let through together stay within the bound."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

from controller.rules.letters import Letter
from vision.recognizer import LETTERS, ConfusableBin, PairLook

NUN, GIMEL = LETTERS.index(Letter.NUN), LETTERS.index(Letter.GIMEL)
#: the face size reads a Nun or Gimel from 0.99 on every small face, 0.985 on large ones
SIZE_BINS = (ConfusableBin(14.0, None), ConfusableBin(34.0, 0.99), ConfusableBin(float("inf"), 0.985))


def rows(n: int, side: float, conf: float, agree: float, truth: int = NUN, best: int = NUN) -> list[list[float]]:
    return [[side, truth, best, conf, conf, agree]] * n


def fit(pair_build: ModuleType, table: list[list[float]], share: float | None) -> tuple[ConfusableBin, ...]:
    bins, _ = pair_build.fit_pair_bins(np.array(table, np.float64), SIZE_BINS, 0.95, max_wrong_share=share)
    return bins


def test_the_rate_rule_lets_the_second_look_add_only_what_the_bound_leaves(pair_build: ModuleType) -> None:
    table = (rows(800, 25, 0.995, 0.99)  # read by their size
             + rows(300, 25, 0.97, 0.99)  # refused by their size, the second look sure of them
             + rows(1, 25, 0.97, 0.995, truth=GIMEL)  # one wrong read the second look is even surer of
             + rows(200, 50, 0.97, 0.99))  # large faces refused by their size
    margin = fit(pair_build, table, None)
    assert all(b.threshold is None for b in margin)  # the margin rule: 0.995 + 0.005 is over its cap, never
    rate = fit(pair_build, table, 0.005)
    # one wrong of 1101 reads: bound 0.43%, within 0.5%: the 300 are read, at the surest threshold that reads them
    assert [b.threshold for b in rate[1:-1]] == [pytest.approx(0.99)] * 6
    assert rate[0].threshold is None  # under 14 px never
    assert rate[-1].threshold == pytest.approx(0.95)  # large faces: the margin rule on their own wrong reads (none)
    rule = pair_build.fit_small_rule(np.array(table, np.float64), SIZE_BINS, 0.95, 0.005)
    assert (rule.right, rule.wrong, rule.confirm) == (1100, 1, None)


def test_the_rate_rule_raises_the_second_look_over_wrong_reads_the_bound_cannot_hold(pair_build: ModuleType) -> None:
    table = (rows(400, 25, 0.995, 0.99) + rows(200, 25, 0.97, 0.98) + rows(100, 25, 0.97, 0.99)
             + rows(1, 20, 0.97, 0.962, truth=GIMEL) + rows(1, 30, 0.96, 0.975, best=GIMEL))
    rate = fit(pair_build, table, 0.005)
    # with either wrong read the bound on 701-702 reads is over 0.5%: the second look must be surer than both, and
    # 0.98 reads every right one
    assert [b.threshold for b in rate[1:-1]] == [pytest.approx(0.98)] * 6
    union_wrong = sum(1 for r in table if r[2] != r[1] and (r[3] >= 0.99 or r[5] >= rate[1].threshold))
    assert union_wrong == 0


def test_a_confirm_step_reads_what_the_letter_network_is_surer_of_with_less_agreement(pair_build: ModuleType) -> None:
    """Right reads at 0.985 that the second look backs at 0.85, wrong ones at 0.96 that it backs at 0.9: the
    second look alone cannot tell them apart, the two networks together can."""
    table = (rows(600, 25, 0.995, 0.99) + rows(300, 25, 0.985, 0.85) + rows(4, 22, 0.96, 0.9, truth=GIMEL))
    rule = pair_build.fit_small_rule(np.array(table, np.float64), SIZE_BINS, 0.95, 0.005)
    assert rule is not None and rule.confirm is not None
    assert 0.96 < rule.confirm.from_score <= 0.985 and rule.confirm.agreement <= 0.85
    assert rule.pair > 0.9 and (rule.right, rule.wrong) == (900, 0)
    look = PairLook(None, (ConfusableBin(14.0, None), ConfusableBin(34.0, rule.pair)), None, confirm=rule.confirm)
    assert look.needed(25.0, 0.985) == rule.confirm.agreement  # surer letter read: the confirm step
    assert look.needed(25.0, 0.96) == rule.pair  # less sure: the second look's own threshold
    assert look.needed(40.0, 0.985) is None and look.needed(12.0, 0.985) is None  # not asked at those sizes


def test_the_rate_rule_closes_the_second_look_when_the_face_size_already_spends_the_bound(
        pair_build: ModuleType) -> None:
    table = (rows(300, 25, 0.995, 0.99) + rows(1, 25, 0.995, 0.99, truth=GIMEL)  # a wrong read by its size
             + rows(300, 25, 0.97, 0.999))
    rate = fit(pair_build, table, 0.005)
    assert all(b.threshold is None for b in rate[:-1])
