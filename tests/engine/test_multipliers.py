"""Random multipliers in the engine: the setting refused with the field named, the draw reproduced
from its seed (by the engine and by the offline script, two implementations of the documented
algorithm), drawn as configured over many seeds, a multiplied win rounded once, and each spot's
exact return equal to a brute-force enumeration of the draw and the outcomes."""
from __future__ import annotations

import hashlib
import hmac
import importlib.util
import random
import re
from collections import Counter
from decimal import Decimal
from decimal import Decimal as D
from fractions import Fraction
from itertools import combinations, product
from pathlib import Path

import pytest

from audit import offline
from engine import InvalidConfig, TableConfig, bet_result, odds, percent4, possible_facts, spot_odds_for, worst_case
from engine import integrity as ig
from engine.config import SUPER_MULTIPLIERS
from engine.deal import Deal
from engine.cards import parse_card
from engine.multipliers import Multipliers, commitment, draw
from engine.odds import outcome_classes
from engine.spots import pays, round_winnings

COUNT_BOXES_2 = {"spots": ["count_1_5", "count_6_10"], "draws": 1, "values": [[2, 3], [4, 1]]}


def config(**multipliers) -> TableConfig:
    return TableConfig.from_dict({"multipliers": multipliers or COUNT_BOXES_2})


@pytest.mark.parametrize("value, says", [
    ("x2", "must be null or an object"),
    ({"spots": ["andar"], "draws": 1}, "exactly spots, draws and values"),
    ({"spots": ["andar"], "draws": 1, "values": [[2, 1]], "extra": 1}, "exactly spots, draws and values"),
    ({"spots": [], "draws": 1, "values": [[2, 1]]}, "non-empty list"),
    ({"spots": "andar", "draws": 1, "values": [[2, 1]]}, "non-empty list"),
    ({"spots": ["andar", "andar"], "draws": 1, "values": [[2, 1]]}, "at most once"),
    ({"spots": ["andar"], "draws": 2, "values": [[2, 1]]}, "draws must be from 1 to 1"),
    ({"spots": ["andar"], "draws": 0, "values": [[2, 1]]}, "draws must be from 1 to 1"),
    ({"spots": ["andar"], "draws": True, "values": [[2, 1]]}, "draws must be a whole number"),
    ({"spots": ["andar"], "draws": 1, "values": []}, "values must be a list"),
    ({"spots": ["andar"], "draws": 1, "values": [[1, 1]]}, "a multiplier must be from 2 to 1000"),
    ({"spots": ["andar"], "draws": 1, "values": [[1001, 1]]}, "a multiplier must be from 2 to 1000"),
    ({"spots": ["andar"], "draws": 1, "values": [[2.5, 1]]}, "a multiplier must be a whole number"),
    ({"spots": ["andar"], "draws": 1, "values": [[2, 0]]}, "a weight must be"),
    ({"spots": ["andar"], "draws": 1, "values": [[2, 1, 3]]}, "pair"),
    ({"spots": ["andar"], "draws": 1, "values": [[2, 1], [2, 3]]}, "each multiplier at most once"),
    ({"spots": ["count_1_7"], "draws": 1, "values": [[2, 1]]}, "count_1_7 not offered"),
])
def test_a_bad_setting_is_refused_naming_the_field(value, says):
    with pytest.raises(InvalidConfig) as refused:
        TableConfig.from_dict({"multipliers": value})
    assert refused.value.field == "multipliers"
    assert says in str(refused.value)


def test_only_spots_offered_at_the_table_can_be_multiplied():
    setting = {"spots": ["first_andar"], "draws": 1, "values": [[5, 1]]}
    assert TableConfig.from_dict({"multipliers": setting}).multipliers.spots == ("first_andar",)
    with pytest.raises(InvalidConfig, match="first_andar not offered"):  # no First Andar without commission
        TableConfig.from_dict({"mode": "no_commission", "multipliers": setting})


