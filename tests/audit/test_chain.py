"""The chain's arithmetic and its appends (audit.chain): the canonical form, each link, the head
advanced in the writer's transaction, what each chained model hashes, and what an append costs."""
from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta, timezone as tz
from decimal import Decimal
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from accounts.models import AccessChange
from audit import chain
from audit.models import GENESIS, ChainHead
from tables.changes import change_record
from studio.appendonly import AppendOnlyError
from tables.models import RoundEvent, Table, TableChange
from tables.services import card_deal, round_close_betting, round_open


def test_the_canonical_form_is_sorted_compact_ascii_json():
    at = datetime(2026, 12, 1, 20, 43, 44, 123456, tzinfo=tz(timedelta(hours=2)))
    form = {"b": [1, True, None], "a": "Bahar – ₹", "c": {"z": Decimal("2.50"), "y": at}}
    assert chain.canonical(form) == '{"a":"Bahar \\u2013 \\u20b9","b":[1,true,null],"c":{"y":"2026-12-01T18:43:44.123456Z","z":"2.50"}}'
    assert chain.plain(datetime(2026, 1, 1, tzinfo=UTC)) == "2026-01-01T00:00:00.000000Z"  # microseconds always written


@pytest.mark.parametrize("value", [1.5, datetime(2026, 1, 1), {1: "a"}, object()])
def test_what_has_no_canonical_form_is_refused(value):
    with pytest.raises(TypeError):
        chain.canonical({"x": value})


def test_a_hash_covers_the_previous_hash_and_the_content_digest():
    form = {"kind": "table_change", "field": "state"}
    d = chain.digest(form)
    assert d == hashlib.sha256(chain.canonical(form).encode()).hexdigest()
    assert chain.link(GENESIS, d) == hashlib.sha256((GENESIS + d).encode()).hexdigest()


@pytest.mark.parametrize("form", [
    {}, {"kind": "x"}, {"a": 1, "z": 2}, {"seq": 7, "kind": "x"}, {"sea": 1, "seq_": 2, "se": 3, "sf": 4},
    {"kind": "round_event", "data": {"seq": 1, "card": "10H", "note": "Bahar – ₹"}, "at": datetime(2026, 1, 1, tzinfo=UTC)},
])
def test_the_halves_around_the_seq_make_the_canonical_numbered_form(form):
    before, after = chain.halves(form, key="table:7")
    for seq in (1, 9, 10, 123456789012):
        assert before + str(seq) + after == chain.canonical(chain.numbered(form, key="table:7", seq=seq))


@pytest.mark.django_db
def test_the_databases_hash_is_the_chains_hash_for_any_content():
    """The head hashes the record in its UPDATE (audit.chain.append); Python computes
    the same link and refuses a difference. Contents with non-ASCII text, escapes and nested "seq"
    keys, over several records, each checked against the hash computed here from scratch."""
    forms = [{"kind": "x", "note": "Bahar – ₹ \"quoted\" \\ and\nnewline"}, {"kind": "x", "data": {"seq": 0}},
             {"kind": "y", "n": Decimal("12.50"), "list": [1, None, True]}, {}]
    prev = GENESIS
    with transaction.atomic():
        for seq, form in enumerate(forms, start=1):
            got = chain.append("test", form)
            assert got == (seq, prev, chain.link(prev, chain.digest(chain.numbered(form, key="test", seq=seq))))
            prev = got[2]
    head = ChainHead.objects.get(key="test")
    assert (head.seq, head.hash) == (len(forms), prev)


@pytest.mark.django_db
def test_appends_number_a_chain_from_one_and_link_each_record_to_the_one_before():
    with transaction.atomic():
        first = chain.append("test", {"kind": "x", "n": 1})
        second = chain.append("test", {"kind": "x", "n": 2})
    assert first == (1, GENESIS, chain.link(GENESIS, chain.digest({"kind": "x", "n": 1, "chain": "test", "seq": 1})))
    assert second[:2] == (2, first[2])
    assert second[2] == chain.link(first[2], chain.digest({"kind": "x", "n": 2, "chain": "test", "seq": 2}))
    head = ChainHead.objects.get(key="test")
    assert (head.seq, head.hash) == (2, second[2])


@pytest.mark.django_db
def test_a_rolled_back_append_leaves_no_gap():
    with transaction.atomic():
        chain.append("test", {"kind": "x"})
    with pytest.raises(RuntimeError), transaction.atomic():
        chain.append("test", {"kind": "x"})
        raise RuntimeError("the writer's change failed")
    with transaction.atomic():
        assert chain.append("test", {"kind": "x"})[0] == 2


