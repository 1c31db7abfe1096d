"""Table settings: defaults, validation naming the field, JSON round trip."""
import pickle
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import PAYTABLES, FirstCard, InvalidConfig, Mode, Paytable, Side, TableConfig

FAST = settings(max_examples=100, deadline=None, database=None)


def test_defaults_are_the_rulebooks():
    config = TableConfig()
    assert config.first_card is FirstCard.ANDAR
    assert config.mode is Mode.CLASSIC
    assert config.commission == Decimal("0.9")
    assert config.side_bets == frozenset({"first_andar", "first_bahar", "first_three", "card_count"})
    assert config.card_count_paytable is Paytable.LIVE
    assert config.chip_unit == Decimal("1")


def test_to_dict_is_json_safe():
    assert TableConfig().to_dict() == {
        "first_card": "andar",
        "mode": "classic",
        "commission": "0.9",
        "side_bets": ["card_count", "first_andar", "first_bahar", "first_three"],
        "card_count_paytable": "live",
        "chip_unit": "1",
    }


def test_from_dict_reads_stored_strings():
    config = TableConfig.from_dict(
        {"first_card": "joker_colour", "mode": "no_commission", "commission": "0.950", "side_bets": ["card_count"],
         "card_count_paytable": "play", "chip_unit": "0.01"}
    )
    assert config == TableConfig(FirstCard.JOKER_COLOUR, Mode.NO_COMMISSION, Decimal("0.95"),
                                 frozenset({"card_count"}), Paytable.PLAY, Decimal("0.01"))
    assert config.to_dict()["commission"] == "0.95"


def test_decimals_as_the_database_stores_them_are_read_in_their_shortest_form():
    config = TableConfig.from_dict({"commission": "0.900", "chip_unit": "1.00"})
    assert str(config.commission) == "0.9" and str(config.chip_unit) == "1"
    assert TableConfig.from_dict({"chip_unit": "10.00"}).to_dict()["chip_unit"] == "10"


def test_missing_keys_take_the_defaults():
    assert TableConfig.from_dict({}) == TableConfig()


@pytest.mark.parametrize(
    "data, field",
    [
        ({"first_card": "middle"}, "first_card"),
        ({"mode": "commission_free"}, "mode"),
        ({"card_count_paytable": "vegas"}, "card_count_paytable"),
        ({"commission": "0"}, "commission"),
        ({"commission": "-0.9"}, "commission"),
        ({"commission": "1.01"}, "commission"),
        ({"commission": "lots"}, "commission"),
        ({"commission": "NaN"}, "commission"),
        ({"commission": 0.9}, "commission"),  # floats are refused: exact decimals only
        ({"chip_unit": "0"}, "chip_unit"),
        ({"chip_unit": "-1"}, "chip_unit"),
        ({"chip_unit": "0.001"}, "chip_unit"),
        ({"chip_unit": "0.015"}, "chip_unit"),
        ({"chip_unit": "Infinity"}, "chip_unit"),
        ({"side_bets": ["first_four"]}, "side_bets"),
        ({"side_bets": "card_count"}, "side_bets"),
        ({"comission": "0.9"}, "comission"),  # a misspelt setting is not silently ignored
    ],
)
def test_bad_settings_are_refused_naming_the_field(data, field):
    with pytest.raises(InvalidConfig) as caught:
        TableConfig.from_dict(data)
    assert caught.value.field == field
    assert caught.value.code == "invalid_config"
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize("commission", ["0.85", "0.9", "0.95", "1", "0.001"])
def test_commissions_in_range_are_accepted(commission):
    assert TableConfig(commission=commission).commission == Decimal(commission)


@pytest.mark.parametrize("chip_unit", ["0.01", "0.05", "0.5", "1", "5", "25", 10])
def test_chip_units_in_hundredths_are_accepted(chip_unit):
    assert TableConfig(chip_unit=chip_unit).chip_unit == Decimal(chip_unit)


def test_sides_know_each_other():
    assert Side.ANDAR.other is Side.BAHAR and Side.BAHAR.other is Side.ANDAR
    assert Side.ANDAR == "andar" and str(Side.BAHAR) == "bahar"


@pytest.mark.parametrize("paytable", list(Paytable))
def test_each_paytable_covers_1_to_49_cards_without_gaps(paytable):
    boxes = PAYTABLES[paytable]
    assert boxes[0][0] == 1 and boxes[-1][1] == 49
    assert all(hi + 1 == next_lo for (_, hi, _), (next_lo, _, _) in zip(boxes, boxes[1:]))


def test_invalid_config_survives_pickling():
    with pytest.raises(InvalidConfig) as caught:
        TableConfig(mode="x")
    copy = pickle.loads(pickle.dumps(caught.value))
    assert (type(copy), copy.field, copy.code, str(copy)) == (InvalidConfig, "mode", "invalid_config", str(caught.value))


configs = st.builds(
    TableConfig,
    first_card=st.sampled_from(FirstCard),
    mode=st.sampled_from(Mode),
    commission=st.sampled_from(["0.85", "0.9", "0.95", "1"]).map(Decimal),
    side_bets=st.frozensets(st.sampled_from(["first_andar", "first_bahar", "first_three", "card_count"])),
    card_count_paytable=st.sampled_from(Paytable),
    chip_unit=st.sampled_from(["0.01", "0.10", "1", "5"]).map(Decimal),
)


@given(configs)
@FAST
def test_settings_round_trip_through_json_form(config):
    assert TableConfig.from_dict(config.to_dict()) == config
    assert hash(TableConfig.from_dict(config.to_dict())) == hash(config)
