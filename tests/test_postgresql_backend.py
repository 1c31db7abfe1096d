"""The test suite's PostgreSQL backend (tests/postgresql/base.py): Django's, with a flush by DELETE."""
import pytest
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection
from django.test.utils import CaptureQueriesContext

from audit.models import ChainHead
from bets.models import LedgerEntry
from bets.services import bet_place
from tables.models import DealtCard, Round, RoundEvent, Table
from tables.services import card_deal, round_close_betting, round_open

pytestmark = pytest.mark.django_db(transaction=True)


def _tables():
    return connection.introspection.django_table_names(only_existing=True, include_views=False)


def test_the_flush_sql_deletes_and_keeps_truncate_where_delete_cannot_do_the_same():
    tables = _tables()
    plain = connection.ops.sql_flush(no_style(), tables)
    kept = {"django_content_type", "auth_permission"}  # what the migrations fill and post_migrate would put back
    assert kept <= set(tables)
    append_only = {"bets_ledgerentry", "integrity_logentry", "integrity_lognode"}  # their rows refuse DELETE (a trigger)
    assert connection.ops.append_only_tables() == append_only

    def truncated(name):
        return f'DO $$BEGIN IF EXISTS (SELECT FROM "{name}") THEN TRUNCATE "{name}"; END IF; END$$;'

    assert plain == [" ".join(truncated(name) if name in append_only else f'DELETE FROM "{name}";'
                              for name in tables if name not in kept)]
    assert connection.ops.sql_flush(no_style(), tables, reset_sequences=True)[0].startswith("TRUNCATE")
    assert connection.ops.sql_flush(no_style(), tables, allow_cascade=True)[0].endswith("CASCADE;")
    assert connection.ops.sql_flush(no_style(), []) == []


def test_flush_empties_every_table_whatever_the_foreign_keys(make_table, dealer, alice):
    table = make_table()
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    bet_place(round_id=rnd.pk, player=alice, spot="andar", amount="10")
    round_close_betting(round_id=rnd.pk, actor=dealer)
    for card in ("2H", "3H", "KD"):
        card_deal(round_id=rnd.pk, card=card, actor=dealer)
    assert DealtCard.objects.count() == 3 and RoundEvent.objects.exists() and ChainHead.objects.exists()
    assert LedgerEntry.objects.filter(kind="bet").exists()  # the ledger's rows refuse DELETE

    with CaptureQueriesContext(connection) as ran:
        call_command("flush", interactive=False, verbosity=0, reset_sequences=False)  # as after a transactional test
    # one string of statements, in the order of Django's set of tables: an append-only table's may come first
    assert any("DELETE FROM" in q["sql"] for q in ran.captured_queries)
    append_only = ('TRUNCATE "bets_ledgerentry"', 'TRUNCATE "integrity_logentry"', 'TRUNCATE "integrity_lognode"')

    def without_append_only(sql):
        for kept_truncate in append_only:
            sql = sql.replace(kept_truncate, "")
        return sql

    assert not any("TRUNCATE" in without_append_only(q["sql"]) for q in ran.captured_queries)

    with connection.cursor() as cursor:
        left = {}
        for name in _tables():
            cursor.execute(f"SELECT count(*) FROM {connection.ops.quote_name(name)}")
            left[name] = cursor.fetchone()[0]
    # the content types and permissions stay (post_migrate would put them back); everything else is empty
    assert {name for name, rows in left.items() if rows} == {"django_content_type", "auth_permission"}
    assert not any("django_content_type" in q["sql"] and q["sql"].startswith("INSERT") for q in ran.captured_queries)
    assert not Table.objects.exists() and not Round.objects.exists()


def test_every_foreign_key_is_checked_at_commit_so_the_deletes_need_no_order():
    """The flush deletes table after table in one transaction: a foreign key checked at once (a
    migration's own SQL, say) would refuse the DELETE of a row still referenced at that moment."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT conrelid::regclass::text, conname FROM pg_constraint "
                       "WHERE contype = 'f' AND connamespace = 'public'::regnamespace AND NOT condeferred")
        checked_at_once = cursor.fetchall()
        cursor.execute("SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace")
        foreign_keys = cursor.fetchone()[0]
    assert foreign_keys > 20 and checked_at_once == []
