"""Shoe changes: the dealer puts a new pack (or packs) in the shoe, and the table's change log says
so (field `shoe`, old and new the shoe's number at that table: 1 for its first recorded shoe),
with who did it and when, in the table's audit chain like every other change.

Who may: the dealer on shift at the table, or a supervisor; another dealer (or one not signed in)
is refused with 409 `dealer_on_shift`, and the virtual dealer's and match tables, which no person
deals, with 409 `virtual_table`, as the rest of the API answers."""
from __future__ import annotations

from django.db import transaction

from studio.errors import NotFound, WrongMoment
from studio.roles import SUPERVISOR, has_role

from .access import PERSON, require_table_driver
from .changes import API, change_record
from .models import Shift, Table, TableChange

SHOE = "shoe"  # the change log's field of a shoe change


def shoe_number(*, table_id: int) -> int:
    """How many shoes the table's change log records (0: none yet)."""
    return TableChange.objects.filter(table_id=table_id, field=SHOE).count()


@transaction.atomic
def shoe_change(*, table_id: int, actor, source: str = API) -> TableChange:
    """Record a new shoe at the table: the change log's row (new: the shoe's number)."""
    table = Table.objects.select_for_update().filter(pk=table_id).first()  # change_record's lock, and one number at a time
    if table is None:
        raise NotFound("No such table.", code="not_found")
    require_table_driver(table=table, by=PERSON, doing="change its shoe")
    if not has_role(actor, SUPERVISOR):
        current = Shift.objects.select_related("dealer").filter(table=table, ended_at=None).first()
        if current is None or current.dealer_id != actor.pk:
            who = current.dealer.username if current else None
            message = (f"{who} is on shift at this table: only they (or a supervisor) may change its shoe."
                       if who else "No one is on shift at this table: sign in to it before you change its shoe.")
            raise WrongMoment(message, code="dealer_on_shift",
                              extra={"shift": current.pk if current else None, "dealer": who, "round_dealer": None})
    number = shoe_number(table_id=table.pk)
    return change_record(table_id=table.pk, actor=actor, source=source, field=SHOE, old=number or "", new=number + 1)


def shoe_info(change: TableChange | None) -> dict | None:
    """A shoe change as the API shows it."""
    if change is None:
        return None
    return {"number": int(change.new), "at": change.at, "by": change.actor_name}


def shoe_latest(*, table_id: int) -> dict | None:
    return shoe_info(TableChange.objects.filter(table_id=table_id, field=SHOE).order_by("-id").first())
