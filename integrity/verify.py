"""What `manage.py verify_audit` checks (docs/AUDIT.md): every audit chain (audit.chain) is whole,
and the rows that change (cards, rounds, incidents) are what the chained events say.

A chain is walked in seq order across its models (a table's: RoundEvent and TableChange; the
studio's: AccessChange): every seq from 1 to the head's present once, each record's hash
recomputed from its canonical form and its prev_hash, each prev_hash the hash of the record before,
and the head the last record. Then each round of a table: its DealtCard rows are the replay of its
`card` and `corrected` events (position, side, card, and the time the event recorded), its Round
row's status, joker, winner, cards dealt and settlement (version, bets, staked, paid) what its last
events say, and each Incident's kind, status, notes and resolution what its events say. The replay
is the offline script's (audit.offline), so the studio and an auditor's copy agree.

Then the money of each round, re-derived: every settled bet's status and payout are what the rules
(engine.bet_result) give for its spot and stake under the round's settings snapshot and its
replayed cards; the bets add up, in all and per spot, to the totals its last settlement or void
chained; and each bet's own entries in its wallet (its stake, a cancel, a win, a reversal, a
refund) add up to what the bet moved: its payout less its stake (nothing for a cancelled bet). So a
balanced edit behind the studio's back (a win entry, the house's, the bet and the balance changed
together) still shows: the bet against the rules, or the bets against the chain.

Streaming: rows are read in order through cursors in chunks, a table's rounds in batches; memory
holds a chunk, never a chain. Everything is read in one transaction (REPEATABLE READ): a round
dealt meanwhile is seen as it was when the check began.
"""
from __future__ import annotations

import heapq
import itertools
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Iterator

from django.db.models import Case, Count, F, Min, Q, Sum, Value, When
from django.db.models.functions import Coalesce

from accounts.models import AccessChange
from audit import offline
from audit.chain import STUDIO, digest, form_of, link, numbered, plain, table_key
from audit.models import GENESIS, ChainHead
from studio.money import MoneyField
from bets.models import Bet, LedgerEntry
from engine import EngineError, bet_result
from tables.models import DealtCard, Incident, Round, RoundEvent, Table, TableChange
from tables.selectors import round_config, round_deal, round_multiplied

from .record import snapshot

CHUNK = 2000
ROUNDS_BATCH = 500
EDITED, MISSING, INSERTED, HEAD = "edited", "missing", "inserted out of order", "head mismatch"
CARD, ROUND, INCIDENT = "card differs from its events", "round differs from its events", "incident differs from its events"
PAYOUT, BETS, MOVED = "bet differs from the rules", "bets differ from the chained totals", "wallet differs from its bets"
# A bet's own entries in its wallet; the seamless wallet's movements to and from the operator are apart.
BET_KINDS = (LedgerEntry.Kind.BET, LedgerEntry.Kind.CANCEL, LedgerEntry.Kind.WIN, LedgerEntry.Kind.REVERSAL, LedgerEntry.Kind.REFUND)
S = Round.Status


@dataclass(frozen=True)
class Problem:
    """A broken link (or a row that differs from its events): where, and what is wrong."""

    chain: str
    seq: int | None
    model: str
    id: int | None
    what: str
    detail: str

    def __str__(self) -> str:
        seq = "-" if self.seq is None else self.seq
        return f"{self.chain} seq {seq}: {self.model} {self.id if self.id is not None else '-'}: {self.what}: {self.detail}"


@dataclass
class ChainResult:
    key: str
    length: int = 0
    head: str = GENESIS
    problems: list[Problem] = field(default_factory=list)  # the first broken link, the first row that differs

    @property
    def whole(self) -> bool:
        return not self.problems

    @property
    def first(self) -> Problem | None:
        """The chain's first broken link: the earliest problem in seq order (a link before a row at the same seq)."""
        return min(self.problems, key=lambda p: (p.seq is None, p.seq or 0), default=None)


