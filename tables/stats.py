"""A table's statistics over its last N rounds (`GET /api/tables/{id}/stats/`): what the rounds
showed beside what the exact odds expect, for a player who wants to look (a live table's "roadmap"
and statistics panel). Counts are exact; expected counts are the engine's probabilities times the
rounds counted, as decimal strings. Voided rounds are left out; open rounds have no result yet."""
from __future__ import annotations

from collections import Counter
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction

from engine import MAX_CARDS, PAYTABLES, Rank, Side, match_probability, parse_card

from .models import Round, Table

LAST_DEFAULT, LAST_MIN, LAST_MAX = 100, 10, 500
_ENDED = (Round.Status.FINISHED, Round.Status.SETTLED)


def _expected(value: Fraction) -> str:
    """An expected count, to two decimals (exact arithmetic, rounded half to even)."""
    return str((Decimal(value.numerator) / Decimal(value.denominator)).quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN))


def _longest_runs(winners: list[str]) -> dict[str, int]:
    longest = {side.value: 0 for side in Side}
    run, previous = 0, None
    for winner in winners:
        run = run + 1 if winner == previous else 1
        previous = winner
        longest[winner] = max(longest[winner], run)
    return longest


def table_stats(*, table: Table, last: int = LAST_DEFAULT) -> dict:
    rows = list(Round.objects.filter(table=table, status__in=_ENDED).order_by("-id")
                .values("id", "winner", "first_side", "cards_dealt", "joker")[:last])
    rows.reverse()  # oldest first: streaks and the bead plate read in playing order
    counted = len(rows)
    winners = [row["winner"] for row in rows]
    lengths = {n: match_probability(n) for n in range(1, MAX_CARDS + 1)}
    p_first = sum((p for n, p in lengths.items() if n % 2 == 1), Fraction(0))  # the match falls on the first side's card
    first_andar = sum(row["first_side"] == Side.ANDAR.value for row in rows)
    expected_andar = first_andar * p_first + (counted - first_andar) * (1 - p_first)
    wins, dealt = Counter(winners), Counter(row["cards_dealt"] for row in rows)
    boxes = []
    for lo, hi, _ in PAYTABLES[table.engine_config().card_count_paytable]:
        p = sum((lengths.get(n, Fraction(0)) for n in range(lo, hi + 1)), Fraction(0))
        boxes.append({"box": f"{lo}-{hi}", "observed": sum(dealt[n] for n in range(lo, hi + 1)),
                      "expected": _expected(counted * p)})
    jokers = [parse_card(row["joker"]) for row in rows]
    ranks = Counter(card.rank for card in jokers)
    red = sum(card.suit.is_red for card in jokers)
    return {
        "table": table.pk,
        "rounds": counted,
        "wins": {side.value: wins[side.value] for side in Side},
        "expected_wins": {Side.ANDAR.value: _expected(expected_andar), Side.BAHAR.value: _expected(counted - expected_andar)},
        "first_side_wins": sum(row["winner"] == row["first_side"] for row in rows),
        "expected_first_side_wins": _expected(counted * p_first),
        "card_count": boxes,
        "joker_ranks": [{"rank": rank.symbol, "count": ranks[rank], "expected": _expected(Fraction(counted, 13))} for rank in Rank],
        "joker_colours": {"red": red, "black": counted - red},
        "longest_streaks": _longest_runs(winners),
        "results": [{"round": row["id"], "winner": row["winner"], "cards_dealt": row["cards_dealt"]} for row in rows],
    }
