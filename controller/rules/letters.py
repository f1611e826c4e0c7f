"""The letters on a dreidel (a contract: see DESIGN.md)."""

from __future__ import annotations

from enum import StrEnum


class Letter(StrEnum):
    """A face of the dreidel. ``pe`` (on dreidels made in Israel) plays as ``shin``."""

    NUN = "nun"
    GIMEL = "gimel"
    HEY = "hey"
    SHIN = "shin"
    PE = "pe"

    @property
    def plays_as(self) -> Letter:
        """The letter whose rule applies: Pe plays as Shin, every other letter as itself."""
        return Letter.SHIN if self is Letter.PE else self

    @property
    def hebrew(self) -> str:
        """The Hebrew character printed on the face."""
        return _HEBREW[self]

    @classmethod
    def parse(cls, text: str) -> Letter:
        """Read a letter name (case-insensitive), or raise ``ValueError`` naming the choices."""
        try:
            return cls(text.strip().lower())
        except ValueError:
            choices = ", ".join(m.value for m in cls)
            raise ValueError(f"unknown letter {text!r}: expected one of {choices}") from None


_HEBREW: dict[Letter, str] = {
    Letter.NUN: "\u05e0",
    Letter.GIMEL: "\u05d2",
    Letter.HEY: "\u05d4",
    Letter.SHIN: "\u05e9",
    Letter.PE: "\u05e4",
}
