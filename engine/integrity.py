"""Integrity statistics: the exact per-round distributions a fair pack gives, and the sequential
tests the integrity monitor runs on them (docs/INTEGRITY.md), in plain Python.

Every distribution here is the same for every table setting: the first side (Andar, Bahar or by
the joker's colour) only names which side is "first", the mode and paytables change payouts, not
the deal. So a dealer who works several tables is tested against one distribution. The functions
take the table's config all the same, so a setting that ever changes the deal has one place to go.

The tests are Bernoulli CUSUMs (Page 1954) on integer scores: each round adds
round(100 * log-likelihood ratio of p1 against p0) for what it showed, the score never goes below 0,
and the check alerts when it reaches its threshold. State is one integer per check; an update is a
few additions, never a rescan. Integer scores make the test a finite Markov chain, so its average
run lengths are exact (scripts/integrity_arl.py). "Card absent" counts, per card, the rounds since
it was last seen (the joker or a dealt card): a CUSUM of a card that is never seen (p1 = 0).
"""
from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb, log

from .cards import FULL_PACK, Card, Rank, Suit
from .config import TableConfig
from .deal import MAX_CARDS, Deal
from .multipliers import Multipliers

SCALE = 100  # scores are hundredths of a natural log-likelihood ratio

OK, WATCH, ALERT = "ok", "watch", "alert"
CARD_INDEX = {card: i for i, card in enumerate(FULL_PACK)}
RANKS = tuple(Rank)
SUITS = tuple(Suit)


# --- exact distributions ---------------------------------------------------------------------

def first_match_distribution(remaining: int, matching: int) -> dict[int, Fraction]:
    """P(the first of `matching` cards among `remaining` shuffled ones is the n-th), n = 1.."""
    last = remaining - matching + 1
    return {n: Fraction(comb(remaining - n, matching - 1), comb(remaining, matching)) for n in range(1, last + 1)}


def cards_dealt_distribution(config: TableConfig | None = None) -> dict[int, Fraction]:
    """P(a round deals n cards), n = 1..49: the joker leaves 51 cards, 3 of its rank."""
    return first_match_distribution(51, 3)


def first_side_win_probability(config: TableConfig | None = None) -> Fraction:
    """The side that gets the first card wins when the match is an odd card: 429/833."""
    return sum((p for n, p in cards_dealt_distribution(config).items() if n % 2), Fraction(0))


def first_card_match_probability(config: TableConfig | None = None) -> Fraction:
    """The very first card dealt matches the joker: 3/51 = 1/17."""
    return cards_dealt_distribution(config)[1]


def cards_dealt_between(lo: int, hi: int, config: TableConfig | None = None) -> Fraction:
    return sum((p for n, p in cards_dealt_distribution(config).items() if lo <= n <= hi), Fraction(0))


def joker_rank_probability(config: TableConfig | None = None) -> Fraction:
    return Fraction(1, 13)


def joker_suit_probability(config: TableConfig | None = None) -> Fraction:
    return Fraction(1, 4)


def card_seen_probability(config: TableConfig | None = None) -> Fraction:
    """A given card shows in a round (as the joker or dealt): 7/26. It is the joker 1/52; of the
    joker's rank (3/52) it is seen when it is the first of the three, 1/3; of another rank (48/52)
    when it comes before all three, 1/4."""
    return Fraction(1, 52) + Fraction(3, 52) * Fraction(1, 3) + Fraction(48, 52) * Fraction(1, 4)


# --- what a round shows ----------------------------------------------------------------------

@dataclass(frozen=True)
class RoundFacts:
    """What the monitor reads from a finished round."""

    first_side_won: bool
    cards_dealt: int
    joker: Card
    seen: tuple[Card, ...]  # the joker and every dealt card

    @classmethod
    def of(cls, deal: Deal) -> RoundFacts:
        outcome = deal.outcome
        if outcome is None:
            raise ValueError("the deal has not found its match")
        return cls(first_side_won=outcome.winner is outcome.first_side, cards_dealt=outcome.cards_dealt,
                   joker=deal.joker, seen=(deal.joker, *deal.cards))


# --- the checks ------------------------------------------------------------------------------

def llr_steps(p0: float, p1: float) -> tuple[int, int]:
    """The integer scores of a Bernoulli CUSUM for p0 -> p1: (when the event happens, when not)."""
    return round(SCALE * log(p1 / p0)), round(SCALE * log((1 - p1) / (1 - p0)))


