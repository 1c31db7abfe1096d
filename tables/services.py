"""Services that change tables and rounds. Views call these; nothing else writes a round."""
from __future__ import annotations

import secrets
import time
from datetime import timedelta

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from audit.chain import plain
from engine import Deal, DealFinished, DuplicateCard, InvalidCard, Outcome, parse_card, winning_spots
from engine.multipliers import SEED_BYTES, commitment, draw
from studio import metrics, sql
from studio.errors import ApplicationError, WrongMoment, invalid
from studio.times import utc_ms

from . import events, hooks, shifts, stream
from .access import PERSON, require_round_driver, require_table_driver
from .changes import API, LOGGED_FIELDS, change_record, same
from .locking import Held, lock_round, lock_table
from .models import DealtCard, Round, Table, TableChange
from .selectors import round_config, round_deal, round_spots
from .transitions import audit, transition, transition_or_refuse

S = Round.Status
EARLY_WAIT = 0.5  # seconds a close-betting task that runs early waits for the deadline (close_betting_when_due)


def parse_card_field(field: str, text) -> str:
    """The canonical form of a card a console or scanner sent, or a 400 naming the input."""
    try:
        return str(parse_card(str(text)))
    except InvalidCard as exc:
        raise invalid(field, str(exc), code="invalid_card") from None


def _refuse_not_open(rnd: Round, doing: str):
    messages = {
        S.PAUSED: "The round is paused: a supervisor must resume it first.",
        S.FINISHED: f"The round is over: {rnd.winner.capitalize() if rnd.winner else 'a side'} won on card {rnd.cards_dealt}. Open a new round.",
        S.SETTLED: f"The round is over and settled: {rnd.winner.capitalize() if rnd.winner else ''} won on card {rnd.cards_dealt}. Open a new round.",
        S.VOIDED: "The round was voided. Open a new round.",
        S.DEALING: "Betting is already closed.",
    }
    raise WrongMoment(f"Cannot {doing}: {messages.get(rnd.status, rnd.status)}", code=f"round_{rnd.status}", extra={"status": rnd.status})


def require_table_open(table: Table) -> None:
    """A closed or maintenance table opens no new round (409 `table_closed`, naming the state and why)."""
    if table.state != Table.State.OPEN:
        why = f": {table.state_reason}" if table.state_reason else "."
        raise WrongMoment(f"The table is {table.state}{why} It opens no new round until a supervisor opens it.",
                          code="table_closed", extra={"state": table.state, "reason": table.state_reason})


def round_open(*, table_id: int, joker: str, dealer, fairness: dict | None = None, by: str = PERSON) -> Round:
    """Open betting with the joker face up. `by`: who drives (tables.access); the virtual dealer
    passes its `fairness`: commitment, pack and salt. A closed or maintenance table opens none (409
    `table_closed`). A person's round belongs to a shift (tables.shifts.shift_for_round: it may
    start one, or refuse with 409 `dealer_on_shift`)."""
    joker = parse_card_field("joker", joker)

    def work(held: Held) -> Round:
        table = held.table
        require_table_driver(table=table, by=by, doing="open its rounds")
        require_table_open(table)
        if (by == PERSON) != (fairness is None):
            raise WrongMoment("The virtual dealer commits to its pack; a person does not.", code="wrong_driver")
        current = Round.objects.filter(table=table, status__in=Round.OPEN_STATUSES).first()
        if current is not None:
            raise WrongMoment(
                f"Round {current.pk} is still {current.status} at this table: finish it (or have a supervisor void it) first.",
                code="round_already_open", extra={"round": current.pk},
            )
        shift = shifts.shift_for_round(table=table, dealer=dealer, by=by)
        config = table.engine_config()
        first_side = Deal.start(config, parse_card(joker)).first_side.value
        now = timezone.now()
        rnd = Round.objects.create(
            table=table, settings=table.snapshot(), joker=joker, first_side=first_side, status=S.BETTING,
            opened_at=now, closes_at=now + timedelta(seconds=table.betting_seconds), dealer=dealer, shift=shift,
            **(fairness or {}), **multipliers_committed(config),
        )
        held = held.with_round(rnd)
        committed = {"multipliers_commit": rnd.multipliers_commit} if rnd.multipliers_commit else {}
        audit(held, actor=dealer, action="opened", to=S.BETTING, data={"joker": joker, "settings": rnd.settings, **committed})
        hooks.betting_opened.send(sender=Round, rnd=rnd)
        stream.table_event(held, events.RoundOpened(
            joker=joker, first_side=first_side, closes_at=rnd.closes_at.isoformat(), betting_seconds=table.betting_seconds,
            spots=round_spots(rnd), commitment=rnd.commitment or None, multipliers_commit=rnd.multipliers_commit or None,
        ))
        return rnd

    try:
        if by == PERSON:  # the dealer, the table and the one the dealer may leave, in id order (tables.shifts)
            return shifts.with_tables_locked(table_id, dealer, lambda table: work(lock_table(table.pk, row=table)))
        with transaction.atomic():
            return work(lock_table(table_id))
    except IntegrityError:  # the partial unique index caught a race between two opens
        raise WrongMoment("Another round was just opened at this table.", code="round_already_open") from None


