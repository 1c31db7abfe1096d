"""The public round log (docs/PUBLIC_LOG.md): an append-only Merkle tree of every round outcome
(RFC 6962 / RFC 9162 hashing, audit.merkle), signed checkpoints (C2SP signed notes,
studio.signednote), inclusion and consistency proofs, witnesses' cosignatures.

- A round that is settled, settled again after a correction, or voided is put in the log's outbox
  (LogPending) in the same transaction, with its leaf: the canonical JSON of its outcome then
  (`round_leaf`). No final state can be missing, and a big settlement holds no lock of the log.
- `log_publish` (a periodic task, every LOG_PUBLISH_SECONDS) appends the waiting leaves in one
  short transaction under the log's head row: the frontier's hashes read once, the new leaves and
  every perfect subtree they complete written in one statement each, whatever the batch; then it
  signs a checkpoint of the grown tree. An unchanged tree is never signed again.
- Proofs and roots read the O(log n) stored subtrees they name in one query.
"""
from __future__ import annotations

import base64
import json
from decimal import Decimal

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Sum
from django.utils import timezone

from audit import merkle
from bets.models import Bet
from studio.errors import InvalidInput, NotFound, WrongMoment
from studio.signednote import NoteError, SigningKey, Verifier, cosignature_time, split
from studio.times import utc_ms
from tables.access import table_visible
from tables.models import DealtCard, Round, RoundEvent

from .models import LogCheckpoint, LogCosignature, LogEntry, LogHead, LogNode, LogPending

ENTRY, NODE, HEAD, PENDING = (m._meta.db_table for m in (LogEntry, LogNode, LogHead, LogPending))
BATCH = 5000  # leaves appended per transaction at most
FINAL = (Round.Status.SETTLED, Round.Status.VOIDED)
SETTLING = ("settled", "resettled", "voided")  # the audit records a leaf names


# --- a round's leaf ---------------------------------------------------------------------------------

def _money(value: Decimal | None) -> str:
    return f"{value or Decimal(0):.2f}"


