"""The fast game simulator: many tournament-table games under RULES.md, compiled with numba.

``sevivon simulate`` and the ante planner lean on this, so it is built for speed: one compiled kernel plays a
whole batch of games with no Python in the loop. The same rules are also written as a plain Python loop
(:class:`PlainSimulator`), which serves as an independent second implementation: both consume the same
random stream in the same order, so for the same seed they must agree game for game (a test says so), and
the benchmark compares their speed.

Rules as played here (RULES.md; the figures 579.5 / 115.7 / 306.9 spins for 4 / 2 / 3 players with 10 gelt and
a fixed ante of 1 pin this reading down):

- Before the first spin every player posts the ante (all-ante). After every settled spin, if pot <= ante,
  every player still in posts the ante. Nobody is ever "away" in a simulation.
- Nun: nothing. Gimel: the whole pot. Hey: ceil(pot / 2). Shin (and Pe): the spinner posts one ante.
- A player asked for an ante they cannot post in full is out, and surrenders what they have to the pot.
  Posting exactly the ante leaves them in with 0, out at the next ante asked of them.
- If one all-ante would knock out everyone still in, the largest stack before it survives and wins: the
  smaller stacks are out at once, and exactly tied largest stacks spin off (Gimel > Hey > Nun > Shin; a
  round's losers are out, until one is left). This only ever ends a game, so the spin-off's spins are not
  counted in ``spins`` (nor in the time), as the rules engine does not count them either.
- Ante raises follow a clock: a game's time is ``spins x spin_seconds`` (a spin's seconds include handling
  and re-spins). Raise m (by ``step``) is announced at ``m x every`` seconds. Spin k lasts from
  ``(k-1) x spin_seconds`` to ``k x spin_seconds``; a raise announced during it (or exactly as it ends) is
  pending and takes effect when the turn passes after it, so spin k, its Shin and the all-ante check after
  it use the old ante (``controller.rules.table`` does the same with ``raise_ante`` before the spin).
- Wild cards (for the final table), as ``controller.rules.tournament`` seats them: the first is drawn before
  the game and joins right after the opening all-ante; each later one is drawn when a raise is announced
  and joins at once. Either way they sit right after the current spinner with ``wild_stack_antes x`` the
  ante in force, and count as "still in" for the next all-ante.

Randomness: each game has its own SplitMix64 stream seeded from ``(seed, game index)``, so a game is
reproducible on its own, whatever batch it was played in. A fair dreidel uses two bits of a 64-bit draw
per letter; a biased dreidel uses one 53-bit uniform per letter against the cumulative weights.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numba
import numpy as np
import numpy.typing as npt

from controller.rules.letters import Letter

# Letter codes inside the kernel. Pe is folded into Shin before it gets here.
NUN, GIMEL, HEY, SHIN = 0, 1, 2, 3
CODE_OF: dict[Letter, int] = {Letter.NUN: NUN, Letter.GIMEL: GIMEL, Letter.HEY: HEY, Letter.SHIN: SHIN}
LETTER_OF_CODE: tuple[Letter, ...] = (Letter.NUN, Letter.GIMEL, Letter.HEY, Letter.SHIN)

#: Spin-off strength by letter code: Gimel beats Hey beats Nun beats Shin.
SPIN_OFF_RANK: tuple[int, ...] = (2, 4, 3, 1)

#: The most seats one simulated game may have (table + wild cards); the leader mask is an int64 bit set.
MAX_SEATS = 62

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB


class SimulationError(ValueError):
    """A simulation was asked for something impossible; the message says what to change."""


# ------------------------------------------------------------------------------------------------------
# The domain
# ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Dreidel:
    """How often each letter comes up. ``Dreidel()`` is fair; weights need not sum to 1."""

    nun: float = 1.0
    gimel: float = 1.0
    hey: float = 1.0
    shin: float = 1.0

    def __post_init__(self) -> None:
        weights = (self.nun, self.gimel, self.hey, self.shin)
        if any(not math.isfinite(w) or w < 0 for w in weights) or sum(weights) <= 0:
            raise SimulationError(f"dreidel weights must be >= 0 and not all 0, got {weights}")
        if sum(1 for w in weights if w > 0) < 2:
            # A spin-off between equal stacks could never be decided (and a Nun-only game never ends).
            raise SimulationError(
                f"a dreidel must be able to show at least two letters, got weights {weights}"
            )

    @property
    def fair(self) -> bool:
        """True when every letter is equally likely (the kernel then uses two random bits per letter)."""
        return self.nun == self.gimel == self.hey == self.shin

    def cumulative(self) -> npt.NDArray[np.float64]:
        """Cumulative probabilities in letter-code order (nun, gimel, hey, shin); the last is exactly 1."""
        w = np.array([self.nun, self.gimel, self.hey, self.shin], dtype=np.float64)
        cum = np.cumsum(w / w.sum()).astype(np.float64)
        cum[-1] = 1.0
        return cum

    @classmethod
    def parse(cls, text: str) -> Dreidel:
        """Read ``"nun=302,gimel=109,hey=200,shin=189"`` (counts or weights; missing letters weigh 0).

        Pe is accepted as another name for Shin.
        """
        weights = {"nun": 0.0, "gimel": 0.0, "hey": 0.0, "shin": 0.0}
        for part in text.split(","):
            if not part.strip():
                continue
            name, sep, value = part.partition("=")
            if not sep:
                raise SimulationError(f"bias entry {part!r} must look like letter=weight, e.g. nun=302")
            try:
                letter = Letter.parse(name).plays_as
            except ValueError as exc:
                raise SimulationError(str(exc)) from None
            try:
                weights[letter.value] += float(value)
            except ValueError:
                raise SimulationError(f"bias weight {value!r} for {name.strip()} is not a number") from None
        return cls(**weights)


@dataclass(frozen=True)
class AnteSchedule:
    """The ante starts at ``start`` and, when ``every_s`` is set, rises by ``step`` every ``every_s`` seconds."""

    start: int = 1
    every_s: float | None = None
    step: int = 1

    def __post_init__(self) -> None:
        if self.start < 1:
            raise SimulationError(f"the starting ante must be at least 1, got {self.start}")
        if self.every_s is not None and not (self.every_s > 0 and math.isfinite(self.every_s)):
            raise SimulationError(
                f"the ante interval must be a positive number of seconds, got {self.every_s}"
            )
        if self.step < 1:
            raise SimulationError(f"the ante step must be at least 1, got {self.step}")

    def describe(self) -> str:
        """``"ante 1, +2 every 3m"`` or ``"fixed ante 1"``."""
        if self.every_s is None:
            return f"fixed ante {self.start}"
        return f"ante {self.start}, +{self.step} every {format_duration(self.every_s)}"


@dataclass(frozen=True)
class GameSetup:
    """One table's game: seats, stacks, ante schedule, seconds per spin, wild cards and the dreidel."""

    players: int
    stack: int
    schedule: AnteSchedule = field(default_factory=AnteSchedule)
    spin_seconds: float = 10.0
    wild_cards: int = 0
    wild_stack_antes: int = 2
    dreidel: Dreidel = field(default_factory=Dreidel)

    def __post_init__(self) -> None:
        if self.players < 2:
            raise SimulationError(f"a game needs at least 2 players, got {self.players}")
        if self.stack < 1:
            raise SimulationError(f"the starting stack must be at least 1 gelt, got {self.stack}")
        if self.schedule.start > self.stack:
            raise SimulationError(
                f"the starting ante ({self.schedule.start}) is larger than the stack ({self.stack}): "
                "nobody could post the first all-ante"
            )
        if not (self.spin_seconds > 0 and math.isfinite(self.spin_seconds)):
            raise SimulationError(f"seconds per spin must be positive, got {self.spin_seconds}")
        if self.wild_cards < 0 or self.wild_stack_antes < 1:
            raise SimulationError("wild cards must be >= 0 and their stack at least 1 ante")
        if self.players + self.wild_cards > MAX_SEATS:
            raise SimulationError(f"a simulated game seats at most {MAX_SEATS} players (with wild cards)")

    # The kernel works in whole milliseconds so that "is the raise due?" is exact integer arithmetic.
    def _spin_ms(self) -> int:
        return max(1, round(self.spin_seconds * 1000))

    def _every_ms(self) -> int:
        return 0 if self.schedule.every_s is None else max(1, round(self.schedule.every_s * 1000))


