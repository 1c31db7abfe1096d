"""Exact odds of every spot, by combinatorics (no simulation).

After the joker 51 cards remain, 3 of the joker's rank, in uniformly random order, so the match
falls on card n with probability C(51-n, 2) / C(51, 3), n = 1..49; card n goes to the first side
when n is odd. With `joker_colour` the first side is Andar or Bahar with probability 1/2 each,
independently of where the match falls. First 3 depends only on the set {joker, card 1, card 2},
a uniform 3-card subset of the pack, so its chances are three-card-poker frequencies out of
C(52, 3) (enumerated below); given such a hand (no pair), cards 1 and 2 did not match and the
match falls on card n >= 3 with probability C(51-n, 2) / C(49, 3).

Every (first side, n, First 3 hand) class is then settled with the same `pays` function as a real
outcome, so the odds shown can never disagree with what settlement pays.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import cache, lru_cache
from itertools import combinations
from math import comb, floor

from .cards import FULL_PACK
from .config import FirstCard, Side, TableConfig, offered_spots
from .deal import MAX_CARDS, ThreeCardHand, three_card_hand
from .spots import Facts, pays


@dataclass(frozen=True)
class SpotOdds:
    spot: str
    probability: Fraction  # P(the bet wins)
    payout: Decimal  # odds of the most likely winning case
    rtp: Fraction  # expected return per unit staked: sum of p * (1 + odds x the spot's expected multiplier factor)
    outcomes: tuple[tuple[Fraction, Decimal], ...]  # (probability, odds) per distinct odds, likeliest first
    rtp_without_multipliers: Fraction | None = None  # the same without the table's multipliers (None: the spot has none)

    @property
    def rtp_percent(self) -> str:
        return percent4(self.rtp)


def match_probability(n: int) -> Fraction:
    """P(the match is the n-th card dealt), n = 1..49."""
    if not 1 <= n <= MAX_CARDS:
        return Fraction(0)
    return Fraction(comb(51 - n, 2), comb(51, 3))


def deal_length_distribution() -> dict[int, Fraction]:
    return {n: match_probability(n) for n in range(1, MAX_CARDS + 1)}


@cache
def three_card_counts() -> dict[ThreeCardHand, int]:
    """How many of the C(52, 3) = 22100 three-card hands are each First 3 hand."""
    counts = Counter(three_card_hand(*hand) for hand in combinations(FULL_PACK, 3))
    return {hand: counts[hand] for hand in ThreeCardHand}


def first_side_weights(config: TableConfig) -> dict[Side, Fraction]:
    if config.first_card is FirstCard.JOKER_COLOUR:
        return {Side.ANDAR: Fraction(1, 2), Side.BAHAR: Fraction(1, 2)}
    return {Side(config.first_card.value): Fraction(1)}


def outcome_classes(config: TableConfig) -> list[tuple[Fraction, Facts]]:
    """Every distinct payout-relevant outcome with its exact probability (they sum to 1)."""
    total_hands = comb(52, 3)
    hand_p = {hand: Fraction(count, total_hands) for hand, count in three_card_counts().items()}
    any_hand = sum(hand_p.values())
    classes = []
    for first, weight in first_side_weights(config).items():
        first_card_position = {first: 1, first.other: 2}
        for n in range(1, MAX_CARDS + 1):
            winner = first if n % 2 else first.other
            andar_hit = first_card_position[Side.ANDAR] == n
            bahar_hit = first_card_position[Side.BAHAR] == n
            rest = match_probability(n)
            if n >= 3:  # a First 3 hand has no pair: cards 1 and 2 did not match
                given_hand = Fraction(comb(51 - n, 2), comb(49, 3))
                for hand, p in hand_p.items():
                    classes.append((weight * p * given_hand, Facts(winner, first, n, andar_hit, bahar_hit, hand)))
                rest -= any_hand * given_hand
            classes.append((weight * rest, Facts(winner, first, n, andar_hit, bahar_hit, None)))
    return classes


@lru_cache(maxsize=128)
def _odds(config: TableConfig) -> tuple[SpotOdds, ...]:
    spots = offered_spots(config)
    cases: dict[str, dict[Decimal, Fraction]] = {spot: defaultdict(Fraction) for spot in spots}
    for p, facts in outcome_classes(config):
        for spot in spots:
            paid = pays(config, spot, facts)
            if paid is not None and p:
                cases[spot][paid] += p
    result = []
    for spot in spots:
        outcomes = tuple(sorted(((p, o) for o, p in cases[spot].items()), key=lambda c: (-c[0], c[1])))
        probability = sum((p for p, _ in outcomes), Fraction(0))
        winnings = sum((p * Fraction(o) for p, o in outcomes), Fraction(0))
        factor = multiplier_factor(config, spot)
        result.append(
            SpotOdds(
                spot=spot,
                probability=probability,
                payout=outcomes[0][1] if outcomes else Decimal(0),
                rtp=probability + winnings * factor,
                outcomes=outcomes,
                rtp_without_multipliers=None if factor == 1 else probability + winnings,
            )
        )
    return tuple(result)


def multiplier_factor(config: TableConfig, spot: str) -> Fraction:
    """What the table's multipliers multiply a spot's expected winnings by: 1 + P(drawn) x
    (E[multiplier] - 1) for a spot that can be drawn (the draw is independent of the cards), 1
    otherwise. Winnings are taken unrounded, as for every spot's return."""
    setting = config.multipliers
    if setting is None or spot not in setting.spots:
        return Fraction(1)
    return 1 + setting.drawn_chance * (setting.expected - 1)


def odds(config: TableConfig) -> list[SpotOdds]:
    """Exact odds of every offered spot, in offered order."""
    return list(_odds(config))


def percent4(value: Fraction) -> str:
    """A fraction of 1 as a percentage rounded half-up to 4 decimals: 815.1/833 -> "97.8511"."""
    scaled = abs(Fraction(value)) * 100 * 10**4
    units = floor(scaled + Fraction(1, 2))
    sign = "-" if value < 0 and units else ""
    return f"{sign}{units // 10**4}.{units % 10**4:04d}"