def _chained(model, rows, extra: tuple[str, ...] = ()) -> Iterator[tuple[int, type, dict]]:
    columns = ("id", "chain_seq", "prev_hash", "hash", *model.CHAINED_COLUMNS, *extra)
    for row in rows.filter(chain_seq__isnull=False).order_by("chain_seq", "id").values(*columns).iterator(chunk_size=CHUNK):
        yield row["chain_seq"], model, row


def _sources(key: str, table_id: int | None):
    """The chain's records in seq order (each model's stream), and a row of it outside the chain."""
    if table_id is None:
        return [_chained(AccessChange, AccessChange.objects.all())], [(AccessChange, AccessChange.objects.all())]
    events = _chained(RoundEvent, RoundEvent.objects.filter(chain=key), extra=("round__table_id",))
    changes = _chained(TableChange, TableChange.objects.filter(table_id=table_id))
    return [events, changes], [(RoundEvent, RoundEvent.objects.filter(round__table_id=table_id)),
                               (TableChange, TableChange.objects.filter(table_id=table_id))]


def walk(key: str, table_id: int | None) -> ChainResult:
    """The chain's links: its length and head when whole, else its first broken link."""
    result = ChainResult(key)
    head = ChainHead.objects.filter(key=key).values("id", "seq", "hash").first()
    streams, outside = _sources(key, table_id)
    expected, prev, last = 1, GENESIS, None
    for seq, model, row in heapq.merge(*streams, key=lambda item: item[0]):
        where = (key, seq, model.__name__, row["id"])
        if seq < expected:  # a number the chain already has (or none it could have)
            result.problems.append(Problem(*where, INSERTED, f"a second record numbered {seq} (the first: {last[1]} {last[2]})"
                                           if last is not None and seq == last[0] else f"numbered {seq}, before record {expected}"))
            break
        if seq > expected:
            result.problems.append(Problem(*where, MISSING, f"records {expected} to {seq - 1} are missing (deleted)"
                                           if seq - 1 > expected else f"record {expected} is missing (deleted)"))
            break
        if table_id is not None and model is RoundEvent and row["round__table_id"] != table_id:
            result.problems.append(Problem(*where, INSERTED, f"its round {row['round_id']} is at table {row['round__table_id']}"))
            break
        content = digest(numbered(form_of(model.CHAINED_KIND, row, model.CHAINED_COLUMNS), key=key, seq=seq))
        if row["hash"] != link(row["prev_hash"] or "", content):
            result.problems.append(Problem(*where, EDITED, "its content does not give its hash (a column was changed)"))
            break
        if row["prev_hash"] != prev:
            result.problems.append(Problem(*where, INSERTED, f"its prev_hash is not the hash of record {seq - 1}"))
            break
        expected, prev, last = seq + 1, row["hash"], (seq, model.__name__, row["id"])
    else:
        result.length, result.head = expected - 1, prev
        if head is None and result.length:
            result.problems.append(Problem(key, result.length, "ChainHead", None, HEAD, "the chain has no head"))
        elif head is not None and (head["seq"], head["hash"]) != (result.length, prev):
            what = MISSING if head["seq"] > result.length else HEAD
            result.problems.append(Problem(key, head["seq"], "ChainHead", head["id"], what,
                                           f"the head is at seq {head['seq']} ({head['hash'][:12]}), the last record "
                                           f"at seq {result.length} ({prev[:12]})"))
    if not result.problems:
        for model, rows in outside:
            stray = rows.filter(chain_seq__isnull=True).values_list("id", flat=True).order_by("id").first()
            if stray is not None:
                result.problems.append(Problem(key, None, model.__name__, stray, INSERTED, "a record outside the chain (no seq)"))
                break
    return result


# --- the rows that change, against the events -------------------------------------------------------

EVENT_COLUMNS = ("id", "round_id", "chain_seq", "actor_id", "action", "from_status", "to_status", "data")
ROUND_COLUMNS = ("id", "status", "joker", "winner", "cards_dealt", "settings", "settlement_version", "bet_count",
                 "total_staked", "total_paid", "multipliers_commit", "multipliers_seed", "multipliers")