@dataclass(frozen=True)
class BatchResult:
    """Per-game results of a batch: ``spins[i]`` and ``winner[i]`` (the seat index, 0 = first spinner;
    wild cards are numbered ``players``, ``players + 1``, ... in the order they joined)."""

    setup: GameSetup
    seed: int
    first_game: int
    spins: npt.NDArray[np.int64]
    winner: npt.NDArray[np.int64]

    @property
    def games(self) -> int:
        return int(self.spins.size)

    def minutes(self) -> npt.NDArray[np.float64]:
        """Each game's length in minutes at the setup's seconds per spin."""
        return self.spins.astype(np.float64) * (self.setup.spin_seconds / 60.0)

    def summary(self) -> SimSummary:
        """Mean, median and 90th percentile of spins, win rate by seat and mean minutes."""
        n = self.games
        if n == 0:
            raise SimulationError("no games were simulated")
        counts = np.bincount(self.winner, minlength=self.setup.players + self.setup.wild_cards)
        mean = float(self.spins.mean())
        sem = float(self.spins.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
        return SimSummary(
            games=n,
            mean_spins=mean,
            stderr_spins=sem,
            median_spins=float(np.median(self.spins)),
            p90_spins=float(np.percentile(self.spins, 90)),
            win_rate_by_seat=[float(c) / n for c in counts],
            mean_minutes=mean * self.setup.spin_seconds / 60.0,
        )


@dataclass(frozen=True)
class SimSummary:
    """What ``sevivon simulate`` prints."""

    games: int
    mean_spins: float
    stderr_spins: float
    median_spins: float
    p90_spins: float
    win_rate_by_seat: list[float]
    mean_minutes: float


@dataclass(frozen=True)
class GameState:
    """The state of one game after a given letter sequence (for cross-checks against the rules engine).

    ``stacks``/``alive`` are by seat in seating order (wild cards inserted where they sat down), ``ids`` the
    player number at each seat. ``next_seat`` is the seat index of the next spinner (None once won).
    """

    spins: int
    winner: int | None
    pot: int
    ante: int
    next_seat: int | None
    ids: list[int]
    stacks: list[int]
    alive: list[bool]
    letters_used: int


# ------------------------------------------------------------------------------------------------------
# Seeding (shared by both implementations)
# ------------------------------------------------------------------------------------------------------


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * _MIX1) & _MASK64
    z = ((z ^ (z >> 27)) * _MIX2) & _MASK64
    return z ^ (z >> 31)


