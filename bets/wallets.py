"""Where a player's money is: a kind of wallet, chosen once per placing (`wallet_for`) by the
player's wallet in the round's currency.

- The studio's own wallet (`LedgerWallet`): the money is in the studio's ledger. Nothing is taken
  before the write: the stake's debit is part of the bet's one statement (bets.ledger.bet_stake),
  under the wallet's lock, refused there if the wallet cannot cover it.
- An operator's seamless wallet (bets.seamless.SeamlessWallet): the money is at the operator. Each
  stake is debited there first, with no transaction open and no lock held, and the write records
  the confirmed debit; a debit that does not become a bet is rolled back.

bets.services drives both the same way: `debit` (before the transaction), then, under the locks
and with the rules checked, `stake` for each bet; `release` what was debited if the write fails.
"""
from __future__ import annotations

from decimal import Decimal
from typing import Protocol

from .ledger import bet_stake
from .models import Bet
from .placing import BetContext, Wanted
from .seamless import seamless_wallet_for


class Wallet(Protocol):
    studio: bool  # the studio's own chips (a match table plays only these)

    def debit(self, *, round_id: int, player, wanted: list[Wanted]) -> list:
        """Take the stakes before the bets are written, no transaction open: one receipt per bet."""

    def stake(self, *, context: BetContext, item: Wanted, stake: Decimal, receipt) -> tuple[Bet, Decimal]:
        """Write one checked bet through the ledger, under the locks: (the bet, the balance to show the player)."""

    def release(self, receipts: list) -> None:
        """Give back what `debit` took, the bets not written."""


class LedgerWallet:
    """The studio's own wallet, in its ledger."""

    studio = True

    def debit(self, *, round_id: int, player, wanted: list[Wanted]) -> list:
        return [None] * len(wanted)  # the stake's debit is the write's

    def stake(self, *, context: BetContext, item: Wanted, stake: Decimal, receipt) -> tuple[Bet, Decimal]:
        return bet_stake(round_id=context.round.pk, player=item.player, wallet=context.wallet, house=context.house,
                         spot=item.spot, amount=stake, idempotency_key=item.idempotency_key)

    def release(self, receipts: list) -> None:
        return None


LEDGER_WALLET = LedgerWallet()


def wallet_for(*, player, round_id: int) -> Wallet:
    """The kind of the player's wallet in the round's currency: their operator's, for a seamless
    operator's player at a table in the operator's currency; the studio's otherwise (a match's
    chips included)."""
    return seamless_wallet_for(player=player, round_id=round_id) or LEDGER_WALLET
