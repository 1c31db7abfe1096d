"""Reads that need care: the current round of a table, a round with its cards, its rules."""
from __future__ import annotations

from django.db.models import CharField, F, IntegerField, QuerySet, Value
from django.utils import timezone

from accounts.models import AccessChange
from engine import Deal, TableConfig, offered_spots, rules_of, parse_card, payout_table, winning_spots
from studio import sql
from studio.times import utc_ms

from .models import DealtCard, Round, RoundEvent, Table, TableChange


def round_config(rnd: Round) -> TableConfig:
    """The rules the round is played under: its snapshot, never the table's current settings."""
    return TableConfig.from_dict(rules_of(rnd.settings))


# Every column of a round, for the reads that every card or every step of the virtual dealer makes:
# written SQL, as the ORM spends more CPU building such a statement than the database running it.
ROUND_FIELDS = [f.attname for f in Round._meta.concrete_fields]
_CARDS = f"SELECT card FROM {DealtCard._meta.db_table} WHERE round_id = %s ORDER BY position"


def round_cards(round_id: int) -> list[str]:
    """The round's cards in the order dealt (written SQL: every card dealt reads them)."""
    return [card for (card,) in sql.fetch_all(_CARDS, [round_id])]


def round_deal(rnd: Round, cards: list[str] | None = None) -> Deal:
    if cards is None:
        cards = round_cards(rnd.pk)
    deal = Deal.start(round_config(rnd), parse_card(rnd.joker))
    for card in cards:
        deal = deal.deal(parse_card(card))
    return deal


def round_current(*, table: Table | int) -> Round | None:
    table_id = table.pk if isinstance(table, Table) else table
    return Round.objects.filter(table_id=table_id, status__in=Round.OPEN_STATUSES).first()


# What the virtual dealer reads on every step, in one statement: whether its table is still virtual,
# the table's state and pace, and the table's last round (through the round's (table, id) index).
PACE_FIELDS = ["id", "state", "betting_seconds", "deal_interval_ms", "round_gap_ms"]
_PACED = (f"SELECT {sql.columns(Table, PACE_FIELDS, 't')}, {sql.columns(Round, ROUND_FIELDS, 'r')} "
          f"FROM {Table._meta.db_table} t LEFT JOIN {Round._meta.db_table} r "
          f"ON r.id = (SELECT MAX(id) FROM {Round._meta.db_table} WHERE table_id = t.id) "
          f"WHERE t.id = %s AND t.virtual_dealer")


def table_paced(*, table_id: int) -> tuple[Table, Round | None] | None:
    """A virtual table with its state and pace loaded, and its last round (None before its first),
    or None when the table is not (or no longer) run by the virtual dealer (written SQL, by its key)."""
    row = sql.fetch_one(_PACED, [table_id])
    if row is None:
        return None
    table, last = row[:len(PACE_FIELDS)], row[len(PACE_FIELDS):]
    rnd = None if last[0] is None else sql.instance(Round, ROUND_FIELDS, last)
    return sql.instance(Table, PACE_FIELDS, table), rnd


def round_spots(rnd: Round) -> list[dict]:
    config = round_config(rnd)
    pays = payout_table(config)
    return [{"spot": spot, "pays": pays[spot]} for spot in offered_spots(config)]


def round_detail(rnd: Round) -> dict:
    """The whole public state of a round (API, console, stream snapshot)."""
    cards = [{**c, "dealt_at": utc_ms(c["dealt_at"])}
             for c in DealtCard.objects.filter(round=rnd).order_by("position").values("position", "side", "card", "dealt_at")]
    deal = round_deal(rnd, [c["card"] for c in cards]) if rnd.status != Round.Status.VOIDED else None
    next_side = deal.next_side.value if deal is not None and deal.next_side is not None and rnd.status in Round.OPEN_STATUSES else None
    now = timezone.now()
    data = {
        "id": rnd.pk,
        "table": rnd.table_id,
        "status": rnd.status,
        "joker": rnd.joker,
        "first_side": rnd.first_side,
        "opened_at": rnd.opened_at,
        "closes_at": rnd.closes_at,
        "closed_at": rnd.closed_at,
        "finished_at": rnd.finished_at,
        "betting_left_ms": rnd.betting_left_ms if rnd.status == Round.Status.PAUSED else (
            max(0, int((rnd.closes_at - now).total_seconds() * 1000)) if rnd.status == Round.Status.BETTING else 0
        ),
        "winner": rnd.winner or None,
        "winning_spots": winning_spots(deal.config, deal.outcome) if deal is not None and deal.outcome is not None else [],
        "cards_dealt": rnd.cards_dealt,
        "cards": cards,
        "next_side": next_side,
        "spots": round_spots(rnd),
        "settings": rnd.settings,
        "dealer": rnd.dealer.username if rnd.dealer_id else None,
        "shift": rnd.shift_id,
        "void_reason": round_void_reason(rnd) if rnd.status == Round.Status.VOIDED else None,
    }
    if rnd.status == Round.Status.SETTLED:
        data["totals"] = round_totals(rnd)
    if rnd.commitment:
        data["fairness"] = round_fairness(rnd)
    if rnd.multipliers_commit:
        data.update(round_multipliers(rnd))
    return data


