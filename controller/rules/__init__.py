"""The pure rules engines of the tournament table: no I/O, no clock, randomness only when passed in.

``controller.rules.table.apply`` folds table events (``controller.rules.events``) into a ``TableState``;
``controller.rules.tournament`` does the same for a whole tournament. Errors are ``RuleError`` subclasses.
"""

from controller.rules.errors import RuleError, ScriptError
from controller.rules.events import Event, event_to_json, parse_event
from controller.rules.letters import Letter
from controller.rules.table import PlayerStatus, TableConfig, TableState, apply, replay, state_to_json
from controller.rules.tournament import (
    TournamentConfig,
    TournamentState,
    apply_tournament,
    draw_wild_card,
    replay_tournament,
)

__all__ = [
    "Event",
    "Letter",
    "PlayerStatus",
    "RuleError",
    "ScriptError",
    "TableConfig",
    "TableState",
    "TournamentConfig",
    "TournamentState",
    "apply",
    "apply_tournament",
    "draw_wild_card",
    "event_to_json",
    "parse_event",
    "replay",
    "replay_tournament",
    "state_to_json",
]
