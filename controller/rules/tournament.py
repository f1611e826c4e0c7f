"""A whole tournament as a pure fold: tables of up to 10, the final table, the wild-card raffle, prizes.

The tournament's own events are few: ``SeatTables`` (who sits where), ``TablePlay`` (one table event for
one table, ``"final"`` being the final table), ``OpenFinal`` and ``WildCardDraw``. Each table is the
``controller.rules.table`` fold of its own events.

Decisions where RULES.md is silent:

* Each seated table opens with its own ``open`` event (so a table's own log starts like any table's),
  which must seat exactly the players ``SeatTables`` gave it, in any order.
* The final table seats the table winners in the order of their tables. It is a fresh table (stacks of
  ``starting_stack``, ante ``ante``) unless configured to carry: ``final_carry_stacks`` keeps each winner's
  stack as it was when their table ended (a winner with too little is knocked out by the opening all-ante,
  like anyone who cannot pay); ``final_carry_ante`` starts at the largest ante in force at any table.
* A tournament of one table has no final table: that table's winner is the champion.
* Wild-card raffle: draws are allowed once every table is finished, one before the final table starts (or
  before it has had a raise) and one more for each ante raise announced at the final table, up to
  ``wild_card_draws`` in all. The entrants are every player knocked out at a table who is not a table
  winner and has not won a draw before; the draw event records the entrants and the winner, so a replay
  never draws again. A winner drawn before the final opens joins right after its opening all-ante.
* Prizes: every table winner gets ``table_prize``; the champion also gets ``champion_prize``.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Protocol, Union

from controller.rules.errors import ConfigError, RuleError, ScriptError, TournamentError
from controller.rules.events import Event, OpenTable, RaiseAnte, WildCard, event_to_json, parse_event
from controller.rules.table import PlayerStatus, TableConfig, TableState, apply

FINAL = "final"
"""The table id of the final table."""


class RandomSource(Protocol):
    """What the raffle needs from a random source; production passes ``random.SystemRandom()``."""

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        """A random integer in ``range(start, stop, step)`` (or ``range(start)``)."""
        ...


@dataclass(frozen=True)
class TournamentConfig:
    """Every number of the tournament (RULES.md's defaults)."""

    table: TableConfig = field(default_factory=TableConfig)
    table_size: int = 10
    table_prize: int = 100
    champion_prize: int = 500
    wild_card_draws: int = 2
    final_carry_stacks: bool = False
    final_carry_ante: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.table, TableConfig):
            raise ConfigError("tournament config table must be a TableConfig")
        for name in ("table_size", "table_prize", "champion_prize", "wild_card_draws"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(
                    f"tournament config {name} must be a whole number of at least 0, not {value!r}"
                )
        if not self.table.min_players <= self.table_size <= self.table.max_players:
            raise ConfigError(
                f"tournament config table_size {self.table_size} must be between the table's min_players "
                f"({self.table.min_players}) and max_players ({self.table.max_players})"
            )
        for name in ("final_carry_stacks", "final_carry_ante"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"tournament config {name} must be true or false")

    @classmethod
    def from_mapping(cls, values: Mapping[str, object]) -> TournamentConfig:
        """Build a config from a mapping; ``table`` is a nested mapping. Unknown keys are errors (typos)."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ConfigError(
                f"unknown tournament config option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        kwargs = dict(values)
        table = kwargs.get("table")
        if isinstance(table, Mapping):
            kwargs["table"] = TableConfig.from_mapping(table)
        return cls(**kwargs)  # type: ignore[arg-type]  # each value is checked in __post_init__


# ---------------------------------------------------------------------------------------------- events


@dataclass(frozen=True)
class SeatTables:
    """Seat every player: table id -> players clockwise. Table ids are free text except ``"final"``."""

    KIND: ClassVar[str] = "seat_tables"
    tables: Mapping[str, tuple[str, ...]]

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "tables", types.MappingProxyType({k: tuple(v) for k, v in self.tables.items()})
        )

    def __hash__(self) -> int:
        return hash(tuple(self.tables.items()))


@dataclass(frozen=True)
class TablePlay:
    """One table event for one table (``table`` is a seated table's id, or ``"final"``)."""

    KIND: ClassVar[str] = "table"
    table: str
    play: Event


@dataclass(frozen=True)
class OpenFinal:
    """Open the final table once every table has its winner. ``first`` is its first spinner."""

    KIND: ClassVar[str] = "open_final"
    first: str | None = None


@dataclass(frozen=True)
class WildCardDraw:
    """One raffle drawing: who was in it and who won (drawn by ``draw_wild_card``)."""

    KIND: ClassVar[str] = "wild_card_draw"
    entrants: tuple[str, ...]
    winner: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "entrants", tuple(self.entrants))


TournamentEvent = Union[SeatTables, TablePlay, OpenFinal, WildCardDraw]  # noqa: UP007 - a runtime alias
"""Any tournament event."""


def tournament_event_to_json(event: TournamentEvent) -> dict[str, object]:
    """The JSON object of a tournament event (``"event"`` first; a table event nested under ``"play"``)."""
    match event:
        case SeatTables():
            return {"event": event.KIND, "tables": {k: list(v) for k, v in event.tables.items()}}
        case TablePlay():
            return {"event": event.KIND, "table": event.table, "play": event_to_json(event.play)}
        case OpenFinal():
            return (
                {"event": event.KIND} if event.first is None else {"event": event.KIND, "first": event.first}
            )
        case WildCardDraw():
            return {"event": event.KIND, "entrants": list(event.entrants), "winner": event.winner}
    raise TypeError(f"not a tournament event: {event!r}")


def _strings(value: object, what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ScriptError(f"{what} must be a list of names")
    return tuple(value)


def parse_tournament_event(obj: Mapping[str, object]) -> TournamentEvent:
    """Read a tournament event's JSON object; ``ScriptError`` names what is wrong."""
    if not isinstance(obj, Mapping):
        raise ScriptError("a tournament event must be a JSON object")
    kind = obj.get("event")
    allowed: dict[str, set[str]] = {
        SeatTables.KIND: {"tables"},
        TablePlay.KIND: {"table", "play"},
        OpenFinal.KIND: {"first"},
        WildCardDraw.KIND: {"entrants", "winner"},
    }
    if not isinstance(kind, str) or kind not in allowed:
        raise ScriptError(f"unknown tournament event {kind!r}: expected one of {', '.join(allowed)}")
    extra = sorted(set(obj) - allowed[kind] - {"event"})
    if extra:
        raise ScriptError(f"{kind}: unexpected field(s) {', '.join(extra)}")
    if kind == SeatTables.KIND:
        tables = obj.get("tables")
        if not isinstance(tables, Mapping):
            raise ScriptError('seat_tables "tables" must be an object: table id -> list of players')
        return SeatTables({str(k): _strings(v, f"table {k!r}") for k, v in tables.items()})
    if kind == TablePlay.KIND:
        table, play = obj.get("table"), obj.get("play")
        if not isinstance(table, str):
            raise ScriptError('table "table" must be a table id (a string)')
        if not isinstance(play, Mapping):
            raise ScriptError('table "play" must be a table event object')
        return TablePlay(table, parse_event(play))
    if kind == OpenFinal.KIND:
        first = obj.get("first")
        if first is not None and not isinstance(first, str):
            raise ScriptError('open_final "first" must be a player name')
        return OpenFinal(first)
    winner = obj.get("winner")
    if not isinstance(winner, str):
        raise ScriptError('wild_card_draw "winner" must be a player name')
    return WildCardDraw(_strings(obj.get("entrants"), 'wild_card_draw "entrants"'), winner)


# ---------------------------------------------------------------------------------------------- state


@dataclass(frozen=True)
class TournamentState:
    """The whole tournament after some events (immutable)."""

    seating: tuple[tuple[str, tuple[str, ...]], ...]
    """Table id -> players as seated, in table order."""
    tables: Mapping[str, TableState | None]
    """Each table's state (``None`` until that table's ``open``)."""
    final: TableState | None = None
    draws: tuple[WildCardDraw, ...] = ()
    final_raises: int = 0
    waiting_wild_cards: tuple[WildCardDraw, ...] = ()
    """Draws made before the final opened; their winners join right after its opening all-ante."""

    def table(self, table_id: str) -> TableState | None:
        """A table's state by id (``"final"`` for the final table)."""
        if table_id == FINAL:
            return self.final
        if table_id not in self.tables:
            known = ", ".join([t for t, _ in self.seating] + [FINAL])
            raise TournamentError(f"there is no table {table_id!r} (tables: {known})")
        return self.tables[table_id]

    @property
    def tables_finished(self) -> bool:
        """Every seated table has its winner."""
        return all(t is not None and t.winner is not None for t in self.tables.values())

    def table_winners(self) -> tuple[str, ...]:
        """The winners of the finished tables, in table order."""
        out = []
        for table_id, _ in self.seating:
            state = self.tables[table_id]
            if state is not None and state.winner is not None:
                out.append(state.winner)
        return tuple(out)

    @property
    def champion(self) -> str | None:
        """The last player left at the final table (or the only table's winner)."""
        if len(self.seating) == 1:
            winners = self.table_winners()
            return winners[0] if winners else None
        return self.final.winner if self.final is not None else None

    def wild_card_entrants(self) -> tuple[str, ...]:
        """Who may be drawn now: knocked out at a table, not a table winner, not drawn before."""
        drawn = {d.winner for d in self.draws}
        winners = set(self.table_winners())
        out = []
        for table_id, _ in self.seating:
            state = self.tables[table_id]
            if state is None:
                continue
            for p in state.players:
                if p.status is PlayerStatus.OUT and p.name not in winners and p.name not in drawn:
                    out.append(p.name)
        return tuple(out)

    def draws_allowed(self, config: TournamentConfig) -> int:
        """How many more draws may be held now."""
        if len(self.seating) < 2 or not self.tables_finished:
            return 0
        due = min(config.wild_card_draws, 1 + self.final_raises)
        return max(0, due - len(self.draws))

    def prizes(self, config: TournamentConfig) -> Mapping[str, int]:
        """Prizes won so far: each table winner's table prize, plus the champion's prize."""
        out: dict[str, int] = {}
        for name in self.table_winners():
            out[name] = out.get(name, 0) + config.table_prize
        champion = self.champion
        if champion is not None:
            out[champion] = out.get(champion, 0) + config.champion_prize
        return types.MappingProxyType(out)


def seat_players(
    players: Sequence[str], config: TournamentConfig, rng: RandomSource | None = None
) -> SeatTables:
    """Split the players over as few tables as ``table_size`` allows, as evenly as possible (tables
    ``T1``, ``T2``...). With ``rng``, the seats are shuffled first (a fair draw for seats)."""
    names = list(players)
    if len(set(names)) != len(names):
        raise TournamentError("each player registers once; some names are listed twice")
    if len(names) < config.table.min_players:
        raise TournamentError(
            f"a tournament needs at least {config.table.min_players} players, not {len(names)}"
        )
    if rng is not None:
        for i in range(len(names) - 1, 0, -1):  # Fisher-Yates, with the injected source
            j = rng.randrange(i + 1)
            names[i], names[j] = names[j], names[i]
    count = -(-len(names) // config.table_size)
    size, extra = divmod(len(names), count)
    tables: dict[str, tuple[str, ...]] = {}
    start = 0
    for k in range(count):
        n = size + (1 if k < extra else 0)
        tables[f"T{k + 1}"] = tuple(names[start : start + n])
        start += n
    return SeatTables(tables)


def draw_wild_card(entrants: Sequence[str], rng: RandomSource) -> WildCardDraw:
    """Draw one raffle winner among ``entrants`` with ``rng`` (``random.SystemRandom()`` in production)."""
    if not entrants:
        raise TournamentError("nobody is eligible for the wild-card raffle")
    names = tuple(entrants)
    return WildCardDraw(names, names[rng.randrange(len(names))])


def _final_config(config: TournamentConfig, players: int) -> TableConfig:
    # The final table seats every table winner (and wild cards), even beyond a normal table's size.
    return dataclasses.replace(config.table, max_players=max(config.table.max_players, players))


def _seat(state: TournamentState | None, event: SeatTables, config: TournamentConfig) -> TournamentState:
    if state is not None:
        raise TournamentError("the players are already seated; seating happens once")
    if not event.tables:
        raise TournamentError("seat_tables needs at least one table")
    seen: set[str] = set()
    for table_id, players in event.tables.items():
        if table_id == FINAL:
            raise TournamentError(f'"{FINAL}" is the final table\'s id; name the table otherwise')
        if not config.table.min_players <= len(players) <= config.table_size:
            raise TournamentError(
                f"table {table_id} seats {len(players)}; a table seats {config.table.min_players} "
                f"to {config.table_size}"
            )
        twice = seen.intersection(players)
        if twice:
            raise TournamentError(f"{', '.join(sorted(twice))} cannot sit at two tables")
        seen.update(players)
    return TournamentState(
        seating=tuple(event.tables.items()),
        tables=types.MappingProxyType(dict.fromkeys(event.tables)),
    )


def _play(state: TournamentState, event: TablePlay, config: TournamentConfig) -> TournamentState:
    current = state.table(event.table)
    if event.table == FINAL:
        if current is None:
            raise TournamentError("the final table is not open yet: send open_final")
        if isinstance(event.play, (OpenTable, WildCard)):
            raise TournamentError(
                f"the final table's {event.play.KIND} comes from open_final and wild_card_draw"
            )
        new = apply(current, event.play, _final_config(config, len(current.players)))
        raises = state.final_raises + (1 if isinstance(event.play, RaiseAnte) else 0)
        return dataclasses.replace(state, final=new, final_raises=raises)
    if isinstance(event.play, WildCard):
        raise TournamentError("wild cards join the final table only")
    if isinstance(event.play, OpenTable):
        seated = dict(state.seating)[event.table]
        if sorted(event.play.players) != sorted(seated):
            raise TournamentError(
                f"table {event.table} seats {', '.join(seated)}; its open lists {', '.join(event.play.players)}"
            )
    new = apply(current, event.play, config.table)
    tables = dict(state.tables)
    tables[event.table] = new
    return dataclasses.replace(state, tables=types.MappingProxyType(tables))


def _open_final(state: TournamentState, event: OpenFinal, config: TournamentConfig) -> TournamentState:
    if state.final is not None:
        raise TournamentError("the final table is already open")
    if len(state.seating) < 2:
        raise TournamentError("a tournament of one table has no final table: its winner is the champion")
    if not state.tables_finished:
        playing = [t for t, s in state.tables.items() if s is None or s.winner is None]
        raise TournamentError(
            f"the final table opens when every table has its winner; still playing: {', '.join(playing)}"
        )
    winners = state.table_winners()
    finished = [s for s in state.tables.values() if s is not None]
    stacks = None
    if config.final_carry_stacks:
        stacks = {s.winner: s.player(s.winner).stack for s in finished if s.winner is not None}
    ante = max(s.ante for s in finished) if config.final_carry_ante else config.table.ante
    final_size = len(winners) + len(state.waiting_wild_cards)
    table_config = _final_config(config, final_size)
    final = apply(
        None,
        OpenTable(winners, stack=config.table.starting_stack, ante=ante, first=event.first, stacks=stacks),
        table_config,
    )
    for draw in state.waiting_wild_cards:
        final = apply(final, WildCard(draw.winner, draw.entrants), table_config)
    return dataclasses.replace(state, final=final, waiting_wild_cards=())


def _draw(state: TournamentState, event: WildCardDraw, config: TournamentConfig) -> TournamentState:
    if state.draws_allowed(config) < 1:
        if len(state.draws) >= config.wild_card_draws:
            raise TournamentError(f"the raffle is over: all {config.wild_card_draws} draws have been held")
        if not state.tables_finished or len(state.seating) < 2:
            raise TournamentError("the raffle draws for the final table, once every table has its winner")
        raise TournamentError("the next draw comes with the next ante raise at the final table")
    eligible = state.wild_card_entrants()
    if sorted(event.entrants) != sorted(eligible):
        raise TournamentError(
            f"the draw's entrants ({', '.join(event.entrants)}) are not the eligible players ({', '.join(eligible)})"
        )
    if event.winner not in event.entrants:
        raise TournamentError(f"{event.winner} was not in the draw")
    new = dataclasses.replace(state, draws=state.draws + (event,))
    if state.final is None:
        return dataclasses.replace(new, waiting_wild_cards=state.waiting_wild_cards + (event,))
    table_config = _final_config(config, len(state.final.players) + 1)
    return dataclasses.replace(
        new, final=apply(state.final, WildCard(event.winner, event.entrants), table_config)
    )


def apply_tournament(
    state: TournamentState | None, event: TournamentEvent, config: TournamentConfig | None = None
) -> TournamentState:
    """The tournament after ``event`` (pure); a ``RuleError`` names why an event is refused."""
    config = config or TournamentConfig()
    if isinstance(event, SeatTables):
        return _seat(state, event, config)
    if state is None:
        raise TournamentError("seat the players first (seat_tables)")
    match event:
        case TablePlay():
            try:
                return _play(state, event, config)
            except TournamentError:
                raise
            except RuleError as exc:
                raise type(exc)(f"table {event.table}: {exc}") from None
        case OpenFinal():
            return _open_final(state, event, config)
        case WildCardDraw():
            return _draw(state, event, config)
    raise TypeError(f"not a tournament event: {event!r}")


def replay_tournament(
    events: Iterable[TournamentEvent], config: TournamentConfig | None = None
) -> TournamentState:
    """Fold a tournament's events (starting with ``seat_tables``) into its state."""
    state: TournamentState | None = None
    for event in events:
        state = apply_tournament(state, event, config)
    if state is None:
        raise TournamentError("an empty tournament log: it must start with seat_tables")
    return state
