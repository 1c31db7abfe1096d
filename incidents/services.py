"""Incidents: pause a round, correct its cards, resume it, or void it and refund every bet.

Lock order as everywhere (tables.locking): the round's row, the table's row, its audit chain's head
and the wallets by id (a void's refunds, a settled round's re-settlement) through lock_round, then
the incident.
Everything an incident row holds is also recorded as the round's events: its kind (`incident`),
each note (`incident_note`), its resolution (`incident_resolved`, `resumed`) or void (`voided`);
verify_audit checks the row against them."""
from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from bets.refunds import round_refund_all, round_refund_lock
from bets.settlement import round_resettle, round_resettle_lock
from engine import EngineError
from studio.errors import NotFound, WrongMoment, invalid
from tables import events, hooks, stream
from tables.access import PERSON, require_round_driver, require_supervisor
from tables.models import DealtCard, Incident, Round
from tables.selectors import round_deal
from tables.shifts import require_round_dealer
from tables.locking import Held, lock_round
from tables.services import parse_card_field, round_finish
from tables.transitions import audit, transition_or_refuse

S = Round.Status
PAUSABLE = (S.BETTING, S.DEALING)


def _note(actor, text: str, at) -> dict:
    return {"at": at.isoformat(), "by": actor.username, "text": text}


def _noted(held: Held, incident: Incident, note: dict, *, actor, at) -> None:
    """A note of the incident, as the round's event (at the note's own instant)."""
    status = held.round.status
    audit(held, actor=actor, action="incident_note", frm=status, to=status, at=at, data={"incident": incident.pk, "note": note})


def incident_raise(*, round_id: int, actor, kind: str, notes: str = "") -> Incident:
    """Raise an incident. A round in betting or dealing is paused (the countdown stops); a finished
    or settled round is left as it is, for a supervisor to correct and re-settle, or void. Who may
    raise it: tables.shifts.require_round_dealer (a supervisor; a dealer on a person's round, on
    shift at its table or, while no one is, its own dealer)."""
    if kind not in Incident.Kind.values:
        raise invalid("kind", f"Unknown kind {kind!r}: one of {', '.join(Incident.Kind.values)}.")
    with transaction.atomic():
        held = lock_round(round_id, user=actor)
        rnd = held.round
        require_round_dealer(rnd=rnd, actor=actor, doing="raise an incident")
        if rnd.status == S.VOIDED:
            raise WrongMoment("The round was voided: there is nothing left to handle.", code="round_voided")
        paused = False
        if rnd.status in PAUSABLE:
            now = timezone.now()
            left_ms = max(0, int((rnd.closes_at - now).total_seconds() * 1000)) if rnd.status == S.BETTING else None
            transition_or_refuse(held, frm=rnd.status, to=S.PAUSED, actor=actor, action="paused",
                                 data={"kind": kind, "betting_left_ms": left_ms},
                                 resume_status=rnd.status, betting_left_ms=left_ms)
            stream.table_event(held, events.RoundPaused(kind=kind, betting_left_ms=left_ms))
            paused = True
        now = timezone.now()
        note = _note(actor, notes, now) if notes.strip() else None
        incident = Incident.objects.create(round=rnd, raised_by=actor, kind=kind, paused_round=paused,
                                           notes=[note] if note else [])
        status = S.PAUSED if paused else rnd.status
        audit(held, actor=actor, action="incident", frm=status, to=status, at=now,
              data={"incident": incident.pk, "kind": kind, "notes": notes})
        hooks.incident_raised.send(sender=Round, rnd=rnd, incident=incident)  # after the event: its reactions lock after the head
        if note:
            rnd.status = status
            _noted(held, incident, note, actor=actor, at=now)
        return incident


def incident_add_note(*, incident_id: int, actor, text: str) -> Incident:
    if not text.strip():
        raise invalid("text", "Write something.")
    with transaction.atomic():
        round_id = Incident.objects.filter(pk=incident_id).values_list("round_id", flat=True).first()
        if round_id is None:
            raise NotFound("No such incident.", code="not_found")
        held = lock_round(round_id, user=actor)  # the round's locks before the incident's (tables.locking)
        require_round_dealer(rnd=held.round, actor=actor, doing="add a note to its incident")
        incident = Incident.objects.select_for_update().get(pk=incident_id)
        now = timezone.now()
        note = _note(actor, text.strip(), now)
        incident.notes = [*incident.notes, note]
        incident.save(update_fields=["notes"])
        _noted(held, incident, note, actor=actor, at=now)
        return incident