def test_the_setting_round_trips_and_a_table_without_it_reads_as_before():
    assert TableConfig.from_dict(config().to_dict()) == config()
    assert "multipliers" not in TableConfig().to_dict()
    assert TableConfig.from_dict({"multipliers": None}) == TableConfig()


def test_the_draw_is_the_seeds_and_the_offline_script_draws_the_same():
    setting = Multipliers.from_value({"spots": ["andar", "bahar", "count_1_5", "count_6_10", "count_11_15"], "draws": 3,
                                      "values": [[2, 60], [3, 30], [5, 9], [1000, 1]]})
    rng = random.Random(40)
    for _ in range(300):
        seed = rng.randbytes(32)
        drawn = draw(setting, seed)
        assert drawn == draw(setting, seed)
        assert len(drawn) == 3 and len({spot for spot, _ in drawn}) == 3
        assert {spot for spot, _ in drawn} <= set(setting.spots) and {m for _, m in drawn} <= {2, 3, 5, 1000}
        as_stored = [{"spot": spot, "multiplier": m} for spot, m in drawn]
        assert offline.script.draw_multipliers(setting.to_dict(), seed.hex()) == as_stored
    assert commitment(b"\x00" * 32) == hashlib.sha256(b"\x00" * 32).hexdigest()


def test_the_documented_algorithm_gives_this_known_answer():
    """A fixed vector: a change of the algorithm would make every published round unverifiable."""
    setting = Multipliers.from_value({"spots": ["count_1_5", "count_6_10", "count_11_15"], "draws": 2, "values": [[2, 3], [4, 1]]})
    seed = bytes(range(32))
    numbers = []
    for k in range(2):  # the first two blocks of the documented stream, computed here from the standard library
        block = hmac.new(seed, k.to_bytes(8, "big"), hashlib.sha256).digest()
        numbers += [int.from_bytes(block[i:i + 8], "big") for i in range(0, 32, 8)]
    # None of these four numbers is refused (each is below 2**64 - 2**64 % n): the choices are plain remainders.
    pool = ["count_1_5", "count_6_10", "count_11_15"]
    j = 0 + numbers[0] % 3
    pool[0], pool[j] = pool[j], pool[0]
    j = 1 + numbers[1] % 2
    pool[1], pool[j] = pool[j], pool[1]
    by_weight = lambda r: 2 if r < 3 else 4  # noqa: E731
    assert draw(setting, seed) == ((pool[0], by_weight(numbers[2] % 4)), (pool[1], by_weight(numbers[3] % 4)))


def test_over_many_rounds_spots_and_multipliers_come_as_configured():
    """20,000 seeded draws: each spot drawn 3/5 of the time and each value by its weight, within 5
    standard deviations (a false alarm about once in 3.5 million runs, and the seeds are fixed)."""
    setting = Multipliers.from_value({"spots": ["andar", "bahar", "count_1_5", "count_6_10", "count_11_15"], "draws": 3,
                                      "values": [[2, 6], [3, 3], [5, 1]]})
    rng, n = random.Random(2026), 20_000
    spots, values = Counter(), Counter()
    for _ in range(n):
        for spot, m in draw(setting, rng.randbytes(32)):
            spots[spot] += 1
            values[m] += 1
    for spot in setting.spots:
        p = 3 / 5
        assert abs(spots[spot] - n * p) < 5 * (n * p * (1 - p)) ** 0.5, spot
    for m, w in setting.values:
        p, drawn = w / 10, 3 * n
        assert abs(values[m] - drawn * p) < 5 * (drawn * p * (1 - p)) ** 0.5, m


