"""One tournament table as a pure fold over its events (RULES.md, decided where the seed text is silent).

``apply(state, event)`` returns the next ``TableState`` or raises a ``RuleError`` and changes nothing;
``replay(events)`` folds a whole script. There is no I/O, no clock and no randomness here.

Decisions (each one has a golden transcript in ``tests/golden/``):

* **Opening all-ante.** ``open`` seats the players clockwise in the order given and every player posts one
  ante at once. A uniform starting stack below the ante is a configuration error; per-player stacks that
  cannot pay (a final table carrying stacks over) are eliminated by the normal all-ante rules.
* **Letters.** Nun: nothing. Gimel: the whole pot. Hey: ``ceil(pot / 2)``. Shin and Pe: post one ante,
  the ante of this spin; a spinner with fewer gelt than that is out and surrenders what they have.
  A player who can pay exactly stays in with 0 and is out the next time an ante is asked of them.
* **All-ante.** After every settled spin, if ``pot <= ante`` (the ante of that spin), every player still
  in, away or not, posts an ante, all at the same moment. One all-ante always suffices: at least two
  players who can pay leave ``pot >= 2 * ante``, and otherwise the table has its winner.
* **Simultaneous elimination.** Players knocked out by one all-ante rank by their stack before it, larger
  first, with competition ranking (1, 2, 2, 4). If the all-ante would knock out everybody still in, the
  player with the largest stack is not knocked out and wins the table keeping their stack (they post
  nothing; the pot stays where it is). If several players share that largest stack, nobody posts and the
  tied players stay in while ``pending`` asks for a ``spin_off``; the others are out with their places.
* **Spin-off.** Each round every tied player spins once; Gimel > Hey > Nun > Shin (Pe is Shin). Whoever
  lacks the round's best letter is out at once, all of that round's losers sharing one place; losers
  surrender their stacks to the pot; the last player left keeps their stack and wins the table.
  Spin-off spins are not counted in ``spins`` (which counts the table's settled spins).
* **Turns.** After a settled spin the turn passes clockwise to the next player who is in and not away
  (the spinner again when everybody else is away). Marking the current spinner away passes the turn at
  once. When every player still in is away nobody spins (``current`` is ``None``) and the first player
  marked back spins next.
* **Ante raises.** A raise is announced during somebody's turn and takes effect when that turn ends:
  after the turn's settled spin (even when the same player spins again because all others are away),
  or when the turn moves to another player through away/back. The spin of the turn, its Shin and the
  all-ante check after it use the old ante; several raises in one turn add up; a raise never triggers an
  all-ante by itself. An interrupted turn that resumes with the same player keeps the old ante.
* **Corrections** (never edits): ``void_spin`` and ``replace_letter`` work on the most recent settled spin
  only. The table goes back to just before it and the events since then are played again on top, except
  spin-off rounds, which only existed because of that spin and are dropped, and invalid spins, which are
  only counted again. After a void there is no "most recent spin" left to void; older mistakes are put
  right with ``adjust_stack``, which moves gelt between a player and the pot and so conserves gelt.
* **Wild card.** The raffle winner sits in the seat after the current spinner (after the seat where the
  turn stopped if nobody may spin) with ``wild_card_multiple x`` the ante in force, which is the ante the
  current spin uses; a raise announced but not yet in effect does not count. Players already out move one
  place down, since the newcomer will be out after them or win. Voiding an earlier spin keeps the
  newcomer's seat and stack. The wild card may make the table larger than ``max_players``.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from controller.rules.errors import (
    AlreadyOpen,
    BadAdjustment,
    BadPlayers,
    BadRaise,
    BadStatus,
    ConfigError,
    NoSpinner,
    NoSpinOffPending,
    NothingToVoid,
    NotOpen,
    PlayerOut,
    RuleError,
    SpinOffPending,
    TableFinished,
    TooLate,
    UnknownPlayer,
    WrongSpinner,
)
from controller.rules.events import (
    AdjustStack,
    Away,
    Back,
    Event,
    InvalidSpin,
    OpenTable,
    RaiseAnte,
    ReplaceLetter,
    SetFirst,
    Spin,
    SpinOff,
    VoidSpin,
    WildCard,
)
from controller.rules.letters import Letter


@dataclass(frozen=True)
class TableConfig:
    """Every number of the table rules (RULES.md's defaults); a tournament may change any of them."""

    starting_stack: int = 18
    ante: int = 1
    min_players: int = 2
    max_players: int = 10
    wild_card_multiple: int = 2

    def __post_init__(self) -> None:
        for name in ("starting_stack", "ante", "min_players", "max_players", "wild_card_multiple"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"table config {name} must be a whole number of at least 1, not {value!r}")
        if self.min_players < 2:
            raise ConfigError(f"table config min_players must be at least 2, not {self.min_players}")
        if self.max_players < self.min_players:
            raise ConfigError(
                f"table config max_players ({self.max_players}) is below min_players ({self.min_players})"
            )

    @classmethod
    def from_mapping(cls, values: Mapping[str, object]) -> TableConfig:
        """Build a config from a mapping (a config file's section). An unknown key is an error, since it is
        most likely a typo that would otherwise be silently ignored."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ConfigError(
                f"unknown table config option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        return cls(**values)  # type: ignore[arg-type]  # each value is checked in __post_init__


class PlayerStatus(StrEnum):
    """Whether a player is at the table and playing, away (skips turns, still pays all-antes), or out."""

    IN = "in"
    AWAY = "away"
    OUT = "out"


class EliminationCause(StrEnum):
    """What knocked a player out."""

    SHIN = "shin"
    ALL_ANTE = "all_ante"
    SPIN_OFF = "spin_off"


@dataclass(frozen=True)
class PlayerState:
    """One seat. ``place`` is set when the player is out, and 1 for the table winner."""

    name: str
    stack: int
    status: PlayerStatus = PlayerStatus.IN
    place: int | None = None
    wild_card: bool = False

    @property
    def in_play(self) -> bool:
        """Still in the game (in or away), i.e. not knocked out."""
        return self.status is not PlayerStatus.OUT


@dataclass(frozen=True)
class Elimination:
    """A player going out: their place, the stack they held just before, and the cause."""

    player: str
    place: int
    stack_before: int
    cause: EliminationCause
    after_spins: int
    """How many table spins had been settled when it happened (0 for the opening all-ante)."""


@dataclass(frozen=True)
class SpinRecord:
    """What the most recent settled spin did, for the display and the event log's evidence."""

    number: int
    player: str
    letter: Letter
    ante: int
    spun_by: str | None
    spin_id: str | None
    pot_before: int
    pot_after: int
    stack_change: int
    """The spinner's gain from the letter (Gimel/Hey), or minus what they posted or surrendered (Shin)."""
    all_ante: bool
    knocked_out: tuple[str, ...]


@dataclass(frozen=True)
class _Undo:
    """What a correction needs: the state just before the most recent spin, and the events since."""

    before: TableState
    since: tuple[Event, ...] = ()


@dataclass(frozen=True)
class TableState:
    """The whole state of a table after some events. Immutable: ``apply`` makes a new one."""

    players: tuple[PlayerState, ...]
    """In seat order, clockwise."""
    pot: int
    ante: int
    """The ante in force: the one the current (next) spin uses."""
    current: str | None
    """Whose turn it is; ``None`` when nobody may spin (all away, a spin-off pending, or the table won)."""
    turn_at: str
    """The seat where the turn rests: the current spinner, or the player at whom it stopped."""
    pending_raise: int = 0
    """Raises announced in this turn; they add to the ante when the turn ends."""
    spins: int = 0
    invalid_spins: int = 0
    corrections: int = 0
    winner: str | None = None
    spin_off: tuple[str, ...] | None = None
    """The players tied for the survivor's place who must spin off, in seat order."""
    spin_off_rounds: int = 0
    last_spin: SpinRecord | None = None
    eliminations: tuple[Elimination, ...] = ()
    gelt_in: int = 0
    """All gelt ever brought to the table (opening stacks plus wild cards): stacks + pot always equals it."""
    undo: _Undo | None = field(default=None, repr=False)

    @property
    def finished(self) -> bool:
        """The table has its winner."""
        return self.winner is not None

    @property
    def next(self) -> str | None:
        """Who spins next (``None`` when nobody may)."""
        return self.current

    @property
    def ante_after_turn(self) -> int:
        """The ante once the raises announced in this turn take effect."""
        return self.ante + self.pending_raise

    @property
    def in_play(self) -> tuple[PlayerState, ...]:
        """The players not knocked out, in seat order."""
        return tuple(p for p in self.players if p.in_play)

    @property
    def total_gelt(self) -> int:
        """Stacks plus pot (always equal to ``gelt_in``)."""
        return self.pot + sum(p.stack for p in self.players)

    def names(self) -> tuple[str, ...]:
        """The player names in seat order."""
        return tuple(p.name for p in self.players)

    def seat(self, name: str) -> int:
        """The 0-based seat index of a player, or ``UnknownPlayer``."""
        for i, p in enumerate(self.players):
            if p.name == name:
                return i
        seated = ", ".join(self.names())
        raise UnknownPlayer(f"{name!r} is not seated at this table (players: {seated})")

    def player(self, name: str) -> PlayerState:
        """A player's state by name, or ``UnknownPlayer``."""
        return self.players[self.seat(name)]

    def standings(self) -> tuple[PlayerState, ...]:
        """The players best first: the winner, then those still in (largest stack first), then the players
        who are out, the latest out first (places ascending; shared places keep seat order)."""

        def key(item: tuple[int, PlayerState]) -> tuple[int, int, int]:
            seat, p = item
            if p.place is None:
                return (0, -p.stack, seat)
            return (p.place, 0, seat)

        return tuple(p for _, p in sorted(enumerate(self.players), key=key))


# ---------------------------------------------------------------------------------------------- helpers


def _set_player(players: tuple[PlayerState, ...], index: int, new: PlayerState) -> tuple[PlayerState, ...]:
    return players[:index] + (new,) + players[index + 1 :]


def _next_present(players: tuple[PlayerState, ...], after: int) -> str | None:
    """The first player clockwise after seat ``after`` who is in and not away (that seat itself last)."""
    n = len(players)
    for step in range(1, n + 1):
        p = players[(after + step) % n]
        if p.status is PlayerStatus.IN:
            return p.name
    return None


def _require_playing(state: TableState | None) -> TableState:
    """The table is open and not won."""
    if state is None:
        raise NotOpen('the table is not open yet: the script must start with an "open" event')
    if state.winner is not None:
        raise TableFinished(f"the table is finished: {state.winner} has won it")
    return state


def _require_in_play(state: TableState, name: str, doing: str) -> PlayerState:
    p = state.player(name)
    if not p.in_play:
        raise PlayerOut(f"{name} is out; {name} cannot {doing}")
    return p


def _check_winner(state: TableState) -> TableState:
    """Name the winner when one player is left (and no spin-off is still deciding it)."""
    live = state.in_play
    if state.spin_off is not None or len(live) != 1:
        return state
    (last,) = live
    i = state.seat(last.name)
    players = _set_player(state.players, i, dataclasses.replace(last, place=1))
    return dataclasses.replace(state, players=players, winner=last.name, current=None)


def _all_ante(state: TableState, ante: int) -> tuple[TableState, tuple[str, ...]]:
    """Every player still in posts ``ante`` at the same moment (see the module docstring)."""
    live = state.in_play
    short = [p for p in live if p.stack < ante]
    spin_off: tuple[str, ...] | None = None
    if short and len(short) == len(live):
        # Survivor rule: the largest stack is not knocked out; an exact tie for it spins off.
        top = max(p.stack for p in live)
        keep = [p.name for p in live if p.stack == top]
        losers = [p for p in live if p.stack < top]
        if len(keep) > 1:
            spin_off = tuple(keep)
    else:
        losers = short
    loser_names = {p.name for p in losers}
    short_names = {p.name for p in short}
    base = len(live) - len(losers) + 1
    pot = state.pot
    players = list(state.players)
    eliminations = list(state.eliminations)
    for i, p in enumerate(state.players):
        if not p.in_play:
            continue
        if p.name in loser_names:
            place = base + sum(1 for q in losers if q.stack > p.stack)
            pot += p.stack
            players[i] = dataclasses.replace(p, stack=0, status=PlayerStatus.OUT, place=place)
            eliminations.append(Elimination(p.name, place, p.stack, EliminationCause.ALL_ANTE, state.spins))
        elif p.name not in short_names:
            pot += ante
            players[i] = dataclasses.replace(p, stack=p.stack - ante)
        # else: a survivor (or a tied survivor) who cannot pay keeps what is left and posts nothing.
    knocked = tuple(p.name for p in losers)
    new = dataclasses.replace(
        state, players=tuple(players), pot=pot, eliminations=tuple(eliminations), spin_off=spin_off
    )
    if spin_off is not None:
        new = dataclasses.replace(new, current=None)
    return _check_winner(new), knocked


def _end_turn(state: TableState, from_seat: int) -> TableState:
    """The turn ends: announced raises take effect and the next present player clockwise spins."""
    ante = state.ante + state.pending_raise
    if state.winner is not None or state.spin_off is not None:
        return dataclasses.replace(state, ante=ante, pending_raise=0, current=None)
    nxt = _next_present(state.players, from_seat)
    turn_at = nxt if nxt is not None else state.players[from_seat].name
    return dataclasses.replace(state, ante=ante, pending_raise=0, current=nxt, turn_at=turn_at)


# ---------------------------------------------------------------------------------------------- events


def _open(state: TableState | None, event: OpenTable, config: TableConfig) -> TableState:
    if state is not None:
        raise AlreadyOpen("the table is already open; a table opens once")
    names = event.players
    if not config.min_players <= len(names) <= config.max_players:
        raise BadPlayers(
            f"a table seats {config.min_players} to {config.max_players} players, not {len(names)}"
        )
    for name in names:
        if not name.strip():
            raise BadPlayers("a player's name must not be empty")
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise BadPlayers(f"each player sits once; listed twice: {', '.join(duplicates)}")
    stack = config.starting_stack if event.stack is None else event.stack
    ante = config.ante if event.ante is None else event.ante
    if ante < 1:
        raise ConfigError(f"the ante must be at least 1, not {ante}")
    stacks = dict(event.stacks or {})
    if stack < ante and any(n not in stacks for n in names):
        raise ConfigError(f"a starting stack of {stack} cannot post the opening ante of {ante}")
    for name, value in stacks.items():
        if name not in names:
            raise UnknownPlayer(f"stacks names {name!r}, who is not among the players")
        if value < 0:
            raise ConfigError(f"{name}'s starting stack must not be negative, not {value}")
    first = names[0] if event.first is None else event.first
    if first not in names:
        raise UnknownPlayer(f"the first spinner {first!r} is not among the players ({', '.join(names)})")
    players = tuple(PlayerState(n, stacks.get(n, stack)) for n in names)
    opened = TableState(
        players=players,
        pot=0,
        ante=ante,
        current=first,
        turn_at=first,
        gelt_in=sum(p.stack for p in players),
    )
    opened, _ = _all_ante(opened, ante)
    if opened.winner is None and opened.spin_off is None and not opened.player(first).in_play:
        # The named first spinner could not pay the opening ante: the turn goes on clockwise.
        opened = _end_turn(opened, opened.seat(first))
    return opened


_SPIN_OFF_RANK: Mapping[Letter, int] = types.MappingProxyType(
    {Letter.GIMEL: 3, Letter.HEY: 2, Letter.NUN: 1, Letter.SHIN: 0}
)
"""Spin-off order: Gimel beats Hey beats Nun beats Shin (letters compared by what they play as)."""


def _spin(state: TableState | None, event: Spin) -> TableState:
    state = _require_playing(state)
    if state.spin_off is not None:
        tied = ", ".join(state.spin_off)
        raise SpinOffPending(f"a spin-off between {tied} must decide the table first: send a spin_off round")
    if event.player is not None and event.player != state.current:
        _require_in_play(state, event.player, "spin")
        if state.current is None:
            raise NoSpinner(f"nobody may spin: every player still in is away; mark {event.player} back first")
        raise WrongSpinner(f"it is {state.current}'s turn, not {event.player}'s")
    if state.current is None:
        raise NoSpinner("nobody may spin: every player still in is away; mark a player back first")
    before = dataclasses.replace(state, undo=None)
    ante = state.ante
    seat = state.seat(state.current)
    spinner = state.players[seat]
    pot = state.pot
    letter = event.letter.plays_as
    players = state.players
    eliminations = state.eliminations
    knocked: tuple[str, ...] = ()
    change = 0
    if letter is Letter.GIMEL:
        change = pot
    elif letter is Letter.HEY:
        change = (pot + 1) // 2
    elif letter is Letter.SHIN:
        if spinner.stack >= ante:
            change = -ante
        else:
            change = -spinner.stack
            place = len(state.in_play)
            players = _set_player(
                players, seat, dataclasses.replace(spinner, stack=0, status=PlayerStatus.OUT, place=place)
            )
            eliminations += (
                Elimination(spinner.name, place, spinner.stack, EliminationCause.SHIN, state.spins + 1),
            )
            knocked = (spinner.name,)
    if not knocked:
        players = _set_player(players, seat, dataclasses.replace(spinner, stack=spinner.stack + change))
    new = dataclasses.replace(
        state, players=players, pot=pot - change, eliminations=eliminations, spins=state.spins + 1
    )
    new = _check_winner(new)
    all_ante = False
    if new.winner is None and new.pot <= ante:
        all_ante = True
        new, more = _all_ante(new, ante)
        knocked += more
    new = _end_turn(new, seat)
    record = SpinRecord(
        number=new.spins,
        player=spinner.name,
        letter=event.letter,
        ante=ante,
        spun_by=event.spun_by,
        spin_id=event.spin_id,
        pot_before=pot,
        pot_after=new.pot,
        stack_change=change,
        all_ante=all_ante,
        knocked_out=knocked,
    )
    return dataclasses.replace(new, last_spin=record, undo=_Undo(before))


def _invalid_spin(state: TableState | None, event: InvalidSpin) -> TableState:
    state = _require_playing(state)
    if state.spin_off is not None:
        if event.player is not None and event.player not in state.spin_off:
            raise WrongSpinner(f"{event.player} is not in the spin-off ({', '.join(state.spin_off)})")
    elif state.current is None:
        raise NoSpinner("nobody may spin: every player still in is away; mark a player back first")
    elif event.player is not None and event.player != state.current:
        _require_in_play(state, event.player, "spin")
        raise WrongSpinner(f"it is {state.current}'s turn, not {event.player}'s")
    return dataclasses.replace(state, invalid_spins=state.invalid_spins + 1)


def _raise_ante(state: TableState | None, event: RaiseAnte) -> TableState:
    state = _require_playing(state)
    target = state.ante_after_turn
    if event.by is not None:
        if event.by < 1:
            raise BadRaise(f"an ante raise must be by at least 1, not {event.by}")
        step = event.by
    else:
        assert event.to is not None  # RaiseAnte guarantees exactly one of the two
        if event.to <= target:
            raise BadRaise(
                f"the ante is already {target} (after this turn); a raise to {event.to} is not a raise"
            )
        step = event.to - target
    return dataclasses.replace(state, pending_raise=state.pending_raise + step)


def _away(state: TableState | None, event: Away) -> TableState:
    state = _require_playing(state)
    p = _require_in_play(state, event.player, "be marked away")
    if p.status is PlayerStatus.AWAY:
        raise BadStatus(f"{p.name} is already away")
    seat = state.seat(p.name)
    new = dataclasses.replace(
        state, players=_set_player(state.players, seat, dataclasses.replace(p, status=PlayerStatus.AWAY))
    )
    if state.current != p.name:
        return new
    nxt = _next_present(new.players, seat)
    if nxt is None:
        # Everybody still in is away: the turn stops here, and the raises wait for the next turn.
        return dataclasses.replace(new, current=None, turn_at=p.name)
    return dataclasses.replace(
        new, current=nxt, turn_at=nxt, ante=new.ante + new.pending_raise, pending_raise=0
    )


def _back(state: TableState | None, event: Back) -> TableState:
    state = _require_playing(state)
    p = _require_in_play(state, event.player, "come back")
    if p.status is not PlayerStatus.AWAY:
        raise BadStatus(f"{p.name} is not away")
    seat = state.seat(p.name)
    new = dataclasses.replace(
        state, players=_set_player(state.players, seat, dataclasses.replace(p, status=PlayerStatus.IN))
    )
    if state.current is not None or state.spin_off is not None:
        return new
    if p.name == state.turn_at:
        # The interrupted turn resumes with the same player: it is still the same turn.
        return dataclasses.replace(new, current=p.name)
    return dataclasses.replace(
        new, current=p.name, turn_at=p.name, ante=new.ante + new.pending_raise, pending_raise=0
    )


def _spin_off(state: TableState | None, event: SpinOff) -> TableState:
    if state is None:
        raise NotOpen('the table is not open yet: the script must start with an "open" event')
    if state.spin_off is None:
        if state.winner is not None:
            raise TableFinished(f"the table is finished: {state.winner} has won it")
        raise NoSpinOffPending("no tie is waiting for a spin-off")
    tied = state.spin_off
    if set(event.letters) != set(tied):
        got = ", ".join(event.letters) or "nobody"
        raise NoSpinOffPending(f"the spin-off is between {', '.join(tied)}; the round has letters for {got}")
    ranks = {name: _SPIN_OFF_RANK[event.letters[name].plays_as] for name in tied}
    best = max(ranks.values())
    survivors = tuple(n for n in tied if ranks[n] == best)
    losers = [n for n in tied if ranks[n] != best]
    players = state.players
    pot = state.pot
    eliminations = state.eliminations
    place = len(survivors) + 1
    for name in losers:
        i = state.seat(name)
        p = players[i]
        pot += p.stack
        players = _set_player(
            players, i, dataclasses.replace(p, stack=0, status=PlayerStatus.OUT, place=place)
        )
        eliminations += (Elimination(name, place, p.stack, EliminationCause.SPIN_OFF, state.spins),)
    new = dataclasses.replace(
        state,
        players=players,
        pot=pot,
        eliminations=eliminations,
        spin_off=survivors if len(survivors) > 1 else None,
        spin_off_rounds=state.spin_off_rounds + 1,
    )
    return _check_winner(new)


def _adjust(state: TableState | None, event: AdjustStack) -> TableState:
    if state is None:
        raise NotOpen('the table is not open yet: the script must start with an "open" event')
    p = state.player(event.player)
    if not p.in_play:
        raise BadAdjustment(
            f"{p.name} is out; a stack adjustment cannot bring a player back (void the spin that knocked them out)"
        )
    if event.delta == 0:
        raise BadAdjustment(
            "an adjustment of 0 changes nothing; give the gelt to move (+ to the player, - to the pot)"
        )
    if p.stack + event.delta < 0:
        raise BadAdjustment(f"{p.name} has only {p.stack}; cannot move {-event.delta} to the pot")
    if state.pot - event.delta < 0:
        raise BadAdjustment(f"the pot holds only {state.pot}; cannot give {event.delta} to {p.name}")
    i = state.seat(p.name)
    return dataclasses.replace(
        state,
        players=_set_player(state.players, i, dataclasses.replace(p, stack=p.stack + event.delta)),
        pot=state.pot - event.delta,
        corrections=state.corrections + 1,
    )


def _set_first(state: TableState | None, event: SetFirst) -> TableState:
    state = _require_playing(state)
    if state.spins > 0:
        raise TooLate("the first spinner can only be chosen before the first spin")
    p = _require_in_play(state, event.player, "spin first")
    if p.status is PlayerStatus.AWAY:
        raise BadStatus(f"{p.name} is away; mark {p.name} back before choosing them to spin first")
    if state.spin_off is not None:
        raise SpinOffPending(f"a spin-off between {', '.join(state.spin_off)} must decide the table first")
    return dataclasses.replace(state, current=p.name, turn_at=p.name)


def _wild_card(state: TableState | None, event: WildCard, config: TableConfig) -> TableState:
    state = _require_playing(state)
    if state.spin_off is not None:
        raise SpinOffPending(f"a spin-off between {', '.join(state.spin_off)} must decide the table first")
    name = event.player
    if not name.strip():
        raise BadPlayers("a player's name must not be empty")
    if name in state.names():
        raise BadPlayers(f"{name} is already seated at this table")
    stack = config.wild_card_multiple * state.ante if event.stack is None else event.stack
    if stack < 0:
        raise BadAdjustment(f"a wild card's stack must not be negative, not {stack}")
    if event.seat_after is not None:
        after = state.seat(event.seat_after)
    else:
        after = state.seat(state.current if state.current is not None else state.turn_at)
    players = tuple(
        dataclasses.replace(p, place=p.place + 1) if p.place is not None else p for p in state.players
    )
    newcomer = PlayerState(name, stack, wild_card=True)
    players = players[: after + 1] + (newcomer,) + players[after + 1 :]
    eliminations = tuple(dataclasses.replace(e, place=e.place + 1) for e in state.eliminations)
    new = dataclasses.replace(
        state, players=players, eliminations=eliminations, gelt_in=state.gelt_in + stack
    )
    if state.current is None:
        # Nobody could spin (all away): the newcomer is present, so the game resumes with them.
        new = dataclasses.replace(
            new, current=name, turn_at=name, ante=new.ante + new.pending_raise, pending_raise=0
        )
    return new


def _redo(base: TableState, since: Iterable[Event], config: TableConfig, what: str) -> TableState:
    """Play the events after the corrected spin again on the corrected state."""
    state = base
    for event in since:
        if isinstance(event, SpinOff):
            continue  # only existed because of the corrected spin
        if isinstance(event, InvalidSpin):
            state = dataclasses.replace(state, invalid_spins=state.invalid_spins + 1)
            continue
        try:
            state = apply(state, event, config)
        except RuleError as exc:
            raise NothingToVoid(
                f"cannot {what}: the later {event.KIND} event no longer fits ({exc}); "
                "correct the stacks with adjust_stack instead"
            ) from None
    return state


def _void(state: TableState | None, event: VoidSpin, config: TableConfig) -> TableState:
    if state is None:
        raise NotOpen('the table is not open yet: the script must start with an "open" event')
    if state.undo is None:
        raise NothingToVoid(
            "there is no spin to void: only the most recent settled spin can be voided, once; "
            "correct older spins with adjust_stack"
        )
    new = _redo(state.undo.before, state.undo.since, config, "void the spin")
    return dataclasses.replace(new, undo=None, corrections=state.corrections + 1)


def _replace_letter(state: TableState | None, event: ReplaceLetter, config: TableConfig) -> TableState:
    if state is None:
        raise NotOpen('the table is not open yet: the script must start with an "open" event')
    if state.undo is None or state.last_spin is None:
        raise NothingToVoid(
            "there is no spin to re-settle: only the most recent settled spin can be replaced; "
            "correct older spins with adjust_stack"
        )
    last = state.last_spin
    respin = Spin(event.letter, player=last.player, spun_by=last.spun_by, spin_id=last.spin_id)
    settled = _spin(state.undo.before, respin)
    new = _redo(settled, state.undo.since, config, "replace the letter")
    since = tuple(e for e in state.undo.since if not isinstance(e, SpinOff))
    return dataclasses.replace(new, undo=_Undo(state.undo.before, since), corrections=state.corrections + 1)


def apply(state: TableState | None, event: Event, config: TableConfig | None = None) -> TableState:
    """The table after ``event`` (pure). ``state`` is ``None`` before the ``open`` event.

    Raises a ``RuleError`` subclass, naming the problem, if the rules do not allow the event now.
    """
    config = config or TableConfig()
    new: TableState
    match event:
        case OpenTable():
            return _open(state, event, config)
        case Spin():
            return _spin(state, event)
        case VoidSpin():
            return _void(state, event, config)
        case ReplaceLetter():
            return _replace_letter(state, event, config)
        case InvalidSpin():
            new = _invalid_spin(state, event)
        case RaiseAnte():
            new = _raise_ante(state, event)
        case Away():
            new = _away(state, event)
        case Back():
            new = _back(state, event)
        case SpinOff():
            new = _spin_off(state, event)
        case AdjustStack():
            new = _adjust(state, event)
        case SetFirst():
            new = _set_first(state, event)
        case WildCard():
            new = _wild_card(state, event, config)
        case _:
            raise TypeError(f"not a table event: {event!r}")
    if new.undo is not None:
        if isinstance(event, WildCard):
            # Keep where the newcomer sat and what they brought, so a correction replays it as it was.
            seat = new.seat(event.player)
            event = dataclasses.replace(
                event, stack=new.players[seat].stack, seat_after=new.players[seat - 1].name
            )
        new = dataclasses.replace(new, undo=_Undo(new.undo.before, new.undo.since + (event,)))
    return new


def replay(events: Iterable[Event], config: TableConfig | None = None) -> TableState:
    """Fold a whole event sequence (starting with ``open``) into the final state."""
    state: TableState | None = None
    for event in events:
        state = apply(state, event, config)
    if state is None:
        raise NotOpen('an empty script: it must start with an "open" event')
    return state


def state_to_json(state: TableState) -> dict[str, object]:
    """The replay output of DESIGN.md: players (name, stack, status, place), pot, ante (the ante the next
    spin uses), next, winner, spins (settled table spins) and pending (a spin-off waiting, or null)."""
    return {
        "players": [
            {"name": p.name, "stack": p.stack, "status": p.status.value, "place": p.place}
            for p in state.players
        ],
        "pot": state.pot,
        "ante": state.ante,
        "next": state.current if state.winner is None and state.spin_off is None else None,
        "winner": state.winner,
        "spins": state.spins,
        "pending": {"spin_off": list(state.spin_off)} if state.spin_off is not None else None,
    }
