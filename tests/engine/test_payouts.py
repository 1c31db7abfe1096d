"""Spots on offer, what they pay, and the settlement of one bet (RULES.md's worked examples)."""
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    FULL_PACK,
    BetResult,
    Deal,
    EngineError,
    FirstCard,
    Mode,
    Paytable,
    Spot,
    TableConfig,
    bet_result,
    offered_spots,
    payout_table,
    spot_odds_for,
    winning_spots,
)

FAST = settings(max_examples=150, deadline=None, database=None)
D = Decimal
LIVE_BOXES = ["count_1_5", "count_6_10", "count_11_15", "count_16_20", "count_21_25", "count_26_30",
              "count_31_35", "count_36_40", "count_41_45", "count_46_49"]
PLAY_BOXES = ["count_1_5", "count_6_10", "count_11_15", "count_16_25", "count_26_30", "count_31_35",
              "count_36_40", "count_41_49"]

EXAMPLE_1 = ("KS", ["KC"])  # match on the very first card, to Andar
EXAMPLE_2 = ("KS", ["AC", "QS", "8D", "7C", "JH", "2H", "KD"])  # 7 cards, Andar wins, First 3 straight


def outcome_of(config, deal):
    joker, cards = deal
    result = Deal.start(config, joker)
    for card in cards:
        result = result.deal(card)
    return result.outcome


# (settings, deal, spot, stake, won, winnings, payout)
WORKED_BETS = {
    "ex1 no_commission: 10 on Andar wins 2.50": (
        {"mode": "no_commission", "chip_unit": "0.01"}, EXAMPLE_1, "andar", "10", True, "2.50", "12.50"),
    "ex1 classic: 50 on Andar wins 45": ({}, EXAMPLE_1, "andar", "50", True, "45", "95"),
    "ex1 First Andar: 20 wins 300": ({}, EXAMPLE_1, "first_andar", "20", True, "300", "320"),
    "ex1 Bahar loses": ({}, EXAMPLE_1, "bahar", "20", False, "0", "0"),
    "ex1 First Bahar loses (Bahar got no card)": ({}, EXAMPLE_1, "first_bahar", "20", False, "0", "0"),
    "ex1 First 3 loses (a side got no card)": ({}, EXAMPLE_1, "first_three", "20", False, "0", "0"),
    "ex1 card count 1-5 wins 2:1": ({}, EXAMPLE_1, "count_1_5", "10", True, "20", "30"),
    "ex2 First 3 straight: 10 wins 80": ({}, EXAMPLE_2, "first_three", "10", True, "80", "90"),
    "ex2 card count 6-10 (live): 5 wins 15": ({}, EXAMPLE_2, "count_6_10", "5", True, "15", "20"),
    "ex2 card count 1-5 loses": ({}, EXAMPLE_2, "count_1_5", "5", False, "0", "0"),
    "ex2 First Andar loses (A♣ did not match)": ({}, EXAMPLE_2, "first_andar", "5", False, "0", "0"),
    "ex3 play chips: 50 on Andar wins 45": (
        {"chip_unit": "1", "card_count_paytable": "play"}, EXAMPLE_2, "andar", "50", True, "45", "95"),
    "ex3 play chips: 25 on 6-10 wins 87 (87.5 rounded down)": (
        {"chip_unit": "1", "card_count_paytable": "play"}, EXAMPLE_2, "count_6_10", "25", True, "87", "112"),
    "ex3 play chips: 25 on a winning Andar comes back as 47": (
        {"chip_unit": "1", "card_count_paytable": "play"}, EXAMPLE_2, "andar", "25", True, "22", "47"),
    "cash table: 25 on a winning Andar wins 22.50": (
        {"chip_unit": "0.01"}, EXAMPLE_2, "andar", "25", True, "22.50", "47.50"),
    "no_commission: Andar after card 1 pays 1:1": ({"mode": "no_commission"}, EXAMPLE_2, "andar", "10", True, "10", "20"),
    "first_card bahar: Andar is the other side, 1:1": ({"first_card": "bahar"}, EXAMPLE_1, "andar", "10", False, "0", "0"),
    "first_card bahar: Bahar first wins on card 1 at commission": (
        {"first_card": "bahar", "commission": "0.95", "chip_unit": "0.01"}, EXAMPLE_1, "bahar", "10", True, "9.50", "19.50"),
    "first_card bahar: First Bahar on card 1 pays 15.5": (
        {"first_card": "bahar", "chip_unit": "0.01"}, EXAMPLE_1, "first_bahar", "3", True, "46.50", "49.50"),
    "first_card bahar: First Bahar rounds down to the chip": (
        {"first_card": "bahar"}, EXAMPLE_1, "first_bahar", "3", True, "46", "49"),
}


