"""The pure rules engines of the tournament table: no I/O, no clock, randomness only when passed in."""

from controller.rules.letters import Letter

__all__ = ["Letter"]
