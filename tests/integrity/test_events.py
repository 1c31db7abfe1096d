"""The supervisors' events are declared once (integrity/events.py): static/supervisor_events.js and
the events table of docs/INTEGRITY.md are generated from them, and the sender takes only them."""
import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import pytest

from integrity import events, stream
from tables import events as table_events

ROOT = Path(__file__).resolve().parents[2]


def test_static_supervisor_events_js_is_generated_from_the_declarations():
    assert (ROOT / "static" / "supervisor_events.js").read_text() == events.events_js()


def test_the_docs_list_exactly_the_declared_events_and_fields():
    doc = (ROOT / "docs" / "INTEGRITY.md").read_text()
    assert events.events_markdown() in doc
    listed = dict(re.findall(r"^\| `(integrity\.[a-z]+)` \| ([^|]*) \|", doc, re.M))
    declared = {e.name: e for e in events.SUPERVISOR_EVENTS}
    assert set(listed) == set(declared)
    for name, fields in listed.items():
        assert re.findall(r"`(\w+)`", fields) == [f.name for f in dataclasses.fields(declared[name])], name


def test_the_check_command_covers_the_supervisor_events():
    assert subprocess.run([sys.executable, "scripts/stream_events.py"], cwd=ROOT).returncode == 0


def test_names_do_not_collide_with_the_tables_events():
    names = [e.name for e in events.SUPERVISOR_EVENTS + table_events.TABLE_EVENTS + table_events.USER_EVENTS]
    assert len(names) == len(set(names))


@pytest.mark.django_db
def test_the_sender_takes_only_supervisor_events():
    with pytest.raises(TypeError):
        stream.supervisor_event(table_events.CardDealt(position=1, side="andar", card="2H"))
