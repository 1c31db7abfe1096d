"""The integrity statistics: RULES.md's exact figures, the checks' updates, and a seeded fair run
that stays quiet while injected faults alert."""
import random
from fractions import Fraction

import pytest

from engine import FULL_PACK, Deal, FirstCard, TableConfig
from engine import integrity as ig

F = Fraction
CONFIGS = [TableConfig(first_card=f) for f in FirstCard]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.first_card.value)
def test_the_distributions_are_rules_md_figures_for_every_first_side(config):
    assert ig.first_side_win_probability(config) == F(429, 833)
    assert ig.first_card_match_probability(config) == F(1, 17)
    dist = ig.cards_dealt_distribution(config)
    assert sum(dist.values()) == 1 and max(dist) == 49
    assert sum(n * p for n, p in dist.items()) == 13  # "the average deal is 13 cards"
    assert ig.cards_dealt_between(1, 5, config) > F(1, 4)  # "more than a quarter end within five cards"
    assert ig.cards_dealt_between(1, 11, config) >= F(1, 2) > ig.cards_dealt_between(1, 10, config)  # half within eleven
    assert round(1 / ig.cards_dealt_between(41, 49, config)) == 126  # "about once in 126 deals"
    assert ig.joker_rank_probability(config) == F(1, 13) and ig.joker_suit_probability(config) == F(1, 4)


def test_a_card_shows_in_seven_rounds_of_twenty_six_as_enumeration_says():
    seen = F(0)
    # Joker rank fixed by symmetry: a card of another rank is seen iff it precedes all three matches.
    seen = F(1, 52) + F(3, 52) * F(1, 3) + F(48, 52) * ig.first_match_distribution(4, 1)[1]
    assert seen == ig.card_seen_probability() == F(7, 26)


def test_first_match_distribution_is_a_distribution():
    for remaining, matching in ((51, 3), (50, 2), (50, 3)):
        assert sum(ig.first_match_distribution(remaining, matching).values()) == 1


def test_facts_of_the_teaching_example():
    deal = Deal.start(TableConfig(first_card="joker_colour"), "QH")
    for card in ("4C", "7D", "QS"):
        deal = deal.deal(card)
    facts = ig.RoundFacts.of(deal)
    assert facts.first_side_won and facts.cards_dealt == 3 and [str(c) for c in facts.seen] == ["QH", "4C", "7D", "QS"]


def test_a_bernoulli_score_adds_integer_log_likelihood_ratios_and_never_goes_below_zero():
    up, down = ig.CHECKS["first_side_high"].steps()
    assert (up, down) == (round(100 * 0.15277), round(100 * -0.19268))
    state = ig.initial_state()
    winning = ig.RoundFacts(first_side_won=True, cards_dealt=1, joker=FULL_PACK[0], seen=FULL_PACK[:2])
    losing = ig.RoundFacts(first_side_won=False, cards_dealt=2, joker=FULL_PACK[0], seen=FULL_PACK[:3])
    state = ig.observe_results(state, winning)
    assert state["first_side_high"] == up and state["rounds"] == 1
    state = ig.observe_results(state, losing)
    assert state["first_side_high"] == 0  # 15 - 19 floored at 0
    assert ig.statistic(state, ig.CHECKS["card_absent"]) == 2  # cards never seen since the start
    assert ig.reset(state, "card_absent")["card_absent"] == [2] * 52


def test_status_turns_watch_at_half_the_threshold_and_alert_at_it():
    check = ig.CHECKS["first_side_high"]
    assert check.status(check.watch - 1) == ig.OK
    assert check.status(check.watch) == ig.WATCH
    assert check.status(check.threshold) == ig.ALERT


def _round(rng, pack, *, first_always=False):
    cards = pack[:]
    rng.shuffle(cards)
    deal = Deal.start(TableConfig(), cards[0])
    if first_always:
        return deal.deal(next(c for c in FULL_PACK if c.rank == deal.joker.rank and c != deal.joker))
    for card in cards[1:]:
        deal = deal.deal(card)
        if deal.finished:
            return deal


def _first_alert(rng, rounds, **kwargs):
    state = ig.initial_state()
    pack = kwargs.pop("pack", list(FULL_PACK))
    for n in range(1, rounds + 1):
        state = ig.observe_results(state, ig.RoundFacts.of(_round(rng, pack, **kwargs)))
        alerts = [r.check for r in ig.evaluate(state) if r.status == ig.ALERT]
        if alerts:
            return n, alerts
    return None, []


def test_a_fair_run_stays_quiet_while_injected_faults_alert():
    rng = random.Random(15)
    assert _first_alert(rng, 3000) == (None, [])
    n, alerts = _first_alert(rng, 300, first_always=True)
    assert n is not None and n < 40 and "first_card_match" in alerts
    n, alerts = _first_alert(rng, 300, pack=list(FULL_PACK[1:]))
    assert alerts == ["card_absent"] and n == ig.CHECKS["card_absent"].threshold


def test_operational_checks_wait_for_the_studio_baseline_then_flag_a_correcting_dealer():
    baseline = ig.Baseline()
    state = ig.initial_state()
    assert ig.observe_operations(state, baseline, corrected=True, voided=False, seconds_per_card=2.0) == state
    for i in range(1000):
        baseline = ig.baseline_after(baseline, corrected=i % 100 == 0, voided=False, seconds_per_card=2.0 + (i % 7) / 10)
    assert baseline.ready and baseline.rate(baseline.corrections) == 0.01
    rounds = 0
    while ig.statistic(state, ig.CHECKS["corrections"]) < ig.CHECKS["corrections"].threshold:
        state = ig.observe_operations(state, baseline, corrected=rounds % 5 == 0, voided=False, seconds_per_card=9.0)
        rounds += 1
    assert rounds < 200
    assert ig.statistic(state, ig.CHECKS["slow_cards"]) >= ig.CHECKS["slow_cards"].threshold  # every round slow
