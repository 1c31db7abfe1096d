"""Dealer shifts: who is dealing at which table, since when, and how their shift ended; and the one
rule of which person may drive a round there.

A dealer is on shift at one table at a time, and a table has one dealer on shift at a time (two
partial unique indexes hold both). Signing in to a table (`shift_start`) ends the shift of the
dealer who was there (`next_dealer`) and the newcomer's own shift at another table (`moved`); a
shift also ends by the dealer's sign-out or a supervisor (`shift_end`). Supervisors take a table
over only by signing in to it. The virtual dealer has no shifts (a virtual or match table refuses a
sign-in with 409 `virtual_table`). Each change of the dealer on shift is a row of the change log
(field `dealer`). Shifts are not on the players' stream: the console and the supervisors' floor read
them (GET /api/tables/{id}/shifts/, GET /api/floor/).

Who may drive a round (`require_round_dealer`, asked by every service that changes a round for a
person: opening, closing betting, dealing, correcting, raising an incident and adding a note to
one): a supervisor at any person-driven table, and anyone on the virtual dealer's or a match's
round only as tables.access and incidents allow (supervisors raise incidents there; nobody deals
for them). A dealer acts on a round only

- if they are on shift at the round's table, or
- if no one is on shift there and the round is theirs (they opened it): a dealer who moved to
  another table, or whose shift a supervisor ended, still finishes their own round;

otherwise 409 `dealer_on_shift`, naming who is on shift (`dealer`, null when no one is) and whose
the round is (`round_dealer`): signing in to the table takes it over. Opening a round is the same
rule with the new round as the dealer's own (`shift_for_round`): at a table with no one on shift it
starts the dealer's shift there, ending their shift elsewhere; where another dealer is on shift it
is refused. A supervisor opens in their own shift if they are on shift there, else in none. The
clock (the betting timer, the sweep) closes betting whoever is on shift. The shift is read in the
statement that locks the round's row (tables.locking.lock_round): no second query on a card's
path, and an act that read the round before a sign-in committed is the outgoing dealer's last.

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

from .access import PERSON, VIRTUAL, require_table_driver, round_driver
from .changes import API, DEALER, change_record
from .models import Round, Shift, Table

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
    """Opening a round (the caller holds lock_tables' locks): the shift it belongs to. The rule of
    require_round_dealer with the new round as the dealer's own: at a table with no one on shift a
    dealer starts one (leaving their table elsewhere); where another dealer is on shift the round is
    refused. A supervisor opens in their own shift if they are on shift here, else in none; the
    virtual dealer's rounds have no shift."""
    if by != PERSON or dealer is None or not getattr(dealer, "pk", None):
        return None
    current = Shift.objects.filter(table=table, ended_at=None).first()
    _require_may_drive(actor=dealer, table_id=table.pk, on_shift=current.dealer_id if current else None,
                       opener_id=dealer.pk, doing="open a round", current=current)
    if current is not None and current.dealer_id == dealer.pk:
        return current
    if current is not None or has_role(dealer, SUPERVISOR):
        return None  # a supervisor, where another dealer (or no one) is on shift
    return _take(table=table, dealer=dealer, by=dealer, source=API)


UNREAD = object()


def require_round_dealer(*, rnd: Round, actor, doing: str) -> None:
    """The one rule of who may act on a round for a person (the module's docstring): closing its
    betting, dealing, correcting its cards, raising an incident on it or adding a note to one. A
    supervisor may; a dealer only on a person's round (else 409 `virtual_table`), and only while on
    shift at its table or, with no one on shift there, on a round they opened (else 409
    `dealer_on_shift`). The dealer on shift is the one tables.locking.lock_round read with the round
    (`rnd.on_shift_id`), else read here. The actor's roles are read only when the shift does not
    already let them act."""
    if actor is None or not getattr(actor, "pk", None):
        raise NotAllowed(f"Only a dealer or a supervisor may {doing}.", code="permission_denied")
    driver = round_driver(rnd)
    if driver != PERSON:
        if has_role(actor, SUPERVISOR):
            return
        who = "The virtual dealer runs this round" if driver == VIRTUAL else "This round belongs to a match"
        raise WrongMoment(f"{who}: only a supervisor may {doing}.", code="virtual_table", extra={"driver": driver})
    on_shift = getattr(rnd, "on_shift_id", UNREAD)
    if on_shift is UNREAD:
        on_shift = Shift.objects.filter(table_id=rnd.table_id, ended_at=None).values_list("dealer_id", flat=True).first()
    _require_may_drive(actor=actor, table_id=rnd.table_id, on_shift=on_shift, opener_id=rnd.dealer_id, doing=doing, rnd=rnd)


def _require_may_drive(*, actor, table_id: int, on_shift: int | None, opener_id: int | None, doing: str,
                       current: Shift | None = None, rnd: Round | None = None) -> None:
    """Nothing when `actor` is the dealer on shift at the table (`on_shift`: a user id, None when no
    one is), or no one is and the round is theirs (`opener_id`: the round's dealer; the actor's own
    id for a round being opened), or a supervisor; else 409 `dealer_on_shift` naming who is on shift
    and whose the round is (`rnd`; none when a round is being opened)."""
    if on_shift == actor.pk or (on_shift is None and opener_id == actor.pk) or has_role(actor, SUPERVISOR):
        return
    if current is None and on_shift is not None:
        current = Shift.objects.filter(table_id=table_id, ended_at=None).first()
    names = dict(get_user_model().objects.filter(pk__in={on_shift, opener_id} - {None}).values_list("pk", "username"))
    dealer, owner = names.get(on_shift), names.get(opener_id) if rnd is not None else None
    subject = f"round {rnd.pk}" if rnd is not None else "this table"
    if on_shift is not None:
        message = (f"{dealer} is on shift at this table: only they (or a supervisor) may {doing} in {subject}. "
                   "Sign in to the table to take over first.") if rnd is not None else (
                   f"{dealer} is on shift at this table: sign in to it to take over first.")
    else:
        message = (f"No one is on shift at this table and {subject} is {owner or 'no one'}'s: sign in to the table to "
                   f"take it over before you {doing}.")
    raise WrongMoment(message, code="dealer_on_shift", extra={
        "shift": current.pk if current is not None else None, "dealer": dealer, "round_dealer": owner})


def shifts_end_at_table(*, table: Table, actor, source: str) -> None:
    """The table stops being a person's (it became the virtual dealer's): its shift ends."""
    for shift in Shift.objects.select_related("dealer").filter(table=table, ended_at=None):
        _end(shift, now=timezone.now(), by=actor, reason=End.SUPERVISOR, source=source)
