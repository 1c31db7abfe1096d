"""Every payout re-derivable (integrity.verify, the round record and its offline checker): a
balanced edit of the money behind the studio's back (the bet's win entry and the house's, the bet's
payout and the player's balance, changed together in one transaction, so every ledger check still
passes) is named by verify_audit (the bet against the rules) and by the round's record (its bets
against its chained settlement); so are a lone edit of an entry, a bet's stake, and a deleted bet."""
from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import connection, transaction
from django.db.models import Sum

from bets.models import Account, Bet, LedgerEntry
from integrity.record import record_check, round_record
from tests.audit.world import build
from tests.integrity.test_verify_audit import broken_lines, verify_audit

pytestmark = pytest.mark.django_db
THOUSAND = 100000  # 1,000.00 in the ledger's hundredths


@pytest.fixture
def world(dealer, supervisor, alice, bob):
    return build(dealer=dealer, supervisor=supervisor, alice=alice, bob=bob)


def sql(statement: str, params=()) -> None:
    with connection.cursor() as cur:
        cur.execute(statement, params)


def behind_the_back(*statements: tuple[str, list]) -> None:
    """Someone with the database's superuser runs `statements` in one transaction: the ledger's
    append-only trigger (bets migration 0005) off for it, as `session_replication_role = replica`
    turns every trigger off."""
    with transaction.atomic():
        sql("SET LOCAL session_replication_role = replica")
        for statement, params in statements:
            sql(statement, params)


def winning_bet(world) -> Bet:
    return Bet.objects.filter(round=world.settled, status="won").order_by("id").first()


def balanced_edit(bet: Bet) -> None:
    """A balanced edit: +1,000.00 on the bet's win entry, -1,000.00 on the house's, the same on the
    bet's payout and the player's balance (the house keeps no balance of its own), in one transaction."""
    entry = LedgerEntry.objects.filter(bet=bet, kind="win", account_id=bet.account_id).order_by("-version").first()
    house = LedgerEntry.objects.filter(round_id=bet.round_id, kind="win", bet__isnull=True, version=entry.version).get()
    behind_the_back(
        ("UPDATE bets_ledgerentry SET amount = amount + %s WHERE id = %s", [THOUSAND, entry.pk]),
        ("UPDATE bets_ledgerentry SET amount = amount - %s WHERE id = %s", [THOUSAND, house.pk]),
        ("UPDATE bets_bet SET payout = payout + %s WHERE id = %s", [THOUSAND, bet.pk]),
        ("UPDATE bets_account SET balance = balance + %s WHERE id = %s", [THOUSAND, entry.account_id]),
    )


def ledger_whole() -> bool:
    """What the ledger checks see: the entries sum to zero, every wallet's balance is its entries."""
    total = LedgerEntry.objects.aggregate(s=Sum("amount"))["s"] or Decimal(0)
    return total == 0 and all((a.entries.aggregate(s=Sum("amount"))["s"] or Decimal(0)) == a.balance
                              for a in Account.objects.filter(kind="player"))


def test_a_whole_studio_passes_the_money_checks(world):
    code, output = verify_audit()
    assert code == 0, output
    for rnd in (world.settled, world.voided):
        assert record_check(round_record(rnd)) == []


def test_a_balanced_edit_of_a_payout_is_named_by_verify_audit_and_the_record(world):
    bet = winning_bet(world)
    balanced_edit(bet)
    assert ledger_whole()  # the edit is balanced: the ledger's own checks cannot see it
    code, output = verify_audit()
    assert code != 0
    [line] = broken_lines(output)
    assert f"Bet {bet.pk}" in line and "bet differs from the rules" in line and f"round {bet.round_id}" in line, line
    problems = record_check(round_record(world.settled))
    assert any(f"spot {bet.spot}:" in p for p in problems), problems
    assert any("the bets shown add up to" in p for p in problems), problems


def test_an_entry_edited_alone_is_named_against_its_bet(world):
    bet = winning_bet(world)
    entry = LedgerEntry.objects.filter(bet=bet, kind="win", account_id=bet.account_id).order_by("-version").first()
    behind_the_back(
        ("UPDATE bets_ledgerentry SET amount = amount + 500 WHERE id = %s", [entry.pk]),
    )
    code, output = verify_audit()
    [line] = broken_lines(output)
    assert f"Bet {bet.pk}" in line and "wallet differs from its bets" in line, line


def test_a_stake_edited_with_its_entry_is_named_against_the_chained_totals(world):
    bet = Bet.objects.filter(round=world.settled, status="lost").order_by("id").first()
    entry = LedgerEntry.objects.get(bet=bet, kind="bet", account_id=bet.account_id)
    behind_the_back(  # the stake and its entry agree, and a lost bet pays nothing whatever its stake
        ("UPDATE bets_bet SET amount = amount - 1000 WHERE id = %s", [bet.pk]),
        ("UPDATE bets_ledgerentry SET amount = amount + 1000 WHERE id = %s", [entry.pk]),
    )
    code, output = verify_audit()
    [line] = broken_lines(output)
    assert f"Round {bet.round_id}" in line and "bets differ from the chained totals" in line, line
    assert any("the bets shown add up to" in p for p in record_check(round_record(world.settled)))


def test_a_deleted_bet_is_named_against_the_chained_totals(world):
    bet = Bet.objects.filter(round=world.voided).order_by("id").first()
    behind_the_back(
        ("DELETE FROM bets_ledgerentry WHERE bet_id = %s", [bet.pk]),
        ("DELETE FROM bets_bet WHERE id = %s", [bet.pk]),
    )
    code, output = verify_audit()
    [line] = broken_lines(output)
    assert f"Round {world.voided.pk}" in line and "bets differ from the chained totals" in line, line
