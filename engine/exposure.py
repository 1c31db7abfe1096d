"""What a round's bets could cost the house: every payout-relevant outcome still possible from a
deal, and the most the bets would be paid on any of them (the same `pays` settlement uses).

From a deal of k cards with no match yet, the match can fall on any card n from k + 1 to 49 (48
cards do not match the joker). The First 3 hand is the joker with cards 1 and 2: known once both
are dealt, otherwise any hand some still unseen cards can make (cards 1 and 2 must both miss the
joker's rank for the match to come later than card 2). A finished deal has one outcome: its own.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from .cards import FULL_PACK, Card
from .deal import MAX_CARDS, Deal, ThreeCardHand, three_card_hand
from .config import Side, TableConfig
from .spots import Facts, Multiplied, multiplied_odds, pays, round_winnings


@lru_cache(maxsize=1024)
def _hands_after(joker: Card, first: Card | None) -> frozenset[ThreeCardHand | None]:
    """The First 3 hands still possible when the match falls on card 3 or later, given card 1
    (None: not dealt yet)."""
    misses = [c for c in FULL_PACK if c.rank != joker.rank]
    if first is not None:
        return frozenset(three_card_hand(joker, first, second) for second in misses if second != first)
    return frozenset(three_card_hand(joker, a, b) for a in misses for b in misses if a != b)


def possible_facts(deal: Deal) -> list[Facts]:
    """Every payout-relevant outcome this deal can still end in (its own outcome once finished)."""
    if deal.finished:
        return [Facts.of(deal.outcome)]
    first = deal.first_side
    k = len(deal.cards)
    # The first card each side gets: card 1 for the first side, card 2 for the other.
    first_position = {first: 1, first.other: 2}
    if k >= 2:
        later_hands = frozenset([three_card_hand(deal.joker, *_first_two(deal))])
    else:
        later_hands = _hands_after(deal.joker, deal.cards[0] if k else None)
    facts = []
    for n in range(k + 1, MAX_CARDS + 1):
        winner = first if n % 2 else first.other
        andar_hit = first_position[Side.ANDAR] == n
        bahar_hit = first_position[Side.BAHAR] == n
        hands = later_hands if n >= 3 else frozenset([None])  # a match on card 1 or 2 makes a pair (or no hand)
        facts.extend(Facts(winner, first, n, andar_hit, bahar_hit, hand) for hand in hands)
    return facts


def _first_two(deal: Deal) -> tuple[Card, Card]:
    """The first Andar and the first Bahar card (cards 1 and 2, in side order)."""
    andar, bahar = deal.cards_of(Side.ANDAR), deal.cards_of(Side.BAHAR)
    return andar[0], bahar[0]


@dataclass(frozen=True)
class Exposure:
    staked: Decimal  # every stake of the round's live bets
    worst_payout: Decimal  # the most paid back (stakes + winnings) on any possible outcome
    worst: Facts | None  # that outcome (None without bets)

    @property
    def exposure(self) -> Decimal:
        """What the house would lose on the worst outcome: paid back less staked, never below 0."""
        return max(Decimal(0), self.worst_payout - self.staked)


def worst_case(config: TableConfig, bets: Iterable[tuple[str, Decimal, int]], facts: Iterable[Facts],
               multiplied: Multiplied | None = None) -> Exposure:
    """`bets` as (spot, stake, how many bets of that stake): each bet's winnings are rounded down
    to the chip unit on its own, as settlement does. At a table with multipliers: the round's drawn
    multipliers (`multiplied`), or, before the draw, the worst draw for each outcome (the highest
    multiplier on the `draws` multipliable spots whose bets it would cost the most)."""
    by_spot: dict[str, list[tuple[Decimal, int]]] = {}
    staked = Decimal(0)
    for spot, stake, n in bets:
        by_spot.setdefault(spot, []).append((Decimal(stake), int(n)))
        staked += Decimal(stake) * int(n)
    if not by_spot:
        return Exposure(staked=staked, worst_payout=Decimal(0), worst=None)
    paid_at: dict[tuple[str, Decimal], Decimal] = {}  # (spot, odds) -> what that spot's bets are paid back

    def paid_back(spot: str, odds: Decimal) -> Decimal:
        if (spot, odds) not in paid_at:
            paid_at[spot, odds] = sum(((stake + round_winnings(stake, odds, config.chip_unit)) * n
                                       for stake, n in by_spot[spot]), Decimal(0))
        return paid_at[spot, odds]

    setting = config.multipliers if multiplied is None else None  # not drawn yet: any draw may come
    best_paid, best_facts = None, None
    for f in facts:
        paid, extra = Decimal(0), []
        for spot in by_spot:
            odds = multiplied_odds(pays(config, spot, f), spot, multiplied)
            if odds is None:
                continue
            paid += paid_back(spot, odds)
            if setting is not None and spot in setting.spots:
                extra.append(paid_back(spot, odds * setting.highest) - paid_back(spot, odds))
        paid += sum(sorted(extra, reverse=True)[:setting.draws] if setting is not None else [], Decimal(0))
        if best_paid is None or paid > best_paid:
            best_paid, best_facts = paid, f
    return Exposure(staked=staked, worst_payout=best_paid or Decimal(0), worst=best_facts)