def multipliers_committed(config) -> dict:
    """A new round's multiplier seed and its published commitment, on a table with multipliers
    (engine.multipliers): 32 bytes of the operating system's CSPRNG."""
    if config.multipliers is None:
        return {}
    seed = secrets.token_bytes(SEED_BYTES)
    return {"multipliers_seed": seed.hex(), "multipliers_commit": commitment(seed)}


def multipliers_drawn(rnd: Round) -> dict:
    """The round's multipliers drawn from its committed seed, and the seed, as the round stores and
    its audit record chains them; {} for a round without a seed (a table without multipliers)."""
    setting = round_config(rnd).multipliers
    if not rnd.multipliers_seed or setting is None:
        return {}
    drawn = draw(setting, bytes.fromhex(rnd.multipliers_seed))
    return {"multipliers": [{"spot": spot, "multiplier": multiplier} for spot, multiplier in drawn],
            "multipliers_seed": rnd.multipliers_seed}


def round_close_betting(*, round_id: int, actor=None, reason: str = "dealer", strict: bool = True, by: str = PERSON) -> bool:
    """Close betting now. Strict (the API, a match whose players are all done): only the round's
    driver (`by`, tables.access), a person only at a round whose table they may see (else 404) and
    only as tables.shifts.require_round_dealer allows (the dealer on shift there, or the round's own
    dealer while no one is; supervisors), and a 409 unless betting is open. Not strict (the clock:
    the timer, the sweep, the virtual dealer's timer): a no-op unless betting is open and due."""
    person = strict and by == PERSON
    with transaction.atomic():
        # The exclusive lock waits for the bets in flight (they hold a shared lock), so closed_at is
        # taken after the last accepted bet and no bet can be accepted after it.
        held = lock_round(round_id, user=actor if person else None)
        rnd = held.round
        if strict:
            require_round_driver(rnd=rnd, by=by, doing="close betting")
        if person:
            shifts.require_round_dealer(rnd=rnd, actor=actor, doing="close betting")
        if rnd.status != S.BETTING:
            if strict:
                _refuse_not_open(rnd, "close betting")
            return False
        if not strict and rnd.closes_at > timezone.now():
            return False
        return _close(held, actor=actor, reason=reason, strict=strict)


def _close(held: Held, *, actor, reason: str, strict: bool) -> bool:
    rnd = held.round
    now = timezone.now()
    closed_at = min(now, rnd.closes_at)
    drawn = multipliers_drawn(rnd)  # in the transition that closes betting: no bet can follow the draw
    if not transition(held, frm=S.BETTING, to=S.DEALING, actor=actor, action="betting_closed",
                      data={"reason": reason, **drawn}, closed_at=closed_at, **drawn):
        if strict:
            rnd.refresh_from_db()
            _refuse_not_open(rnd, "close betting")
        return False
    stream.table_event(held, events.BettingClosed(closed_at=closed_at.isoformat(), reason=reason,
                                                  multipliers=drawn.get("multipliers"), multipliers_seed=rnd.multipliers_seed or None))
    if now >= rnd.closes_at:  # a due close (timer, sweep, first card, or a dealer after the deadline): how late
        lag = (now - rnd.closes_at).total_seconds()
        transaction.on_commit(lambda: metrics.CLOSE_LAG.observe(lag))
    rnd.status, rnd.closed_at = S.DEALING, closed_at
    return True


REFUSED_SCANS = ("invalid_card", "duplicate_card")  # what the integrity monitor counts (tables.hooks.card_refused)


# Every card reads its round under the lock (tables.locking.lock_round, with the dealer on shift at
# its table, for tables.shifts.require_round_dealer), then its cards (a second statement: one that
# waited for the lock would see the cards as they were when it started), and writes its card and the
# round's count in one: written SQL, as the ORM spends more CPU building these statements than the
# database spends running them (studio.sql).
_CARD_FIELDS = ["id", "round_id", "position", "side", "card", "dealt_at"]
_CARD_INSERT_COUNTED = (
    f"WITH counted AS (UPDATE {Round._meta.db_table} SET cards_dealt = %s WHERE id = %s) "
    f"INSERT INTO {DealtCard._meta.db_table} ({sql.columns(DealtCard, _CARD_FIELDS[1:])}) "
    f"VALUES (%s, %s, %s, %s, %s) RETURNING {sql.columns(DealtCard, _CARD_FIELDS)}")