def round_multipliers(rnd: Round) -> dict:
    """A multiplier round's commitment always; its drawn multipliers and their seed once betting
    has closed (or the round is over without a draw: voided while betting), null before."""
    shown = rnd.multipliers is not None or rnd.status in OVER
    return {"multipliers_commit": rnd.multipliers_commit, "multipliers": rnd.multipliers,
            "multipliers_seed": rnd.multipliers_seed if shown else None}


def round_multiplied(rnd: Round) -> dict[str, int] | None:
    """The round's drawn multipliers as the engine takes them (spot -> multiplier), or None."""
    return multiplied_of(rnd.multipliers)


def multiplied_of(drawn: list[dict] | None) -> dict[str, int] | None:
    """Drawn multipliers as a round stores them ([{"spot", "multiplier"}]) as spot -> multiplier."""
    return {d["spot"]: int(d["multiplier"]) for d in drawn} if drawn else None


def applied_multiplier(multiplied: dict[str, int] | None, spot: str, status: str) -> dict:
    """{"multiplier": m} for a won bet on a spot the round multiplied by m (what its winnings were
    multiplied by), else {}: a bet's result as the player reads it."""
    if not multiplied or status != "won" or spot not in multiplied:
        return {}
    return {"multiplier": multiplied[spot]}


def betting_left_ms(rnd: Round, now) -> int:
    """The betting time a round has left: while betting, until it closes; paused, what it will have
    when it resumes; otherwise 0 (the floor's tiles and the lobby's rows)."""
    if rnd.status == Round.Status.BETTING:
        return max(0, int((rnd.closes_at - now).total_seconds() * 1000))
    return (rnd.betting_left_ms or 0) if rnd.status == Round.Status.PAUSED else 0


def round_void_reason(rnd: Round) -> str:
    """Why the supervisor voided the round, as they wrote it (players read it on the felt)."""
    data = RoundEvent.objects.filter(round=rnd, to_status=Round.Status.VOIDED).order_by("-id").values_list("data", flat=True).first()
    return (data or {}).get("reason", "")


OVER = (Round.Status.FINISHED, Round.Status.SETTLED, Round.Status.VOIDED)


def round_fairness(rnd: Round) -> dict:
    """The commitment always; the salt and the pack only once the round is over."""
    revealed = rnd.status in OVER
    return {
        "commitment": rnd.commitment,
        "salt": rnd.salt if revealed else None,
        "pack": rnd.pack if revealed else None,
        "check": 'python3 -c "import hashlib,sys; print(hashlib.sha256(sys.argv[1].encode()).hexdigest())" "SALT:PACK"',
    }


def round_totals(rnd: Round) -> dict:
    return {
        "bets": rnd.bet_count,
        "staked": str(rnd.total_staked),
        "paid": str(rnd.total_paid),
        "house_result": str(rnd.total_staked - rnd.total_paid),
    }


def table_history(*, table_id: int, limit: int = 50) -> list[dict]:
    rows = (
        Round.objects.filter(table_id=table_id, status__in=[Round.Status.FINISHED, Round.Status.SETTLED])
        .order_by("-id")
        .values("id", "winner", "cards_dealt", "joker")[:limit]
    )
    return list(rows)


# --- the change log ---------------------------------------------------------------------------------

CHANGE_COLUMNS = ("kind", "id", "at", "actor", "source", "table", "subject", "field", "old", "new")


def _columns(rows: QuerySet, kind: str, table, subject) -> QuerySet:
    """One log's rows as the columns both logs share (every column an annotation, so a union of
    the two lines its columns up by position)."""
    return rows.order_by().annotate(
        c_kind=Value(kind, output_field=CharField()), c_id=F("id"), c_at=F("at"), c_actor=F("actor_name"),
        c_source=F("source"), c_table=table, c_subject=subject, c_field=F("field"), c_old=F("old"), c_new=F("new"),
    ).values(*(f"c_{c}" for c in CHANGE_COLUMNS))


def table_changes(*, table_id: int) -> QuerySet:
    """A table's change log, newest first."""
    rows = _columns(TableChange.objects.filter(table_id=table_id), "table", F("table_id"), F("table__name"))
    return rows.order_by("-c_at", "-c_id")


def studio_changes() -> QuerySet:
    """Every table's change log and the access record (roles, permissions, passwords: accounts'
    AccessChange) in one list, newest first; `kind` says which log a row is from."""
    tables = _columns(TableChange.objects.all(), "table", F("table_id"), F("table__name"))
    access = _columns(AccessChange.objects.all(), "access", Value(None, output_field=IntegerField()), F("username"))
    return tables.union(access, all=True).order_by("-c_at", "-c_kind", "-c_id")


def change_row(row: dict) -> dict:
    return {c: row[f"c_{c}"] for c in CHANGE_COLUMNS}