def _grouped(rows, key: str) -> dict[int, list[dict]]:
    grouped = defaultdict(list)
    for row in rows:
        grouped[row[key]].append(row)
    return grouped


def _round_problem(key: str, rnd: dict, events: list[dict], cards: list[dict], incidents: list[dict]) -> Problem | None:
    if not events or events[0]["action"] != "opened":
        return Problem(key, events[0]["chain_seq"] if events else None, "Round", rnd["id"], ROUND, "it has no opened event")
    said = offline.replay(events)
    last_seq = events[-1]["chain_seq"]
    seq_of = {}  # the event that last set each card's position
    for event in events:
        if event["action"] in ("card", "corrected") and isinstance(event["data"].get("position"), int):
            seq_of[event["data"]["position"]] = event["chain_seq"]

    replayed = said["cards"]
    for n in range(max(len(cards), len(replayed))):
        row = cards[n] if n < len(cards) else None
        want = replayed[n] if n < len(replayed) else None
        if row is None:
            return Problem(key, seq_of.get(want["position"]), "DealtCard", None, CARD,
                           f"round {rnd['id']}: no card at position {want['position']} ({want['card']} by its events)")
        if want is None:
            return Problem(key, last_seq, "DealtCard", row["id"], CARD,
                           f"round {rnd['id']}: card {row['card']} at position {row['position']} was never dealt by its events")
        got = (row["position"], row["side"], row["card"])
        if got != (want["position"], want["side"], want["card"]) or (want["dealt_at"] and plain(row["dealt_at"]) != want["dealt_at"]):
            return Problem(key, seq_of.get(row["position"]), "DealtCard", row["id"], CARD,
                           f"round {rnd['id']} position {row['position']}: {row['card']} ({row['side']}, {plain(row['dealt_at'])}); "
                           f"its events say {want['card']} ({want['side']}, {want['dealt_at']})")

    winner = said["winner"]
    if winner is offline.UNKNOWN:  # a correction recorded before corrections said the winner: the rules say it
        try:
            outcome = round_deal(Round(settings=rnd["settings"], joker=rnd["joker"]), [c["card"] for c in replayed]).outcome
        except EngineError:
            outcome = None
        winner = outcome.winner.value if outcome is not None else ""
    totals = said["totals"] or {"version": 0, "bets": 0, "staked": "0", "paid": "0"}
    expected = {"status": said["status"], "joker": said["joker"], "winner": winner or "", "cards_dealt": len(replayed),
                "settlement_version": totals["version"], "bet_count": totals["bets"],
                "total_staked": Decimal(str(totals["staked"])), "total_paid": Decimal(str(totals["paid"]))}
    for name, value in expected.items():
        if rnd[name] != value:
            return Problem(key, last_seq, "Round", rnd["id"], ROUND, f"its {name} is {rnd[name]!r}; its events say {value!r}")
    if rnd["multipliers_commit"] or said["multipliers_commit"]:  # the draw: the offline script's check, on the row as stored
        drawn = said["multipliers"] is not None
        shown = {"multipliers_commit": rnd["multipliers_commit"], "multipliers": rnd["multipliers"],
                 "multipliers_seed": rnd["multipliers_seed"] if drawn else None}
        problems: list[str] = []
        offline.check_multipliers(shown, said, problems)
        if problems:
            return Problem(key, last_seq, "Round", rnd["id"], ROUND, problems[0])

    said_incidents = said["incidents"]
    for incident in incidents:
        want = said_incidents.get(incident["id"])
        if want is None:
            return Problem(key, last_seq, "Incident", incident["id"], INCIDENT, "no event raised it")
        for name, column in (("kind", "kind"), ("status", "status"), ("notes", "notes"), ("resolution", "resolution"),
                             ("resolved_by", "resolved_by_id")):
            if (incident[column] or None) != (want[name] or None):
                seq = max((e["chain_seq"] for e in events if e["data"].get("incident") == incident["id"]), default=last_seq)
                return Problem(key, seq, "Incident", incident["id"], INCIDENT,
                               f"its {name} is {incident[column]!r}; its events say {want[name]!r}")
    missing = set(said_incidents) - {i["id"] for i in incidents}
    if missing:
        return Problem(key, last_seq, "Incident", min(missing), INCIDENT, "its events raised it; the row is gone")
    return None


