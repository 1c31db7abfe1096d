"""Ledger entries are append-only, at the database as in the ORM: an UPDATE or a DELETE of an entry
is refused whatever the statement (a trigger), and nothing changes. TRUNCATE, the flush's way to
empty the table, still does (tests/test_postgresql_backend.py). That settlement, voids, refunds,
re-settlements and corrections never needed to change an entry: the bets, incidents and matches
tests run with the trigger on."""
import pytest
from django.db import IntegrityError, connection, transaction

from bets.ledger import chips_issue
from bets.models import LedgerEntry
from studio.appendonly import AppendOnlyError
from tests.bets.flow import D

pytestmark = pytest.mark.django_db

TABLE = LedgerEntry._meta.db_table


def rows():
    return list(LedgerEntry.objects.order_by("id").values_list("id", "account_id", "amount", "kind", "bet_id", "round_id", "memo"))


@pytest.mark.parametrize("statement", [
    f"UPDATE {TABLE} SET amount = amount + 100 WHERE id = %s",
    f"UPDATE {TABLE} SET memo = 'edited' WHERE id = %s",
    f"DELETE FROM {TABLE} WHERE id = %s",
])
def test_the_database_refuses_to_change_or_delete_an_entry(alice, statement):
    chips_issue(user=alice, amount=D("5"))
    before = rows()
    entry = LedgerEntry.objects.filter(account__user=alice).order_by("-id").first()
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(statement, [entry.pk])
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(statement.replace(" WHERE id = %s", ""))  # every row at once
    assert rows() == before


def test_the_orm_refuses_it_before_the_database(alice):
    entry = LedgerEntry.objects.filter(account__user=alice).first()
    before = rows()
    entry.memo = "edited"
    for change in (entry.save, entry.delete, lambda: LedgerEntry.objects.filter(pk=entry.pk).update(memo="x"),
                   lambda: LedgerEntry.objects.all().delete()):
        with pytest.raises(AppendOnlyError):
            change()
    assert rows() == before
