"""The ante planner: how fast must the antes rise for a tournament to end in time?

A 10-player table with a fixed ante of 1 lasts about 12,800 spins (days at 10 s a spin), so officials raise
the ante on a clock. This module searches a grid of (interval, step) schedules with the fast simulator and
recommends, for the table phase and for the final table separately, the gentlest schedule whose chance of
overrunning its target stays within a chosen risk: the smallest step that can do it (+1 if at all
possible, as the seed's rules have it), raised as seldom as possible.

Model (what is and is not simulated):

- Players are split into as few tables as the table size allows, as evenly as possible; tables play in
  parallel and start together, so the table phase lasts as long as its slowest table.
- Time is ``spins x spin_seconds`` at every table; the ante clock is the tournament's clock.
- The final table seats the table winners plus the wild cards (one drawn before it starts, one more at each
  ante raise, up to ``wild_cards``), with fresh stacks and the ante back at its start (RULES.md defaults).
  A one-table tournament has no final table.
- "Chip leader at half time": at each table, the player(s) with the most gelt when half of that table's
  spins have been played; a shared lead counts as a share of a win. Compare it with ``1 / table size``,
  what a pure lottery would give.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from controller.gamesim import AnteSchedule, Dreidel, GameSetup, GameSimulator

#: Ante intervals tried, in seconds: every 15 s up to 5 minutes (the seed's "every three minutes, or faster if
#: necessary"), then coarser up to 20 minutes for generous targets.
INTERVALS_S: tuple[float, ...] = (
    tuple(float(x) for x in range(30, 301, 15))
    + tuple(float(x) for x in range(330, 601, 30))
    + tuple(float(x) for x in range(660, 1201, 60))
)
#: Ante steps tried.
STEPS: tuple[int, ...] = (1, 2, 3, 4, 5)
#: The most players a table may seat (RULES.md).
MAX_TABLE_SIZE = 10


class PlanError(ValueError):
    """The planner was asked for something impossible; the message says what to change."""


@dataclass(frozen=True)
class PlanRequest:
    """What the officials know and want."""

    players: int
    table_size: int = 10
    stack: int = 18
    spin_seconds: float = 10.0
    table_target_s: float = 45 * 60
    final_target_s: float = 30 * 60
    max_overrun: float = 0.1
    """The accepted chance of overrunning a target."""
    start_ante: int = 1
    wild_cards: int = 2
    wild_stack_antes: int = 2
    trials: int = 2000
    """Simulated tournaments behind the reported figures (the grid search uses fewer)."""
    seed: int = 1
    dreidel: Dreidel = field(default_factory=Dreidel)

    def __post_init__(self) -> None:
        if self.table_size < 2 or self.table_size > MAX_TABLE_SIZE:
            raise PlanError(f"the table size must be 2 to {MAX_TABLE_SIZE} (RULES.md), not {self.table_size}")
        if self.players < 2:
            raise PlanError(f"a tournament needs at least 2 players, not {self.players}")
        if self.stack < 1:
            raise PlanError(f"the starting stack must be at least 1 gelt, not {self.stack}")
        if self.start_ante < 1 or self.start_ante > self.stack:
            raise PlanError(f"the starting ante must be 1 to the stack ({self.stack}), not {self.start_ante}")
        if not (self.spin_seconds > 0 and math.isfinite(self.spin_seconds)):
            raise PlanError(f"seconds per spin must be positive, not {self.spin_seconds}")
        for name in ("table_target_s", "final_target_s"):
            value = getattr(self, name)
            if not (value > 0 and math.isfinite(value)):
                raise PlanError(f"the {name.split('_')[0]} target must be a positive duration, not {value}")
        if not 0 < self.max_overrun < 1:
            raise PlanError(f"the accepted overrun risk must be between 0 and 1, not {self.max_overrun}")
        if self.wild_cards < 0:
            raise PlanError(f"wild cards must be 0 or more, not {self.wild_cards}")
        if self.trials < 50:
            raise PlanError(f"use at least 50 trials for a meaningful distribution, not {self.trials}")
        if self.table_target_s < self.spin_seconds or self.final_target_s < self.spin_seconds:
            raise PlanError("a target shorter than one spin cannot be met")

    @property
    def table_sizes(self) -> list[int]:
        """Players per table: as few tables as possible, as even as possible (largest first)."""
        n = math.ceil(self.players / self.table_size)
        base, extra = divmod(self.players, n)
        return [base + 1] * extra + [base] * (n - extra)

    @property
    def final_wild_cards(self) -> int:
        """Wild cards that can be drawn: no more than the knocked-out players who are not table winners."""
        tables = len(self.table_sizes)
        return 0 if tables < 2 else min(self.wild_cards, self.players - tables)


@dataclass(frozen=True)
class Distribution:
    """A duration distribution in seconds, with the chance of exceeding a target."""

    p10_s: float
    p50_s: float
    p90_s: float
    mean_s: float
    target_s: float
    overrun_chance: float

    @classmethod
    def of(cls, seconds: npt.NDArray[np.float64], target_s: float) -> Distribution:
        p10, p50, p90 = np.percentile(seconds, [10, 50, 90])
        return cls(
            float(p10),
            float(p50),
            float(p90),
            float(seconds.mean()),
            target_s,
            float((seconds > target_s).mean()),
        )


@dataclass(frozen=True)
class PhasePlan:
    """The recommended schedule for one phase and what it predicts."""

    schedule: AnteSchedule
    tables: list[int]
    """Players at each table of the phase."""
    wild_cards: int
    duration: Distribution
    met_target: bool
    candidates: int


@dataclass(frozen=True)
class Plan:
    """The planner's answer."""

    request: PlanRequest
    table_phase: PhasePlan
    final_table: PhasePlan | None
    """None for a one-table tournament (its winner is the champion)."""
    tournament: Distribution
    leader_at_half_wins: float
    """How often a table's chip leader at half time goes on to win the table."""
    lottery_chance: float
    """What a pure lottery would give instead: the mean of 1 / table size."""


