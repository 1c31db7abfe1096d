"""`manage.py verify_log`: the public log against the database, from scratch.

- Each round's newest leaf (in the log, or still in its outbox) is the round's outcome as its rows
  say now (`publiclog.round_leaf`): a dealt card, a bet, a settlement or a void edited behind the
  studio's back makes them differ. A round in a final state has a leaf. (Older leaves of a round
  recorded states its rows no longer hold; the tree and the checkpoints vouch for them.)
- The tree is rebuilt from the leaves in index order (one pass, a frontier of O(log n) hashes):
  every stored perfect subtree, the head's root and the latest checkpoint's root must be what the
  leaves make, and the checkpoint's signature must verify with the studio's key.

The first problem found names the leaf's index and its round.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.db import connection

from audit import merkle
from studio.signednote import NoteError, Verifier, verify
from tables.models import Round

from . import publiclog
from .models import LogCheckpoint, LogEntry, LogPending

CHUNK = 5000


@dataclass(frozen=True)
class LogProblem:
    index: int | None
    round: int | None
    what: str

    def __str__(self) -> str:
        where = f"leaf {self.index}" if self.index is not None else "the log"
        return f"{where}{f' (round {self.round})' if self.round is not None else ''}: {self.what}"


def _newest_leaves() -> dict[int, tuple[int | None, bytes]]:
    """round -> (its newest leaf's index, or None while it waits in the outbox; the leaf's bytes)."""
    newest: dict[int, tuple[int | None, bytes]] = {}
    for index, round_id, leaf in LogEntry.objects.order_by("index").values_list("index", "round_id", "leaf").iterator(chunk_size=CHUNK):
        newest[round_id] = (index, bytes(leaf))
    for round_id, leaf in LogPending.objects.order_by("id").values_list("round_id", "leaf"):
        newest[round_id] = (None, bytes(leaf))
    return newest


def _rounds_problem() -> LogProblem | None:
    newest = _newest_leaves()
    final = Round.objects.filter(status__in=publiclog.FINAL).select_related("dealer").order_by("id")
    problems = []
    for rnd in final.iterator(chunk_size=500):
        if rnd.pk not in newest:
            return LogProblem(None, rnd.pk, f"the round is {rnd.status} and has no leaf in the log")
        index, leaf = newest[rnd.pk]
        if publiclog.round_leaf(rnd) != leaf:
            problems.append(LogProblem(index, rnd.pk, "the leaf differs from the round's rows (its cards, bets, settlement or void)"))
    return min(problems, key=lambda p: (p.index is None, p.index or 0)) if problems else None


def _tree_problem() -> LogProblem | None:
    with connection.cursor() as cur:
        cur.execute(f"SELECT level, index, hash FROM {publiclog.NODE}")
        stored = {(level, index): bytes(h) for level, index, h in cur.fetchall()}
    size, frontier = 0, {}
    for index, round_id, leaf in LogEntry.objects.order_by("index").values_list("index", "round_id", "leaf").iterator(chunk_size=CHUNK):
        if index != size:
            return LogProblem(size, None, f"the leaves jump from {size - 1} to {index}")
        new = merkle.appended(size, frontier, [merkle.leaf_hash(bytes(leaf))])
        for key, value in new.items():
            if stored.get(key) != value:
                return LogProblem(index, round_id, f"the stored subtree (level {key[0]}, index {key[1]}) is not what the leaves make")
        frontier.update(new)
        size += 1
        frontier = {key: frontier[key] for key in merkle.frontier(size)}
    root = merkle.root(size, lambda level, index: frontier[(level, index)])
    head_size, head_root = publiclog.head(lock=False)
    if (head_size, head_root) != (size, root):
        return LogProblem(None, None, f"the head says {head_size} leaves and another root; the leaves make {size}")
    checkpoint = LogCheckpoint.objects.order_by("-size").first()
    if checkpoint is not None:
        made = merkle.root(checkpoint.size, lambda level, index: stored[(level, index)]) if checkpoint.size else merkle.EMPTY_ROOT
        if bytes(checkpoint.root) != made or publiclog.checkpoint_body(checkpoint.size, made) not in checkpoint.note:
            return LogProblem(None, None, f"the latest checkpoint (size {checkpoint.size}) is not the root the leaves make")
        try:
            verify(checkpoint.note, Verifier.parse(publiclog.signing_key().verifier()))
        except NoteError as exc:
            return LogProblem(None, None, f"the latest checkpoint's signature: {exc}")
    return None


def log_problem() -> LogProblem | None:
    """The first problem of the log, or None when it is whole."""
    return _tree_problem() or _rounds_problem()