def round_leaf(rnd: Round) -> bytes:
    """The canonical JSON (UTF-8, sorted keys, no spaces) of the round's outcome as its rows say now:
    what it dealt, who won, what each spot staked and paid back, its fairness commitments and seeds,
    and the hash of its latest audit record. Read by the log's outbox when the round reaches a
    final state, and by `verify_log` again."""
    voided = rnd.status == Round.Status.VOIDED
    cards = list(DealtCard.objects.filter(round_id=rnd.pk).order_by("position").values_list("card", flat=True))
    spots = {row["spot"]: {"bets": row["n"], "staked": _money(row["staked"]), "paid": _money(row["paid"])}
             for row in Bet.objects.filter(round_id=rnd.pk).exclude(status=Bet.Status.CANCELLED).values("spot")
             .annotate(n=Count("id"), staked=Sum("amount"), paid=Sum("payout")).order_by()}
    chain = (RoundEvent.objects.filter(round_id=rnd.pk, action__in=SETTLING).order_by("-chain_seq")
             .values_list("hash", flat=True).first())  # the audit record of this settlement or void
    outcome = {
        "round": rnd.pk, "table": rnd.table_id, "version": rnd.settlement_version, "status": rnd.status,
        "joker": rnd.joker, "cards": cards, "winner": None if voided else (rnd.winner or None),
        "dealer": rnd.dealer.username if rnd.dealer_id else None,
        ("voided_at" if voided else "settled_at"): utc_ms(rnd.settled_at if not voided else _voided_at(rnd)),
        "spots": spots, "chain": chain,
    }
    if rnd.commitment:  # the virtual dealer's pack
        outcome.update(pack_commitment=rnd.commitment, pack_salt=rnd.salt or None, pack=rnd.pack or None)
    if rnd.multipliers_commit:
        outcome.update(multipliers_commit=rnd.multipliers_commit, multipliers=rnd.multipliers,
                       multipliers_seed=rnd.multipliers_seed if rnd.multipliers is not None or voided else None)
    return json.dumps(outcome, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _voided_at(rnd: Round):
    return RoundEvent.objects.filter(round_id=rnd.pk, to_status=Round.Status.VOIDED).order_by("-chain_seq").values_list("at", flat=True).first()


def on_final(sender, *, rnd: Round, **kwargs) -> None:
    """tables.hooks.round_settled and round_voided, in the change's transaction: the round's outcome
    into the log's outbox. One INSERT besides the leaf's reads."""
    if rnd.status in FINAL:
        LogPending.objects.create(round_id=rnd.pk, leaf=round_leaf(rnd))


# --- appending and signing ----------------------------------------------------------------------------

def subtrees(keys) -> dict[tuple[int, int], bytes]:
    keys = sorted(keys)
    if not keys:
        return {}
    with connection.cursor() as cur:
        cur.execute(f"SELECT level, index, hash FROM {NODE} WHERE (level, index) IN (SELECT * FROM unnest(%s::smallint[], %s::bigint[]))",
                    [[k[0] for k in keys], [k[1] for k in keys]])
        found = {(level, index): bytes(h) for level, index, h in cur.fetchall()}
    missing = set(keys) - set(found)
    if missing:
        raise RuntimeError(f"the log's stored subtrees miss {sorted(missing)[:3]}: run manage.py verify_log")
    return found


def head(lock: bool) -> tuple[int, bytes]:
    with connection.cursor() as cur:
        cur.execute(f"INSERT INTO {HEAD} (id, size, root, updated_at) VALUES (1, 0, %s, now()) ON CONFLICT (id) DO NOTHING",
                    [merkle.EMPTY_ROOT])
        cur.execute(f"SELECT size, root FROM {HEAD} WHERE id = 1" + (" FOR UPDATE" if lock else ""))
        size, root = cur.fetchone()
    return size, bytes(root)


def log_append() -> int:
    """Append the waiting leaves (at most BATCH), in outbox order: how many."""
    with transaction.atomic():
        size, _ = head(lock=True)
        with connection.cursor() as cur:
            cur.execute(f"SELECT id, round_id, leaf FROM {PENDING} ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED", [BATCH])
            waiting = cur.fetchall()
        if not waiting:
            return 0
        frontier = subtrees(merkle.frontier(size))
        new = merkle.appended(size, frontier, [merkle.leaf_hash(bytes(leaf)) for _, _, leaf in waiting])
        now = timezone.now()
        with connection.cursor() as cur:
            cur.execute(f"INSERT INTO {ENTRY} (index, round_id, leaf, logged_at) SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::bytea[], "
                        f"%s::timestamptz[])", [list(range(size, size + len(waiting))), [r for _, r, _ in waiting],
                                                [bytes(leaf) for _, _, leaf in waiting], [now] * len(waiting)])
            keys = sorted(new)
            cur.execute(f"INSERT INTO {NODE} (level, index, hash) SELECT * FROM unnest(%s::smallint[], %s::bigint[], %s::bytea[])",
                        [[k[0] for k in keys], [k[1] for k in keys], [new[k] for k in keys]])
            grown = size + len(waiting)
            known = {**frontier, **new}
            cur.execute(f"UPDATE {HEAD} SET size = %s, root = %s, updated_at = %s WHERE id = 1",
                        [grown, merkle.root(grown, lambda level, index: known[(level, index)]), now])
            cur.execute(f"DELETE FROM {PENDING} WHERE id = ANY(%s)", [[pk for pk, _, _ in waiting]])
        return len(waiting)


def signing_key() -> SigningKey:
    return SigningKey.parse(settings.LOG_SIGNING_KEY)


def checkpoint_body(size: int, root: bytes) -> str:
    """A C2SP tlog-checkpoint's text: the origin, the size, the base64 root."""
    return f"{settings.LOG_ORIGIN}\n{size}\n{base64.b64encode(root).decode()}\n"


def log_publish() -> LogCheckpoint | None:
    """Append what waits, then sign a checkpoint if the tree grew (or none was ever signed): the new
    checkpoint, or None."""
    while log_append() == BATCH:
        pass
    size, root = head(lock=False)
    latest = LogCheckpoint.objects.order_by("-size").first()
    if latest is not None and latest.size >= size:
        return None
    note = signing_key().sign(checkpoint_body(size, root))
    checkpoint, _ = LogCheckpoint.objects.get_or_create(size=size, defaults={"root": root, "note": note, "signed_at": timezone.now()})
    return checkpoint


# --- reading: checkpoints, entries, proofs -------------------------------------------------------------

def latest_checkpoint() -> str:
    """The latest checkpoint's signed note with the cosignatures the studio holds for it."""
    checkpoint = LogCheckpoint.objects.order_by("-size").first()
    if checkpoint is None:
        raise WrongMoment("The log has no checkpoint yet: one is signed within seconds of the first round settled.",
                          code="no_checkpoint")
    return _with_cosignatures(checkpoint)


def log_size() -> int:
    checkpoint = LogCheckpoint.objects.order_by("-size").values_list("size", flat=True).first()
    return checkpoint or 0


def log_entry(*, index: int, user) -> dict:
    """A leaf at its index; a private table's leaf only for who may see the table (its hash for everyone)."""
    entry = LogEntry.objects.filter(index=index).select_related("round").first()
    if entry is None or index >= log_size():
        raise NotFound("No such entry in the log's latest checkpoint.", code="not_found")
    leaf = bytes(entry.leaf)
    shown = not entry.round.settings.get("private") or table_visible(table_id=entry.round.table_id, user=user)
    return {"index": index, "round": entry.round_id if shown else None, "leaf": base64.b64encode(leaf).decode() if shown else None,
            "leaf_hash": base64.b64encode(merkle.leaf_hash(leaf)).decode()}


def _proof(run) -> list[str]:
    known = subtrees(merkle.wanted(run))
    return [base64.b64encode(h).decode() for h in run(lambda level, index: known[(level, index)])]


def _in_log(name: str, value: int, size: int) -> None:
    if value > size:
        raise InvalidInput(f"The log's latest checkpoint has {size} entries.", code="out_of_range",
                           fields={name: [f"At most {size}."]})


def inclusion_proof(*, index: int, size: int) -> list[str]:
    _in_log("size", size, log_size())
    if index >= size:
        raise InvalidInput("The entry is not in a tree of that size.", code="out_of_range", fields={"index": [f"Below {size}."]})
    return _proof(lambda perfect: merkle.inclusion_path(index, size, perfect))


def consistency_proof(*, old: int, new: int) -> list[str]:
    _in_log("to", new, log_size())
    if old > new or old < 1:
        raise InvalidInput("A consistency proof runs from a tree of at least one entry to one no smaller.", code="out_of_range",
                           fields={"from": [f"From 1 to {new}."]})
    return _proof(lambda perfect: merkle.consistency_path(old, new, perfect))


def round_log(rnd: Round) -> dict:
    """The round's leaves in the latest checkpoint, each with its bytes and its inclusion proof
    against that checkpoint, and the checkpoint (with the cosignatures held): what a round's record
    shows, for anyone to check offline. At most four queries, whatever the log's size."""
    checkpoint = LogCheckpoint.objects.order_by("-size").first()
    if checkpoint is None:
        return {"checkpoint": None, "entries": []}
    size = checkpoint.size
    rows = list(LogEntry.objects.filter(round_id=rnd.pk, index__lt=size).order_by("index").values_list("index", "leaf"))
    if not rows:
        return {"checkpoint": None, "entries": []}
    runs = [lambda perfect, index=index: merkle.inclusion_path(index, size, perfect) for index, _ in rows]
    known = subtrees(set().union(*(merkle.wanted(run) for run in runs)))
    stored = lambda level, index: known[(level, index)]  # noqa: E731
    entries = [{"index": index, "leaf": base64.b64encode(bytes(leaf)).decode(),
                "proof": [base64.b64encode(h).decode() for h in run(stored)]} for (index, leaf), run in zip(rows, runs, strict=True)]
    return {"checkpoint": _with_cosignatures(checkpoint), "entries": entries}


def _with_cosignatures(checkpoint: LogCheckpoint) -> str:
    return checkpoint.note + "".join(c.line + "\n" for c in checkpoint.cosignatures.order_by("witness"))


# --- witnesses -----------------------------------------------------------------------------------------

def witness_keys() -> dict[str, Verifier]:
    return {key.name: key for key in (Verifier.parse(text) for text in settings.LOG_WITNESSES)}


def cosignature_add(*, checkpoint: str, line: str) -> LogCosignature:
    """A witness's cosignature of one of the studio's checkpoints, kept and served with it (400 for
    a note or a line that does not verify, 404 for a checkpoint the studio never signed)."""
    try:
        body, _ = split(checkpoint)
    except NoteError as exc:
        raise InvalidInput(str(exc), code="invalid", fields={"checkpoint": [str(exc)]}) from None
    ours = next((c for c in LogCheckpoint.objects.filter(size=_size_of(body)) if split(c.note)[0] == body), None)
    if ours is None:
        raise NotFound("The studio signed no such checkpoint.", code="not_found")
    name = line[2:].rpartition(" ")[0] if line.startswith("\u2014 ") else ""
    key = witness_keys().get(name)
    if key is None:
        raise InvalidInput("Not a witness the studio knows (LOG_WITNESSES).", code="unknown_witness", fields={"cosignature": ["Unknown witness."]})
    try:
        cosignature_time(body, line, key)
    except NoteError as exc:
        raise InvalidInput(str(exc), code="invalid", fields={"cosignature": [str(exc)]}) from None
    cosignature, _ = LogCosignature.objects.update_or_create(checkpoint=ours, witness=name,
                                                             defaults={"line": line, "received_at": timezone.now()})
    return cosignature


def _size_of(body: str) -> int:
    lines = body.split("\n")
    if len(lines) < 3 or not lines[1].isdigit():
        raise InvalidInput("Not a checkpoint.", code="invalid", fields={"checkpoint": ["Not a checkpoint."]})
    return int(lines[1])