def game_seed(seed: int, game: int) -> int:
    """The SplitMix64 state that starts game number ``game`` of a run seeded with ``seed``."""
    return _mix((_mix(seed & _MASK64) + (game & _MASK64) * _GOLDEN) & _MASK64)


# ------------------------------------------------------------------------------------------------------
# The compiled kernel
# ------------------------------------------------------------------------------------------------------
# The random stream is (counter, buffered bits, bits left): SplitMix64 plus a 2-bit buffer for the fair
# dreidel. It lives in local variables threaded through ``inline="always"`` helpers, so LLVM keeps it in
# registers (an array would cost a memory round trip per letter, several times slower overall).
# A ``script`` (instead of None) replaces the random stream with given letter codes (cross-checks); when it runs
# out, the game stops where it is and ``winner`` is -1.

_U = np.uint64
#: An integer inside the kernel: numba treats Python ints and int64 alike; mypy needs both spelled out.
KInt = int | np.int64
# numba freezes global arrays into the compiled code as constants.
SPIN_OFF_RANK_ARR = np.array(SPIN_OFF_RANK, dtype=np.int64)
SPIN_OFF_RANK_ARR.setflags(write=False)


@numba.njit(cache=True, nogil=True, inline="always")
def _mix_u64(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> _U(30))) * _U(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U(27))) * _U(0x94D049BB133111EB)
    return z ^ (z >> _U(31))


