"""Average run lengths of the integrity monitor's checks (engine/integrity.py, docs/INTEGRITY.md).

Each Bernoulli check is a CUSUM on integer scores, so for a per-round event probability p it is a
finite Markov chain on 0..threshold-1; its average run length (rounds until it alerts, from 0) is
the solution of (I - Q) L = 1, solved exactly here (a banded system: no numpy). "Card absent" is a
run of misses: its ARL is (1 - m^K) / ((1 - m) m^K), m the chance a round does not show the card.
A check over several categories (joker ranks, suits, cards) alerts when any category does: its
false-alarm rate is counted as the sum of theirs (a bound), and under a fault its detection as the
quickest category's (E[min] <= min E: an upper bound on the mean rounds to flag).

Figures: false alarms per table-year at --rate rounds an hour, counting every round twice for the
results checks (its table's monitor and its dealer's) and once for the dealer's operational checks,
at the baseline rates given; the draw checks of a table with random multipliers, for the Super
preset; and for each named fault the mean rounds until the first alert, by Markov chain and (with
--simulate N) by N seeded simulated runs of the real engine updates.

    python scripts/integrity_arl.py [--rate 120] [--simulate 200] [--seed 15]
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import FULL_PACK  # noqa: E402
from engine import integrity as ig  # noqa: E402
from engine.config import SUPER_MULTIPLIERS  # noqa: E402
from engine.integrity import first_match_distribution  # noqa: E402
from engine.multipliers import Multipliers  # noqa: E402

HOURS_PER_YEAR = 24 * 365


# --- Markov chains ---------------------------------------------------------------------------

def cusum_arl(p: float, steps: tuple[int, int], threshold: int) -> float:
    """Rounds until a CUSUM from 0 (scores steps[0] with probability p, else steps[1]) reaches threshold."""
    up, down = steps
    n = threshold
    lw = max(0, -min(up, down))  # how far a step can go down (columns left of the diagonal)
    uw = max(0, max(up, down))
    width = lw + uw + 1
    rows = [[0.0] * width for _ in range(n)]
    rhs = [1.0] * n
    for s in range(n):
        row = rows[s]
        row[lw] += 1.0
        for prob, step in ((p, up), (1 - p, down)):
            if prob == 0:
                continue
            t = max(0, s + step)
            if t < n:
                row[t - s + lw] -= prob
    for k in range(n):  # banded Gaussian elimination; I - Q is an M-matrix: no pivoting needed
        pivot_row = rows[k]
        pivot = pivot_row[lw]
        if pivot < 1e-12:  # a state the chain never leaves below the threshold: it never alerts
            return float("inf")
        for i in range(k + 1, min(n, k + lw + 1)):
            row = rows[i]
            f = row[k - i + lw] / pivot
            if f:
                for j in range(k, min(n, k + uw + 1)):
                    row[j - i + lw] -= f * pivot_row[j - k + lw]
                rhs[i] -= f * rhs[k]
    x = [0.0] * n
    for k in range(n - 1, -1, -1):
        row = rows[k]
        total = rhs[k]
        for j in range(k + 1, min(n, k + uw + 1)):
            total -= row[j - k + lw] * x[j]
        x[k] = total / row[lw]
    return x[0]


def absent_arl(seen: float, rounds: int) -> float:
    miss = 1 - seen
    if seen == 0:
        return float(rounds)
    if miss == 0:
        return float("inf")
    return (1 - miss**rounds) / (seen * miss**rounds)


# --- what each scenario does to the per-round probabilities ----------------------------------

class Scenario:
    """Per-round probabilities of every check's event under a pack or a dealer."""

    def __init__(self, name: str, deal: dict[int, Fraction], *, first_win: float | None = None,
                 ranks: list[float] | None = None, suits: list[float] | None = None, seen: list[float] | None = None):
        self.name, self.deal = name, deal
        self.first_win = float(sum(p for n, p in deal.items() if n % 2)) if first_win is None else first_win
        self.ranks = ranks or [1 / 13] * 13
        self.suits = suits or [1 / 4] * 4
        self.seen = seen or [float(ig.card_seen_probability())] * 52

    def p(self, lo: int, hi: int) -> float:
        return float(sum(p for n, p in self.deal.items() if lo <= n <= hi))

    def events(self) -> dict[str, list[float]]:
        return {
            "first_side_high": [self.first_win], "first_side_low": [self.first_win],
            "first_card_match": [self.p(1, 1)], "short_deals": [self.p(1, 5)],
            "long_deals_missing": [self.p(21, 49)], "long_deals": [self.p(21, 49)],
            "joker_rank": self.ranks, "joker_suit": self.suits, "card_absent": self.seen,
        }


