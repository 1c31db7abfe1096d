"""What the rules page and the round page say, in the reader's language: a table's settings, every
bet it offers with its exact odds (the engine's, as `GET /api/tables/{id}/rules/` gives them), and
RULES.md's worked examples, each deal played and each bet settled by the engine itself, so the page
can never show a number settlement would not pay."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from django.utils.formats import number_format
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from engine import Deal, Mode, TableConfig, bet_result, odds, percent4, rules_of
from engine.config import COUNT_BOXES, Spot, decimal_text
from engine.spots import FIRST_THREE_ODDS

SIDE_NAMES = {"andar": pgettext_lazy("side", "Andar"), "bahar": pgettext_lazy("side", "Bahar")}
SPOT_NAMES = {
    Spot.ANDAR.value: SIDE_NAMES["andar"],
    Spot.BAHAR.value: SIDE_NAMES["bahar"],
    Spot.FIRST_ANDAR.value: _("First Andar"),
    Spot.FIRST_BAHAR.value: _("First Bahar"),
    Spot.FIRST_THREE.value: _("First 3"),
}
HAND_NAMES = {"straight_flush": _("straight flush"), "straight": _("straight"), "flush": _("flush")}
FIRST_CARD_TEXT = {
    "andar": _("Andar gets the first card."),
    "bahar": _("Bahar gets the first card."),
    "joker_colour": _("The joker's colour decides: a black joker (spades, clubs) sends the first card to Andar, a red one (hearts, diamonds) to Bahar."),
}
SIDE_BET_NAMES = {
    "first_andar": _("First Andar"), "first_bahar": _("First Bahar"), "first_three": _("First 3"), "card_count": _("Card count"),
}
BET_STATUS_NAMES = {
    "open": pgettext_lazy("bet status", "open"), "cancelled": pgettext_lazy("bet status", "taken back"),
    "won": pgettext_lazy("bet status", "won"), "lost": pgettext_lazy("bet status", "lost"),
    "refunded": pgettext_lazy("bet status", "refunded"),
}
PAYTABLE_NAMES = {"live": _("live studio"), "play": _("play chips")}
INCIDENT_KIND_NAMES = {
    "misread": _("Misread card"), "wrong_side": _("Card dealt to the wrong side"),
    "procedure": _("Procedure (card knocked over, dealer error)"), "equipment": _("Equipment (shoe, scanner)"),
    "stream": _("Stream outage"), "settlement": _("Settlement (result paid wrongly)"), "other": _("Other"),
}
INCIDENT_STATUS_NAMES = {"open": pgettext_lazy("incident status", "open"), "resolved": pgettext_lazy("incident status", "resolved"),
                         "voided": pgettext_lazy("incident status", "closed by the void")}
# A round's events, as its audit chain lists them (tables.models.RoundEvent's actions).
EVENT_NAMES = {
    "opened": _("Round opened"), "betting_closed": _("Betting closed"), "card": _("Card dealt"), "finished": _("Round finished"),
    "paused": _("Round paused"), "incident": _("Incident raised"), "incident_note": _("Incident note"),
    "incident_resolved": _("Incident resolved"), "resumed": _("Round resumed"), "corrected": _("Cards corrected"),
    "settled": _("Round settled"), "resettled": _("Round settled again"), "voided": _("Round voided"),
}
CORRECTION_NAMES = {"replace": _("card replaced"), "remove_last": _("last card removed")}


def spot_name(spot: str) -> str:
    """A spot as the pages name it: "Andar", "First 3", "Card count 6-10"."""
    if spot in SPOT_NAMES:
        return str(SPOT_NAMES[spot])
    lo, hi = spot.removeprefix("count_").split("_")
    return str(_("Card count %(lo)s-%(hi)s") % {"lo": lo, "hi": hi})


# The names the tables themselves give their spots: the player page's felt and board
# (static/js/pages/play/words.js spotName, the same msgids in djangojs), for the round page.
TABLE_SPOT_NAMES = {
    **SPOT_NAMES,
    Spot.FIRST_ANDAR.value: _("1st Andar"),
    Spot.FIRST_BAHAR.value: _("1st Bahar"),
}


def table_spot_name(spot: str) -> str:
    """A spot as the table names it: "Andar", "1st Bahar", "First 3", "6–10 cards"."""
    if spot in TABLE_SPOT_NAMES:
        return str(TABLE_SPOT_NAMES[spot])
    low, high = spot.removeprefix("count_").split("_")
    return str(_("%(low)s–%(high)s cards") % {"low": low, "high": high})


def side_name(side: str | None) -> str:
    return str(SIDE_NAMES[side]) if side in SIDE_NAMES else ""


def local(text: str) -> str:
    """An exact decimal text (the engine's "97.8511", "10000") as the reader's language writes numbers:
    its decimal sign and digit grouping ("10,000" in English, "10.000" and "97,8511" in Vietnamese),
    every digit kept."""
    return number_format(Decimal(text), use_l10n=True, force_grouping=True)


def ratio(value) -> str:
    return f"{local(decimal_text(Decimal(value)))}:1"


def percent2(value: Fraction) -> str:
    """A probability as a percentage with two decimals (from the engine's 4-decimal text)."""
    return local(f"{Decimal(percent4(value)).quantize(Decimal('0.01'))}")


def _wins_when(spot: str, config: TableConfig) -> str:
    if spot in (Spot.ANDAR.value, Spot.BAHAR.value):
        return str(_("The card that matches the joker's rank falls on %(side)s.") % {"side": SIDE_NAMES[spot]})
    if spot == Spot.FIRST_ANDAR.value:
        return str(_("The first card dealt to Andar matches the joker."))
    if spot == Spot.FIRST_BAHAR.value:
        return str(_("The first card dealt to Bahar matches the joker."))
    if spot == Spot.FIRST_THREE.value:
        return str(_("The joker, the first Andar card and the first Bahar card make a straight flush, a straight or a flush "
                     "(ace high or low). It loses if the round ends before both sides got a card."))
    lo, hi, _odds = COUNT_BOXES[config.card_count_paytable][spot]
    return str(_("The deal takes %(lo)s to %(hi)s cards (the joker not counted, the matching card counted).") % {"lo": lo, "hi": hi})


def _case(spot: str, pay: Decimal) -> str:
    """Which case of a bet pays these odds, where a bet has several."""
    if spot == Spot.FIRST_THREE.value:
        hand = next(h for h, o in FIRST_THREE_ODDS.items() if o == pay)
        return str(HAND_NAMES[hand.value])
    return ""


@dataclass(frozen=True)
class BetRow:
    spot: str
    name: str
    wins_when: str
    pays: list[dict]  # [{"ratio": "0.9:1", "percent": "51.50", "case": ""}]
    probability: str  # "429/833"
    percent: str
    rtp: str
    rtp_without: str  # the return without the table's multipliers ("": the spot cannot be multiplied)
    rtp_at_least_100: bool  # flagged: allowed (a play-chips table may want it)
    is_count: bool
    box: str  # a card-count box's cards: "6-10"


def bet_rows(config: TableConfig) -> list[BetRow]:
    rows = []
    for o in odds(config):
        rows.append(BetRow(
            spot=o.spot, name=spot_name(o.spot), wins_when=_wins_when(o.spot, config),
            pays=[{"ratio": ratio(pay), "percent": percent2(p), "case": _case(o.spot, pay)} for p, pay in sorted(o.outcomes, key=lambda c: -c[1])],
            probability=f"{o.probability.numerator}/{o.probability.denominator}", percent=percent2(o.probability),
            rtp=local(percent4(o.rtp)), rtp_at_least_100=o.rtp >= 1,
            rtp_without="" if o.rtp_without_multipliers is None else local(percent4(o.rtp_without_multipliers)),
            is_count=o.spot.startswith("count_"),
            box="-".join(o.spot.removeprefix("count_").split("_")) if o.spot.startswith("count_") else "",
        ))
    return rows


def main_bets_text(config: TableConfig) -> str:
    if config.mode is Mode.NO_COMMISSION:
        return str(_("No commission: a winning main bet pays 1:1, except that the side that got the first card pays 0.25:1 "
                     "when the very first card dealt matches the joker."))
    return str(_("Classic: a winning bet on the side that got the first card pays %(commission)s (the commission), "
                 "the other side pays 1:1.") % {"commission": ratio(config.commission)})


def multipliers_rules(config: TableConfig) -> dict | None:
    """A table's random multipliers as the pages say them (None: the table has none): the spots that
    can be drawn, how many a round, and each multiplier with its exact chance (the engine's setting,
    as `GET /api/tables/{id}/rules/` gives it)."""
    setting = config.multipliers
    if setting is None:
        return None
    expected = setting.expected
    return {
        "spots": [spot_name(spot) for spot in setting.spots], "count": len(setting.spots), "draws": setting.draws,
        "drawn_percent": percent2(setting.drawn_chance),
        "values": [{"multiplier": m, "times": times(m), "percent": percent2(setting.chance(m)),
                    "chance": f"{setting.chance(m).numerator}/{setting.chance(m).denominator}"} for m, _w in setting.values],
        "expected": exact_or_fraction(expected),
    }


def exact_or_fraction(value: Fraction) -> str:
    """A fraction as an exact decimal when it has one ("3.1"), else as the fraction and its value to
    two places ("10/3 ≈ 3.33")."""
    d = value.denominator
    for prime in (2, 5):
        while d % prime == 0:
            d //= prime
    if d == 1:
        return local(decimal_text(Decimal(value.numerator) / Decimal(value.denominator)))
    approx = (Decimal(value.numerator) / Decimal(value.denominator)).quantize(Decimal("0.01"))
    return f"{value.numerator}/{value.denominator} ≈ {local(str(approx))}"


def times(multiplier: int) -> str:
    """"×7": a multiplier as the felt shows it."""
    return str(pgettext_lazy("a multiplier", "×%(n)s") % {"n": local(str(multiplier))})


def table_rules(table) -> dict:
    """Everything the rules page shows about one table, as it is configured now."""
    return {**settings_rules(table.snapshot()), "examples": worked_examples()}


def settings_rules(settings: dict) -> dict:
    """A table's settings as the pages say them: a table's snapshot as it is now, or the settings a
    round opened with (Round.settings)."""
    config = TableConfig.from_dict(rules_of(settings))
    rows = bet_rows(config)
    return {
        "config": config,
        "settings": settings,
        "amounts": {key: local(decimal_text(Decimal(settings[key]))) for key in ("min_bet", "max_bet", "chip_unit")},
        "first_card_text": FIRST_CARD_TEXT[config.first_card.value],
        "main_bets_text": main_bets_text(config),
        "mode": config.mode.value,
        "commission": ratio(config.commission),
        "side_bets": [str(SIDE_BET_NAMES[name]) for name in ("first_andar", "first_bahar", "first_three", "card_count")
                      if any(row.spot == name or (name == "card_count" and row.is_count) for row in rows)],
        "paytable": str(PAYTABLE_NAMES[config.card_count_paytable.value]),
        "multipliers": multipliers_rules(config),
        "bets": [row for row in rows if not row.is_count],
        "boxes": [row for row in rows if row.is_count],
    }


# --- RULES.md's worked examples ---------------------------------------------------------------

CLASSIC = {}
NO_COMMISSION = {"mode": "no_commission", "chip_unit": "0.01"}
PLAY_CHIPS = {"chip_unit": "1", "card_count_paytable": "play"}
SETTING_NAMES = {
    "classic": _("Classic table (Andar pays 0.9:1)"),
    "no_commission": _("No-commission table"),
    "play": _("Play chips (chip unit 1, play paytable)"),
    "joker_colour": _("First card by the joker's colour"),
}

# (title, settings name, settings, joker, cards in deal order, [(settings name, settings, spot, stake)],
#  how many of the first bets one player placed together: their winnings are added up)
EXAMPLES = (
    (_("Who gets the first card"), "joker_colour", {"first_card": "joker_colour"}, "QH", ["4C", "7D", "QS"], [], 0),
    (_("A match on the very first card"), "classic", CLASSIC, "KS", ["KC"], [
        ("no_commission", NO_COMMISSION, "andar", "10"),
        ("classic", CLASSIC, "andar", "50"),
        ("classic", CLASSIC, "first_andar", "20"),
    ], 0),
    (_("Seven cards, and side bets"), "classic", CLASSIC, "KS", ["AC", "QS", "8D", "7C", "JH", "2H", "KD"], [
        ("classic", CLASSIC, "first_three", "10"),
        ("classic", CLASSIC, "count_6_10", "5"),
    ], 0),
    (_("Play chips: winnings rounded down to the chip"), "play", PLAY_CHIPS, "KS", ["AC", "QS", "8D", "7C", "JH", "2H", "KD"], [
        ("play", PLAY_CHIPS, "andar", "50"),
        ("play", PLAY_CHIPS, "count_6_10", "25"),
        ("play", PLAY_CHIPS, "andar", "25"),
    ], 2),
)


def _play(config: TableConfig, joker: str, cards: list[str]) -> Deal:
    deal = Deal.start(config, joker)
    for card in cards:
        deal = deal.deal(card)
    return deal


def worked_examples() -> list[dict]:
    examples = []
    for number, (title, setting, settings, joker, cards, bets, together) in enumerate(EXAMPLES, start=1):
        config = TableConfig.from_dict(settings)
        deal = _play(config, joker, cards)
        outcome = deal.outcome
        dealt = [{"position": n, "card": card, "side": deal.side_of(n).value, "side_name": side_name(deal.side_of(n).value),
                  "match": n == len(cards)} for n, card in enumerate(cards, start=1)]
        rows, winnings = [], []
        for bet_setting, bet_settings, spot, stake in bets:
            bet_config = TableConfig.from_dict(bet_settings)
            result = bet_result(bet_config, spot, Decimal(stake), _play(bet_config, joker, cards).outcome)
            exact = Decimal(stake) * result.odds
            rows.append({
                "setting": str(SETTING_NAMES[bet_setting]), "spot": spot_name(spot), "stake": local(decimal_text(Decimal(stake))),
                "won": result.won, "ratio": ratio(result.odds), "winnings": _money(result.winnings, bet_config),
                "payout": _money(result.payout, bet_config),
                "exact": local(decimal_text(exact)) if exact != result.winnings else "",
            })
            winnings.append(result.winnings)
        total = sum(winnings[:together], Decimal(0))
        examples.append({
            "number": number, "title": str(title), "setting": str(SETTING_NAMES[setting]), "joker": joker,
            "first_side": side_name(outcome.first_side.value), "winner": side_name(outcome.winner.value),
            "cards_dealt": outcome.cards_dealt, "cards": dealt, "bets": rows,
            "first_three": str(HAND_NAMES[outcome.first_three.value]) if outcome.first_three else "",
            "together": together, "together_won": local(decimal_text(total)) if together else "",
        })
    return examples


def _money(value: Decimal, config: TableConfig) -> str:
    """An amount at the example's chip unit: 2.50 at a cash table, 87 in play chips."""
    places = -config.chip_unit.normalize().as_tuple().exponent
    return local(f"{value:.{max(places, 0)}f}" if places > 0 else decimal_text(value))
