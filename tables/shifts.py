"""Dealer shifts: who is dealing at which table, since when, and how their shift ended.

A dealer is on shift at one table at a time, and a table has one dealer on shift at a time (two
partial unique indexes hold both). Signing in to a table (`shift_start`) ends the shift of the
dealer who was there (`next_dealer`) and the newcomer's own shift at another table (`moved`); a
shift also ends by the dealer's sign-out or a supervisor (`shift_end`). Opening a round
(`shift_for_round`, called by tables.services.round_open) at a table with no one on shift starts a
shift there, ending the dealer's shift elsewhere (a round they are dealing there can still be
finished: dealing does not ask for a shift); at a table where another dealer is on shift it is
refused (409 `dealer_on_shift`). Supervisors open rounds anywhere without starting a shift, and
take a table over only by signing in to it. The virtual dealer has no shifts (a virtual or match
table refuses a sign-in with 409 `virtual_table`). Each change of the dealer on shift is a row of
the change log (field `dealer`). Shifts are not on the players' stream: the console and the
supervisors' floor read them (GET /api/tables/{id}/shifts/, GET /api/floor/).

Locks: the dealer's own user row first (FOR NO KEY UPDATE: it does not hold up the foreign-key
checks of rows that name the dealer), so one dealer's sign-ins and round openings run one at a
time and their other table cannot change under them; then every table a change touches (the table
signed in to, and the one the dealer leaves), in id order; then the shift rows (ending one is a
compare-and-set on its open row). So a swap of two dealers between two tables, or one dealer's
sign-ins at several tables at once, runs one after the other instead of deadlocking. A supervisor
ending the dealer's shift meanwhile (which locks only that table) makes the transaction try again
(`lock_tables`).
"""
from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from studio.errors import NotAllowed, NotFound, WrongMoment
from studio.roles import SUPERVISOR, has_role

from .access import PERSON, require_table_driver
from .changes import API, DEALER, change_record
from .models import Shift, Table

End = Shift.End
ATTEMPTS = 3
# How a violated open-shift index names itself: by its constraint's name.
OPEN_SHIFT_INDEXES = ("one_open_shift_per_table", "one_open_shift_per_dealer")


class _Moved(Exception):
    """The dealer's open shift moved between the read and the locks: try again."""


def shift_current(*, table: Table | int) -> Shift | None:
    table_id = table.pk if isinstance(table, Table) else table
    return Shift.objects.select_related("dealer").filter(table_id=table_id, ended_at=None).first()


def rotation_due(*, started_at: datetime | None, minutes: int, now: datetime | None = None) -> bool:
    """A shift that has lasted the table's shift length (or longer) is due for rotation."""
    if started_at is None:
        return False
    return (now or timezone.now()) - started_at >= timedelta(minutes=minutes)


def shift_info(shift: Shift | None, *, minutes: int, now: datetime | None = None) -> dict | None:
    """The dealer on shift as the API, the floor and the snapshot show it."""
    if shift is None:
        return None
    now = now or timezone.now()
    end = shift.ended_at or now
    return {
        "id": shift.pk, "dealer": shift.dealer.username, "started_at": shift.started_at, "ended_at": shift.ended_at,
        "end_reason": shift.end_reason or None, "seconds": int((end - shift.started_at).total_seconds()),
        "rotation_due": shift.ended_at is None and rotation_due(started_at=shift.started_at, minutes=minutes, now=now),
    }


def _open_table_of(dealer) -> int | None:
    return Shift.objects.filter(dealer_id=dealer.pk, ended_at=None).values_list("table_id", flat=True).first()


def lock_tables(*, table_id: int, dealer) -> Table:
    """In the caller's transaction: lock the dealer's user row, then the table and the one where the
    dealer is on shift (if another), in id order; the table, locked. Raises _Moved when a supervisor
    ended the dealer's shift meanwhile."""
    person = dealer is not None and getattr(dealer, "pk", None)
    if person:
        get_user_model().objects.select_for_update(no_key=True).filter(pk=dealer.pk).values_list("pk", flat=True).first()
    other = _open_table_of(dealer) if person else None
    ids = sorted({table_id, other} - {None})
    locked = {t.pk: t for t in Table.objects.select_for_update().filter(pk__in=ids).order_by("pk")}
    if table_id not in locked:
        raise Table.DoesNotExist
    if other is not None and _open_table_of(dealer) != other:
        raise _Moved
    return locked[table_id]


def with_tables_locked(table_id: int, dealer, work):
    """Run `work(table)` in a transaction holding lock_tables' locks, trying again if the dealer's
    shift moved between the read and the locks; a race the locks did not serialize (the partial
    unique indexes caught it) is a 409 `shift_race`, nothing applied."""
    for _ in range(ATTEMPTS):
        try:
            with transaction.atomic():
                return work(lock_tables(table_id=table_id, dealer=dealer))
        except _Moved:
            continue
        except IntegrityError as exc:
            if not any(name in str(exc) for name in OPEN_SHIFT_INDEXES):
                raise  # not ours (a round's own index: round_open answers it)
            break
    raise WrongMoment("Another sign-in was just made at this table or by this dealer: try again.", code="shift_race")