def scenarios() -> list[Scenario]:
    fair = ig.cards_dealt_distribution()
    odd = sum(p for n, p in fair.items() if n % 2)
    sixty = {n: p * (Fraction(3, 5) / odd if n % 2 else Fraction(2, 5) / (1 - odd)) for n, p in fair.items()}
    # One card missing (say 7H): the joker is of its rank 3/51 of the time (2 matches left in 50), else 3 in 50.
    short_rank, other = first_match_distribution(50, 2), first_match_distribution(50, 3)
    missing = {n: Fraction(3, 51) * short_rank.get(n, 0) + Fraction(48, 51) * other.get(n, 0) for n in range(1, 50)}
    ranks = [3 / 51] + [4 / 51] * 12
    suits = [12 / 51] + [13 / 51] * 3
    seen = [0.0] + [float(ig.card_seen_probability())] * 51  # the others' chances barely move
    below = ig.cards_dealt_between(1, 20)
    short = {n: p / below for n, p in fair.items() if n <= 20}
    return [
        Scenario("fair pack", fair),
        Scenario("first-card side wins 60%", sixty),
        Scenario("a pack missing one card", missing, ranks=ranks, suits=suits, seen=seen),
        Scenario("deals never exceed 20 cards", short),
        Scenario("every deal ends on its first card", {1: Fraction(1)}, seen=[2 / 52] * 52),
    ]


def check_arls(scenario: Scenario) -> dict[str, tuple[float, float]]:
    """check -> (rounds until it alerts: the quickest category; false alarms per round: the sum)."""
    out = {}
    for check in ig.RESULT_CHECKS:
        probs = scenario.events()[check.name]
        if check.kind == "absent":
            arls = [absent_arl(p, check.threshold) for p in probs]
        else:
            steps = check.steps()
            cache: dict[float, float] = {}
            for p in probs:
                if p not in cache:
                    cache[p] = cusum_arl(p, steps, check.threshold)
            arls = [cache[p] for p in probs]
        out[check.name] = (min(arls), sum(1 / a for a in arls))
    return out


def operational_arls(p0: float) -> dict[str, tuple[float, float]]:
    """(ARL when the dealer's rate is the studio's, ARL when it is four times it), per check."""
    out = {}
    for name, rate in (("corrections", p0), ("voids", p0), ("refused_scans", p0)):
        check = ig.CHECKS[name]
        base = max(ig.BASELINE_FLOOR, rate)
        steps = check.steps(base)
        out[name] = (cusum_arl(base, steps, check.threshold), cusum_arl(min(0.5, check.p1 * base), steps, check.threshold))
    check = ig.CHECKS["slow_cards"]
    out["slow_cards"] = (cusum_arl(0.1, check.steps(), check.threshold), cusum_arl(0.3, check.steps(), check.threshold))
    return out


# --- seeded simulation of the real engine updates --------------------------------------------

PACK = list(FULL_PACK)


def draw_arls(setting) -> list[tuple]:
    """For each draw check of a multiplier setting (engine.integrity.draw_checks): the check, its
    categories, its ARL with a fair draw and at the rate it is tuned to. The multiplier_top check
    takes `draws` trials a round, so its ARLs in rounds are its trials' divided by `draws`."""
    rows = []
    for check in ig.draw_checks(setting):
        per_round = 1 if check.name == "multiplier_spot" else setting.draws
        steps = check.steps()
        rows.append((check, check.categories, cusum_arl(float(check.p0), steps, check.threshold) / per_round,
                     cusum_arl(check.p1, steps, check.threshold) / per_round))
    return rows


def _deal(rng: random.Random, pack: list) -> tuple:
    cards = pack[:]
    rng.shuffle(cards)
    joker, rest = cards[0], cards[1:]
    for i, card in enumerate(rest):
        if card.rank == joker.rank:
            return joker, rest[: i + 1]
    raise AssertionError("no match")


