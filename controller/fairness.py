"""Dreidel fairness: letter counts per dreidel and a chi-square test for bias.

Casinos watch dice and roulette wheels the same way: count outcomes, compare with the uniform
expectation, and flag a device whose counts are too unlikely under fairness. A dreidel has four
faces; Pe is the Shin face of an Israeli dreidel, so it is counted as Shin. One published study
counted 302 Nun and 109 Gimel in 800 spins of an old wooden dreidel: chi-square flags that at once.

scipy is not a dependency, so the chi-square survival function is computed exactly here: for an
integer number of degrees of freedom it has a closed form (a finite sum, plus ``erfc`` when the
degrees are odd).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from controller.rules.letters import Letter

#: the four faces, in the order the console lists them
FACES: tuple[Letter, ...] = (Letter.NUN, Letter.GIMEL, Letter.HEY, Letter.SHIN)

#: below this p-value a dreidel is flagged as probably biased
BIAS_P_VALUE = 0.01

#: fewer spins than this cannot say much (every face's expected count is at least 5)
MIN_SPINS = 20


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square variable with ``df`` (a positive integer) degrees of freedom."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be a positive integer, not {df}")
    if x <= 0:
        return 1.0
    half = x / 2.0
    if df % 2 == 0:
        # exp(-x/2) * sum_{k < df/2} (x/2)^k / k!
        term = math.exp(-half)
        total = term
        for k in range(1, df // 2):
            term *= half / k
            total += term
        return min(total, 1.0)
    # odd: erfc(sqrt(x/2)) + sqrt(2x/pi) exp(-x/2) * sum_{k=1}^{(df-1)/2} x^(k-1) / (1*3*...*(2k-1))
    total = math.erfc(math.sqrt(half))
    term = math.sqrt(2.0 * x / math.pi) * math.exp(-half)
    for k in range(1, (df + 1) // 2):
        total += term
        term *= x / (2 * k + 1)
    return min(total, 1.0)


@dataclass(frozen=True)
class FairnessReport:
    """One dreidel's letter counts and its chi-square test against a fair dreidel."""

    dreidel: str
    counts: Mapping[Letter, int]
    spins: int
    chi2: float | None
    p_value: float | None
    biased: bool

    def to_json(self) -> dict[str, object]:
        """For ``/api/fairness`` and the judge console."""
        return {
            "dreidel": self.dreidel,
            "counts": {face.value: self.counts.get(face, 0) for face in FACES},
            "spins": self.spins,
            "chi2": None if self.chi2 is None else round(self.chi2, 3),
            "p_value": self.p_value,
            "biased": self.biased,
        }


def fairness(dreidel: str, letters: Iterable[Letter]) -> FairnessReport:
    """Count ``letters`` (Pe as Shin) and test them against four equally likely faces."""
    counts = dict.fromkeys(FACES, 0)
    for letter in letters:
        counts[letter.plays_as] += 1
    n = sum(counts.values())
    if n < MIN_SPINS:
        return FairnessReport(dreidel, counts, n, None, None, False)
    expected = n / len(FACES)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    p = chi2_sf(chi2, len(FACES) - 1)
    return FairnessReport(dreidel, counts, n, chi2, p, p < BIAS_P_VALUE)


def fairness_by_dreidel(spins: Iterable[tuple[str, Letter]]) -> list[FairnessReport]:
    """A report for each dreidel in ``(dreidel, letter)`` pairs, sorted by name."""
    by: dict[str, list[Letter]] = {}
    for dreidel, letter in spins:
        by.setdefault(dreidel, []).append(letter)
    return [fairness(d, by[d]) for d in sorted(by)]
