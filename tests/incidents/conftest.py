"""Steps the incident tests share: rounds driven through the services (or the API, in the tests
about codes and roles), players with chips, and ledger readings. The tests that run the tasks
themselves (a void racing the settlement) hold them back with tests/conftest.py's `held_tasks`."""
from __future__ import annotations

from decimal import Decimal

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db.models import Sum

from bets.ledger import chips_issue, mint_account, wallet_get
from bets.models import Account, Bet, LedgerEntry
from bets.services import bet_place
from incidents import services as incidents
from tables.models import DealtCard, Round
from tables.services import card_deal, round_close_betting, round_open

D = Decimal


def quick_player(name: str, chips=1000):
    """A player whose wallet the mint issued `chips` to (no password: services and tokens only)."""
    user = get_user_model().objects.create(username=name)
    user.groups.add(Group.objects.get_or_create(name="player")[0])
    chips_issue(user=user, amount=D(chips))
    return user


def balance(user) -> Decimal:
    return wallet_get(user=user).balance


def entries_sum(**filters) -> Decimal:
    return LedgerEntry.objects.filter(**filters).aggregate(s=Sum("amount"))["s"] or D("0.00")


def chips_issued() -> Decimal:
    return -entries_sum(account=mint_account())


def ledger_snapshot(**filters) -> list[tuple]:
    """Every ledger entry (matching `filters`) as plain values, to compare before and after."""
    return list(LedgerEntry.objects.filter(**filters).order_by("id").values_list(
        "id", "account_id", "amount", "kind", "bet_id", "round_id", "version", "memo"))


def player_accounts():
    return Account.objects.filter(kind=Account.Kind.PLAYER)


def assert_books_balance() -> None:
    """The ledger's invariants: entries sum to 0, players + house == chips issued, every wallet's
    balance is the sum of its entries, no bet paid (refunded, reversed) twice in one version."""
    from django.db.models import Count, F, Q, Value
    from django.db.models.functions import Coalesce

    from studio.money import MoneyField

    kind = Account.Kind
    sums = LedgerEntry.objects.aggregate(
        total=Sum("amount"), house=Sum("amount", filter=Q(account__kind=kind.HOUSE)),
        mint=Sum("amount", filter=Q(account__kind=kind.MINT)))
    total, house, mint = (sums[k] or D(0) for k in ("total", "house", "mint"))
    players = player_accounts().aggregate(s=Sum("balance"))["s"] or D(0)
    assert total == 0, f"the ledger sums to {total}"
    assert players + house == -mint, f"players {players} + house {house} != chips issued {-mint}"
    zero = Value(0, output_field=MoneyField())
    off = player_accounts().annotate(total=Coalesce(Sum("entries__amount"), zero)).exclude(balance=F("total"))
    assert not off.exists(), [(a.pk, a.balance, a.total) for a in off]
    twice = (LedgerEntry.objects.filter(bet__isnull=False).values("bet", "kind", "version", "account")
             .annotate(n=Count("id")).filter(n__gt=1))
    assert not twice.exists(), list(twice)


# --- rounds through the services -------------------------------------------------------------

def open_round(table, dealer, joker: str = "KS") -> Round:
    return round_open(table_id=table.pk, joker=joker, dealer=dealer)


def place(player, rnd, spot: str, amount) -> Bet:
    bet, created = bet_place(round_id=rnd.pk, player=player, spot=spot, amount=D(amount))
    assert created
    return bet


def close(rnd, dealer) -> None:
    assert round_close_betting(round_id=rnd.pk, actor=dealer)


def deal(rnd, dealer, cards: list[str]) -> bool:
    """Deal `cards`; True when the last one matched (the round finished)."""
    match = False
    for card in cards:
        assert not match, "no card after the match"
        _, match = card_deal(round_id=rnd.pk, card=card, actor=dealer)
    return match


def raise_incident(rnd, actor, kind: str = "misread", notes: str = ""):
    return incidents.incident_raise(round_id=rnd.pk, actor=actor, kind=kind, notes=notes)


def fresh(rnd) -> Round:
    return Round.objects.get(pk=rnd.pk)


def cards_of(rnd) -> list[tuple[int, str, str]]:
    return list(DealtCard.objects.filter(round_id=rnd.pk).order_by("position").values_list("position", "side", "card"))
