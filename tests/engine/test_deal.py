"""The deal: whose card it is, when it ends, who wins, and what it refuses."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    FULL_PACK,
    DealFinished,
    Deal,
    DuplicateCard,
    EngineError,
    FirstCard,
    Side,
    TableConfig,
    ThreeCardHand,
    parse_card,
    three_card_hand,
)
from engine.deal import _check_next

FAST = settings(max_examples=300, deadline=None, database=None)
ANDAR, BAHAR = Side.ANDAR, Side.BAHAR


def play(config, joker, cards):
    deal = Deal.start(config, joker)
    for card in cards:
        deal = deal.deal(card)
    return deal


# RULES.md's worked deals: (settings, joker, cards in dealing order, winner, cards dealt, sides in order)
WORKED_DEALS = {
    "teaching example (joker_colour, red joker: Bahar first)": (
        {"first_card": "joker_colour"}, "Q♥", ["4♣", "7♦", "Q♠"], BAHAR, 3, [BAHAR, ANDAR, BAHAR],
    ),
    "example 1 (match on the very first card)": ({}, "KS", ["KC"], ANDAR, 1, [ANDAR]),
    "example 2 (Andar A♣ 8♦ J♥ K♦, Bahar Q♠ 7♣ 2♥)": (
        {}, "KS", ["AC", "QS", "8D", "7C", "JH", "2H", "KD"], ANDAR, 7,
        [ANDAR, BAHAR, ANDAR, BAHAR, ANDAR, BAHAR, ANDAR],
    ),
}


@pytest.mark.parametrize("settings_, joker, cards, winner, count, sides", WORKED_DEALS.values(), ids=WORKED_DEALS)
def test_worked_deals_from_the_rulebook(settings_, joker, cards, winner, count, sides):
    deal = Deal.start(TableConfig.from_dict(settings_), joker)
    for position, card in enumerate(cards, 1):
        assert not deal.finished and deal.outcome is None
        assert deal.next_side is sides[position - 1]
        deal = deal.deal(card)
        assert deal.side_of(position) is sides[position - 1]
    assert deal.finished and deal.next_side is None
    assert deal.outcome.winner is winner
    assert deal.outcome.cards_dealt == count
    assert deal.outcome.match_card == parse_card(cards[-1])


def test_teaching_example_outcome_in_full():
    deal = play(TableConfig(first_card="joker_colour"), "Q♥", ["4♣", "7♦", "Q♠"])
    assert deal.first_side is BAHAR
    assert deal.outcome.to_dict() == {
        "winner": "bahar", "cards_dealt": 3, "first_side": "bahar", "match_card": "QS",
        "first_andar": "7D", "first_bahar": "4C", "first_three": None,
    }


def test_example_2_first_three_is_a_straight():
    outcome = play(TableConfig(), "KS", ["AC", "QS", "8D", "7C", "JH", "2H", "KD"]).outcome
    assert (str(outcome.first_andar), str(outcome.first_bahar)) == ("AC", "QS")
    assert outcome.first_three is ThreeCardHand.STRAIGHT and outcome.first_three == "straight"


def test_a_match_on_the_first_card_leaves_the_other_side_without_a_card():
    outcome = play(TableConfig(), "KS", ["KC"]).outcome
    assert outcome.first_andar == parse_card("KC") and outcome.first_bahar is None
    assert outcome.first_three is None and outcome.matched_on_first_card


@pytest.mark.parametrize(
    "first_card, joker, first_side",
    [("andar", "QH", ANDAR), ("andar", "QS", ANDAR), ("bahar", "QS", BAHAR), ("bahar", "QH", BAHAR),
     ("joker_colour", "2S", ANDAR), ("joker_colour", "2C", ANDAR),
     ("joker_colour", "2H", BAHAR), ("joker_colour", "2D", BAHAR)],
)
def test_first_side_follows_the_setting(first_card, joker, first_side):
    deal = Deal.start(TableConfig(first_card=first_card), joker)
    assert deal.first_side is first_side and deal.next_side is first_side
    assert [deal.side_of(n) for n in (1, 2, 3, 48, 49)] == [first_side, first_side.other, first_side,
                                                               first_side.other, first_side]


@pytest.mark.parametrize("position", [0, -1, 50, "1", 1.0])
def test_positions_outside_1_to_49_are_refused(position):
    with pytest.raises(EngineError):
        Deal.start(TableConfig(), "KS").side_of(position)


@pytest.mark.parametrize(
    "cards, hand",
    [
        (["QS", "KS", "AS"], ThreeCardHand.STRAIGHT_FLUSH),
        (["AH", "2H", "3H"], ThreeCardHand.STRAIGHT_FLUSH),
        (["KS", "AC", "QS"], ThreeCardHand.STRAIGHT),
        (["3D", "AC", "2S"], ThreeCardHand.STRAIGHT),
        (["9C", "10D", "JC"], ThreeCardHand.STRAIGHT),
        (["KH", "AH", "2H"], ThreeCardHand.FLUSH),  # K-A-2 is not a straight
        (["KS", "AC", "2D"], None),
        (["2C", "7C", "JC"], ThreeCardHand.FLUSH),
        (["5S", "5H", "6S"], None),  # a pair is never a straight
        (["5S", "5H", "5D"], None),
        (["2C", "4C", "9D"], None),
    ],
)
def test_first_three_is_three_card_poker(cards, hand):
    assert three_card_hand(*map(parse_card, cards)) == hand


# Refusals: (cards dealt before, offending card, error, message)
REFUSALS = {
    "the joker itself": ([], "ks", DuplicateCard, "KS is this round's joker"),
    "a card already dealt": (["2C", "3D", "7H", "9S"], "7h", DuplicateCard, "7H was already dealt (card 3)"),
    "a card after the match": (["2C", "3D", "4H", "5S", "6C", "7D", "KD"], "8C", DealFinished,
                               "the round is over: KD matched the joker on card 7"),
    "a duplicate after the match": (["KD"], "KD", DealFinished, "the round is over: KD matched the joker on card 1"),
}


@pytest.mark.parametrize("before, card, error, message", REFUSALS.values(), ids=REFUSALS)
def test_refused_cards_raise_and_leave_the_deal_unchanged(before, card, error, message):
    deal = play(TableConfig(), "KS", before)
    with pytest.raises(error) as caught:
        deal.deal(card)
    assert str(caught.value) == message
    assert caught.value.code == {DuplicateCard: "duplicate_card", DealFinished: "deal_finished"}[error]
    assert deal.cards == tuple(map(parse_card, before))


def test_the_longest_deal_is_49_cards_and_a_50th_is_refused():
    joker = parse_card("KS")
    others = [c for c in FULL_PACK if c.rank != joker.rank]
    deal = play(TableConfig(), joker, others + ["KH"])
    assert deal.outcome.cards_dealt == 49 and deal.outcome.winner is ANDAR
    with pytest.raises(DealFinished):
        deal.deal("KD")


def test_more_than_49_cards_is_refused_even_without_a_match():
    # Defensive: a real pack cannot get there (three cards match the joker among the other 51).
    with pytest.raises(DealFinished, match="49 cards were already dealt"):
        _check_next(parse_card("KS"), [parse_card("2C")] * 49, {}, parse_card("3C"))


def test_building_a_deal_from_stored_cards_checks_them_too():
    assert Deal(TableConfig(), "KS", ("AC", "QS")) == play(TableConfig(), "KS", ["AC", "QS"])
    with pytest.raises(DuplicateCard):
        Deal(TableConfig(), "KS", ("AC", "QS", "AC"))
    with pytest.raises(DealFinished):
        Deal(TableConfig(), "KS", ("KC", "QS"))


@given(st.permutations(FULL_PACK), st.sampled_from(FirstCard))
@FAST
def test_any_shuffle_deals_a_legal_round(pack, first_card):
    joker, rest = pack[0], pack[1:]
    deal = Deal.start(TableConfig(first_card=first_card), joker)
    expected_side = deal.first_side
    for card in rest:
        if deal.finished:
            break
        assert deal.next_side is expected_side
        deal = deal.deal(card)
        expected_side = expected_side.other
    outcome = deal.outcome
    assert outcome is not None and 1 <= outcome.cards_dealt <= 49
    position = next(i for i, card in enumerate(rest, 1) if card.rank == joker.rank)
    assert outcome.cards_dealt == position and outcome.match_card == rest[position - 1]
    assert outcome.winner is deal.side_of(position)
    assert all(card.rank != joker.rank for card in deal.cards[:-1])
    with pytest.raises(DealFinished):
        deal.deal(rest[position])  # the next card of the shuffle
    assert Deal(deal.config, joker, deal.cards) == deal  # replaying stored cards gives the same deal