def test_a_multiplied_win_is_its_winnings_times_the_multiplier_rounded_down_once():
    cfg = TableConfig.from_dict({"card_count_paytable": "play", "multipliers": {"spots": ["count_6_10"], "draws": 1, "values": [[7, 1]]}})
    deal = Deal.start(cfg, parse_card("KS"))
    for card in ["AC", "QS", "8D", "7C", "JH", "2H", "KD"]:  # RULES.md example 2's cards: 7 dealt
        deal = deal.deal(parse_card(card))
    multiplied = {"count_6_10": 7}
    result = bet_result(cfg, "count_6_10", D("25"), deal.outcome, multiplied)
    assert (result.odds, result.winnings, result.payout) == (D("24.5"), D("612"), D("637"))  # 25 x 3.5 x 7 = 612.5, not 87 x 7
    assert bet_result(cfg, "count_6_10", D("25"), deal.outcome).winnings == D("87")  # the round without its draw
    assert bet_result(cfg, "count_1_5", D("25"), deal.outcome, multiplied).payout == 0  # a losing multiplied spot loses
    assert spot_odds_for(cfg, deal.outcome, multiplied)["andar"] == D("0.9")  # a spot not drawn pays as usual


def test_rules_md_worked_return_of_a_multiplied_card_count_box():
    spot = {o.spot: o for o in odds(config())}["count_1_5"]
    assert spot.rtp_percent == "121.9808"
    assert round(float(spot.probability), 6) == 0.271068
    assert spot.rtp_without_multipliers == spot.probability * 3  # 2:1
    assert spot.rtp == spot.probability * (1 + 2 * (1 + Fraction(1, 2) * (Fraction(5, 2) - 1)))
    assert {o.spot: o for o in odds(config())}["count_11_15"].rtp_without_multipliers is None


@pytest.mark.parametrize("setting", [
    COUNT_BOXES_2,
    {"spots": ["andar", "bahar", "count_1_5"], "draws": 2, "values": [[2, 5], [3, 2], [10, 1]]},
    {"spots": ["first_andar", "first_three", "count_46_49", "bahar"], "draws": 1, "values": [[50, 1], [2, 99]]},
])
def test_each_spots_exact_return_equals_a_brute_force_enumeration(setting):
    """Every equally likely set of drawn spots, every assignment of values with its probability,
    every outcome class with its own: the expected return of each spot, exactly."""
    cfg = config(**setting)
    m = cfg.multipliers
    subsets = list(combinations(m.spots, m.draws))
    total = m.total_weight
    draws = []  # (probability, {spot: multiplier})
    for subset in subsets:
        for assignment in product(m.values, repeat=len(subset)):
            p = Fraction(1, len(subsets))
            for _, weight in assignment:
                p *= Fraction(weight, total)
            draws.append((p, {spot: mult for spot, (mult, _) in zip(subset, assignment)}))
    classes = outcome_classes(cfg)
    for spot_odds in odds(cfg):
        spot = spot_odds.spot
        expected = Fraction(0)
        for p_outcome, facts in classes:
            won = pays(cfg, spot, facts)
            if won is None:
                continue
            for p_draw, multiplied in draws:
                expected += p_outcome * p_draw * (1 + Fraction(won) * multiplied.get(spot, 1))
        assert spot_odds.rtp == expected, spot



def test_the_exposure_counts_the_drawn_multipliers_and_before_the_draw_the_worst_one():
    cfg = config(spots=["andar", "bahar", "count_1_5"], draws=2, values=[[2, 3], [9, 1]])
    bets = [("andar", D("10"), 3), ("bahar", D("20"), 1), ("count_1_5", D("15"), 2)]
    deal = Deal.start(cfg, parse_card("KS"))
    facts = possible_facts(deal)
    # Before the draw: the worst of every draw the setting allows, outcome by outcome, by brute force.
    worst = Decimal(0)
    for f in facts:
        for subset in combinations(cfg.multipliers.spots, cfg.multipliers.draws):
            for values in product([m for m, _ in cfg.multipliers.values], repeat=len(subset)):
                multiplied = dict(zip(subset, values))
                paid = sum((n * (stake + round_winnings(stake, pays(cfg, spot, f) * multiplied.get(spot, 1), cfg.chip_unit))
                            for spot, stake, n in bets if pays(cfg, spot, f) is not None), Decimal(0))
                worst = max(worst, paid)
    assert worst_case(cfg, bets, facts).worst_payout == worst
    # Once drawn: the round's own multipliers, as settlement pays them.
    for card in ["2C", "KD"]:
        deal = deal.deal(parse_card(card))
    drawn = {"bahar": 9, "count_1_5": 2}
    exposure = worst_case(cfg, bets, possible_facts(deal), drawn)
    assert exposure.worst_payout == sum((n * bet_result(cfg, spot, stake, deal.outcome, drawn).payout for spot, stake, n in bets), Decimal(0))
    assert exposure.worst_payout == 20 + 20 * 9 + 2 * (15 + 15 * 2 * 2)  # Bahar wins on card 2 (x9), two cards in 1-5 (x2)