def _open_incident(incident_id: int, wallets=None) -> tuple[Incident, Held]:
    """The open incident, locked after its round's locks (`wallets`: tables.locking.lock_round's)."""
    incident = Incident.objects.filter(pk=incident_id).first()
    if incident is None:
        raise NotFound("No such incident.", code="not_found")
    held = lock_round(incident.round_id, wallets=wallets)
    incident = Incident.objects.select_for_update().get(pk=incident_id)
    if incident.status != Incident.Status.OPEN:
        raise WrongMoment(f"This incident is already {incident.status}.", code=f"incident_{incident.status}",
                               extra={"status": incident.status})
    return incident, held


def _close_incident(incident: Incident, *, actor, status: str, resolution: str) -> None:
    """Compare-and-set from open, under the lock _open_incident took: losing it refuses the whole change."""
    closed = Incident.objects.filter(pk=incident.pk, status=Incident.Status.OPEN).update(
        status=status, resolved_at=timezone.now(), resolved_by=actor, resolution=resolution)
    if closed != 1:
        raise WrongMoment("This incident was closed meanwhile.", code="incident_changed")


def incident_resume(*, incident_id: int, actor, resolution: str = "") -> Round:
    """Resolve the incident. A paused round resumes where it was (betting gets its time left back)
    once no other incident holds it; a dealt match found by a correction finishes the round.
    A supervisor's (403 for anyone else)."""
    require_supervisor(actor, doing="resume a round")
    with transaction.atomic():
        incident, held = _open_incident(incident_id)
        rnd = held.round
        _close_incident(incident, actor=actor, status=Incident.Status.RESOLVED, resolution=resolution or "resumed")
        # Every other open incident of a paused round holds it: the one that paused it, and any raised
        # while it was paused (those have paused_round=False, the round being paused already).
        others = Incident.objects.filter(round=rnd, status=Incident.Status.OPEN).exclude(pk=incident.pk)
        if rnd.status != S.PAUSED or others.exists():
            audit(held, actor=actor, action="incident_resolved", frm=rnd.status, to=rnd.status,
                  data={"incident": incident.pk, "resolution": resolution})
            return rnd
        to = rnd.resume_status or S.DEALING
        fields = {"resume_status": "", "betting_left_ms": None}
        if to == S.BETTING:
            fields["closes_at"] = timezone.now() + timedelta(milliseconds=rnd.betting_left_ms or 0)
        transition_or_refuse(held, frm=S.PAUSED, to=to, actor=actor, action="resumed",
                             data={"incident": incident.pk, "resolution": resolution}, **fields)
        rnd.refresh_from_db()
        stream.table_event(held, events.RoundResumed(status=to, closes_at=rnd.closes_at.isoformat()))
        if to == S.BETTING:
            hooks.betting_opened.send(sender=Round, rnd=rnd)
        elif (outcome := round_deal(rnd).outcome) is not None:
            round_finish(held, outcome=outcome, actor=actor)
        return rnd


def incident_void(*, incident_id: int, actor, reason: str) -> Round:
    """Void the round: it can never be settled again, and every bet in it is refunded exactly once.
    A supervisor's (403 for anyone else)."""
    require_supervisor(actor, doing="void a round")
    if not (reason or "").strip():
        raise invalid("reason", "Say why the round is voided (players and auditors will read it).")
    with transaction.atomic():
        incident, held = _open_incident(incident_id, wallets=round_refund_lock)
        rnd = held.round
        if rnd.status == S.VOIDED:
            raise WrongMoment("The round is already voided.", code="round_voided")
        version = rnd.settlement_version + 1
        totals = round_refund_all(held, version=version)
        transition_or_refuse(held, frm=rnd.status, to=S.VOIDED, actor=actor, action="voided",
                             data={"incident": incident.pk, "reason": reason, "version": version, **totals},
                             settlement_version=version,
                             resume_status="", betting_left_ms=None, bet_count=totals["bets"],
                             total_staked=Decimal(totals["refunded"]), total_paid=Decimal(totals["refunded"]))
        _close_incident(incident, actor=actor, status=Incident.Status.VOIDED, resolution=reason)
        Incident.objects.filter(round=rnd, status=Incident.Status.OPEN).update(
            status=Incident.Status.VOIDED, resolved_at=timezone.now(), resolved_by=actor, resolution=f"round voided: {reason}")
        stream.table_event(held, events.RoundVoided(reason=reason, **totals))
        rnd.refresh_from_db()
        hooks.round_voided.send(sender=Round, rnd=rnd)
        return rnd