@numba.njit(cache=True, nogil=True, inline="always")
def _draw(
    st: np.uint64,
    bits: np.uint64,
    left: KInt,
    pos: KInt,
    fair: bool,
    cum: npt.NDArray[np.float64],
    script: npt.NDArray[np.int8] | None,
) -> tuple[KInt, np.uint64, np.uint64, KInt, KInt]:
    """The next letter code (-1 when a script has run out) and the advanced stream (st, bits, left, pos)."""
    if script is not None:  # numba compiles this branch away when script is None
        if pos >= script.size:
            return np.int64(-1), st, bits, left, pos
        return np.int64(script[pos]), st, bits, left, pos + 1
    if fair:
        if left == 0:
            st = st + _U(0x9E3779B97F4A7C15)
            bits = _mix_u64(st)
            left = 32
        return np.int64(bits & _U(3)), st, bits >> _U(2), left - 1, pos
    st = st + _U(0x9E3779B97F4A7C15)
    u = float(_mix_u64(st) >> _U(11)) * (1.0 / 9007199254740992.0)
    code = np.int64(0)
    while code < 3 and u >= cum[code]:
        code += 1
    return code, st, bits, left, pos


@numba.njit(cache=True, nogil=True)
def _survivor(
    n_seats: KInt,
    stacks: npt.NDArray[np.int64],
    alive: npt.NDArray[np.bool_],
    pot: KInt,
    st: np.uint64,
    bits: np.uint64,
    left: KInt,
    pos: KInt,
    fair: bool,
    cum: npt.NDArray[np.float64],
    script: npt.NDArray[np.int8] | None,
    tied: npt.NDArray[np.int64],
    rank: npt.NDArray[np.int64],
) -> tuple[KInt, KInt, np.uint64, np.uint64, KInt, KInt]:
    """An all-ante that would knock out everyone: the largest stack survives and wins; exact ties spin off.
    Returns (pot, players still in (1, or -1 if a spin-off script ran out), st, bits, left, pos)."""
    best = np.int64(-1)
    for s in range(n_seats):
        if alive[s] and stacks[s] > best:
            best = stacks[s]
    # Everyone below the largest stack is out at once; the tied largest stacks spin off, and whoever does
    # not have the best letter of a round is out at that moment (as controller.rules.table plays it).
    n_tied = 0
    for s in range(n_seats):
        if alive[s]:
            if stacks[s] == best:
                tied[n_tied] = s
                n_tied += 1
            else:
                pot += stacks[s]
                stacks[s] = 0
                alive[s] = False
    while n_tied > 1:
        top = np.int64(0)
        for i in range(n_tied):
            code, st, bits, left, pos = _draw(st, bits, left, pos, fair, cum, script)
            if code < 0:
                return pot, -1, st, bits, left, pos
            rank[i] = SPIN_OFF_RANK_ARR[code]
            if rank[i] > top:
                top = rank[i]
        k = 0
        for i in range(n_tied):
            s = tied[i]
            if rank[i] == top:
                tied[k] = s
                k += 1
            else:
                pot += stacks[s]
                stacks[s] = 0
                alive[s] = False
        n_tied = k
    return pot, 1, st, bits, left, pos


@numba.njit(cache=True, nogil=True, inline="always")
def _all_ante(
    n_seats: KInt,
    stacks: npt.NDArray[np.int64],
    alive: npt.NDArray[np.bool_],
    ante: KInt,
    pot: KInt,
    n_in: KInt,
) -> tuple[KInt, KInt]:
    """Everyone still in posts ``ante``: returns (pot, players still in). Returns (pot, 0) without touching
    anything when this all-ante would knock out everyone (the survivor rule, :func:`_survivor`, decides)."""
    can_post = False
    for s in range(n_seats):
        if alive[s] and stacks[s] >= ante:
            can_post = True
            break
    if not can_post:
        return pot, 0
    for s in range(n_seats):
        if alive[s]:
            if stacks[s] < ante:
                pot += stacks[s]
                stacks[s] = 0
                alive[s] = False
                n_in -= 1
            else:
                stacks[s] -= ante
                pot += ante
    return pot, n_in


@numba.njit(cache=True, nogil=True)
def _seat_wild(
    ids: npt.NDArray[np.int64],
    stacks: npt.NDArray[np.int64],
    alive: npt.NDArray[np.bool_],
    n_seats: KInt,
    after: KInt,
    player_id: KInt,
    stack: KInt,
) -> KInt:
    """Seat a wild card right after seat ``after`` (moving later seats one along); return the new seat count."""
    for s in range(n_seats, after + 1, -1):
        ids[s] = ids[s - 1]
        stacks[s] = stacks[s - 1]
        alive[s] = alive[s - 1]
    ids[after + 1] = player_id
    stacks[after + 1] = stack
    alive[after + 1] = True
    return n_seats + 1


