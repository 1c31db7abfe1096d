"""The engine's errors: one base class (a ValueError) with a machine-readable `code`."""
from __future__ import annotations


class EngineError(ValueError):
    """A broken rule of the game. `message` is for people, `code` for programs.

    Keyword extras (``field=...``, ``card=...``) become attributes and are kept in `extra`.
    """

    code = "engine_error"

    def __init__(self, message: str, *, code: str | None = None, **extra):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.extra = extra
        for name, value in extra.items():
            setattr(self, name, value)

    def __str__(self) -> str:
        return self.message

    def __reduce__(self):  # picklable despite keyword-only arguments
        return (_rebuild, (type(self), self.message, self.code, self.extra))


def _rebuild(cls, message, code, extra):
    return cls(message, code=code, **extra)


class InvalidCard(EngineError):
    """A card code that cannot be read (attribute `text`: the input)."""

    code = "invalid_card"


class DuplicateCard(EngineError):
    """A card already seen in this round, the joker included (attributes `card`, `position`; 0 = joker)."""

    code = "duplicate_card"


class DealFinished(EngineError):
    """A card offered after the match (or after 49 cards)."""

    code = "deal_finished"


class InvalidConfig(EngineError):
    """A table setting out of range (attribute `field`: the setting's name)."""

    code = "invalid_config"
    field: str | None = None