def _settling_seq(events: list[dict]) -> int | None:
    """The seq of the round's last settlement or void."""
    return next((e["chain_seq"] for e in reversed(events) if e["action"] in offline.script.SETTLING), None)


def _money_problem(key: str, batch: list[dict], events: dict[int, list[dict]]) -> Problem | None:
    """The first of these rounds whose bets or their wallets' entries differ from the rules or from
    its chained totals (see the module's docstring)."""
    ended = {r["id"]: r for r in batch if r["status"] in (S.SETTLED, S.VOIDED)}
    if not ended:
        return None
    said = {pk: offline.replay(events[pk]) for pk in ended}
    wanted = {S.SETTLED: (Bet.Status.WON, Bet.Status.LOST), S.VOIDED: (Bet.Status.REFUNDED,)}
    rows = (Bet.objects.filter(round_id__in=list(ended)).exclude(status=Bet.Status.CANCELLED)
            .values("round_id", "spot", "status", "amount", "payout").annotate(n=Count("id"), first=Min("id"))
            .order_by("round_id", "spot", "amount", "status", "payout"))
    added: dict[int, dict] = defaultdict(lambda: {"bets": 0, "staked": Decimal(0), "paid": Decimal(0), "spots": defaultdict(
        lambda: {"bets": 0, "staked": Decimal(0), "paid": Decimal(0)})})
    outcomes = {}
    for row in rows:
        rnd, seq = ended[row["round_id"]], _settling_seq(events[row["round_id"]])
        where = f"round {rnd['id']} bet {row['first']} ({row['spot']}, {row['amount']})"
        if row["status"] not in wanted[rnd["status"]]:
            return Problem(key, seq, "Bet", row["first"], PAYOUT, f"{where}: {row['status']} in a {rnd['status']} round")
        if rnd["status"] == S.SETTLED:
            if rnd["id"] not in outcomes:
                shell = Round(settings=rnd["settings"], joker=rnd["joker"], multipliers=said[rnd["id"]]["multipliers"])
                outcomes[rnd["id"]] = (round_config(shell), round_deal(shell, [c["card"] for c in said[rnd["id"]]["cards"]]).outcome,
                                       round_multiplied(shell))
            config, outcome, multiplied = outcomes[rnd["id"]]
            try:
                result = bet_result(config, row["spot"], row["amount"], outcome, multiplied)  # the multipliers the chain drew
            except EngineError as exc:
                return Problem(key, seq, "Bet", row["first"], PAYOUT, f"{where}: the rules cannot settle it ({exc})")
            status = Bet.Status.WON if result.won else Bet.Status.LOST
            if (row["status"], row["payout"]) != (status, result.payout):
                return Problem(key, seq, "Bet", row["first"], PAYOUT, f"{where}: {row['status']}, paid {row['payout']}; "
                                                                       f"the rules say {status}, {result.payout}")
        elif row["payout"] != row["amount"]:
            return Problem(key, seq, "Bet", row["first"], PAYOUT, f"{where}: refunded {row['payout']}, not its stake")
        for into in (added[rnd["id"]], added[rnd["id"]]["spots"][row["spot"]]):
            into["bets"] += row["n"]
            into["staked"] += row["amount"] * row["n"]
            into["paid"] += row["payout"] * row["n"]
    for pk, rnd in ended.items():
        totals, got, seq = said[pk]["totals"], added[pk], _settling_seq(events[pk])
        if totals is None:
            continue  # _round_problem names a settled round without a settlement event
        want = (totals["bets"], Decimal(str(totals["staked"])), Decimal(str(totals["paid"])))
        if (got["bets"], got["staked"], got["paid"]) != want:
            return Problem(key, seq, "Round", pk, BETS, f"round {pk}: its bets add up to {got['bets']} bets, {got['staked']} staked, "
                                                        f"{got['paid']} paid; its last settlement chained {want[0]}, {want[1]}, {want[2]}")
        for spot, chained in sorted((totals.get("spots") or {}).items()) if rnd["status"] == S.SETTLED else ():
            mine = got["spots"].get(spot, {"bets": 0, "staked": Decimal(0), "paid": Decimal(0)})
            if (mine["bets"], mine["staked"], mine["paid"]) != (chained["bets"], Decimal(chained["staked"]), Decimal(chained["paid"])):
                return Problem(key, seq, "Round", pk, BETS, f"round {pk} spot {spot}: its bets add up to {mine['bets']} bets, "
                                                            f"{mine['staked']} staked, {mine['paid']} paid; its settlement chained "
                                                            f"{chained['bets']}, {chained['staked']}, {chained['paid']}")
    moved = (Bet.objects.filter(round_id__in=list(ended))
             .annotate(moved=Coalesce(Sum("entries__amount", filter=Q(entries__account_id=F("account_id"), entries__kind__in=BET_KINDS)),
                                      Value(Decimal(0)), output_field=MoneyField()))
             .exclude(moved=Case(When(status=Bet.Status.CANCELLED, then=Value(Decimal(0))), default=F("payout") - F("amount"),
                                 output_field=MoneyField()))
             .values("id", "round_id", "status", "amount", "payout", "moved").order_by("id").first())
    if moved is not None:
        return Problem(key, _settling_seq(events[moved["round_id"]]), "Bet", moved["id"], MOVED,
                       f"round {moved['round_id']} bet {moved['id']} ({moved['status']}, stake {moved['amount']}, paid {moved['payout']}): "
                       f"its entries in its wallet add up to {moved['moved']}")
    return None