@dataclass(frozen=True)
class Check:
    """One sequential test. `kind`: `bernoulli` (a CUSUM of the event `signal` against its fair
    probability p0, tuned to detect p1), `bernoulli_max` (one such CUSUM per category, the
    statistic being the largest: joker ranks and suits), `absent` (rounds since the least recently
    seen card). `threshold`: the statistic that alerts (hundredths of a log-likelihood ratio, or
    rounds for `absent`); `watch`: where it turns `watch`."""

    name: str
    signal: str
    kind: str
    p0: Fraction | None
    p1: float | None
    threshold: int
    description: str
    categories: int = 1
    baseline: bool = False  # p0 is the studio's own rate (operational signals), not a fixed figure

    @property
    def watch(self) -> int:
        return self.threshold // 2

    def steps(self, p0: float | None = None) -> tuple[int, int]:
        p0 = float(self.p0) if p0 is None else p0
        p1 = self.p1 if not self.baseline else min(0.5, self.p1 * p0)  # baseline checks: p1 is a ratio
        return llr_steps(p0, p1)

    def status(self, statistic: int) -> str:
        return ALERT if statistic >= self.threshold else WATCH if statistic >= self.watch else OK


P_FIRST = first_side_win_probability()
P_FIRST_CARD = first_card_match_probability()
P_SHORT = cards_dealt_between(1, 5)  # the live paytable's first box
P_LONG = cards_dealt_between(21, MAX_CARDS)  # beyond its 16-20 box

# Thresholds tuned with scripts/integrity_arl.py so that all checks together give under one false
# alarm per table-year at 120 rounds an hour (docs/INTEGRITY.md has the figures).
RESULT_CHECKS: tuple[Check, ...] = (
    Check("first_side_high", "first side won", "bernoulli", P_FIRST, 0.60, 1100,
          "The first-card side wins more often than 429/833 (tuned to 60%)."),
    Check("first_side_low", "first side won", "bernoulli", P_FIRST, 0.43, 1300,
          "The first-card side wins less often than 429/833 (tuned to 43%)."),
    Check("first_card_match", "match on the first card", "bernoulli", P_FIRST_CARD, 3 / 17, 1500,
          "The very first card matches more often than 1/17 (tuned to 3/17)."),
    Check("short_deals", "deal of 1-5 cards", "bernoulli", P_SHORT, 0.40, 1600,
          "Deals of 1-5 cards more often than 5645/20825 (tuned to 40%)."),
    Check("long_deals_missing", "deal of 21 or more cards", "bernoulli", P_LONG, 0.03, 1500,
          "Deals of 21 or more cards rarer than 4495/20825 (tuned to 3%)."),
    Check("long_deals", "deal of 21 or more cards", "bernoulli", P_LONG, 0.32, 1500,
          "Deals of 21 or more cards more often than 4495/20825 (tuned to 32%)."),
    Check("joker_rank", "joker of each rank", "bernoulli_max", joker_rank_probability(), 2 / 13, 1600,
          "One rank turns up as the joker more often than 1/13 (tuned to 2/13).", categories=13),
    Check("joker_suit", "joker of each suit", "bernoulli_max", joker_suit_probability(), 0.375, 1900,
          "One suit turns up as the joker more often than 1/4 (tuned to 3/8).", categories=4),
    Check("card_absent", "card seen (joker or dealt)", "absent", card_seen_probability(), 0.0, 70,
          "A card not seen for this many rounds (each round shows a given card with probability 7/26).",
          categories=52),
)

# The dealer's operational signals, against the studio's own rates (p1 is a multiple of that rate).
MIN_BASELINE_ROUNDS = 200  # before the studio has this many rounds, operational checks wait
BASELINE_FLOOR = 0.002  # a rate the studio has (nearly) never seen counts as 0.2%
SLOW_Z = 1.2816  # a slow round: log seconds per card above the studio's mean + 1.28 sd (10% if log-normal)
OPERATIONAL_CHECKS: tuple[Check, ...] = (
    Check("corrections", "round with a correction", "bernoulli", None, 4.0, 1500,
          "Rounds with a correction more often than the studio's rate (tuned to four times it).", baseline=True),
    Check("voids", "voided round", "bernoulli", None, 4.0, 1500,
          "Voided rounds more often than the studio's rate (tuned to four times it).", baseline=True),
    Check("refused_scans", "round with a refused scan", "bernoulli", None, 4.0, 1500,
          "Rounds with a refused scan (an unreadable or duplicate card) more often than the studio's rate "
          "(tuned to four times it).", baseline=True),
    Check("slow_cards", "slow round (seconds per card)", "bernoulli", Fraction(1, 10), 0.30, 1500,
          "Rounds whose seconds per card are above the studio's mean + 1.28 sd (of log seconds) more "
          "often than 10% (tuned to 30%)."),
)
CHECKS = {check.name: check for check in RESULT_CHECKS + OPERATIONAL_CHECKS}


# --- the multipliers' draws (a table with random multipliers) ------------------------------------

# Each draw check alerts falsely at most once in ten table-years at 120 rounds an hour.
DRAW_FALSE_ALARM_ROUNDS = 10 * 120 * 24 * 365