def _correctable(rnd: Round) -> None:
    if rnd.status in (S.PAUSED, S.FINISHED, S.SETTLED):
        if rnd.status != S.PAUSED and not Incident.objects.filter(round=rnd, status=Incident.Status.OPEN).exists():
            raise WrongMoment("Raise an incident on this round before correcting it.", code="no_open_incident")
        return
    raise WrongMoment(f"Cards can be corrected only while the round is paused, or after it (it is {rnd.status}).",
                           code=f"round_{rnd.status}")


def _recheck(rnd: Round, cards: list[str]) -> object:
    """The corrected cards must still be a legal deal; a finished round must still be finished."""
    try:
        deal = round_deal(rnd, cards)
    except EngineError as exc:
        raise WrongMoment(f"That correction is not a legal deal: {exc}", code="illegal_correction") from None
    if rnd.status in (S.FINISHED, S.SETTLED) and deal.outcome is None:
        raise WrongMoment("After that correction no card matches the joker: void the round instead.", code="illegal_correction")
    return deal


def card_replace(*, round_id: int, position: int, card: str, actor) -> Round:
    """Replace a misread card; its side stays what the rules say for its position. A supervisor's."""
    require_supervisor(actor, doing="correct a round's cards")
    card = parse_card_field("card", card)
    with transaction.atomic():
        held = lock_round(round_id, user=actor, wallets=round_resettle_lock)
        rnd = held.round
        require_round_driver(rnd=rnd, by=PERSON, doing="correct its cards")
        require_round_dealer(rnd=rnd, actor=actor, doing="correct its cards")
        _correctable(rnd)
        rows = list(DealtCard.objects.filter(round=rnd).order_by("position"))
        target = next((c for c in rows if c.position == position), None)
        if target is None:
            raise invalid("position", f"No card at position {position} (cards dealt: {len(rows)}).")
        cards = [card if c.position == position else c.card for c in rows]
        deal = _recheck(rnd, cards)
        if rnd.status == S.PAUSED and deal.outcome is not None and position != len(rows):
            raise WrongMoment("That card would match the joker before the last card dealt.", code="illegal_correction")
        before = target.card
        DealtCard.objects.filter(pk=target.pk).update(card=card)
        return _corrected(held, actor=actor, deal=deal, data={"action": "replace", "position": position, "before": before, "after": card})


def card_remove_last(*, round_id: int, actor) -> Round:
    """Remove the last dealt card (e.g. a double scan) while the round is paused. A supervisor's."""
    require_supervisor(actor, doing="correct a round's cards")
    with transaction.atomic():
        held = lock_round(round_id, user=actor, wallets=round_resettle_lock)
        rnd = held.round
        require_round_driver(rnd=rnd, by=PERSON, doing="correct its cards")
        require_round_dealer(rnd=rnd, actor=actor, doing="correct its cards")
        if rnd.status != S.PAUSED:
            raise WrongMoment("The last card can be removed only while the round is paused.", code=f"round_{rnd.status}")
        last = DealtCard.objects.filter(round=rnd).order_by("-position").first()
        if last is None:
            raise WrongMoment("No card has been dealt in this round.", code="no_cards")
        cards = list(DealtCard.objects.filter(round=rnd).exclude(pk=last.pk).order_by("position").values_list("card", flat=True))
        deal = _recheck(rnd, cards)
        last.delete()
        return _corrected(held, actor=actor, deal=deal, data={"action": "remove_last", "position": last.position, "before": last.card, "after": None})


def _corrected(held: Held, *, actor, deal, data: dict) -> Round:
    """Record a correction (the cards already changed): a finished round's new winner in the event
    too. A settled round is re-settled (its wallets locked with the round: round_resettle_lock)."""
    rnd = held.round
    outcome = deal.outcome
    fields = {"cards_dealt": len(deal.cards)}
    recorded = data
    if rnd.status in (S.FINISHED, S.SETTLED):
        fields.update(winner=outcome.winner.value, cards_dealt=outcome.cards_dealt)
        recorded = {**data, "winner": outcome.winner.value}
    Round.objects.filter(pk=rnd.pk).update(**fields)
    audit(held, actor=actor, action="corrected", frm=rnd.status, to=rnd.status, data=recorded)
    cards = [{"position": i + 1, "side": deal.side_of(i + 1).value, "card": str(c)} for i, c in enumerate(deal.cards)]
    stream.table_event(held, events.RoundCorrected(cards=cards, winner=fields.get("winner"), **data))
    rnd.refresh_from_db()
    if rnd.status == S.SETTLED:
        round_resettle(held, actor=actor)
        rnd.refresh_from_db()
    return rnd
