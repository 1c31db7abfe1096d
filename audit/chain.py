"""Hash chains over the studio's append-only records, so that no one edits, deletes or inserts one
unseen (docs/AUDIT.md).

A chain is a run of records, rows of one or more models, numbered 1, 2, 3... (`chain_seq`), each
carrying the hash of the record before it (`prev_hash`, 64 zeros for the first) and its own:

    digest = sha256(canonical(form))       the record's content
    hash   = sha256(prev_hash + digest)    the two hex strings concatenated

`form` is the record as a dict: the chain's key, its seq, its kind and the values of the columns
its model lists in CHAINED_COLUMNS. Hashing the digest instead of the content lets a record show
another record's link (seq, prev, digest, hash) without showing that record's content.

The canonical form is JSON with sorted keys, no spaces (separators "," and ":"), ASCII only
(`ensure_ascii`), over str, int, bool, null, lists and dicts: a decimal is written as its string,
a datetime in UTC with microseconds and a `Z` (2026-12-01T18:43:44.123456Z). Anything else (a
float, a naive datetime, a key that is not a string) has no canonical form and is refused.

Appending (`append`) advances the chain's head (audit.models.ChainHead) in the caller's
transaction, in one UPDATE: it takes the head row's lock, numbers the record and hashes it there
with the server's sha256(), from the canonical form split around its seq (`halves`: the seq is
known only once the row is locked), returning the seq, the hash before and the new one; Python
computes the same hash from the same halves and refuses the append if they differ. A chain's first
record needs an INSERT of its head first. The lock is held until commit, so a chain's records are
numbered in commit order and a rollback leaves no gap.

Lock order (tables.locking, the one place that takes a round's or a table's locks): the round's
row, the table's row, the table chain's head (`hold`), the wallets by id, then the writer's own
rows and last the hooks' reactions (reports' rollups, the integrity monitors, a match). Whoever
appends to a table's chain holds the table's row first, so every transaction takes these locks in
the same order and no deadlock cycle can form. A transaction that records at two tables (a
dealer's shift moving) holds both tables' rows, locked in id order, before either head. The
studio-wide chain's head is taken by the one writer of access changes (accounts.services).
"""
from __future__ import annotations

import hashlib
import json
from datetime import UTC, date, datetime
from decimal import Decimal

from django.db import connection

from studio.errors import require_transaction

from .models import GENESIS, ChainHead

STUDIO = "studio"  # the studio-wide chain: users' roles, flags and passwords (accounts.AccessChange)
HEAD = ChainHead._meta.db_table
# link(hash, digest(before || seq || after)) in SQL: every SET expression reads the row as it was, so
# `hash` is the previous record's and `seq + 1` the new record's (docstring above; `link`, `digest`).
_SHA = "encode(sha256(convert_to({}, 'UTF8')), 'hex')"
_ADVANCE = (f'UPDATE {HEAD} SET seq = seq + 1, prev_hash = hash, '
            f'hash = {_SHA.format("hash || " + _SHA.format("%s || (seq + 1)::text || %s"))} '
            f'WHERE "key" = %s RETURNING seq, prev_hash, hash')
_CREATE = f'INSERT INTO {HEAD} ("key", seq, hash) VALUES (%s, 0, %s) ON CONFLICT ("key") DO NOTHING'
_HOLD = f'SELECT seq FROM {HEAD} WHERE "key" = %s FOR UPDATE'


def table_key(table_id: int) -> str:
    """The chain of a table: its rounds' events and its change log, interleaved in commit order."""
    return f"table:{table_id}"


def plain(value):
    """`value` as the canonical form holds it (str, int, bool, None, lists and dicts of them)."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise TypeError(f"a naive datetime has no canonical form: {value!r}")
        return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise TypeError(f"a key of the canonical form must be a string: {key!r}")
        return {key: plain(item) for key, item in value.items()}
    raise TypeError(f"{type(value).__name__} has no canonical form: {value!r}")


def canonical(form: dict) -> str:
    return json.dumps(plain(form), sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def digest(form: dict) -> str:
    return hashlib.sha256(canonical(form).encode("ascii")).hexdigest()


def link(prev: str, digest: str) -> str:
    """The hash of a record whose predecessor's hash is `prev` and whose content's digest is `digest`."""
    return hashlib.sha256((prev + digest).encode("ascii")).hexdigest()


def form_of(kind: str, row, columns: tuple[str, ...]) -> dict:
    """A record's form before it is numbered: its kind and its columns' values (by attname, from a
    model instance or a dict such as `.values()` gives)."""
    get = row.get if isinstance(row, dict) else (lambda name: getattr(row, name))
    return {"kind": kind, **{name: get(name) for name in columns}}


def numbered(form: dict, *, key: str, seq: int) -> dict:
    """The whole form that is hashed: the record's form with its chain and seq."""
    return {**form, "chain": key, "seq": seq}


def seal(record, *, key: str) -> None:
    """Fill a new record's chain columns (an audit.models.ChainedRecord, its columns set) through
    `append`, before its INSERT."""
    record.chain_seq, record.prev_hash, record.hash = append(key, form_of(record.CHAINED_KIND, record, record.CHAINED_COLUMNS))


def halves(form: dict, *, key: str) -> tuple[str, str]:
    """The canonical text of the numbered form around its seq: for every n,
    `before + str(n) + after == canonical(numbered(form, key=key, seq=n))` (sorted keys put "seq"
    between the keys below it and those above it)."""
    whole = {**form, "chain": key}
    whole.pop("seq", None)
    below = {k: v for k, v in whole.items() if k < "seq"}
    above = {k: v for k, v in whole.items() if k > "seq"}
    before = canonical(below)[:-1] + ("," if below else "") + '"seq":'
    after = ("," if above else "") + canonical(above)[1:]
    return before, after


def _hash(prev: str, before: str, seq: int, after: str) -> str:
    return link(prev, hashlib.sha256(f"{before}{seq}{after}".encode("ascii")).hexdigest())


def _advance(cur, key: str, before: str, after: str):
    """(seq, prev_hash, hash) of the record, the head advanced and sealed; None if the chain has no
    head yet."""
    cur.execute(_ADVANCE, [before, after, key])
    return cur.fetchone()


def append(key: str, form: dict) -> tuple[int, str, str]:
    """Number the record whose form (kind and columns, see form_of) is `form` in chain `key`, in the
    caller's transaction: (seq, prev_hash, hash) for its chain columns. The caller inserts the row
    before it commits; the head stays locked until then."""
    require_transaction("a chained record")
    before, after = halves(form, key=key)
    with connection.cursor() as cur:
        row = _advance(cur, key, before, after)
        if row is None:  # the chain's first record
            cur.execute(_CREATE, [key, GENESIS])
            row = _advance(cur, key, before, after)
        seq, prev, sealed = row
        new = _hash(prev, before, seq, after)
        if sealed != new:  # never stored: the caller's transaction rolls back
            raise RuntimeError(f"chain {key} seq {seq}: the database's hash {sealed} is not {new}")
    return seq, prev, new


def hold(key: str) -> None:
    """Lock the chain's head now, for a writer that must lock a reaction's rows before it appends
    (see the module's docstring)."""
    require_transaction("holding a chain's head (until its writer's transaction ends)")
    with connection.cursor() as cur:
        cur.execute(_HOLD, [key])
        if cur.fetchone() is None:
            cur.execute(_CREATE, [key, GENESIS])
            cur.execute(_HOLD, [key])
