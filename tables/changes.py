"""The change log's one writer: a row per changed value of a table (its settings, limits, state,
driver, dealer on shift), who changed it, when, from what to what (tables.models.TableChange,
append-only). tables.services (table_save: the API and the admin) and tables.shifts write through
here, inside the transaction of the change itself: a change that rolls back leaves no record.

Values are stored as text, the way the API writes them: decimals as stored, a list comma-joined in
sorted order, an object (the multipliers) as canonical JSON, booleans `true`/`false`, a dealer by
username ("" for nobody)."""
from __future__ import annotations

import json

from django.utils import timezone

from audit import chain

from .models import Table, TableChange

API, ADMIN, COMMAND, MATCH = "api", "admin", "command", "match"  # MATCH: a friends' match sets up and drives its table
SOURCES = (API, ADMIN, COMMAND, MATCH)
# What the log follows: every column a person sets (not the stream's counter or the creation time).
LOGGED_FIELDS = tuple(f.name for f in Table._meta.concrete_fields if f.name not in ("id", "stream_seq", "created_at"))
DEALER = "dealer"  # the field of a change of the dealer on shift (tables.shifts)


def as_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return ",".join(sorted(str(item) for item in value))
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def same(old, new) -> bool:
    """Equal values (a decimal whatever its trailing zeros, a list whatever its order)."""
    if isinstance(old, (list, tuple)) or isinstance(new, (list, tuple)):
        return as_text(old) == as_text(new)
    return old == new


def actor_name(actor, source: str = COMMAND) -> str:
    if actor is not None:
        return actor.get_username()
    return "the match" if source == MATCH else "studio command"


def change_record(*, table_id: int, actor, source: str, field: str, old, new) -> TableChange:
    """Append one row to the change log, a record of the table's audit chain (audit.chain: numbered
    and hashed before its INSERT; the caller holds the table's row lock, the head is locked after it)."""
    if source not in SOURCES:
        raise ValueError(f"not a change's source: {source!r} (one of {', '.join(SOURCES)})")
    record = TableChange(table_id=table_id, at=timezone.now(), actor=actor if getattr(actor, "pk", None) else None,
                         actor_name=actor_name(actor, source), source=source, field=field, old=as_text(old), new=as_text(new))
    chain.seal(record, key=chain.table_key(table_id))
    record.save(force_insert=True)
    return record
