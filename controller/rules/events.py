"""The events of a tournament table: one frozen dataclass per event, and their JSON form.

A table's state is a fold over its events (see ``controller.rules.table.apply``), so these classes
are the whole vocabulary of the table: what the machine saw (``Spin``, ``InvalidSpin``), what the
officials did (``RaiseAnte``, ``Away``, ``Back``, ``WildCard``) and a judge's corrections, which are
appended like any other event and never edit the past (``VoidSpin``, ``ReplaceLetter``, ``AdjustStack``).

Each class has ``KIND``, the ``"event"`` name used in replay scripts and the event log.
``parse_event`` reads one JSON object into an event and ``event_to_json`` writes it back; the two
round-trip, and ``event_to_json`` leaves out fields that are ``None`` so a plain spin is exactly
``{"event": "spin", "letter": "gimel"}``.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar, Union

from controller.rules.errors import ScriptError
from controller.rules.letters import Letter


def _freeze_mapping(value: Mapping[str, object], what: str) -> Mapping[str, object]:
    """A read-only copy, so a frozen event cannot be changed through a dict the caller still holds."""
    if not isinstance(value, Mapping):
        raise ScriptError(f"{what} must be an object mapping player names to values")
    return types.MappingProxyType(dict(value))


def _mapping_hash(value: Mapping[str, object] | None) -> int:
    return hash(None) if value is None else hash(tuple(sorted(value.items())))


def _coerce_letter(value: object) -> Letter:
    if isinstance(value, Letter):
        return value
    if isinstance(value, str):
        try:
            return Letter.parse(value)
        except ValueError as exc:
            raise ScriptError(str(exc)) from None
    raise ScriptError(f"a letter must be a string, not {type(value).__name__}")


@dataclass(frozen=True)
class OpenTable:
    """Seat the players (clockwise, in this order), post the opening all-ante, and name the first spinner.

    ``stack`` and ``ante`` default to the table configuration, ``first`` to the first player.
    ``stacks`` gives some players a different starting stack (a final table that carries stacks over).
    """

    KIND: ClassVar[str] = "open"
    players: tuple[str, ...]
    stack: int | None = None
    ante: int | None = None
    first: str | None = None
    stacks: Mapping[str, int] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", tuple(self.players))
        if self.stacks is not None:
            object.__setattr__(self, "stacks", _freeze_mapping(self.stacks, "stacks"))

    def __hash__(self) -> int:
        return hash((self.players, self.stack, self.ante, self.first, _mapping_hash(self.stacks)))


@dataclass(frozen=True)
class Spin:
    """The current spinner's validated spin, with the letter that came up.

    ``player``, when given, must be the current spinner (a check against a judge crediting the wrong
    seat). ``spun_by`` records who spun on the player's behalf ("launcher", or a person), which the rules
    allow for players who find spinning hard. ``spin_id`` links the spin to the judge's evidence.
    """

    KIND: ClassVar[str] = "spin"
    letter: Letter
    player: str | None = None
    spun_by: str | None = None
    spin_id: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "letter", _coerce_letter(self.letter))


@dataclass(frozen=True)
class InvalidSpin:
    """A spin that did not count (too short, wobbled, left the tray...): the same spinner spins again.

    Nothing on the table changes; the state counts it in ``invalid_spins``.
    """

    KIND: ClassVar[str] = "invalid_spin"
    reason: str
    player: str | None = None
    spin_id: str | None = None


@dataclass(frozen=True)
class RaiseAnte:
    """Announce an ante raise, either ``to`` a new ante or ``by`` a step (exactly one of the two).

    The raise takes effect when the turn passes (see ``controller.rules.table``).
    ``to`` is measured against the ante after the raises already announced in this turn.
    """

    KIND: ClassVar[str] = "raise_ante"
    to: int | None = None
    by: int | None = None

    def __post_init__(self) -> None:
        if (self.to is None) == (self.by is None):
            raise ScriptError('raise_ante needs exactly one of "to" (the new ante) or "by" (the step)')


@dataclass(frozen=True)
class Away:
    """A judge marks a player away: they miss their turns but still post all-antes."""

    KIND: ClassVar[str] = "away"
    player: str


@dataclass(frozen=True)
class Back:
    """A judge marks an away player back at the table."""

    KIND: ClassVar[str] = "back"
    player: str


@dataclass(frozen=True)
class SpinOff:
    """One round of a spin-off: the letter each tied player spun (RULES.md "Simultaneous elimination")."""

    KIND: ClassVar[str] = "spin_off"
    letters: Mapping[str, Letter]

    def __post_init__(self) -> None:
        frozen = _freeze_mapping(self.letters, "letters")
        object.__setattr__(
            self, "letters", types.MappingProxyType({k: _coerce_letter(v) for k, v in frozen.items()})
        )

    def __hash__(self) -> int:
        return _mapping_hash(self.letters)


@dataclass(frozen=True)
class VoidSpin:
    """A judge voids the most recent settled spin: the table returns to just before it and the same
    spinner spins again. Events after that spin (a raise, a player away...) are played again on top.
    Only the most recent spin can be voided; older mistakes are corrected with ``AdjustStack``.
    """

    KIND: ClassVar[str] = "void_spin"
    reason: str


@dataclass(frozen=True)
class ReplaceLetter:
    """A judge re-settles the most recent spin with another letter (the machine misread it)."""

    KIND: ClassVar[str] = "replace_letter"
    letter: Letter
    reason: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "letter", _coerce_letter(self.letter))


@dataclass(frozen=True)
class AdjustStack:
    """A judge moves ``delta`` gelt from the pot to the player (or, when negative, from the player to
    the pot). Gelt is conserved: an adjustment never creates or destroys gelt, it only moves it.
    It never triggers an all-ante or an elimination; a player adjusted to 0 stays in until asked for an ante.
    """

    KIND: ClassVar[str] = "adjust_stack"
    player: str
    delta: int
    reason: str


@dataclass(frozen=True)
class SetFirst:
    """Name the first spinner (the seat the dreidel's tip pointed at), before the first spin."""

    KIND: ClassVar[str] = "set_first"
    player: str


@dataclass(frozen=True)
class WildCard:
    """The wild-card raffle's winner joins in the seat after the current spinner with a stack of
    2 x the ante in force (the multiple is configuration). This gelt is new: the one exception to the
    conservation of gelt at a table. ``entrants`` records who was in the drawing.

    ``stack`` and ``seat_after`` override the defaults; the engine fills them in when it keeps the event
    for a later correction, so voiding an earlier spin does not move the newcomer or change their stack.
    """

    KIND: ClassVar[str] = "wild_card"
    player: str
    entrants: tuple[str, ...] | None = None
    stack: int | None = None
    seat_after: str | None = None

    def __post_init__(self) -> None:
        if self.entrants is not None:
            object.__setattr__(self, "entrants", tuple(self.entrants))


Event = Union[  # noqa: UP007 - a runtime alias that typing.get_args can read
    OpenTable,
    Spin,
    InvalidSpin,
    RaiseAnte,
    Away,
    Back,
    SpinOff,
    VoidSpin,
    ReplaceLetter,
    AdjustStack,
    SetFirst,
    WildCard,
]
"""Any table event."""

EVENT_TYPES: tuple[type[Event], ...] = typing.get_args(Event)
"""Every event class, in the order of the ``Event`` union."""

_BY_KIND: Mapping[str, Callable[..., Event]] = types.MappingProxyType({cls.KIND: cls for cls in EVENT_TYPES})


def _describe(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _convert(value: object, hint: object, where: str) -> object:
    """Check one JSON value against a field's type hint and convert it (letters, tuples, mappings)."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (Union, types.UnionType):
        if value is None:
            if type(None) in args:
                return None
            raise ScriptError(f"{where} must not be null")
        (inner,) = [a for a in args if a is not type(None)]
        return _convert(value, inner, where)
    if hint is Letter:
        try:
            return _coerce_letter(value)
        except ScriptError as exc:
            raise ScriptError(f"{where}: {exc.reason}") from None
    if hint is str:
        if not isinstance(value, str):
            raise ScriptError(f"{where} must be a string, not {_describe(value)}")
        return value
    if hint is int:
        # bool is an int in Python but never a gelt amount in a script.
        if isinstance(value, bool) or not isinstance(value, int):
            raise ScriptError(f"{where} must be a whole number, not {_describe(value)}")
        return value
    if origin is tuple:
        if not isinstance(value, list):
            raise ScriptError(f"{where} must be a list, not {_describe(value)}")
        return tuple(_convert(v, args[0], f"{where}[{i}]") for i, v in enumerate(value))
    if origin is Mapping:
        if not isinstance(value, dict):
            raise ScriptError(f"{where} must be an object, not {_describe(value)}")
        out: dict[str, object] = {}
        for key, item in value.items():
            out[key] = _convert(item, args[1], f"{where}[{key!r}]")
        return out
    raise TypeError(f"no JSON conversion for {hint!r}")  # a programming error, not a script error


def parse_event(obj: Mapping[str, object]) -> Event:
    """Read one script object (``{"event": "spin", "letter": "gimel"}``) into an event.

    Raises ``ScriptError`` naming the problem: not an object, unknown event, a missing or unexpected
    field, a value of the wrong type, or an unknown letter.
    """
    if not isinstance(obj, Mapping):
        raise ScriptError(f"an event must be a JSON object, not {_describe(obj)}")
    kind = obj.get("event")
    if not isinstance(kind, str):
        raise ScriptError(
            'an event needs an "event" field naming it, e.g. {"event": "spin", "letter": "nun"}'
        )
    factory = _BY_KIND.get(kind)
    if factory is None:
        known = ", ".join(sorted(_BY_KIND))
        raise ScriptError(f"unknown event {kind!r}: expected one of {known}")
    cls = typing.cast(type, factory)
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    extra = sorted(set(obj) - set(fields) - {"event"})
    if extra:
        allowed = ", ".join(fields)
        raise ScriptError(f"{kind}: unexpected field(s) {', '.join(extra)} (allowed: {allowed})")
    kwargs: dict[str, object] = {}
    for name, field in fields.items():
        required = field.default is dataclasses.MISSING
        if name not in obj:
            if required:
                raise ScriptError(f'{kind}: missing field "{name}"')
            continue
        kwargs[name] = _convert(obj[name], hints[name], f'{kind} "{name}"')
    return factory(**kwargs)


def _to_json_value(value: object) -> object:
    if isinstance(value, Letter):
        return value.value
    if isinstance(value, tuple):
        return [_to_json_value(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _to_json_value(v) for k, v in value.items()}
    return value


def event_to_json(event: Event) -> dict[str, object]:
    """The script object of an event: ``"event"`` first, then every field that is not ``None``."""
    out: dict[str, object] = {"event": event.KIND}
    for field in dataclasses.fields(event):
        value = getattr(event, field.name)
        if value is not None:
            out[field.name] = _to_json_value(value)
    return out