@pytest.mark.parametrize("settings_, deal, spot, stake, won, winnings, payout", WORKED_BETS.values(), ids=WORKED_BETS)
def test_worked_bets_from_the_rulebook(settings_, deal, spot, stake, won, winnings, payout):
    config = TableConfig.from_dict(settings_)
    result = bet_result(config, spot, D(stake), outcome_of(config, deal))
    assert result.won is won
    assert (result.winnings, result.payout) == (D(winnings), D(payout))
    odds = spot_odds_for(config, outcome_of(config, deal))[spot]
    assert (odds is not None) is won


def test_example_3_play_chips_come_out_132_up():
    config = TableConfig(chip_unit=D(1), card_count_paytable=Paytable.PLAY)
    outcome = outcome_of(config, EXAMPLE_2)
    bets = [bet_result(config, "andar", D(50), outcome), bet_result(config, "count_6_10", D(25), outcome)]
    assert sum(b.winnings for b in bets) == 132
    assert bets[1] == BetResult(won=True, odds=D("3.5"), winnings=D(87), payout=D(112))


def test_spots_are_offered_in_display_order():
    assert offered_spots(TableConfig()) == ["andar", "bahar", "first_andar", "first_bahar", "first_three", *LIVE_BOXES]
    assert offered_spots(TableConfig(card_count_paytable="play")) == [
        "andar", "bahar", "first_andar", "first_bahar", "first_three", *PLAY_BOXES]


@pytest.mark.parametrize(
    "settings_, spots",
    [
        ({"mode": "no_commission"}, ["andar", "bahar", *LIVE_BOXES]),
        ({"mode": "no_commission", "side_bets": ["first_andar", "first_three"]}, ["andar", "bahar"]),
        ({"side_bets": []}, ["andar", "bahar"]),
        ({"side_bets": ["first_three", "first_bahar"]}, ["andar", "bahar", "first_bahar", "first_three"]),
        ({"side_bets": ["card_count"], "card_count_paytable": "play"}, ["andar", "bahar", *PLAY_BOXES]),
    ],
)
def test_offered_spots_follow_mode_and_side_bets(settings_, spots):
    assert offered_spots(TableConfig.from_dict(settings_)) == spots


@pytest.mark.parametrize(
    "settings_, spot",
    [({"mode": "no_commission"}, "first_andar"), ({"side_bets": ["card_count"]}, "first_three"),
     ({}, "count_16_25"), ({"card_count_paytable": "play"}, "count_16_20"), ({}, "tie"), ({}, "ANDAR"), ({}, 7),
     ({"mode": "no_commission"}, Spot.FIRST_THREE)],
)
def test_a_spot_the_table_does_not_offer_is_refused(settings_, spot):
    config = TableConfig.from_dict(settings_)
    with pytest.raises(EngineError) as caught:
        bet_result(config, spot, D(10), outcome_of(config, EXAMPLE_2))
    assert caught.value.code == "spot_not_offered"
    assert repr(str(spot) if isinstance(spot, str) else spot) in str(caught.value)


@pytest.mark.parametrize("stake", [D(-1), D("NaN"), 1.5, "ten", True])
def test_bad_stakes_are_refused(stake):
    config = TableConfig()
    with pytest.raises(EngineError) as caught:
        bet_result(config, "andar", stake, outcome_of(config, EXAMPLE_2))
    assert caught.value.code == "invalid_stake"


def test_spot_enum_members_and_plain_strings_are_the_same_spot():
    config = TableConfig()
    outcome = outcome_of(config, EXAMPLE_1)
    assert bet_result(config, Spot.FIRST_ANDAR, D(20), outcome) == bet_result(config, "first_andar", D(20), outcome)


