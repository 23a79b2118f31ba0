"""The engine's exception tree: every error a caller can cause, each naming what was wrong."""

from __future__ import annotations

from typing import Any


class EngineError(ValueError):
    """Base of every error the engine raises on bad input."""


class InvalidOptions(EngineError):
    """Match options or player count refused; `fields` maps a field name to its messages."""

    def __init__(self, fields: dict[str, list[str]]):
        self.fields = fields
        super().__init__("; ".join(f"{name}: {' '.join(msgs)}" for name, msgs in fields.items()))


class InvalidMove(EngineError):
    """A move's JSON form could not be parsed into a move of this game."""

    def __init__(self, message: str, data: Any = None):
        self.data = data
        super().__init__(message)


class IllegalMove(EngineError):
    """A well-formed move that the rules forbid now; `rule` is the rule id it breaks (e.g. "W7")."""

    def __init__(self, rule: str, message: str, move: Any = None):
        self.rule = rule
        self.move = move
        super().__init__(f"{rule}: {message}")


class InvalidSnapshot(EngineError):
    """A snapshot that is corrupt or of another format version."""
