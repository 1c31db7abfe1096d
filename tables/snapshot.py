"""What a watcher gets on connect, or after a gap in `seq`: the whole state of a table."""
from .models import Round, Table
from .selectors import round_current, round_detail, table_history


def table_snapshot(*, table_id: int) -> dict | None:
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
        "table": {"id": table.pk, "name": table.name, **table.snapshot()},
        "round": detail,
        "history": table_history(table_id=table_id),
    }