PAYOUT_TABLES = {
    "classic, Andar first": ({}, {"andar": "0.9:1", "bahar": "1:1", "first_andar": "15:1", "first_bahar": "15.5:1",
                                  "first_three": "120:1 / 8:1 / 5:1", "count_1_5": "2:1", "count_46_49": "800:1"}),
    "classic, Bahar first, 0.95": ({"first_card": "bahar", "commission": "0.95"}, {"andar": "1:1", "bahar": "0.95:1"}),
    "classic, joker colour": ({"first_card": "joker_colour"},
                              {"andar": "0.9:1 if first, else 1:1", "bahar": "0.9:1 if first, else 1:1"}),
    "no commission, Andar first": ({"mode": "no_commission"},
                                   {"andar": "1:1 (0.25:1 on the first card)", "bahar": "1:1", "count_6_10": "3:1"}),
    "no commission, Bahar first": ({"mode": "no_commission", "first_card": "bahar"},
                                   {"andar": "1:1", "bahar": "1:1 (0.25:1 on the first card)"}),
    "play paytable": ({"card_count_paytable": "play"}, {"count_1_5": "2.5:1", "count_16_25": "3.5:1",
                                                        "count_41_49": "119:1"}),
}


@pytest.mark.parametrize("settings_, expected", PAYOUT_TABLES.values(), ids=PAYOUT_TABLES)
def test_payout_table_says_what_each_spot_pays(settings_, expected):
    config = TableConfig.from_dict(settings_)
    table = payout_table(config)
    assert list(table) == offered_spots(config)
    assert {spot: table[spot] for spot in expected} == expected


configs = st.builds(
    TableConfig,
    first_card=st.sampled_from(FirstCard),
    mode=st.sampled_from(Mode),
    commission=st.sampled_from(["0.85", "0.9", "0.95", "1"]).map(D),
    card_count_paytable=st.sampled_from(Paytable),
    chip_unit=st.sampled_from(["0.01", "0.05", "1", "5"]).map(D),
)
stakes = st.integers(min_value=1, max_value=100_000).map(lambda cents: D(cents) / 100)


@given(configs, st.permutations(FULL_PACK), stakes)
@FAST
def test_bet_results_agree_with_the_odds_table_for_settlement(config, pack, stake):
    deal = Deal.start(config, pack[0])
    for card in pack[1:]:
        if deal.finished:
            break
        deal = deal.deal(card)
    outcome = deal.outcome
    table = spot_odds_for(config, outcome)
    assert list(table) == offered_spots(config)
    assert sum(table[s] is not None for s in ("andar", "bahar")) == 1
    assert table[str(outcome.winner)] is not None
    assert sum(table[s] is not None for s in table if s.startswith("count_")) == 1
    for spot, odds in table.items():
        result = bet_result(config, spot, stake, outcome)
        assert result.won is (odds is not None)
        if odds is None:
            assert result == BetResult(False, D(0), D(0), D(0))
        else:
            # what the settlement SQL computes: stake + floor(stake * odds / chip_unit) * chip_unit
            units = (stake * odds / config.chip_unit).to_integral_value(rounding="ROUND_FLOOR")
            assert result.winnings == units * config.chip_unit <= stake * odds
            assert result.payout == stake + result.winnings
            assert result.odds == odds


def test_winning_spots_are_the_offered_spots_that_pay():
    config = TableConfig()
    assert winning_spots(config, outcome_of(config, EXAMPLE_2)) == ["andar", "first_three", "count_6_10"]
    assert winning_spots(config, outcome_of(config, EXAMPLE_1)) == ["andar", "first_andar", "count_1_5"]
    no_side_bets = TableConfig(side_bets=frozenset())
    assert winning_spots(no_side_bets, outcome_of(no_side_bets, EXAMPLE_2)) == ["andar"]


@FAST
@given(st.permutations(FULL_PACK))
def test_winning_spots_agree_with_every_bets_result(pack):
    config = TableConfig()
    deal = Deal.start(config, pack[0])
    for card in pack[1:]:
        deal = deal.deal(card)
        if deal.outcome is not None:
            break
    won = winning_spots(config, deal.outcome)
    assert won == [spot for spot in offered_spots(config) if bet_result(config, spot, D(10), deal.outcome).won]
