"""The rules of Andar Bahar (RULES.md) in plain Python: no Django, exact arithmetic only."""
from .cards import FULL_PACK, Card, Rank, Suit, parse_card
from .config import (
    CONFIG_KEYS, PAYTABLES, SIDE_BETS, FirstCard, Mode, Paytable, Side, Spot, TableConfig, count_spot, offered_spots, rules_of,
)
from .deal import MAX_CARDS, Deal, Outcome, ThreeCardHand, three_card_hand
from .exposure import Exposure, possible_facts, worst_case
from .errors import DealFinished, DuplicateCard, EngineError, InvalidCard, InvalidConfig
from .odds import SpotOdds, match_probability, odds, percent4
from .spots import (
    BetResult,
    bet_result,
    count_spot_for,
    payout_table,
    round_winnings,
    spot_odds_for,
    winning_spots,
)

__all__ = [
    "EngineError", "InvalidCard", "DuplicateCard", "DealFinished", "InvalidConfig",
    "Suit", "Rank", "Card", "parse_card", "FULL_PACK",
    "Side", "FirstCard", "Mode", "Paytable", "TableConfig", "CONFIG_KEYS", "PAYTABLES", "SIDE_BETS", "rules_of",
    "Deal", "Outcome", "ThreeCardHand", "three_card_hand", "MAX_CARDS",
    "Spot", "offered_spots", "bet_result", "BetResult", "spot_odds_for", "payout_table",
    "count_spot", "count_spot_for", "round_winnings", "winning_spots",
    "odds", "SpotOdds", "percent4", "match_probability",
    "possible_facts", "worst_case", "Exposure",
]
