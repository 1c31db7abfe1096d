"""One round's deal: the joker, the cards dealt so far, whose turn it is, and how it ended."""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .cards import Card, parse_card
from .config import FirstCard, Side, TableConfig
from .errors import DealFinished, DuplicateCard, EngineError

MAX_CARDS = 49  # 51 cards follow the joker, 3 of them match it: the 49th card at the latest matches


class ThreeCardHand(StrEnum):
    """What the First 3 side bet pays on (three-card poker; a pair or trips pays nothing)."""

    STRAIGHT_FLUSH = "straight_flush"
    STRAIGHT = "straight"
    FLUSH = "flush"


def three_card_hand(a: Card, b: Card, c: Card) -> ThreeCardHand | None:
    """Ace high or low: A-K-Q and A-2-3 are straights, K-A-2 is not."""
    values = sorted({int(a.rank), int(b.rank), int(c.rank)})
    if len(values) < 3:
        return None
    straight = values[2] - values[0] == 2 or values == [1, 12, 13]
    flush = a.suit == b.suit == c.suit
    if straight and flush:
        return ThreeCardHand.STRAIGHT_FLUSH
    if straight:
        return ThreeCardHand.STRAIGHT
    if flush:
        return ThreeCardHand.FLUSH
    return None


def first_side_for(config: TableConfig, joker: Card) -> Side:
    if config.first_card is FirstCard.JOKER_COLOUR:
        return Side.BAHAR if joker.is_red else Side.ANDAR
    return Side(config.first_card.value)


def side_of_position(first_side: Side, position: int) -> Side:
    if isinstance(position, bool) or not isinstance(position, int) or not 1 <= position <= MAX_CARDS:
        raise EngineError(f"card position must be 1 to {MAX_CARDS}, not {position!r}", code="invalid_position")
    return first_side if position % 2 else first_side.other


@dataclass(frozen=True)
class Outcome:
    winner: Side
    cards_dealt: int  # joker excluded, match included
    first_side: Side
    match_card: Card
    first_andar: Card | None  # first card dealt to each side (None: the side got no card)
    first_bahar: Card | None
    first_three: ThreeCardHand | None  # joker + first Andar + first Bahar card; None also if a side got none

    @property
    def matched_on_first_card(self) -> bool:
        return self.cards_dealt == 1

    def first_card_of(self, side: Side) -> Card | None:
        return self.first_andar if Side(side) is Side.ANDAR else self.first_bahar

    def to_dict(self) -> dict:
        card = lambda c: None if c is None else str(c)  # noqa: E731
        return {
            "winner": self.winner.value,
            "cards_dealt": self.cards_dealt,
            "first_side": self.first_side.value,
            "match_card": str(self.match_card),
            "first_andar": card(self.first_andar),
            "first_bahar": card(self.first_bahar),
            "first_three": None if self.first_three is None else self.first_three.value,
        }


@dataclass(frozen=True)
class Deal:
    """Immutable: `deal(card)` returns a new Deal. Building one directly (e.g. from stored rows)
    replays and checks every card, so a Deal is always a legal position."""

    config: TableConfig
    joker: Card
    cards: tuple[Card, ...] = ()

    def __post_init__(self):
        if not isinstance(self.config, TableConfig):
            raise TypeError(f"config must be a TableConfig, not {type(self.config).__name__}")
        if isinstance(self.cards, str | Card):
            raise TypeError("cards must be a sequence of cards")
        joker = parse_card(self.joker)
        seen: dict[Card, int] = {joker: 0}
        cards: list[Card] = []
        for item in self.cards:
            card = parse_card(item)
            _check_next(joker, cards, seen, card)
            cards.append(card)
            seen[card] = len(cards)
        object.__setattr__(self, "joker", joker)
        object.__setattr__(self, "cards", tuple(cards))
        object.__setattr__(self, "_seen", seen)  # card -> position (joker: 0); not a field

    @classmethod
    def start(cls, config: TableConfig, joker: str | Card) -> Deal:
        return cls(config, parse_card(joker))

    def deal(self, card: str | Card) -> Deal:
        """The deal with `card` added on the next side; refuses duplicates and cards after the match."""
        card = parse_card(card)
        _check_next(self.joker, self.cards, self._seen, card)
        new = object.__new__(Deal)  # already checked: skip the replay in __post_init__
        object.__setattr__(new, "config", self.config)
        object.__setattr__(new, "joker", self.joker)
        object.__setattr__(new, "cards", self.cards + (card,))
        object.__setattr__(new, "_seen", {**self._seen, card: len(self.cards) + 1})
        return new

    @property
    def first_side(self) -> Side:
        return first_side_for(self.config, self.joker)

    def side_of(self, position: int) -> Side:
        """The side that gets (or got) the card at 1-based `position`."""
        return side_of_position(self.first_side, position)

    @property
    def next_side(self) -> Side | None:
        return None if self.finished else self.side_of(len(self.cards) + 1)

    @property
    def finished(self) -> bool:
        return bool(self.cards) and self.cards[-1].rank == self.joker.rank

    def cards_of(self, side: Side) -> tuple[Card, ...]:
        start = 0 if Side(side) is self.first_side else 1
        return self.cards[start::2]

    @property
    def outcome(self) -> Outcome | None:
        if not self.finished:
            return None
        andar, bahar = self.cards_of(Side.ANDAR), self.cards_of(Side.BAHAR)
        first_andar = andar[0] if andar else None
        first_bahar = bahar[0] if bahar else None
        n = len(self.cards)
        return Outcome(
            winner=self.side_of(n),
            cards_dealt=n,
            first_side=self.first_side,
            match_card=self.cards[-1],
            first_andar=first_andar,
            first_bahar=first_bahar,
            first_three=None if n < 2 else three_card_hand(self.joker, first_andar, first_bahar),
        )


def _check_next(joker: Card, cards, seen: dict[Card, int], card: Card) -> None:
    if cards and cards[-1].rank == joker.rank:
        raise DealFinished(
            f"the round is over: {cards[-1]} matched the joker on card {len(cards)}", card=str(card)
        )
    if len(cards) >= MAX_CARDS:
        raise DealFinished(f"the round is over: {len(cards)} cards were already dealt", card=str(card))
    position = seen.get(card)
    if position == 0:
        raise DuplicateCard(f"{card} is this round's joker", card=str(card), position=0)
    if position is not None:
        raise DuplicateCard(f"{card} was already dealt (card {position})", card=str(card), position=position)
