"""Exact odds: RULES.md's reference figures, consistency, and a seeded simulation against them."""
import random
from collections import Counter
from decimal import Decimal
from fractions import Fraction
from functools import cache
from itertools import product

import pytest

from engine import (
    FULL_PACK,
    PAYTABLES,
    Deal,
    FirstCard,
    Mode,
    Paytable,
    Side,
    TableConfig,
    match_probability,
    odds,
    offered_spots,
    percent4,
)
from engine.odds import outcome_classes, three_card_counts
from engine.spots import count_spot_for

F = Fraction
ALL_CONFIGS = [
    TableConfig(first_card=f, mode=m, card_count_paytable=p) for f, m, p in product(FirstCard, Mode, Paytable)
]


def by_spot(config):
    return {o.spot: o for o in odds(config)}


def p_deal_length(lo, hi):
    return sum((match_probability(n) for n in range(lo, hi + 1)), F(0))


def test_match_on_card_n_by_sequential_draws():
    # Independent derivation: no match on each of cards 1..n-1, then a match on card n.
    for n in range(1, 50):
        p = F(1)
        for k in range(1, n):
            p *= F(48 - (k - 1), 51 - (k - 1))
        p *= F(3, 51 - (n - 1))
        assert match_probability(n) == p
    assert p_deal_length(1, 49) == 1 and match_probability(50) == 0


def test_the_first_card_side_wins_429_of_833_rounds():
    assert sum(match_probability(n) for n in range(1, 50, 2)) == F(429, 833)
    assert by_spot(TableConfig())["andar"].probability == F(429, 833)
    assert by_spot(TableConfig(first_card="bahar"))["bahar"].probability == F(429, 833)


def test_the_average_deal_is_exactly_13_cards():
    assert sum(n * match_probability(n) for n in range(1, 50)) == 13


def test_a_match_on_the_very_first_card_is_1_in_17():
    assert match_probability(1) == F(1, 17)
    assert by_spot(TableConfig())["first_andar"].probability == F(1, 17)


def test_deals_are_often_short():
    assert p_deal_length(1, 5) > F(1, 4)
    assert p_deal_length(1, 11) >= F(1, 2) > p_deal_length(1, 10)
    assert round(1 / p_deal_length(41, 49)) == 126


@pytest.mark.parametrize(
    "settings_, spot, rtp, payout",
    [
        ({}, "andar", "97.8511", "0.9"),
        ({}, "bahar", "96.9988", "1"),
        ({"mode": "no_commission"}, "andar", "98.5894", "1"),
        ({"mode": "no_commission"}, "bahar", "96.9988", "1"),
        ({"first_card": "bahar"}, "bahar", "97.8511", "0.9"),
        ({"first_card": "bahar"}, "andar", "96.9988", "1"),
    ],
)
def test_main_bet_rtp_matches_the_reference_figures(settings_, spot, rtp, payout):
    result = by_spot(TableConfig.from_dict(settings_))[spot]
    assert percent4(result.rtp) == result.rtp_percent == rtp
    assert result.payout == Decimal(payout)


def test_no_commission_andar_has_two_winning_cases():
    assert by_spot(TableConfig(mode="no_commission"))["andar"].outcomes == (
        (F(380, 833), Decimal("1")),
        (F(1, 17), Decimal("0.25")),
    )


def test_first_three_frequencies_are_three_card_poker_out_of_22100():
    counts = three_card_counts()
    assert (counts["straight_flush"], counts["straight"], counts["flush"]) == (48, 720, 1096)
    first_three = by_spot(TableConfig())["first_three"]
    assert first_three.outcomes == ((F(1096, 22100), 5), (F(720, 22100), 8), (F(48, 22100), 120))
    assert first_three.payout == 5


def test_first_bahar_needs_card_1_to_miss_and_card_2_to_match():
    assert by_spot(TableConfig())["first_bahar"].probability == F(48, 51) * F(3, 50)