class Planner:
    """Searches ante schedules with the fast simulator (common random numbers for a fair comparison)."""

    def __init__(self, simulator: GameSimulator | None = None, search_trials: int = 300) -> None:
        self._sim = simulator or GameSimulator()
        self._search_trials = search_trials

    def plan(self, req: PlanRequest) -> Plan:
        """Recommend schedules for the table phase and the final table, and predict the whole tournament."""
        sizes = req.table_sizes
        table = self._choose(req, sizes, 0, req.table_target_s, seed=req.seed)
        table, table_s = self._confirm(req, table, req.table_target_s, req.seed)
        _, leader, lottery = self._phase(req, table.schedule, sizes, 0, req.trials, req.seed, leaders=True)
        final: PhasePlan | None = None
        total_s = table_s
        if len(sizes) > 1:
            final_sizes = [len(sizes)]
            wild = req.final_wild_cards
            final = self._choose(req, final_sizes, wild, req.final_target_s, seed=req.seed + 1)
            final, final_s = self._confirm(req, final, req.final_target_s, req.seed + 1)
            total_s = table_s + final_s
        total = Distribution.of(total_s, req.table_target_s + (req.final_target_s if final else 0.0))
        return Plan(req, table, final, total, leader, lottery)

    def _confirm(
        self, req: PlanRequest, phase: PhasePlan, target_s: float, seed: int
    ) -> tuple[PhasePlan, npt.NDArray[np.float64]]:
        """Re-run the chosen schedule with the full number of trials. The search's smaller sample can be
        optimistic near the risk limit, so step to shorter intervals on the grid until the full run agrees."""
        grid = sorted(INTERVALS_S)
        schedule = phase.schedule
        while True:
            seconds, _, _ = self._phase(req, schedule, phase.tables, phase.wild_cards, req.trials, seed)
            dist = Distribution.of(seconds, target_s)
            met = dist.overrun_chance <= req.max_overrun
            shorter = [e for e in grid if schedule.every_s is not None and e < schedule.every_s]
            if met or not phase.met_target or not shorter:
                return PhasePlan(
                    schedule, phase.tables, phase.wild_cards, dist, met, phase.candidates
                ), seconds
            schedule = AnteSchedule(schedule.start, shorter[-1], schedule.step)

    def _choose(self, req: PlanRequest, sizes: list[int], wild: int, target_s: float, seed: int) -> PhasePlan:
        """The smallest step that can meet the target, with the longest interval that meets it for that step.

        Small steps keep the game smooth (no sudden wave of eliminations), and the longest interval is the
        gentlest pace that still ends in time. When nothing meets the target, the schedule with the lowest
        chance of overrunning is returned, marked as not meeting it.
        """
        fallback: tuple[float, AnteSchedule, Distribution] | None = None
        tried: dict[AnteSchedule, Distribution] = {}

        def evaluate(every: float, step: int) -> Distribution:
            schedule = AnteSchedule(req.start_ante, every, step)
            if schedule not in tried:
                seconds, _, _ = self._phase(req, schedule, sizes, wild, self._search_trials, seed)
                tried[schedule] = Distribution.of(seconds, target_s)
            return tried[schedule]

        grid = sorted(INTERVALS_S)
        for step in STEPS:
            # A longer interval means a longer game, so bisect for the longest interval that meets the risk.
            if evaluate(grid[0], step).overrun_chance > req.max_overrun:
                dist = tried[AnteSchedule(req.start_ante, grid[0], step)]
                if fallback is None or dist.overrun_chance < fallback[0]:
                    fallback = (dist.overrun_chance, AnteSchedule(req.start_ante, grid[0], step), dist)
                continue
            lo, hi = 0, len(grid) - 1  # grid[lo] meets the risk; find the last index that does
            if evaluate(grid[hi], step).overrun_chance <= req.max_overrun:
                lo = hi
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if evaluate(grid[mid], step).overrun_chance <= req.max_overrun:
                    lo = mid
                else:
                    hi = mid
            schedule = AnteSchedule(req.start_ante, grid[lo], step)
            return PhasePlan(schedule, sizes, wild, tried[schedule], True, len(tried))
        assert fallback is not None
        return PhasePlan(fallback[1], sizes, wild, fallback[2], False, len(tried))

    def _phase(
        self,
        req: PlanRequest,
        schedule: AnteSchedule,
        sizes: list[int],
        wild: int,
        trials: int,
        seed: int,
        leaders: bool = False,
    ) -> tuple[npt.NDArray[np.float64], float, float]:
        """Seconds each of ``trials`` phases lasts (its slowest table), and optionally the half-time leaders'
        win share and the lottery baseline."""
        longest = np.zeros(trials, dtype=np.float64)
        share_sum = 0.0
        games_total = 0
        lottery_sum = 0.0
        for size in sorted(set(sizes)):
            count = sizes.count(size)
            setup = GameSetup(
                size, req.stack, schedule, req.spin_seconds, wild, req.wild_stack_antes, req.dreidel
            )
            # Games of one size are numbered per (seed, size), so every schedule sees the same random letters.
            res = self._sim.simulate(setup, trials * count, seed=seed * 1009 + size)
            spins = res.spins.reshape(trials, count)
            longest = np.maximum(longest, spins.max(axis=1) * req.spin_seconds)
            if leaders:
                masks = self._sim.leaders_at(res, np.maximum(res.spins // 2, 1))
                share_sum += _leader_share(masks, res.winner)
                games_total += res.games
                lottery_sum += res.games / (size + wild)
        if leaders:
            return longest, share_sum / games_total, lottery_sum / games_total
        return longest, math.nan, math.nan


def _leader_share(masks: npt.NDArray[np.int64], winners: npt.NDArray[np.int64]) -> float:
    """Sum over games of the winner's share of the half-time lead (1/k when k players shared it)."""
    total = 0.0
    for mask, winner in zip(masks.tolist(), winners.tolist(), strict=True):
        if mask == 0:  # the game was over before its half (cannot happen with a half of >= 1 spin)
            continue
        if (mask >> winner) & 1:
            total += 1.0 / bin(mask).count("1")
    return total
