"""Betting spots, what each pays for an outcome, and the settlement of one bet."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import NamedTuple

from .config import COUNT_BOXES, Mode, Paytable, Side, Spot, TableConfig, decimal_text, offered_spots
from .deal import Outcome, ThreeCardHand
from .errors import EngineError

ONE = Decimal("1")
NO_COMMISSION_FIRST_CARD_ODDS = Decimal("0.25")  # no_commission: first-card side, match on card 1
FIRST_ANDAR_ODDS = Decimal("15")
FIRST_BAHAR_ODDS = Decimal("15.5")
FIRST_THREE_ODDS = {
    ThreeCardHand.STRAIGHT_FLUSH: Decimal("120"),
    ThreeCardHand.STRAIGHT: Decimal("8"),
    ThreeCardHand.FLUSH: Decimal("5"),
}


def count_spot_for(paytable: Paytable, cards_dealt: int) -> str:
    """The card count box a deal of `cards_dealt` cards falls in."""
    for name, (lo, hi, _) in COUNT_BOXES[Paytable(paytable)].items():
        if lo <= cards_dealt <= hi:
            return name
    raise EngineError(f"no card count box holds {cards_dealt} cards", code="invalid_position")


def _offered(config: TableConfig, spot) -> str:
    offered = offered_spots(config)
    name = str(spot) if isinstance(spot, str) else spot  # Spot.ANDAR -> "andar"
    if name not in offered:
        raise EngineError(
            f"{name!r} is not a spot at this table (offered: {', '.join(offered)})", code="spot_not_offered", spot=name
        )
    return name


class Facts(NamedTuple):
    """The only facts of an outcome that payouts depend on (odds.py enumerates them exactly)."""

    winner: Side
    first_side: Side
    cards_dealt: int
    first_andar_hit: bool  # the first card dealt to Andar matched the joker
    first_bahar_hit: bool
    first_three: ThreeCardHand | None

    @classmethod
    def of(cls, outcome: Outcome) -> Facts:
        hit = lambda card: card is not None and card.rank == outcome.match_card.rank  # noqa: E731
        return cls(
            outcome.winner,
            outcome.first_side,
            outcome.cards_dealt,
            hit(outcome.first_andar),
            hit(outcome.first_bahar),
            outcome.first_three,
        )


def pays(config: TableConfig, spot: str, facts: Facts) -> Decimal | None:
    """The odds (X of X:1) an offered `spot` pays for these facts, None if it loses."""
    if spot in (Spot.ANDAR, Spot.BAHAR):
        side = Side(spot)
        if facts.winner is not side:
            return None
        if side is not facts.first_side:
            return ONE
        if config.mode is Mode.CLASSIC:
            return config.commission
        return NO_COMMISSION_FIRST_CARD_ODDS if facts.cards_dealt == 1 else ONE
    if spot == Spot.FIRST_ANDAR:
        return FIRST_ANDAR_ODDS if facts.first_andar_hit else None
    if spot == Spot.FIRST_BAHAR:
        return FIRST_BAHAR_ODDS if facts.first_bahar_hit else None
    if spot == Spot.FIRST_THREE:
        return None if facts.first_three is None else FIRST_THREE_ODDS[facts.first_three]
    lo, hi, odds = COUNT_BOXES[config.card_count_paytable][spot]
    return odds if lo <= facts.cards_dealt <= hi else None


Multiplied = Mapping[str, int]  # a round's drawn multipliers: spot -> multiplier (engine.multipliers.draw)


def multiplied_odds(odds: Decimal | None, spot: str, multiplied: Multiplied | None) -> Decimal | None:
    """A winning spot's odds times its multiplier when the round drew one for it: the winnings are
    then stake x odds x multiplier, rounded down to the chip unit once (RULES.md)."""
    if odds is None or not multiplied or spot not in multiplied:
        return odds
    return odds * multiplied[spot]


def spot_odds_for(config: TableConfig, outcome: Outcome, multiplied: Multiplied | None = None) -> dict[str, Decimal | None]:
    """For every offered spot, the odds it pays for `outcome` with the round's multipliers (None: it
    loses). Settlement: payout = stake + floor(stake * odds / chip_unit) * chip_unit."""
    facts = Facts.of(outcome)
    return {spot: multiplied_odds(pays(config, spot, facts), spot, multiplied) for spot in offered_spots(config)}


def round_winnings(stake: Decimal, odds: Decimal, chip_unit: Decimal) -> Decimal:
    """stake * odds rounded down to the chip unit, computed exactly."""
    units = Fraction(stake) * Fraction(odds) // Fraction(chip_unit)
    return Decimal(units) * chip_unit


@dataclass(frozen=True)
class BetResult:
    won: bool
    odds: Decimal  # 0 when lost; times the spot's multiplier when the round drew one for it
    winnings: Decimal  # stake * odds, rounded down to the chip unit; 0 when lost
    payout: Decimal  # what the player gets back in total: stake + winnings, or 0


def _stake(stake) -> Decimal:
    if isinstance(stake, bool) or not isinstance(stake, Decimal | int | str):
        raise EngineError(f"stake must be a decimal, not {stake!r}", code="invalid_stake")
    try:
        value = Decimal(stake)
    except InvalidOperation:
        raise EngineError(f"stake must be a decimal, not {stake!r}", code="invalid_stake") from None
    if not value.is_finite() or value < 0:
        raise EngineError(f"stake must be zero or more, not {stake!r}", code="invalid_stake")
    return value


def bet_result(config: TableConfig, spot: str, stake: Decimal, outcome: Outcome, multiplied: Multiplied | None = None) -> BetResult:
    spot = _offered(config, spot)
    stake = _stake(stake)
    odds = multiplied_odds(pays(config, spot, Facts.of(outcome)), spot, multiplied)
    if odds is None:
        return BetResult(won=False, odds=Decimal(0), winnings=Decimal(0), payout=Decimal(0))
    winnings = round_winnings(stake, odds, config.chip_unit)
    return BetResult(won=True, odds=odds, winnings=winnings, payout=stake + winnings)


def winning_spots(config: TableConfig, outcome: Outcome) -> list[str]:
    """The offered spots this outcome pays, in the felt's order (what the pages light up)."""
    facts = Facts.of(outcome)
    return [spot for spot in offered_spots(config) if pays(config, spot, facts) is not None]


