"""Every stream event is declared once (tables/events.py): the pages' module static/events.js and
the events table of docs/STREAM.md are generated from the declarations, and the sender takes only
declared payloads."""
import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tables import events, stream

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import stream_events  # noqa: E402


def test_static_events_js_is_generated_from_the_declarations():
    assert (ROOT / "static" / "events.js").read_text() == events.events_js()


def test_the_docs_list_exactly_the_declared_events_and_fields():
    doc = (ROOT / "docs" / "STREAM.md").read_text()
    assert stream_events.with_table(doc) == doc
    listed = dict(re.findall(r"^\| `([a-z.]+)` \| [^|]+ \| ([^|]*) \|", doc, re.M))
    declared = {e.name: e for e in events.TABLE_EVENTS + events.USER_EVENTS + events.LOBBY_EVENTS + events.CROWD_EVENTS}
    assert set(listed) == set(declared)
    for name, fields in listed.items():
        assert re.findall(r"`(\w+)`", fields) == [f.name for f in dataclasses.fields(declared[name])], name


def test_the_check_command_says_when_the_generated_files_are_stale():
    assert subprocess.run([sys.executable, "scripts/stream_events.py"], cwd=ROOT).returncode == 0


def test_names_are_unique_and_payloads_refuse_unknown_fields():
    names = [e.name for e in events.TABLE_EVENTS + events.USER_EVENTS + events.LOBBY_EVENTS + events.CROWD_EVENTS]
    assert len(names) == len(set(names))
    with pytest.raises(TypeError):
        events.CardDealt(position=1, side="andar", card="2H", colour="red")


@pytest.mark.django_db
def test_the_sender_takes_only_declared_payloads_of_the_right_kind(table):
    from django.db import transaction

    from tables.locking import Held

    with transaction.atomic():
        with pytest.raises(TypeError):
            stream.table_event(Held(table_id=table.pk), events.BetPlaced(round=1, bet=1, spot="andar", amount="1.00", balance="1.00"))
    with pytest.raises(TypeError):
        stream.user_event(1, events.CardDealt(position=1, side="andar", card="2H"))