@pytest.mark.parametrize(
    "value, text",
    [(F(8151, 8330), "97.8511"), (F(1, 3), "33.3333"), (F(2, 3), "66.6667"), (F(1, 2_000_000), "0.0001"),
     (F(1, 2_000_001), "0.0000"), (F(1), "100.0000"), (F(0), "0.0000"), (F(-1, 3), "-33.3333")],
)
def test_percent4_rounds_half_up_to_four_decimals(value, text):
    assert percent4(value) == text


@pytest.mark.parametrize("config", ALL_CONFIGS, ids=lambda c: f"{c.first_card}-{c.mode}-{c.card_count_paytable}")
def test_probabilities_add_up_for_every_setting(config):
    assert sum(p for p, _ in outcome_classes(config)) == 1
    assert all(p >= 0 for p, _ in outcome_classes(config))
    result = by_spot(config)
    assert [o.spot for o in odds(config)] == offered_spots(config)
    assert result["andar"].probability + result["bahar"].probability == 1
    boxes = [o for o in result.values() if o.spot.startswith("count_")]
    assert len(boxes) == len(PAYTABLES[config.card_count_paytable])
    assert sum(o.probability for o in boxes) == 1
    if config.mode is Mode.CLASSIC:
        assert result["first_andar"].probability + result["first_bahar"].probability == (
            match_probability(1) + match_probability(2))
    for o in result.values():
        assert o.probability == sum(p for p, _ in o.outcomes)
        assert o.rtp == sum(p * (1 + F(x)) for p, x in o.outcomes)
        assert o.payout == max(o.outcomes, key=lambda c: c[0])[1]
        assert 0 < o.rtp < 1  # the house keeps an edge on every spot


# --- a seeded simulation of real shuffles through the engine, checked against the exact odds ---

# Chi-square critical values at significance 0.001, by degrees of freedom (NIST/SEMATECH
# e-Handbook of Statistical Methods, section 1.3.6.7.4, "Critical Values of the Chi-Square
# Distribution", upper tail 0.001).
CHI2_CRITICAL_0_001 = {1: 10.828, 7: 24.322, 9: 27.877}
ROUNDS = 20_000


@cache
def simulated_outcomes():
    rng = random.Random(1234)
    pack = list(FULL_PACK)
    config = TableConfig()
    results = []
    for _ in range(ROUNDS):
        rng.shuffle(pack)
        deal = Deal.start(config, pack[0])
        for card in pack[1:]:
            deal = deal.deal(card)
            if deal.finished:
                break
        results.append(deal.outcome)
    return results


def chi_square(observed: Counter, expected: dict[str, Fraction]) -> Fraction:
    return sum((F(observed[k]) - ROUNDS * p) ** 2 / (ROUNDS * p) for k, p in expected.items())


def test_simulated_andar_share_agrees_with_the_exact_odds():
    observed = Counter(str(o.winner) for o in simulated_outcomes())
    p = by_spot(TableConfig())["andar"].probability
    statistic = chi_square(observed, {"andar": p, "bahar": 1 - p})
    assert statistic < Decimal(str(CHI2_CRITICAL_0_001[1]))


@pytest.mark.parametrize("paytable", list(Paytable))
def test_simulated_card_counts_agree_with_the_exact_odds(paytable):
    config = TableConfig(card_count_paytable=paytable)
    expected = {o.spot: o.probability for o in odds(config) if o.spot.startswith("count_")}
    observed = Counter(count_spot_for(paytable, o.cards_dealt) for o in simulated_outcomes())
    statistic = chi_square(observed, expected)
    assert statistic < Decimal(str(CHI2_CRITICAL_0_001[len(expected) - 1]))
    assert sum(observed.values()) == ROUNDS


def test_simulated_first_card_matches_agree_with_the_exact_odds():
    observed = Counter("first" if o.cards_dealt == 1 else "later" for o in simulated_outcomes())
    statistic = chi_square(observed, {"first": F(1, 17), "later": F(16, 17)})
    assert statistic < Decimal(str(CHI2_CRITICAL_0_001[1]))
    assert all(o.first_side is Side.ANDAR for o in simulated_outcomes())
