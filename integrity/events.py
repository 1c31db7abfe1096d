"""The supervisors' stream events (`ws://HOST/ws/supervisors/`), declared once as tables/events.py
declares the tables': name and payload. The sender (integrity/stream.py) takes only these; the
pages import the names from `static/supervisor_events.js` and docs/INTEGRITY.md lists them, both
generated from here (`python scripts/stream_events.py --write`; tests/integrity/test_events.py checks).

Besides its payload's fields an event carries `type` and `at`.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import TypedDict

from tables.events import Event


class AlertInfo(TypedDict):
    id: int
    subject: str  # "table", "dealer" or "operator"
    table: int | None
    dealer: int | None
    operator: int | None
    name: str  # the table's name, the dealer's username or the operator's code
    check: str
    statistic: int
    threshold: int
    round: int | None
    raised_at: str
    acknowledged_at: str | None
    acknowledged_by: str | None
    note: str


class SupervisorEvent(Event):
    """An event for every supervisor's console."""


@dataclass(frozen=True)
class AlertRaised(SupervisorEvent):
    """An integrity check reached its threshold: the alert, open until acknowledged."""
    name = "integrity.alert"
    alert: AlertInfo


@dataclass(frozen=True)
class AlertAcknowledged(SupervisorEvent):
    """A supervisor acknowledged an alert with a note; its check starts afresh."""
    name = "integrity.acknowledged"
    alert: AlertInfo


SUPERVISOR_EVENTS: tuple[type[SupervisorEvent], ...] = (AlertRaised, AlertAcknowledged)


def _js_name(event: type[Event]) -> str:
    return "".join(c if c.isalnum() else "_" for c in event.name).upper()


def events_js() -> str:
    """static/supervisor_events.js: the supervisors' event names for the pages, as an ES module."""
    lines = ["// Generated from integrity/events.py by scripts/stream_events.py: do not edit.", ""]
    lines += [f"export const {_js_name(e)} = {json.dumps(e.name)};" for e in SUPERVISOR_EVENTS]
    lines.append("")
    lines.append("export const SUPERVISOR_EVENTS = Object.freeze([" + ", ".join(_js_name(e) for e in SUPERVISOR_EVENTS) + "]);")
    return "\n".join(lines) + "\n"


def events_markdown() -> str:
    rows = ["| event | fields | meaning |", "|---|---|---|"]
    for e in SUPERVISOR_EVENTS:
        fields = ", ".join(f"`{f.name}` ({f.type})" for f in dataclasses.fields(e))
        doc = " ".join((e.__doc__ or "").split())
        rows.append(f"| `{e.name}` | {fields} | {doc} |")
    return "\n".join(rows) + "\n"