def _ratio(odds: Decimal) -> str:
    return f"{decimal_text(odds)}:1"


def payout_table(config: TableConfig) -> dict[str, str]:
    """For every offered spot, a short human text of what it pays."""
    table: dict[str, str] = {}
    for spot in offered_spots(config):
        if spot in (Spot.ANDAR, Spot.BAHAR):
            if config.mode is Mode.NO_COMMISSION:
                # A win on card 1 is always the first-card side's, whichever side that is.
                first = config.first_card.value in (spot, "joker_colour")
                text = f"1:1 ({_ratio(NO_COMMISSION_FIRST_CARD_ODDS)} on the first card)" if first else "1:1"
            elif config.first_card.value == "joker_colour":
                text = f"{_ratio(config.commission)} if first, else 1:1"
            else:
                text = _ratio(config.commission) if config.first_card.value == spot else "1:1"
        elif spot == Spot.FIRST_ANDAR:
            text = _ratio(FIRST_ANDAR_ODDS)
        elif spot == Spot.FIRST_BAHAR:
            text = _ratio(FIRST_BAHAR_ODDS)
        elif spot == Spot.FIRST_THREE:
            text = " / ".join(_ratio(FIRST_THREE_ODDS[h]) for h in ThreeCardHand)
        else:
            text = _ratio(COUNT_BOXES[config.card_count_paytable][spot][2])
        table[spot] = text
    return table