@pytest.mark.django_db
def test_an_append_costs_one_statement_and_a_chains_first_three():
    with transaction.atomic(), CaptureQueriesContext(connection) as first:
        chain.append("test", {"kind": "x"})
    with transaction.atomic(), CaptureQueriesContext(connection) as next_:
        chain.append("test", {"kind": "x"})
    # The UPDATE that numbers and hashes (the first: UPDATE with no row, INSERT, UPDATE)
    assert (len(first), len(next_)) == (3, 1)


@pytest.mark.django_db
def test_a_card_takes_its_locks_in_the_documented_order_and_no_other(table, dealer):
    """tables.locking: the round's row, the table's row, the chain's head, before anything is
    written; the stream's counter and the audit record then take no lock of their own (the UPDATE
    of the counter and the head's append find their rows held). Eight statements in all, besides
    BEGIN and COMMIT (the card's INSERT writes the round's count too)."""
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    round_close_betting(round_id=rnd.pk, actor=dealer)
    with CaptureQueriesContext(connection) as seen:
        card_deal(round_id=rnd.pk, card="2C", actor=dealer)
    statements = [q["sql"] for q in seen.captured_queries if not q["sql"].startswith(("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE SAVEPOINT"))]
    locks = [sql for sql in statements if " FOR " in sql]
    assert [("tables_round" in s, "tables_table" in s, "audit_chainhead" in s) for s in locks] == [
        (True, False, False), (False, True, False), (False, False, True)], statements
    assert statements.index(locks[-1]) == 2, statements  # all three before any other statement
    counter = [i for i, sql in enumerate(statements) if "stream_seq" in sql]
    append = [i for i, sql in enumerate(statements) if sql.startswith("UPDATE audit_chainhead")]
    assert len(counter) == 1 and len(append) == 1 and counter[0] < append[0], statements
    assert len(statements) == 8, statements


@pytest.mark.django_db
def test_opening_a_round_locks_its_tables_row_once_before_the_head(table, dealer):
    """round_open locks the table's row (with the dealer's shift, tables.shifts) before its audit
    record, which then takes no row lock of its own."""
    with CaptureQueriesContext(connection) as seen:
        round_open(table_id=table.pk, joker="KS", dealer=dealer)
    statements = [q["sql"] for q in seen.captured_queries]
    locks = [i for i, sql in enumerate(statements) if "tables_table" in sql and "FOR " in sql]
    heads = [i for i, sql in enumerate(statements) if "audit_chainhead" in sql]
    assert len(locks) == 1 and locks[0] < heads[0], statements


@pytest.mark.parametrize("model, left_out", [
    (RoundEvent, set()),
    (TableChange, {"actor_id"}),  # deleting a user sets it to null: the actor's name is hashed instead
    (AccessChange, {"actor_id", "user_id"}),
])
def test_a_record_is_hashed_over_every_column_but_its_id_and_its_chain_columns(model, left_out):
    chain_columns = {"id", "chain", "chain_seq", "prev_hash", "hash"}
    columns = {f.attname for f in model._meta.concrete_fields}
    assert set(model.CHAINED_COLUMNS) == columns - chain_columns - left_out
    assert model.CHAINED_KIND in ("round_event", "table_change", "access_change")


@pytest.mark.django_db
def test_every_writer_fills_the_chain_columns_and_a_rows_stored_form_gives_its_hash(table, dealer, supervisor):
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)  # a shift starts: a change-log row too
    key = chain.table_key(table.pk)
    records = [*TableChange.objects.filter(table=table), *RoundEvent.objects.filter(round=rnd),
               *AccessChange.objects.all()]
    assert records and all(r.chain_seq and r.prev_hash and r.hash for r in records)
    for record in records:
        stored = type(record).objects.get(pk=record.pk)  # as read back from the database
        form = chain.numbered(chain.form_of(record.CHAINED_KIND, stored, record.CHAINED_COLUMNS),
                              key=chain.STUDIO if isinstance(record, AccessChange) else key, seq=stored.chain_seq)
        assert chain.link(stored.prev_hash, chain.digest(form)) == stored.hash
    assert RoundEvent.objects.get(round=rnd).chain == key


@pytest.mark.django_db
def test_deleting_a_user_who_changed_a_table_leaves_the_chain_whole(table, supervisor):
    passer = get_user_model().objects.create_user("passer")
    with transaction.atomic():
        Table.objects.select_for_update().get(pk=table.pk)
        change_record(table_id=table.pk, actor=passer, source="api", field="min_bet", old="10", new="20")
    passer.delete()
    assert TableChange.objects.get(table=table).actor_id is None
    out = StringIO()
    call_command("verify_audit", "--table", str(table.pk), stdout=out)
    assert "whole, 1 records" in out.getvalue()


@pytest.mark.django_db
def test_round_events_are_append_only(table, dealer):
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    with pytest.raises(AppendOnlyError):
        RoundEvent.objects.filter(round=rnd).update(action="forged")
    with pytest.raises(AppendOnlyError):
        RoundEvent.objects.get(round=rnd).delete()