@numba.njit(cache=True, nogil=True, inline="always")
def _play(
    players: KInt,
    stack: KInt,
    ante0: KInt,
    step: KInt,
    every_ms: KInt,
    spin_ms: KInt,
    wild_cards: KInt,
    wild_stack_antes: KInt,
    fair: bool,
    cum: npt.NDArray[np.float64],
    state0: np.uint64,
    script: npt.NDArray[np.int8] | None,
    stop_at: KInt,
    ids: npt.NDArray[np.int64],
    stacks: npt.NDArray[np.int64],
    alive: npt.NDArray[np.bool_],
    tied: npt.NDArray[np.int64],
    rank: npt.NDArray[np.int64],
    out: npt.NDArray[np.int64],
) -> None:
    """Play one game. ``out`` receives [spins, winner id (-1 unfinished), pot, ante, next seat (-1 if none),
    seats, letters used, leader bit mask at ``stop_at`` spins (0 if not stopped there)]."""
    st = state0
    bits = _U(0)
    left: KInt = 0
    pos: KInt = 0
    cap = stacks.size
    n_seats: KInt = players
    for s in range(players):
        ids[s] = s
        stacks[s] = stack
        alive[s] = True
    wild_left = wild_cards
    next_id = players
    ante = np.int64(ante0)
    pending: KInt = np.int64(0)
    spins = 0
    raises = 0
    cur = 0
    leader_mask = np.int64(0)
    pot, n_in = _all_ante(n_seats, stacks, alive, ante, np.int64(0), n_seats)
    if n_in == 0:
        pot, n_in, st, bits, left, pos = _survivor(
            n_seats, stacks, alive, pot, st, bits, left, pos, fair, cum, script, tied, rank
        )
    if wild_left > 0 and n_in > 1:
        # The first wild card is drawn before the game and joins right after the opening all-ante.
        n_seats = _seat_wild(ids, stacks, alive, n_seats, cur, next_id, wild_stack_antes * ante)
        n_in += 1
        next_id += 1
        wild_left -= 1
    while n_in > 1:
        code, st, bits, left, pos = _draw(st, bits, left, pos, fair, cum, script)
        if code < 0:  # a script ran out: stop here, the game unfinished
            break
        if every_ms > 0:
            # Raises announced while this spin is under way (up to and including the moment it ends) are
            # pending: they take effect when the turn passes. Each one draws a wild card while any are left.
            due = ((spins + 1) * spin_ms) // every_ms
            while raises < due:
                raises += 1
                pending += step
                if wild_left > 0 and n_seats < cap:
                    n_seats = _seat_wild(ids, stacks, alive, n_seats, cur, next_id, wild_stack_antes * ante)
                    n_in += 1
                    next_id += 1
                    wild_left -= 1
        spins += 1
        if code == GIMEL:
            stacks[cur] += pot
            pot = 0
        elif code == HEY:
            half = (pot + 1) >> 1
            stacks[cur] += half
            pot -= half
        elif code == SHIN:
            if stacks[cur] < ante:
                pot += stacks[cur]
                stacks[cur] = 0
                alive[cur] = False
                n_in -= 1
            else:
                stacks[cur] -= ante
                pot += ante
        if n_in > 1 and pot <= ante:
            pot, n_in = _all_ante(n_seats, stacks, alive, ante, pot, n_in)
            if n_in == 0:
                pot, n_in, st, bits, left, pos = _survivor(
                    n_seats, stacks, alive, pot, st, bits, left, pos, fair, cum, script, tied, rank
                )
        if spins == stop_at and n_in > 1:
            best = np.int64(-1)
            for s in range(n_seats):
                if alive[s] and stacks[s] > best:
                    best = stacks[s]
            for s in range(n_seats):
                if alive[s] and stacks[s] == best:
                    leader_mask |= np.int64(1) << ids[s]
            break
        if n_in <= 1:
            break
        # The turn passes clockwise; the raises announced during the spin take effect.
        ante += pending
        pending = 0
        cur += 1
        if cur >= n_seats:
            cur = 0
        while not alive[cur]:
            cur += 1
            if cur >= n_seats:
                cur = 0
    winner = -1
    if n_in == 1:
        for s in range(n_seats):
            if alive[s]:
                winner = ids[s]
    out[0] = spins
    out[1] = winner
    out[2] = pot
    out[3] = ante
    out[4] = cur if n_in > 1 else -1
    out[5] = n_seats
    out[6] = pos
    out[7] = leader_mask


