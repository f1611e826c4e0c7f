"""The exceptions of the rules engines.

Every error is a ``RuleError`` (a ``ValueError``), so a caller that only wants to refuse an event
catches one class; the subclasses say which rule was broken, so a judge console can react to each.
Messages are written for a judge at the table: they say what happened and, where it helps, what to do.
"""

from __future__ import annotations


class RuleError(ValueError):
    """An event that the rules do not allow in the current state of the table (nothing was changed)."""


class ScriptError(RuleError):
    """A script line or JSON object that is not a valid event (bad JSON, unknown event, wrong field)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.line = line
        self.reason = message
        super().__init__(f"line {line}: {message}" if line is not None else message)


class ConfigError(RuleError):
    """A configuration value that cannot work (a negative stack, an unknown option, ...)."""


class NotOpen(RuleError):
    """An event arrived before the table was opened."""


class AlreadyOpen(RuleError):
    """A second ``open`` for a table that is already open."""


class BadPlayers(RuleError):
    """The list of players cannot make a table (too few, too many, duplicate or empty names)."""


class UnknownPlayer(RuleError):
    """An event names somebody who is not seated at this table."""


class PlayerOut(RuleError):
    """An event asks something of a player who has already been knocked out."""


class WrongSpinner(RuleError):
    """A spin was credited to somebody whose turn it is not."""


class NoSpinner(RuleError):
    """A spin arrived while nobody may spin (every player still in is away)."""


class TableFinished(RuleError):
    """An event arrived after the table already has its winner."""


class SpinOffPending(RuleError):
    """A normal spin arrived while a spin-off must first decide the table winner."""


class NoSpinOffPending(RuleError):
    """A ``spin_off`` round arrived although no tie is waiting for one, or with the wrong players."""


class BadStatus(RuleError):
    """A player was marked away who is away already, or back who is not away."""


class BadRaise(RuleError):
    """An ante raise that is not a raise (zero, negative, or a target at or below the ante)."""


class NothingToVoid(RuleError):
    """A correction that would have to undo something other than the most recent settled spin."""


class BadAdjustment(RuleError):
    """A stack adjustment that would leave a negative stack or pot, or that targets a player who is out."""


class TooLate(RuleError):
    """An event that is only allowed before the first spin (such as choosing the first spinner)."""


class TournamentError(RuleError):
    """A tournament-level event that does not fit the tournament's state (tables unfinished, raffle closed...)."""