def _draw_fault(p0: Fraction) -> float:
    """The rate a draw check is tuned to detect: twice the configured one (at most halfway to 1)."""
    return min(2 * float(p0), (1 + float(p0)) / 2)


def _draw_threshold(trials: int) -> int:
    """A CUSUM of a log-likelihood ratio started at 0 alerts falsely after e^h trials or more on
    average (Wald), h its threshold in natural-log units: h = ln(the target x the trials a round
    makes, the false alarms of a check's categories being added). scripts/integrity_arl.py gives
    the exact figures."""
    return math.ceil(SCALE * log(DRAW_FALSE_ALARM_ROUNDS * trials))


def draw_key(setting: Multipliers) -> str:
    """The name of a multiplier setting: a table's draw checks start afresh when it changes."""
    text = json.dumps(setting.to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@lru_cache(maxsize=256)
def draw_checks(setting: Multipliers | None) -> tuple[Check, ...]:
    """The checks of a table's draws (none without multipliers): one spot drawn more often than
    draws/len(spots) (one trial per spot and round), the highest multiplier more often than its
    weight gives (one trial per drawn spot). A check whose event is certain is left out."""
    if setting is None:
        return ()
    checks = []
    n, p_spot = len(setting.spots), Fraction(setting.draws, len(setting.spots))
    if p_spot < 1:
        checks.append(Check("multiplier_spot", "spot drawn for a multiplier", "bernoulli_max", p_spot, _draw_fault(p_spot),
                            _draw_threshold(n), f"One spot is drawn for a multiplier more often than {p_spot} of the rounds "
                            f"(tuned to {_draw_fault(p_spot):.0%}).", categories=n))
    top = setting.highest
    p_top = setting.chance(top)
    if p_top < 1:
        checks.append(Check("multiplier_top", f"x{top} drawn", "bernoulli", p_top, _draw_fault(p_top), _draw_threshold(setting.draws),
                            f"The highest multiplier, x{top}, comes more often than {p_top} of the drawn spots "
                            f"(tuned to {_draw_fault(p_top):.0%})."))
    return tuple(checks)


def with_draws(state: Mapping, setting: Multipliers | None) -> dict:
    """The state with its draw checks for `setting`: as they are, or afresh when the setting changed."""
    new = dict(state)
    if setting is None or state.get("draw_key") == draw_key(setting):
        return new
    new.update(draw_key=draw_key(setting), draw_rounds=0, multiplier_spot=[0] * len(setting.spots), multiplier_top=0)
    return new


def observe_draw(state: Mapping, setting: Multipliers, drawn: Sequence[tuple[str, int]]) -> dict:
    """The state after one more round's draw ((spot, multiplier) pairs): constant work."""
    new = with_draws(state, setting)
    new["draw_rounds"] += 1
    checks = {check.name: check for check in draw_checks(setting)}
    spots = {spot for spot, _ in drawn}
    if "multiplier_spot" in checks:
        steps = checks["multiplier_spot"].steps()
        new["multiplier_spot"] = [_bernoulli(score, spot in spots, steps) for score, spot in zip(new["multiplier_spot"], setting.spots)]
    if "multiplier_top" in checks:
        steps = checks["multiplier_top"].steps()
        for _, multiplier in drawn:
            new["multiplier_top"] = _bernoulli(new["multiplier_top"], multiplier == setting.highest, steps)
    return new


# --- the state and its updates ----------------------------------------------------------------

def initial_state() -> dict:
    """A monitor's state: a few integers per check (JSON-safe)."""
    state: dict = {"rounds": 0, "ops_rounds": 0}
    for check in RESULT_CHECKS + OPERATIONAL_CHECKS:
        if check.kind == "bernoulli":
            state[check.name] = 0
        elif check.kind == "bernoulli_max":
            state[check.name] = [0] * check.categories
        else:
            state[check.name] = [0] * check.categories  # the round count when each card was last seen
    return state


def _bernoulli(score: int, happened: bool, steps: tuple[int, int]) -> int:
    return max(0, score + (steps[0] if happened else steps[1]))


def _category(scores: Sequence[int], index: int, steps: tuple[int, int]) -> list[int]:
    return [_bernoulli(score, i == index, steps) for i, score in enumerate(scores)]


def observe_results(state: Mapping, facts: RoundFacts) -> dict:
    """The state after one more finished round: constant work (at most 50 cards, 17 categories)."""
    new = {**state, "rounds": state["rounds"] + 1}
    checks = CHECKS
    events = {
        "first_side_high": facts.first_side_won,
        "first_side_low": facts.first_side_won,
        "first_card_match": facts.cards_dealt == 1,
        "short_deals": facts.cards_dealt <= 5,
        "long_deals_missing": facts.cards_dealt > 20,
        "long_deals": facts.cards_dealt > 20,
    }
    for name, happened in events.items():
        new[name] = _bernoulli(state[name], happened, checks[name].steps())
    new["joker_rank"] = _category(state["joker_rank"], RANKS.index(facts.joker.rank), checks["joker_rank"].steps())
    new["joker_suit"] = _category(state["joker_suit"], SUITS.index(facts.joker.suit), checks["joker_suit"].steps())
    seen = list(state["card_absent"])
    for card in facts.seen:
        seen[CARD_INDEX[card]] = new["rounds"]
    new["card_absent"] = seen
    return new


@dataclass(frozen=True)
class Baseline:
    """The studio's own rates: rounds, corrections, voids, rounds with a refused scan, refused scans
    and cards (for the rate per 100 cards), and log seconds per card (sum, squares)."""

    rounds: int = 0
    corrections: int = 0
    voids: int = 0
    refused: int = 0
    refused_scans: int = 0
    cards: int = 0
    timed: int = 0
    log_seconds: float = 0.0
    log_seconds_sq: float = 0.0

    def rate(self, count: int) -> float:
        return max(BASELINE_FLOOR, count / self.rounds) if self.rounds else BASELINE_FLOOR

    @property
    def ready(self) -> bool:
        return self.rounds >= MIN_BASELINE_ROUNDS

    def slow_limit(self) -> float | None:
        """Log seconds per card above which a round is slow; None before enough timed rounds."""
        if self.timed < MIN_BASELINE_ROUNDS:
            return None
        mean = self.log_seconds / self.timed
        var = max(0.0, self.log_seconds_sq / self.timed - mean * mean)
        return mean + SLOW_Z * var ** 0.5


def observe_operations(state: Mapping, baseline: Baseline, *, corrected: bool, voided: bool,
                       seconds_per_card: float | None, refused_scans: int = 0) -> dict:
    """The dealer's operational checks after one more round (settled or voided). They wait until
    the studio has a baseline; a round without a timed deal (fewer than two cards) is not timed."""
    if not baseline.ready:
        return dict(state)
    new = {**state, "ops_rounds": state["ops_rounds"] + 1}
    checks = CHECKS
    new["corrections"] = _bernoulli(state["corrections"], corrected,
                                    checks["corrections"].steps(baseline.rate(baseline.corrections)))
    new["voids"] = _bernoulli(state["voids"], voided, checks["voids"].steps(baseline.rate(baseline.voids)))
    new["refused_scans"] = _bernoulli(state["refused_scans"], refused_scans > 0,
                                      checks["refused_scans"].steps(baseline.rate(baseline.refused)))
    limit = baseline.slow_limit()
    if limit is not None and seconds_per_card is not None and seconds_per_card > 0:
        new["slow_cards"] = _bernoulli(state["slow_cards"], log(seconds_per_card) > limit, checks["slow_cards"].steps())
    return new


def baseline_after(baseline: Baseline, *, corrected: bool, voided: bool, seconds_per_card: float | None,
                   refused_scans: int = 0, cards: int = 0) -> Baseline:
    timed = seconds_per_card is not None and seconds_per_card > 0
    x = log(seconds_per_card) if timed else 0.0
    return Baseline(rounds=baseline.rounds + 1, corrections=baseline.corrections + corrected,
                    voids=baseline.voids + voided, refused=baseline.refused + (refused_scans > 0),
                    refused_scans=baseline.refused_scans + refused_scans, cards=baseline.cards + cards,
                    timed=baseline.timed + timed,
                    log_seconds=baseline.log_seconds + x, log_seconds_sq=baseline.log_seconds_sq + x * x)


def statistic(state: Mapping, check: Check) -> int:
    value = state[check.name]
    if check.kind == "bernoulli":
        return value
    if check.kind == "bernoulli_max":
        return max(value)
    return state["rounds"] - min(value)


def reset(state: Mapping, name: str) -> dict:
    """The state with one check started afresh (after its alert is acknowledged)."""
    new = dict(state)
    if name in ("multiplier_spot", "multiplier_top"):  # a draw check: its scores as the state holds them
        new[name] = [0] * len(state[name]) if isinstance(state.get(name), list) else 0
        return new
    check = CHECKS[name]
    if check.kind == "bernoulli":
        new[name] = 0
    elif check.kind == "bernoulli_max":
        new[name] = [0] * check.categories
    else:
        new[name] = [state["rounds"]] * check.categories
    return new


@dataclass(frozen=True)
class CheckResult:
    check: str
    signal: str
    statistic: int
    threshold: int
    watch: int
    status: str


def evaluate(state: Mapping, checks: Iterable[Check] = RESULT_CHECKS) -> list[CheckResult]:
    results = []
    for check in checks:
        value = statistic(state, check)
        results.append(CheckResult(check.name, check.signal, value, check.threshold, check.watch, check.status(value)))
    return results