@numba.njit(cache=True, nogil=True)
def _batch(
    players: KInt,
    stack: KInt,
    ante0: KInt,
    step: KInt,
    every_ms: KInt,
    spin_ms: KInt,
    wild_cards: KInt,
    wild_stack_antes: KInt,
    fair: bool,
    cum: npt.NDArray[np.float64],
    seed_mixed: np.uint64,
    first_game: KInt,
    n_games: KInt,
    stop_at: npt.NDArray[np.int64],
    script: npt.NDArray[np.int8] | None,
    spins_out: npt.NDArray[np.int64],
    winner_out: npt.NDArray[np.int64],
    leader_out: npt.NDArray[np.int64],
    last_out: npt.NDArray[np.int64],
    last_seats: npt.NDArray[np.int64],
) -> None:
    """Play games ``first_game .. first_game + n_games - 1``; ``stop_at`` (empty or per game) asks for the
    chip leaders after that many spins instead of playing to the end; a ``script`` (not None) supplies the
    letters. The last game's ``out`` record and its seats (rows: ids, stacks, alive) are copied to
    ``last_out`` and ``last_seats``."""
    # The seat arrays are allocated here, not passed in, so that LLVM knows they do not alias.
    cap = players + wild_cards + 1
    ids = np.empty(cap, dtype=np.int64)
    stacks = np.empty(cap, dtype=np.int64)
    alive = np.empty(cap, dtype=np.bool_)
    tied = np.empty(cap, dtype=np.int64)
    rank = np.empty(cap, dtype=np.int64)
    out = np.zeros(8, dtype=np.int64)
    for g in range(n_games):
        state0 = _mix_u64(seed_mixed + _U(first_game + g) * _U(0x9E3779B97F4A7C15))
        stop = stop_at[g] if stop_at.size > 0 else -1
        _play(
            players,
            stack,
            ante0,
            step,
            every_ms,
            spin_ms,
            wild_cards,
            wild_stack_antes,
            fair,
            cum,
            state0,
            script,
            stop,
            ids,
            stacks,
            alive,
            tied,
            rank,
            out,
        )
        spins_out[g] = out[0]
        winner_out[g] = out[1]
        leader_out[g] = out[7]
    last_out[:] = out
    for s in range(cap):
        last_seats[0, s] = ids[s]
        last_seats[1, s] = stacks[s]
        last_seats[2, s] = 1 if alive[s] else 0


# ------------------------------------------------------------------------------------------------------
# The public simulators
# ------------------------------------------------------------------------------------------------------


def _no_stop() -> npt.NDArray[np.int64]:
    return np.empty(0, dtype=np.int64)


def _run_batch(
    setup: GameSetup,
    seed: int,
    first_game: int,
    games: int,
    stop: npt.NDArray[np.int64],
    script: npt.NDArray[np.int8] | None,
) -> tuple[npt.NDArray[np.int64], ...]:
    """Run the kernel; returns (spins, winner, leader mask) per game and the last game's out record and seats."""
    spins = np.empty(games, dtype=np.int64)
    winner = np.empty(games, dtype=np.int64)
    leader = np.empty(games, dtype=np.int64)
    out = np.zeros(8, dtype=np.int64)
    seats = np.zeros((3, setup.players + setup.wild_cards + 1), dtype=np.int64)
    _batch(
        setup.players,
        setup.stack,
        setup.schedule.start,
        setup.schedule.step,
        setup._every_ms(),
        setup._spin_ms(),
        setup.wild_cards,
        setup.wild_stack_antes,
        setup.dreidel.fair,
        setup.dreidel.cumulative(),
        _U(_mix(seed & _MASK64)),
        first_game,
        games,
        stop,
        script,
        spins,
        winner,
        leader,
        out,
        seats,
    )
    return spins, winner, leader, out, seats