def rows_problem(key: str, table_id: int) -> Problem | None:
    """The first of the table's rounds (by id) whose cards, row or incidents differ from its events,
    or whose bets differ from the rules or its chained totals."""
    rounds = Round.objects.filter(table_id=table_id).order_by("id").values(*ROUND_COLUMNS).iterator(chunk_size=ROUNDS_BATCH)
    while batch := list(itertools.islice(rounds, ROUNDS_BATCH)):
        ids = [r["id"] for r in batch]
        events = _grouped(RoundEvent.objects.filter(round_id__in=ids).order_by("chain_seq", "id").values(*EVENT_COLUMNS), "round_id")
        cards = _grouped(DealtCard.objects.filter(round_id__in=ids).order_by("round_id", "position")
                         .values("id", "round_id", "position", "side", "card", "dealt_at"), "round_id")
        incidents = _grouped(Incident.objects.filter(round_id__in=ids).order_by("id")
                             .values("id", "round_id", "kind", "status", "notes", "resolution", "resolved_by_id"), "round_id")
        for rnd in batch:
            problem = _round_problem(key, rnd, events[rnd["id"]], cards[rnd["id"]], incidents[rnd["id"]])
            if problem is not None:
                return problem
        problem = _money_problem(key, batch, events)
        if problem is not None:
            return problem
    return None


def verify_chain(key: str, table_id: int | None) -> ChainResult:
    result = walk(key, table_id)
    if table_id is not None:
        problem = rows_problem(key, table_id)
        if problem is not None:
            result.problems.append(problem)
    return result


def chains(table_id: int | None = None) -> list[tuple[str, int | None]]:
    """The chains to check: one table's, or every table's and the studio's."""
    if table_id is not None:
        return [(table_key(table_id), table_id)]
    return [(table_key(pk), pk) for pk in Table.objects.order_by("id").values_list("id", flat=True)] + [(STUDIO, None)]


def verify(table_id: int | None = None) -> Iterator[ChainResult]:
    """Each chain's result, in one consistent read of the database."""
    with snapshot():
        for key, pk in chains(table_id):
            yield verify_chain(key, pk)