def _card_insert(*, rnd: Round, position: int, side: str, card: str) -> DealtCard:
    """Write the card and the round's count of cards (the match's count too: round_finish writes it again)."""
    params = [rnd.pk, position, side, card, connection.ops.adapt_datetimefield_value(timezone.now())]
    row = sql.fetch_one(_CARD_INSERT_COUNTED, [position, rnd.pk, *params])
    rnd.cards_dealt = position
    return sql.instance(DealtCard, _CARD_FIELDS, row)


def card_deal(*, round_id: int, card: str, actor, by: str = PERSON) -> tuple[DealtCard, bool]:
    """Deal the next card of the shoe (only the round's driver, `by`; a person only at a round whose
    table they may see, else 404, and only as tables.shifts.require_round_dealer allows). The server
    decides its side; the match finishes the round. The
    round row is locked, so two consoles (or a double scan) can never deal at one position. An
    unreadable or duplicate card is refused and, once its transaction has rolled back, told to
    tables.hooks.card_refused."""
    try:
        return _card_deal(round_id=round_id, card=card, actor=actor, by=by)
    except ApplicationError as exc:  # a refused scan is only ever told at a round the actor may see
        rnd = Round.objects.filter(pk=round_id).first() if exc.code in REFUSED_SCANS else None
        if rnd is not None:
            hooks.card_refused.send(sender=Round, rnd=rnd, code=exc.code)
        raise


def _card_deal(*, round_id: int, card: str, actor, by: str) -> tuple[DealtCard, bool]:
    with transaction.atomic():
        held = lock_round(round_id, user=actor if by == PERSON else None)
        rnd = held.round
        card = parse_card_field("card", card)
        require_round_driver(rnd=rnd, by=by, doing=f"deal {card}")
        if by == PERSON:
            shifts.require_round_dealer(rnd=rnd, actor=actor, doing=f"deal {card}")
        if rnd.status == S.BETTING:
            if rnd.closes_at > timezone.now():
                left = (rnd.closes_at - timezone.now()).total_seconds()
                raise WrongMoment(
                    f"Betting is still open ({left:.0f} s left): close betting before dealing {card}.",
                    code="betting_open", extra={"status": rnd.status},
                )
            _close(held, actor=None, reason="first card", strict=True)
        if rnd.status != S.DEALING:
            _refuse_not_open(rnd, f"deal {card}")
        deal = round_deal(rnd)
        side = deal.next_side
        try:
            deal = deal.deal(parse_card(card))
        except DuplicateCard as exc:
            raise WrongMoment(str(exc), code="duplicate_card", extra={"card": card}) from None
        except DealFinished as exc:
            raise WrongMoment(str(exc), code="deal_finished", extra={"card": card}) from None
        position = len(deal.cards)
        dealt = _card_insert(rnd=rnd, position=position, side=side.value, card=card)
        stream.table_event(held, events.CardDealt(
            position=position, side=side.value, card=card, next_side=deal.next_side.value if deal.next_side is not None else None,
            dealt_at=utc_ms(dealt.dealt_at)))
        # The event records the card's time too (the record's, to the microsecond): verify_audit
        # checks the row against it.
        audit(held, actor=actor, action="card", frm=rnd.status, to=rnd.status,
              at=dealt.dealt_at, data={"position": position, "side": side.value, "card": card, "dealt_at": plain(dealt.dealt_at)})
        outcome = deal.outcome
        if outcome is None:
            return dealt, False
        round_finish(held, outcome=outcome, actor=actor)
        return dealt, True


def round_finish(held: Held, *, outcome: Outcome, actor) -> None:
    """The deal has found its match (the last card dealt, or a correction while paused): the round
    is finished, the table told, and settlement follows (tables.hooks.round_finished). The caller
    holds the round's locks (tables.locking.lock_round) and has just read it dealing."""
    rnd = held.round
    winner, cards_dealt, match = outcome.winner.value, outcome.cards_dealt, str(outcome.match_card)
    now = timezone.now()
    # A refused transition rolls the event's number back with the rest.
    stream.table_event(held, events.RoundFinished(winner=winner, cards_dealt=cards_dealt, match=match,
                                                                   winning_spots=winning_spots(round_config(rnd), outcome)))
    transition_or_refuse(held, frm=S.DEALING, to=S.FINISHED, actor=actor, action="finished",
                         data={"winner": winner, "cards_dealt": cards_dealt, "match": match},
                         winner=winner, cards_dealt=cards_dealt, finished_at=now)
    rnd.status, rnd.winner, rnd.cards_dealt, rnd.finished_at = S.FINISHED, winner, cards_dealt, now
    hooks.round_finished.send(sender=Round, rnd=rnd)