def test_the_rulebooks_super_preset_table_is_the_engines():
    """docs/RULES.md's table of the Super preset, row by row, against the exact returns."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "RULES.md").read_text()
    rows = re.findall(r"^\| (\d+)-(\d+) \| [\d.]+:1 \| ([\d.]+)% \| ([\d.]+)% \|$", text, flags=re.M)
    by_spot = {o.spot: o for o in odds(TableConfig.from_dict({"multipliers": SUPER_MULTIPLIERS}))}
    assert [f"count_{lo}_{hi}" for lo, hi, _, _ in rows] == SUPER_MULTIPLIERS["spots"]
    for lo, hi, without, with_ in rows:
        spot = by_spot[f"count_{lo}_{hi}"]
        assert (percent4(spot.rtp_without_multipliers), spot.rtp_percent) == (without, with_)
        assert spot.rtp < 1


ARL = importlib.util.spec_from_file_location("integrity_arl", Path(__file__).resolve().parents[2] / "scripts" / "integrity_arl.py")
integrity_arl = importlib.util.module_from_spec(ARL)
ARL.loader.exec_module(integrity_arl)


@pytest.mark.parametrize("setting", [SUPER_MULTIPLIERS, COUNT_BOXES_2, {"spots": ["andar", "bahar", "count_1_5"], "draws": 2,
                                                                         "values": [[2, 5], [3, 2], [10, 1]]}])
def test_each_draw_check_alerts_falsely_under_once_in_ten_table_years(setting):
    """Exact average run lengths (Markov chain) of a fair draw, against the stated rate: all of a
    check's categories together at most once in DRAW_FALSE_ALARM_ROUNDS rounds."""
    m = Multipliers.from_value(setting)
    rows = integrity_arl.draw_arls(m)
    assert {check.name for check, *_ in rows} == {"multiplier_spot", "multiplier_top"}
    for check, categories, arl_fair, arl_fault in rows:
        assert arl_fair / categories >= ig.DRAW_FALSE_ALARM_ROUNDS, check.name
        assert arl_fault < 5000, check.name  # and the fault it is tuned to is flagged within hours at a busy table


def test_a_fair_draw_stays_quiet_and_a_rigged_one_is_flagged():
    m = Multipliers.from_value(SUPER_MULTIPLIERS)
    checks = ig.draw_checks(m)
    rng, state = random.Random(7), ig.with_draws(ig.initial_state(), m)
    for _ in range(5000):
        state = ig.observe_draw(state, m, draw(m, rng.randbytes(32)))
    assert state["draw_rounds"] == 5000
    assert all(result.status != ig.ALERT for result in ig.evaluate(state, checks))
    rigged = ig.with_draws(ig.initial_state(), m)
    for n in range(1, 2001):  # the 46-49 box and x10 every round
        rigged = ig.observe_draw(rigged, m, [("count_46_49", 10)])
        if all(result.status == ig.ALERT for result in ig.evaluate(rigged, checks)):
            break
    assert n < 2000
    assert ig.with_draws(rigged, m) == rigged  # the same setting keeps its scores
    other = Multipliers.from_value({**SUPER_MULTIPLIERS, "draws": 2})
    assert ig.with_draws(rigged, other)["draw_rounds"] == 0  # a changed setting starts afresh
    assert ig.draw_checks(Multipliers.from_value({"spots": ["andar"], "draws": 1, "values": [[2, 1]]})) == ()  # nothing random
