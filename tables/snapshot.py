"""What a watcher gets on connect, or after a gap in `seq`: the whole state of a table.

`seq` is the table's last event number: the snapshot includes every event up to it and none after.
It is read in one REPEATABLE READ transaction, so the round, the history and `seq` are one
consistent picture. Inside a caller's transaction it is read in that transaction, `seq` first, so a
change committed meanwhile may be in the snapshot and also come as an event after it (never the
other way round: nothing is missed); clients apply events idempotently (a card by its position)."""
from django.db import connection, transaction

from .models import Round, Table
from .selectors import round_current, round_detail, table_history

HISTORY = 50


def table_snapshot(*, table_id: int) -> dict | None:
    if not connection.in_atomic_block:
        with transaction.atomic():
            with connection.cursor() as cur:
                cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            return _read(table_id)
    return _read(table_id)


def _read(table_id: int) -> dict | None:
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        return None
    rnd = round_current(table=table) or Round.objects.filter(table=table).order_by("-id").first()
    detail = round_detail(rnd) if rnd else None
    if detail:
        for key in ("opened_at", "closes_at", "closed_at", "finished_at"):
            detail[key] = detail[key].isoformat() if detail[key] else None
    return {
        "type": "snapshot",
        "seq": table.stream_seq,
        "table": {"id": table.pk, "name": table.name, **table.snapshot(), "state": table.state,
                  "state_reason": table.state_reason},
        "round": detail,
        "history": table_history(table_id=table_id, limit=HISTORY),
    }