def close_expired_betting() -> int:
    """The sweep: close every round whose betting deadline has passed (a lost timer task)."""
    due = Round.objects.filter(status=S.BETTING, closes_at__lte=timezone.now()).values_list("pk", flat=True)
    return sum(round_close_betting(round_id=pk, reason="sweep", strict=False) for pk in list(due))


def close_betting_when_due(*, round_id: int) -> bool:
    """The timer task's body: close at closes_at. A task that runs a moment early (a timer's
    granularity) waits for the deadline; one that comes sooner than that does nothing, for betting is
    never cut short: the sweep (close_expired_betting, every second) closes the round at its deadline."""
    rnd = Round.objects.filter(pk=round_id).only("status", "closes_at").first()
    if rnd is None or rnd.status != S.BETTING:
        return False
    early = (rnd.closes_at - timezone.now()).total_seconds()
    if early > EARLY_WAIT:
        return False
    if early > 0:
        time.sleep(early)
    return round_close_betting(round_id=round_id, reason="timer", strict=False)


# --- the tables' settings and states, and the change log --------------------------------------

def _validate_state(table: Table) -> None:
    if table.state not in Table.State.values:
        raise invalid("state", f"Unknown state {table.state!r}: one of {', '.join(Table.State.values)}.")
    table.state_reason = (table.state_reason or "").strip()
    if table.state == Table.State.MAINTENANCE and not table.state_reason:
        raise invalid("reason", "A table under maintenance needs a reason: players read it.")
    if table.state == Table.State.OPEN:
        table.state_reason = ""


def _check(table: Table) -> None:
    """The model's rules on the values as a whole (its clean() and constraints: a ValidationError,
    400); the fields' own shapes are the API's serializer's and the admin form's to check."""
    table.clean()
    table.validate_constraints()


def table_create(*, table: Table, actor, source: str) -> Table:
    """Store a new table (the unsaved `table`), recorded in the change log as created."""
    _validate_state(table)
    _check(table)
    with transaction.atomic():
        table.save()
        change_record(table_id=table.pk, actor=actor, source=source, field="created", old="", new=table.name)
    return table


def table_update(*, table_id: int, changes: dict, actor, source: str) -> tuple[Table, list[TableChange]]:
    """Change a table's settings, limits, state or driver: `changes` maps fields to their new
    values, applied to the row read again under its lock (what another writer changed meanwhile
    stays), checked by the model's rules (a ValidationError: 400), and one change-log row per value
    that changed, old and new. The API and the admin both save through here; only the changed
    columns are written (never the stream's counter). A new state is announced on the table's
    stream; a table that becomes the virtual dealer's ends its dealer's shift."""
    unknown = set(changes) - set(LOGGED_FIELDS)
    if unknown:
        raise ValueError(f"table_update does not change {sorted(unknown)}")
    with transaction.atomic():
        held = lock_table(table_id)
        table = held.table
        old = {f: getattr(table, f) for f in LOGGED_FIELDS}
        for field, value in changes.items():
            setattr(table, field, value)
        _validate_state(table)  # opening a table clears its reason
        changed = [f for f in LOGGED_FIELDS if not same(old[f], getattr(table, f))]
        if not changed:
            return table, []
        _check(table)
        table.save(update_fields=changed)
        records = [change_record(table_id=table.pk, actor=actor, source=source, field=f, old=old[f], new=getattr(table, f))
                   for f in changed]
        if "state" in changed or "state_reason" in changed:
            stream.table_event(held, events.TableState(state=table.state, reason=table.state_reason))
        if "virtual_dealer" in changed and table.virtual_dealer:
            shifts.shifts_end_at_table(table=table, actor=actor, source=source)
        return table, records


def table_state_set(*, table_id: int, state: str, reason: str = "", actor, source: str = API) -> Table:
    """Open, close or put a table under maintenance (a reason required for maintenance; a closed
    table may say why, an open one has none). A running round finishes; round_open refuses the next
    one while the table is not open. Setting the state it already has records nothing."""
    return table_update(table_id=table_id, changes={"state": state, "state_reason": reason}, actor=actor, source=source)[0]
