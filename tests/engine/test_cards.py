"""Cards: the canonical text form and what the console or a scanner may send."""
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import FULL_PACK, Card, EngineError, InvalidCard, Rank, Suit, parse_card

FAST = settings(max_examples=200, deadline=None, database=None)


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("KS", "KS"),
        ("ks", "KS"),
        ("10H", "10H"),
        ("10h", "10H"),
        ("TH", "10H"),
        ("th", "10H"),
        ("Q♥", "QH"),
        ("q♥", "QH"),
        ("Q♥\ufe0f", "QH"),  # emoji presentation of the suit
        ("10♦", "10D"),
        ("T♦", "10D"),
        ("A♠", "AS"),
        ("a♠", "AS"),
        ("7♣", "7C"),
        ("2♧", "2C"),
        ("J♡", "JH"),
        ("AC", "AC"),
        ("7D", "7D"),
        ("  9c\n", "9C"),
        ("\tJd ", "JD"),
    ],
)
def test_valid_card_codes_parse_to_the_canonical_form(text, canonical):
    assert str(parse_card(text)) == canonical


@pytest.mark.parametrize(
    "text",
    ["", "   ", "1X", "1S", "01S", "11S", "1H", "0H", "KX", "K", "S", "SK", "10", "10 H", "K S", "KSS",
     "KS KS", "JOKER", "♥Q", "Q♥♥", "100H", "ÅS", "１S"],
)
def test_unreadable_card_codes_are_refused_naming_the_input(text):
    with pytest.raises(InvalidCard) as caught:
        parse_card(text)
    assert repr(text) in str(caught.value)
    assert "like KS, 10H or Q♥" in str(caught.value)
    assert caught.value.code == "invalid_card"
    assert isinstance(caught.value, EngineError) and isinstance(caught.value, ValueError)


@pytest.mark.parametrize("value", [None, 13, b"KS", ("K", "S")])
def test_non_text_is_not_a_card(value):
    with pytest.raises(InvalidCard, match="is not a card"):
        parse_card(value)


def test_the_invalid_card_message_reads_like_the_rulebook():
    with pytest.raises(InvalidCard) as caught:
        parse_card("1X")
    assert str(caught.value) == "'1X' is not a card: use rank then suit, like KS, 10H or Q♥"
    assert caught.value.text == "1X"


def test_a_card_is_returned_as_is():
    card = Card(Rank.Q, Suit.H)
    assert parse_card(card) is card


def test_the_full_pack_has_52_distinct_cards():
    assert len(FULL_PACK) == 52 == len(set(FULL_PACK)) == len({str(c) for c in FULL_PACK})


@pytest.mark.parametrize(
    "card, code, red",
    [(Card(Rank.TEN, Suit.H), "10H", True), (Card(Rank.Q, Suit.S), "QS", False),
     (Card(Rank.A, Suit.C), "AC", False), (Card(Rank.SEVEN, Suit.D), "7D", True)],
)
def test_canonical_text_and_colour(card, code, red):
    assert str(card) == card.code == code
    assert card.is_red is red
    assert card == parse_card(code)


def test_ranks_run_from_ace_1_to_king_13():
    assert [int(r) for r in Rank] == list(range(1, 14))
    assert [r.symbol for r in Rank] == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def test_cards_can_be_built_from_plain_values_and_compare_equal():
    assert Card(12, "H") == Card(Rank.Q, Suit.H)
    with pytest.raises(InvalidCard):
        Card(14, "H")


@given(st.sampled_from(FULL_PACK))
@FAST
def test_every_canonical_code_round_trips(card):
    assert parse_card(str(card)) == card
    assert parse_card(str(card).lower()) == card
    assert parse_card(f" {card.pretty} ") == card
    assert pickle.loads(pickle.dumps(card)) == card


@given(st.text(alphabet=st.sampled_from(list("AKQJT0123456789SHDCXshdc♠♥♦♣ \t")), max_size=5))
@FAST
def test_any_text_either_parses_to_a_canonical_card_or_is_refused(text):
    try:
        card = parse_card(text)
    except InvalidCard as exc:
        assert repr(text) in str(exc)
    else:
        assert str(card) in {str(c) for c in FULL_PACK}
        assert parse_card(str(card)) == card
