"""Steps the bets tests share: open a round, bet, close, deal, read balances and ledgers.

API steps go through the real views (`/api/...`); the `quick_player` and `finish_without_settling`
shortcuts arrange state through the ORM where a test is about something else (many players, or a
finished round whose settlement the test itself will run).
"""
from __future__ import annotations

from decimal import Decimal

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db.models import Sum
from django.utils import timezone

from bets.ledger import chips_issue, wallet_get
from bets.models import LedgerEntry
from engine import parse_card
from tables.models import DealtCard, Round
from tables.selectors import round_deal

D = Decimal

# RULES.md worked example 2 (and 3): joker KS; Andar A♣ 8♦ J♥ K♦, Bahar Q♠ 7♣ 2♥, in deal order.
EXAMPLE_2_CARDS = ["AC", "QS", "8D", "7C", "JH", "2H", "KD"]


def open_round(dealer_api, table, joker: str = "KS") -> int:
    response = dealer_api.post(f"/api/tables/{table.pk}/rounds/", {"joker": joker}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def bet(api, round_id: int, spot: str, amount, key: str | None = None):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    return api.post(f"/api/rounds/{round_id}/bets/", {"spot": spot, "amount": str(amount)}, format="json", **headers)


def placed(api, round_id: int, spot: str, amount) -> dict:
    response = bet(api, round_id, spot, amount)
    assert response.status_code == 201, response.content
    return response.json()


def close(dealer_api, round_id: int) -> dict:
    response = dealer_api.post(f"/api/rounds/{round_id}/close-betting/")
    assert response.status_code == 200, response.content
    return response.json()


def deal(dealer_api, round_id: int, cards: list[str]) -> dict:
    """Deal `cards` through the API; the last one must be the match."""
    for i, card in enumerate(cards, 1):
        response = dealer_api.post(f"/api/rounds/{round_id}/cards/", {"card": card}, format="json")
        assert response.status_code == 201, response.content
        assert response.json()["match"] is (i == len(cards)), response.json()
    return response.json()


def balance(user) -> Decimal:
    return wallet_get(user=user).balance


def entries_sum(account) -> Decimal:
    return LedgerEntry.objects.filter(account=account).aggregate(s=Sum("amount"))["s"] or D("0.00")


def quick_player(name: str, chips) -> object:
    """A player with a wallet of `chips`, issued by the mint (no password: the API uses tokens)."""
    user = get_user_model().objects.create(username=name)
    user.groups.add(Group.objects.get_or_create(name="player")[0])
    if D(chips):
        chips_issue(user=user, amount=D(chips))
    else:
        wallet_get(user=user)
    return user


def finish_without_settling(rnd: Round, cards: list[str]) -> Round:
    """Record the deal of `cards` and mark the round finished, as card_deal would, but without
    enqueueing its settlement: the test settles it itself."""
    state = round_deal(rnd, [])
    rows = []
    for position, card in enumerate(cards, 1):
        rows.append(DealtCard(round=rnd, position=position, side=state.next_side.value, card=card))
        state = state.deal(parse_card(card))
    assert state.outcome is not None, "the cards must end with the match"
    DealtCard.objects.bulk_create(rows)
    now = timezone.now()
    Round.objects.filter(pk=rnd.pk).update(status=Round.Status.FINISHED, winner=state.outcome.winner.value,
                                           cards_dealt=len(cards), closed_at=rnd.closed_at or now, finished_at=now)
    rnd.refresh_from_db()
    return rnd