def _end(shift: Shift, *, now, by, reason: str, source: str, record: bool = True) -> bool:
    """Compare-and-set on the open row: True when this call ended it, recorded in the change log."""
    if Shift.objects.filter(pk=shift.pk, ended_at=None).update(ended_at=now, ended_by=by, end_reason=reason) != 1:
        return False
    shift.ended_at, shift.ended_by, shift.end_reason = now, by, reason
    if record:  # (not when the next dealer signs in: that records the hand-over itself)
        change_record(table_id=shift.table_id, actor=by, source=source, field=DEALER, old=shift.dealer.username, new="")
    return True


def _take(*, table: Table, dealer, by, source: str) -> Shift:
    """Under lock_tables' locks: end whoever is on shift here and this dealer's shift elsewhere,
    start this dealer's shift here."""
    now = timezone.now()
    previous = ""
    for shift in Shift.objects.select_related("dealer").filter(dealer_id=dealer.pk, ended_at=None).exclude(table=table):
        _end(shift, now=now, by=by, reason=End.MOVED, source=source)
    for shift in Shift.objects.select_related("dealer").filter(table=table, ended_at=None):
        if _end(shift, now=now, by=by, reason=End.NEXT_DEALER, source=source, record=False):
            previous = shift.dealer.username
    shift = Shift.objects.create(table=table, dealer=dealer, started_at=now)
    change_record(table_id=table.pk, actor=by, source=source, field=DEALER, old=previous, new=dealer.username)
    return shift


def shift_start(*, table_id: int, dealer, source: str = API) -> tuple[Shift, bool]:
    """The dealer (or a supervisor taking the table over) signs in to the table: (their shift there,
    whether it is new). Signing in again where one is already on shift keeps that shift."""
    def work(table: Table):
        require_table_driver(table=table, by=PERSON, doing="sign in to it")
        current = Shift.objects.filter(table=table, ended_at=None).first()
        if current is not None and current.dealer_id == dealer.pk:
            return current, False
        return _take(table=table, dealer=dealer, by=dealer, source=source), True

    return with_tables_locked(table_id, dealer, work)


def shift_end(*, shift_id: int, actor, source: str = API) -> Shift:
    """Sign-out (the dealer on shift) or a supervisor's end of the shift: 403 for anyone else, 409
    once it has ended."""
    shift = Shift.objects.select_related("dealer").filter(pk=shift_id).first()
    if shift is None:
        raise NotFound("No such shift.", code="not_found")
    mine = shift.dealer_id == actor.pk
    if not mine and not has_role(actor, SUPERVISOR):
        raise NotAllowed("Only the dealer on shift or a supervisor may end this shift.", code="not_your_shift")
    with transaction.atomic():
        Table.objects.select_for_update().filter(pk=shift.table_id).first()
        ended = _end(shift, now=timezone.now(), by=actor, reason=End.SIGNED_OUT if mine else End.SUPERVISOR, source=source)
    if not ended:
        shift.refresh_from_db()
        raise WrongMoment(f"The shift already ended ({shift.end_reason}).", code="shift_ended",
                          extra={"end_reason": shift.end_reason})
    return shift


def shift_for_round(*, table: Table, dealer, by: str) -> Shift | None:
    """Opening a round (the caller holds lock_tables' locks): the shift it belongs to. A dealer at
    a table with no one on shift starts one (leaving their table elsewhere); at a table where
    another dealer is on shift the round is refused. A supervisor opens in their own shift if they
    are on shift here, else in none; the virtual dealer's rounds have no shift."""
    if by != PERSON or dealer is None or not getattr(dealer, "pk", None):
        return None
    current = Shift.objects.select_related("dealer").filter(table=table, ended_at=None).first()
    if current is not None and current.dealer_id == dealer.pk:
        return current
    if has_role(dealer, SUPERVISOR):
        return None
    if current is not None:
        raise WrongMoment(
            f"{current.dealer.username} is on shift at this table: sign in to it to take over first.",
            code="dealer_on_shift", extra={"shift": current.pk, "dealer": current.dealer.username},
        )
    return _take(table=table, dealer=dealer, by=dealer, source=API)


def shifts_end_at_table(*, table: Table, actor, source: str) -> None:
    """The table stops being a person's (it became the virtual dealer's): its shift ends."""
    for shift in Shift.objects.select_related("dealer").filter(table=table, ended_at=None):
        _end(shift, now=timezone.now(), by=actor, reason=End.SUPERVISOR, source=source)