def simulated_round(rng: random.Random, fault: str):
    want_odd = rng.random() < 0.6  # the 60% fault: the side of the match is chosen first, then a deal with it
    while True:
        if fault == "a pack missing one card":
            joker, dealt = _deal(rng, PACK[1:])
        else:
            joker, dealt = _deal(rng, PACK)
        n = len(dealt)
        if fault == "deals never exceed 20 cards" and n > 20:
            continue
        if fault == "first-card side wins 60%" and (n % 2 == 1) != want_odd:
            continue
        if fault == "every deal ends on its first card":
            dealt = [next(c for c in PACK if c.rank == joker.rank and c != joker)]
            n = 1
        return ig.RoundFacts(first_side_won=n % 2 == 1, cards_dealt=n, joker=joker, seen=(joker, *dealt))


def simulate(fault: str, runs: int, rng: random.Random, limit: int = 20000) -> float:
    total = 0
    for _ in range(runs):
        state = ig.initial_state()
        for rounds in range(1, limit + 1):
            state = ig.observe_results(state, simulated_round(rng, fault))
            if any(r.status == ig.ALERT for r in ig.evaluate(state)):
                break
        total += rounds
    return total / runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=int, default=120, help="rounds an hour at a table (default 120)")
    parser.add_argument("--simulate", type=int, default=200, help="seeded simulated runs per fault (0: none)")
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args()
    started = time.monotonic()
    per_year = args.rate * HOURS_PER_YEAR
    rng = random.Random(args.seed)

    results = {s.name: check_arls(s) for s in scenarios()}
    fair = results["fair pack"]
    print(f"Rounds per table-year: {per_year:,} ({args.rate} an hour)\n")
    print("| check | threshold | ARL fair (rounds) | false alarms per table-year | " +
          " | ".join(s.name for s in scenarios()[1:]) + " |")
    print("|---|---|---|---|" + "---|" * (len(scenarios()) - 1))
    results_rate = 0.0
    for check in ig.RESULT_CHECKS:
        arl0, rate = fair[check.name]
        results_rate += rate
        cells = [f"{results[s.name][check.name][0]:,.0f}" for s in scenarios()[1:]]
        print(f"| {check.name} | {check.threshold} | {1 / rate:,.0f} | {2 * rate * per_year:.4f} | " + " | ".join(cells) + " |")
    print()
    ops_rate = 0.0
    print("| operational check | studio rate | threshold | ARL at the studio's rate | false alarms per table-year | ARL at 4x (slow: 30%) |")
    print("|---|---|---|---|---|---|")
    for p0 in (0.002, 0.01, 0.05):
        for name, (arl0, arl1) in operational_arls(p0).items():
            if name == "slow_cards" and p0 != 0.002:
                continue
            shown = "10%" if name == "slow_cards" else f"{p0:.1%}"
            print(f"| {name} | {shown} | {ig.CHECKS[name].threshold} | {arl0:,.0f} | {per_year / arl0:.4f} | {arl1:,.0f} |")
    worst = {name: min(operational_arls(p0)[name][0] for p0 in (0.002, 0.01, 0.05))
             for name in ("corrections", "voids", "refused_scans", "slow_cards")}
    ops_rate = sum(1 / a for a in worst.values())
    total = per_year * (2 * results_rate + ops_rate)
    print(f"\nFalse alarms per table-year, all checks (results at table and dealer, operational at the worst rate above): {total:.3f}\n")

    print("| draw check (the Super preset) | categories | p0 | tuned to | threshold | ARL fair, each category (rounds) | "
          "false alarms per table-year | ARL at the tuned rate (rounds) |")
    print("|---|---|---|---|---|---|---|---|")
    for check, categories, arl0, arl1 in draw_arls(Multipliers.from_value(SUPER_MULTIPLIERS)):
        print(f"| {check.name} | {categories} | {check.p0} | {check.p1:.0%} | {check.threshold} | {arl0:,.0f} | "
              f"{categories * per_year / arl0:.4f} | {arl1:,.0f} |")
    print()

    print("| fault | mean rounds to flag (Markov chain, quickest check) | check | simulated mean (runs) |")
    print("|---|---|---|---|")
    for s in scenarios()[1:]:
        name, (arl, _) = min(results[s.name].items(), key=lambda kv: kv[1][0])
        sim = f"{simulate(s.name, args.simulate, rng):,.0f} ({args.simulate})" if args.simulate else "-"
        print(f"| {s.name} | {arl:,.0f} | {name} | {sim} |")
    print(f"\n({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
