"""The locks of a writer of rounds and tables: taken here, in one order, by every writer.

The order (docs/AUDIT.md, "Lock order"):

1. the round's row, FOR UPDATE (`lock_round`); a bet takes it FOR SHARE, so that bets do not wait
   for each other while closing betting waits for the bets in flight;
2. its table's row, FOR NO KEY UPDATE: the table's stream counter (tables.stream) and its change
   log (tables.changes) are written under it, and a new round's foreign key (FOR KEY SHARE) does
   not wait for it;
3. the head of the table's audit chain (audit.chain.hold);
4. the wallets the change moves, by id (`wallets`: bets.ledger.wallets_lock, which sits above
   tables and is handed in);

then the writer's own rows (an incident, the bets, ledger entries, the round itself), and last
the hooks' reactions (a match, the reports' rollups, the integrity monitors: tables.hooks). Every
writer takes a prefix of this order or all of it, never a lock out of it:

- a round's change (open, close betting, a card, finish, incident, resume, void, correction,
  settlement): `lock_round`, all four;
- a bet: the round FOR SHARE and the player's wallet, in one statement (bets.placing);
- a table's change that is no round's (its settings and state, a match starting or scored):
  `lock_table`, steps 2 and 3; a person opening a round locks the dealer's user row and the
  tables of a shift that moves, in id order, before (tables.shifts).

So no two transactions can each hold a lock the other waits for: no deadlock. The stream's
numbering and the audit record take no lock of their own: they are handed the `Held` that says
their table's row and head are held (`require_held`), which only this module makes.

Every wait for a lock is bounded by the connection's `lock_timeout` (DB_LOCK_TIMEOUT_MS,
studio/settings.py): past it PostgreSQL raises LockNotAvailable, the transaction rolls back whole,
and a request answers 503 `busy` with Retry-After (studio.errors). How many request threads of a
process may be inside a round's writers at once is bounded too (studio.bulkhead.round_share).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

from django.db import connection

from audit import chain
from studio import sql
from studio.errors import NotFound, require_transaction

from .access import NOT_FOUND, require_round_visible
from .models import Round, Shift, Table
from .selectors import ROUND_FIELDS

_ON_SHIFT = (f"(SELECT s.dealer_id FROM {Shift._meta.db_table} s "
             f"WHERE s.table_id = {Round._meta.db_table}.table_id AND s.ended_at IS NULL)")
# The round under its lock, with the dealer on shift at its table (tables.shifts.require_round_dealer):
# written SQL, as the ORM spends more CPU building it than the database running it (studio.sql).
_ROUND = f"SELECT {sql.columns(Round, ROUND_FIELDS)}, {_ON_SHIFT} FROM {Round._meta.db_table} WHERE id = %s FOR UPDATE"
_TABLE = f"SELECT id FROM {Table._meta.db_table} WHERE id = %s FOR NO KEY UPDATE"


@dataclass(frozen=True, slots=True)
class Held:
    """What a writer holds, steps 1 to 3 (and 4 when it asked): a round's (`round`, its row as read
    under the lock, with `on_shift_id`) or a table's alone (`round` None; `table` its row when the
    writer asked for it). `wallets`: what the wallets' locker returned."""
    table_id: int
    round: Round | None = None
    table: Table | None = None
    wallets: Any = None

    @property
    def round_id(self) -> int | None:
        return None if self.round is None else self.round.pk

    def with_round(self, rnd: Round) -> Held:
        """A table's locks that now cover a round created under them (round_open)."""
        if rnd.table_id != self.table_id:
            raise ValueError(f"round {rnd.pk} is not at table {self.table_id}")
        return replace(self, round=rnd)


def require_held(held: Held, *, what: str) -> None:
    """`what` (a stream event's number, an audit record) is written under its table's locks, taken
    here in the documented order: refuse anything else."""
    if not isinstance(held, Held):
        raise TypeError(f"{what} needs the locks of tables.locking, not {held!r}")
    require_transaction(what)


def _table_and_head(table_id: int) -> None:
    with connection.cursor() as cur:
        cur.execute(_TABLE, [table_id])
        if cur.fetchone() is None:
            raise NotFound(NOT_FOUND["table"], code="not_found")
    chain.hold(chain.table_key(table_id))


def lock_round(round_id: int, *, user=None, wallets: Callable[[Round], Any] | None = None) -> Held:
    """In the caller's transaction: the round's row, its table's row, the table's chain head and
    (`wallets`, called with the round as read under its lock) the wallets, in that order, until the
    transaction ends. 404 if there is no such round, or if `user` (a person acting on it) may not
    see its table (tables.access: no query for a public table's round); the refusal comes before
    any other lock is taken."""
    require_transaction("a round's locks")
    row = sql.fetch_one(_ROUND, [round_id])
    if row is None:
        raise NotFound(NOT_FOUND["round"], code="not_found")
    rnd = sql.instance(Round, ROUND_FIELDS, row[:-1])
    rnd.on_shift_id = row[-1]
    if user is not None:
        require_round_visible(rnd=rnd, user=user)
    _table_and_head(rnd.table_id)
    return Held(table_id=rnd.table_id, round=rnd, wallets=None if wallets is None else wallets(rnd))


def lock_table(table_id: int, *, row: Table | None = None) -> Held:
    """In the caller's transaction: the table's row (read, as `Held.table`) and its chain's head,
    for a change of the table that is no round's (steps 2 and 3). 404 without such a table. `row`:
    the table's row, locked by the caller with others in id order (tables.shifts): only the head."""
    require_transaction("a table's locks")
    table = row if row is not None else Table.objects.select_for_update(no_key=True).filter(pk=table_id).first()
    if table is None or table.pk != table_id:
        raise NotFound(NOT_FOUND["table"], code="not_found")
    chain.hold(chain.table_key(table_id))
    return Held(table_id=table_id, table=table)
