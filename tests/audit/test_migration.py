"""An existing studio upgrades with `migrate` and keeps every row: the records written before the
chains (rounds' events, change-log rows, access changes, incident notes) come out chained, each
table's and the studio's chain whole, and its rounds match their events (verify_audit)."""
from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from audit.chain import table_key

pytestmark = pytest.mark.django_db(transaction=True)

OLD = [("tables", "0007_shifts"), ("accounts", "0002_carry_drf_tokens")]
BEFORE = [("audit", None), *OLD]
EXAMPLE_2 = [("AC", "andar"), ("QS", "bahar"), ("8D", "andar"), ("7C", "bahar"), ("JH", "andar"), ("2H", "bahar"), ("KD", "andar")]
SETTINGS = {"first_card": "andar", "mode": "classic", "commission": "0.900", "side_bets": ["card_count", "first_andar", "first_bahar", "first_three"],
            "card_count_paytable": "standard", "chip_unit": "1.00", "currency": "CHIPS", "min_bet": "10.00", "max_bet": "500.00",
            "allow_both_sides": False, "betting_seconds": 15, "private": False, "match": None}


def _old_history(apps) -> dict:
    """Rows as a release without chains wrote them (its schema, its writers' shapes)."""
    User = apps.get_model("auth", "User")
    Table, Round, RoundEvent = (apps.get_model("tables", name) for name in ("Table", "Round", "RoundEvent"))
    DealtCard, Incident, TableChange = (apps.get_model("tables", name) for name in ("DealtCard", "Incident", "TableChange"))
    AccessChange = apps.get_model("accounts", "AccessChange")
    dealer, boss = User.objects.create(username="dealer"), User.objects.create(username="boss")
    for user in (dealer, boss):
        AccessChange.objects.create(actor=None, actor_name="studio_user command", source="command", user=user,
                                    username=user.username, field="created", old="", new=user.username)
    table = Table.objects.create(name="Old table")
    quiet = Table.objects.create(name="Quiet table")
    TableChange.objects.create(table=table, actor=boss, actor_name="boss", source="api", field="created", old="", new="Old table")
    now = timezone.now()
    rnd = Round.objects.create(table=table, settings=SETTINGS, joker="KS", first_side="andar", status="settled", opened_at=now,
                               closes_at=now, winner="andar", cards_dealt=7, dealer=dealer, settlement_version=2)

    def event(action, frm, to, data, actor=dealer):
        RoundEvent.objects.create(round=rnd, actor=actor, action=action, from_status=frm, to_status=to, data=data)

    event("opened", "", "betting", {"joker": "KS", "settings": SETTINGS})
    event("betting_closed", "betting", "dealing", {"reason": "dealer"})
    for position, (card, side) in enumerate(EXAMPLE_2, 1):
        DealtCard.objects.create(round=rnd, position=position, side=side, card="9D" if card == "8D" else card)
        event("card", "dealing", "dealing", {"position": position, "side": side, "card": card})
    event("finished", "dealing", "finished", {"winner": "andar", "cards_dealt": 7, "match": "KD"})
    event("settled", "finished", "settled", {"version": 1, "winner": "andar", "bets": 0, "staked": "0.00", "paid": "0.00"}, actor=None)
    TableChange.objects.create(table=table, actor=boss, actor_name="boss", source="api", field="min_bet", old="10.00", new="20.00")
    first_note = {"at": (now + timedelta(seconds=1)).isoformat(), "by": "boss", "text": "the third card was a 9D"}
    incident = Incident.objects.create(round=rnd, raised_by=boss, kind="misread", notes=[first_note])
    event("incident", "settled", "settled", {"incident": incident.pk, "kind": "misread", "notes": first_note["text"]}, actor=boss)
    # A note added later (not an event in those days), then the correction (no winner recorded then).
    incident.notes = [first_note, {"at": (now + timedelta(seconds=2)).isoformat(), "by": "boss", "text": "seen on camera 2"}]
    incident.save()
    event("corrected", "settled", "settled", {"action": "replace", "position": 3, "before": "8D", "after": "9D"}, actor=boss)
    event("resettled", "settled", "settled", {"version": 2, "winner": "andar", "bets": 0, "staked": "0.00", "paid": "0.00"}, actor=boss)
    Incident.objects.filter(pk=incident.pk).update(status="resolved", resolved_by=boss, resolved_at=now, resolution="fixed")
    event("incident_resolved", "settled", "settled", {"incident": incident.pk, "resolution": "fixed"}, actor=boss)
    return {"table": table.pk, "quiet": quiet.pk, "round": rnd.pk, "incident": incident.pk}


def test_the_records_that_exist_are_chained_and_whole_after_migrate():
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    try:
        executor.migrate(BEFORE)
        ids = _old_history(MigrationExecutor(connection).loader.project_state(OLD).apps)

        executor = MigrationExecutor(connection)
        executor.migrate(latest)
        apps = executor.loader.project_state(latest).apps
        RoundEvent, TableChange = apps.get_model("tables", "RoundEvent"), apps.get_model("tables", "TableChange")
        AccessChange, ChainHead = apps.get_model("accounts", "AccessChange"), apps.get_model("audit", "ChainHead")
        key = table_key(ids["table"])
        assert RoundEvent.objects.count() == 15 + 2  # every event kept, and each incident note recorded as one
        notes = list(RoundEvent.objects.filter(action="incident_note").order_by("chain_seq").values_list("data", flat=True))
        assert [n["note"]["text"] for n in notes] == ["the third card was a 9D", "seen on camera 2"]
        seqs = sorted([*RoundEvent.objects.filter(chain=key).values_list("chain_seq", flat=True),
                       *TableChange.objects.filter(table_id=ids["table"]).values_list("chain_seq", flat=True)])
        assert seqs == list(range(1, 20))
        assert ChainHead.objects.get(key=key).seq == 19
        assert list(AccessChange.objects.order_by("chain_seq").values_list("chain_seq", flat=True)) == [1, 2]
        assert not ChainHead.objects.filter(key=table_key(ids["quiet"])).exists()  # nothing recorded there yet

        out = StringIO()
        call_command("verify_audit", stdout=out)
        assert f"{key}: whole, 19 records" in out.getvalue() and "studio: whole, 2 records" in out.getvalue()
        assert "All 2 chains are whole." in out.getvalue()
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(latest)