class GameSimulator:
    """Plays batches of games with the compiled kernel (the first call in a fresh install compiles it)."""

    def simulate(self, setup: GameSetup, games: int, seed: int, first_game: int = 0) -> BatchResult:
        """Play ``games`` games numbered from ``first_game``; game i is the same whatever the batch."""
        if games < 1:
            raise SimulationError(f"the number of games must be at least 1, got {games}")
        spins, winner, _, _, _ = _run_batch(setup, seed, first_game, games, _no_stop(), None)
        return BatchResult(setup, seed, first_game, spins, winner)

    def leaders_at(self, result: BatchResult, stop_at: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """Replay the games of ``result`` up to ``stop_at[i]`` spins and return each game's chip-leader bit mask
        (bit = player id; several bits when the lead is shared; 0 when the game ended before then)."""
        stop = np.ascontiguousarray(stop_at, dtype=np.int64)
        if stop.shape != result.spins.shape:
            raise SimulationError("stop_at needs one entry per game")
        _, _, leader, _, _ = _run_batch(
            result.setup, result.seed, result.first_game, result.games, stop, None
        )
        return leader

    def play_letters(self, setup: GameSetup, letters: Sequence[Letter | str]) -> GameState:
        """Play one game with the given letters instead of random ones (spin-off letters included, in seat
        order of the tied players); stops where the letters run out."""
        codes = np.array([CODE_OF[Letter.parse(str(x)).plays_as] for x in letters], dtype=np.int8)
        if codes.size == 0:
            raise SimulationError("play_letters needs at least one letter")
        _, _, _, out, seats = _run_batch(setup, 0, 0, 1, _no_stop(), codes)
        n = int(out[5])
        ids, stacks, alive = seats[0], seats[1], seats[2]
        return GameState(
            spins=int(out[0]),
            winner=None if out[1] < 0 else int(out[1]),
            pot=int(out[2]),
            ante=int(out[3]),
            next_seat=None if out[4] < 0 else int(out[4]),
            ids=[int(x) for x in ids[:n]],
            stacks=[int(x) for x in stacks[:n]],
            alive=[bool(x) for x in alive[:n]],
            letters_used=int(out[6]),
        )


class PlainSimulator:
    """The same rules as a plain Python loop (lists and ints, no numba, no NumPy in the loop).

    It is the yardstick of the benchmark and a second, independent implementation for the tests: it reads
    the random stream exactly as the kernel does, so game i of a seed has the same length and winner.
    """

    def simulate(self, setup: GameSetup, games: int, seed: int, first_game: int = 0) -> BatchResult:
        """Play ``games`` games numbered from ``first_game`` (same numbering and seeding as the kernel)."""
        if games < 1:
            raise SimulationError(f"the number of games must be at least 1, got {games}")
        spins = np.empty(games, dtype=np.int64)
        winner = np.empty(games, dtype=np.int64)
        for g in range(games):
            spins[g], winner[g] = self.play(setup, game_seed(seed, first_game + g))
        return BatchResult(setup, seed, first_game, spins, winner)

    def play(self, setup: GameSetup, state: int) -> tuple[int, int]:
        """Play one game from SplitMix64 state ``state``; return (spins, winner id)."""
        fair = setup.dreidel.fair
        cum = [float(c) for c in setup.dreidel.cumulative()]
        bits = 0
        bits_left = 0

        def draw() -> int:
            nonlocal state, bits, bits_left
            if fair:
                if bits_left == 0:
                    state = (state + _GOLDEN) & _MASK64
                    bits = _mix(state)
                    bits_left = 32
                code = bits & 3
                bits >>= 2
                bits_left -= 1
                return code
            state = (state + _GOLDEN) & _MASK64
            u = (_mix(state) >> 11) * (1.0 / 9007199254740992.0)
            code = 0
            while code < 3 and u >= cum[code]:
                code += 1
            return code

        ids = list(range(setup.players))
        stacks = [setup.stack] * setup.players
        alive = [True] * setup.players
        ante = setup.schedule.start
        step = setup.schedule.step
        every_ms = setup._every_ms()
        spin_ms = setup._spin_ms()
        wild_left = setup.wild_cards
        next_id = setup.players
        pending = 0

        def all_ante(pot: int) -> int:
            seats = [s for s in range(len(ids)) if alive[s]]
            if any(stacks[s] >= ante for s in seats):
                for s in seats:
                    paid = min(stacks[s], ante)
                    pot += paid
                    stacks[s] -= paid
                    if paid < ante:
                        alive[s] = False
                return pot
            best = max(stacks[s] for s in seats)
            tied = [s for s in seats if stacks[s] == best]
            while len(tied) > 1:
                ranks = [SPIN_OFF_RANK[draw()] for _ in tied]
                top = max(ranks)
                tied = [s for s, r in zip(tied, ranks, strict=True) if r == top]
            for s in seats:
                if s != tied[0]:
                    pot += stacks[s]
                    stacks[s] = 0
                    alive[s] = False
            return pot

        pot = all_ante(0)
        spins = 0
        raises = 0
        cur = 0
        if wild_left and alive.count(True) > 1:
            ids.insert(1, next_id)
            stacks.insert(1, setup.wild_stack_antes * ante)
            alive.insert(1, True)
            next_id += 1
            wild_left -= 1
        while alive.count(True) > 1:
            code = draw()
            if every_ms:
                due = ((spins + 1) * spin_ms) // every_ms
                while raises < due:
                    raises += 1
                    pending += step
                    if wild_left:
                        ids.insert(cur + 1, next_id)
                        stacks.insert(cur + 1, setup.wild_stack_antes * ante)
                        alive.insert(cur + 1, True)
                        next_id += 1
                        wild_left -= 1
            spins += 1
            if code == GIMEL:
                stacks[cur] += pot
                pot = 0
            elif code == HEY:
                half = (pot + 1) // 2
                stacks[cur] += half
                pot -= half
            elif code == SHIN:
                paid = min(stacks[cur], ante)
                stacks[cur] -= paid
                pot += paid
                if paid < ante:
                    alive[cur] = False
            if alive.count(True) > 1 and pot <= ante:
                pot = all_ante(pot)
            if alive.count(True) <= 1:
                break
            ante += pending
            pending = 0
            cur = (cur + 1) % len(ids)
            while not alive[cur]:
                cur = (cur + 1) % len(ids)
        return spins, ids[alive.index(True)]


# ------------------------------------------------------------------------------------------------------
# Durations as people write them
# ------------------------------------------------------------------------------------------------------


def parse_duration(text: str) -> float:
    """Seconds from ``"45m"``, ``"1h30m"``, ``"90s"``, ``"2h"`` or a plain number of seconds (``"600"``)."""
    raw = text.strip().lower()
    if not raw:
        raise SimulationError("empty duration: write e.g. 45m, 1h30m, 90s or 600")
    try:
        seconds = float(raw)
    except ValueError:
        seconds = _parse_units(raw, text)
    if not math.isfinite(seconds) or seconds <= 0:
        raise SimulationError(f"duration {text!r} must be more than zero")
    return seconds


def _parse_units(raw: str, text: str) -> float:
    units = {"h": 3600.0, "m": 60.0, "s": 1.0}
    total = 0.0
    number = ""
    seen: list[str] = []
    for ch in raw:
        if ch.isdigit() or ch == ".":
            number += ch
        elif ch in units and number and ch not in seen and all(units[u] > units[ch] for u in seen):
            try:
                total += float(number) * units[ch]
            except ValueError:
                break
            seen.append(ch)
            number = ""
        else:
            number = "?"
            break
    if number or not seen:
        raise SimulationError(f"cannot read duration {text!r}: write e.g. 45m, 1h30m, 90s or 600 (seconds)")
    return total


def format_duration(seconds: float) -> str:
    """``5400 -> "1h30m"``, ``45 -> "45s"``, ``150 -> "2m30s"``, ``3612 -> "1h0m12s"`` (rounded to the second;
    the minutes are written between hours and seconds, so that "1h12s" is never misread as 1 h 12 min)."""
    s = round(seconds)
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    parts = []
    if h:
        parts.append(f"{h}h")
    if m or (h and sec):
        parts.append(f"{m}m")
    if sec or not parts:
        parts.append(f"{sec}s")
    return "".join(parts)
