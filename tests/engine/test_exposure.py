"""The outcomes still possible from a deal, and the most a round's bets could be paid on one."""
import random
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import FULL_PACK, Deal, Side, TableConfig, bet_result, offered_spots, possible_facts, worst_case
from engine.spots import Facts

FAST = settings(max_examples=60, deadline=None, database=None)
D = Decimal
CLASSIC = TableConfig()


def shuffled_deal(config, seed):
    """A whole deal from a seeded shuffle: the joker, then cards until the match."""
    pack = list(FULL_PACK)
    random.Random(seed).shuffle(pack)
    deal = Deal.start(config, pack[0])
    for card in pack[1:]:
        deal = deal.deal(card)
        if deal.finished:
            return deal
    raise AssertionError("no match in a whole pack")


@FAST
@given(seed=st.integers(0, 10**9), first=st.sampled_from(["andar", "bahar", "joker_colour"]))
def test_every_prefix_of_a_deal_can_still_end_as_it_did(seed, first):
    config = TableConfig(first_card=first)
    whole = shuffled_deal(config, seed)
    end = Facts.of(whole.outcome)
    for k in range(len(whole.cards) + 1):
        prefix = Deal(config, whole.joker, whole.cards[:k])
        facts = possible_facts(prefix)
        assert end in facts
        assert all(f.cards_dealt > k or prefix.finished for f in facts)


def test_a_finished_deal_has_one_outcome():
    deal = Deal.start(CLASSIC, "KS").deal("AC").deal("QS").deal("KD")
    assert possible_facts(deal) == [Facts.of(deal.outcome)]


def test_before_any_card_every_length_and_hand_is_possible():
    facts = possible_facts(Deal.start(CLASSIC, "7H"))
    assert {f.cards_dealt for f in facts} == set(range(1, 50))
    assert {f.first_three for f in facts if f.cards_dealt >= 3} == {None, "straight_flush", "straight", "flush"}


def test_once_two_cards_are_dealt_the_first_three_hand_is_known():
    deal = Deal.start(CLASSIC, "7H").deal("8H").deal("9H")  # a straight flush with the joker
    assert {f.first_three for f in possible_facts(deal)} == {"straight_flush"}
    assert {f.cards_dealt for f in possible_facts(deal)} == set(range(3, 50))


@pytest.mark.parametrize("bets, exposure, staked", [
    ([], "0", "0"),
    ([("andar", "100", 1)], "90", "100"),          # Andar is the first side: it pays 0.9:1
    ([("bahar", "100", 1)], "100", "100"),
    ([("andar", "100", 1), ("bahar", "50", 1)], "40", "150"),  # Andar wins: 190 back for 150 staked
    ([("andar", "100", 1), ("bahar", "100", 1)], "0", "200"),  # the house wins or breaks even either way
    ([("count_46_49", "10", 3)], "24000", "30"),    # 800:1 on 46 to 49 cards
])
def test_worked_exposures_before_the_first_card(bets, exposure, staked):
    result = worst_case(CLASSIC, [(s, D(a), n) for s, a, n in bets], possible_facts(Deal.start(CLASSIC, "KS")))
    assert (result.exposure, result.staked) == (D(exposure), D(staked))


def test_each_bet_is_rounded_down_on_its_own():
    """Two 5-chip Andar bets at 0.9:1 win 4 each (not 9 together) on a chip unit of 1."""
    result = worst_case(CLASSIC, [("andar", D(5), 2)], [Facts(Side.ANDAR, Side.ANDAR, 3, False, False, None)])
    assert result.worst_payout == D(18)


@FAST
@given(seed=st.integers(0, 10**9), k=st.integers(0, 6),
       stakes=st.lists(st.tuples(st.sampled_from(offered_spots(CLASSIC)), st.integers(1, 500)), min_size=1, max_size=8))
def test_no_outcome_pays_more_than_the_worst_case(seed, k, stakes):
    whole = shuffled_deal(CLASSIC, seed)
    prefix = Deal(CLASSIC, whole.joker, whole.cards[:min(k, len(whole.cards))])
    result = worst_case(CLASSIC, [(s, D(a), 1) for s, a in stakes], possible_facts(prefix))
    paid = sum((bet_result(CLASSIC, s, D(a), whole.outcome).payout for s, a in stakes), D(0))
    assert paid <= result.worst_payout
    if prefix.finished:
        assert paid == result.worst_payout
