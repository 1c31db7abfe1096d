"""The crowd of each round while betting is open: how many players have a bet standing and the share
of the main bets' stakes on Andar and on Bahar, aggregated by the server and sent to the table's
watchers (`round.crowd`, tables/events.py), never who bet what; a public table's player count also
to the lobby (`lobby.players`), when it changes.

A periodic task (every CROWD_SECONDS) reads every betting round's figures in one statement and sends
those that changed since it last sent them (what it sent is kept in the task's process: a restarted
worker sends each once more). Constant cost per round: one row of one statement, at most one
message a second.
"""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from studio import sql
from tables import stream
from tables.events import LobbyPlayers, RoundCrowd
from tables.models import Round

from .models import Bet

BET, ROUND = Bet._meta.db_table, Round._meta.db_table
FIGURES = (f"SELECT r.table_id, r.id, COUNT(DISTINCT b.player_id), COALESCE(SUM(b.amount) FILTER (WHERE b.spot = 'andar'), 0), "
           f"COALESCE(SUM(b.amount) FILTER (WHERE b.spot = 'bahar'), 0), COALESCE((r.settings->>'private')::boolean, false) FROM {ROUND} r JOIN {BET} b ON b.round_id = r.id "
           f"AND b.status = 'open' WHERE r.status = 'betting' GROUP BY r.table_id, r.id")
_sent: dict[int, tuple] = {}  # round -> the figures last sent


def _share(part: Decimal, whole: Decimal) -> str:
    return "" if not whole else str((Decimal(100) * part / whole).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def _figures() -> list[tuple[RoundCrowd, bool]]:
    """Every betting round's crowd as the bets committed say now, and whether its table is private."""
    out = []
    for table_id, round_id, players, andar, bahar, private in sql.fetch_all(FIGURES):
        whole = Decimal(andar) + Decimal(bahar)
        out.append((RoundCrowd(table=table_id, round=round_id, players=players, andar_share=_share(Decimal(andar), whole),
                               bahar_share=_share(Decimal(bahar), whole)), private))
    return out


def crowd_publish() -> int:
    """Send the crowds that changed since last sent (and to the lobby, a public table's changed
    player count): how many were sent."""
    now = _figures()
    changed = [(c, private) for c, private in now if _sent.get(c.round) != (c.players, c.andar_share, c.bahar_share)]
    betting = {c.round for c, _private in now}
    for round_id in [r for r in _sent if r not in betting]:
        del _sent[round_id]  # its betting is over
    seated = [LobbyPlayers(table=c.table, round=c.round, players=c.players) for c, private in changed
              if not private and _sent.get(c.round, (0,))[0] != c.players]
    for c, _private in changed:
        _sent[c.round] = (c.players, c.andar_share, c.bahar_share)
    if changed:
        stream.crowd_events([c for c, _private in changed], seated)
    return len(changed)
