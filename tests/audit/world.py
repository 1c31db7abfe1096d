"""A small studio whose history fills every kind of chained record, built through the services:

- table A: created and put under maintenance and back (change log); round 1 settled with bets,
  its table's limit changed, then an incident with two notes, a card corrected (re-settled) and the
  incident resolved; round
  2 settled, then voided after settlement (its incident closed by the void);
- table B: round 3 with a card dealt, still dealing;
- the studio chain: the personas' accounts (studio_user records them).

Settlement runs directly (bets.settlement.round_settle), so the tests need no after-commit tasks."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from bets.services import bet_place
from bets.settlement import round_settle
from incidents.services import card_replace, incident_add_note, incident_raise, incident_resume, incident_void
from tables.models import Incident, Round, Table
from tables.services import card_deal, round_close_betting, round_open, table_create, table_state_set, table_update

D = Decimal
# RULES.md worked example 2: joker KS; Andar wins on card 7 (KD).
EXAMPLE_2 = ["AC", "QS", "8D", "7C", "JH", "2H", "KD"]


@dataclass
class World:
    a: Table
    b: Table
    settled: Round  # round 1: settled, corrected, re-settled
    voided: Round  # round 2: settled, then voided
    dealing: Round  # round 3, at table B
    incident: Incident  # round 1's, resolved
    void_incident: Incident  # round 2's


def deal(rnd: Round, cards: list[str], dealer) -> None:
    for card in cards:
        card_deal(round_id=rnd.pk, card=card, actor=dealer)


def build(*, dealer, supervisor, alice, bob) -> World:
    a = table_create(table=Table(name="Audit A", betting_seconds=15), actor=supervisor, source="api")
    b = table_create(table=Table(name="Audit B", betting_seconds=15), actor=supervisor, source="api")
    table_state_set(table_id=a.pk, state="maintenance", reason="new shoe", actor=supervisor)
    table_state_set(table_id=a.pk, state="open", actor=supervisor)

    one = round_open(table_id=a.pk, joker="KS", dealer=dealer)
    bet_place(round_id=one.pk, player=alice, spot="andar", amount=D(50))
    bet_place(round_id=one.pk, player=bob, spot="bahar", amount=D(30))
    bet_place(round_id=one.pk, player=bob, spot="count_6_10", amount=D(20))
    round_close_betting(round_id=one.pk, actor=dealer)
    deal(one, EXAMPLE_2, dealer)
    assert round_settle(round_id=one.pk)
    # The change log between the round's settlement and its correction: in its record, bare links.
    table_update(table_id=a.pk, changes={"max_bet": D(800)}, actor=supervisor, source="api")
    incident = incident_raise(round_id=one.pk, actor=supervisor, kind="misread", notes="card 3 was the 9D")
    incident_add_note(incident_id=incident.pk, actor=supervisor, text="checked on camera 2")
    card_replace(round_id=one.pk, position=3, card="9D", actor=supervisor)
    incident_resume(incident_id=incident.pk, actor=supervisor, resolution="corrected from the camera")

    two = round_open(table_id=a.pk, joker="QH", dealer=dealer)
    bet_place(round_id=two.pk, player=alice, spot="andar", amount=D(20))
    round_close_betting(round_id=two.pk, actor=dealer)
    deal(two, ["3C", "QD"], dealer)
    assert round_settle(round_id=two.pk)
    void_incident = incident_raise(round_id=two.pk, actor=supervisor, kind="procedure", notes="")
    incident_void(incident_id=void_incident.pk, actor=supervisor, reason="cards exposed before the deal")

    three = round_open(table_id=b.pk, joker="7C", dealer=supervisor)
    round_close_betting(round_id=three.pk, actor=supervisor)
    deal(three, ["2D"], supervisor)
    for obj in (one, two, three, incident, void_incident):
        obj.refresh_from_db()
    return World(a=a, b=b, settled=one, voided=two, dealing=three, incident=incident, void_incident=void_incident)
