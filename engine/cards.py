"""Playing cards: suits, ranks, the canonical text form (``10H``, ``QS``) and the parser."""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum
from itertools import product

from .errors import InvalidCard


class Suit(StrEnum):
    S = "S"
    H = "H"
    D = "D"
    C = "C"

    @property
    def is_red(self) -> bool:
        return self in (Suit.H, Suit.D)

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]


_SUIT_SYMBOLS = {Suit.S: "♠", Suit.H: "♥", Suit.D: "♦", Suit.C: "♣"}


class Rank(IntEnum):
    """Ace is 1 (it is also high in a First 3 straight, see deal.three_card_hand)."""

    A = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    J = 11
    Q = 12
    K = 13

    @property
    def symbol(self) -> str:
        """``A``, ``2`` .. ``10``, ``J``, ``Q``, ``K``."""
        return self.name if self.name in ("A", "J", "Q", "K") else str(self.value)


@dataclass(frozen=True, repr=False)
class Card:
    rank: Rank
    suit: Suit

    def __post_init__(self):
        try:
            object.__setattr__(self, "rank", Rank(self.rank))
            object.__setattr__(self, "suit", Suit(self.suit))
        except ValueError:
            raise InvalidCard(f"no card has rank {self.rank!r} and suit {self.suit!r}", text=None) from None

    def __str__(self) -> str:
        return f"{self.rank.symbol}{self.suit.value}"

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"

    @property
    def code(self) -> str:
        """The canonical form, as stored and sent everywhere: ``10H``, ``QS``."""
        return str(self)

    @property
    def pretty(self) -> str:
        return f"{self.rank.symbol}{self.suit.symbol}"

    @property
    def is_red(self) -> bool:
        return self.suit.is_red


FULL_PACK: tuple[Card, ...] = tuple(Card(rank, suit) for suit, rank in product(Suit, Rank))

# Every accepted spelling (upper case, after stripping) -> the one Card object for it.
_RANK_SPELLINGS = {rank: (rank.symbol,) for rank in Rank} | {Rank.TEN: ("10", "T")}
_SUIT_SPELLINGS = {
    Suit.S: ("S", "♠", "♤"),
    Suit.H: ("H", "♥", "♡"),
    Suit.D: ("D", "♦", "♢"),
    Suit.C: ("C", "♣", "♧"),
}
_SPELLINGS: dict[str, Card] = {
    r + s: card for card in FULL_PACK for r in _RANK_SPELLINGS[card.rank] for s in _SUIT_SPELLINGS[card.suit]
}
_EMOJI_VARIATION = "\ufe0f"  # "♥️" as some keyboards send it


def parse_card(text: str | Card) -> Card:
    """Read a card as a console or a barcode scanner sends it: ``KS``, ``ks``, ``10H``, ``TH``,
    ``Q♥``, ``10♦``; surrounding whitespace is ignored. A Card is returned as is."""
    if isinstance(text, Card):
        return text
    card = _SPELLINGS.get(text.strip().replace(_EMOJI_VARIATION, "").upper()) if isinstance(text, str) else None
    if card is None:
        raise InvalidCard(f"{text!r} is not a card: use rank then suit, like KS, 10H or Q♥", text=text)
    return card
