"""The supervisors' stream: every event goes to the `supervisors` group (joined only by supervisors,
integrity/consumers.py), after the transaction that makes it true commits, through the tables'
one publisher (tables.stream.publish: never raises)."""
from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from tables.stream import encode, publish

from .events import SUPERVISOR_EVENTS, SupervisorEvent

SUPERVISORS = "supervisors"
_EVENTS = frozenset(SUPERVISOR_EVENTS)


def supervisor_event(payload: SupervisorEvent) -> None:
    if type(payload) not in _EVENTS:
        raise TypeError(f"not a supervisors' event: {payload!r}")
    event = {"type": payload.name, "at": timezone.now().isoformat(), **payload.fields()}
    message = {"type": "stream.event", "group": SUPERVISORS, "seq": None, "text": encode(event)}
    transaction.on_commit(lambda: publish([message]))
