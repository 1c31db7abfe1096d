"""The monitor on real rounds: a seeded fair run raises nothing, a stacked shoe alerts within a few
dozen rounds at its table and its dealer, a round counts once, a void counts for the dealer."""
import pytest

from incidents.services import incident_raise, incident_void
from studio.errors import ApplicationError
from tables.services import card_deal, round_close_betting, round_open
from integrity import services
from integrity.models import Alert, Baseline, Monitor, MonitoredRound
from tables.models import Round

from .conftest import fair_pack, first_card_pack, play

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_fair_run_counts_every_round_once_and_raises_nothing(table, dealer, rng):
    for _ in range(40):
        play(table, dealer, fair_pack(rng))
    assert Round.objects.filter(table=table, status="settled").count() == 40
    table_monitor = Monitor.objects.get(kind="table", table=table)
    dealer_monitor = Monitor.objects.get(kind="dealer", dealer=dealer)
    assert table_monitor.state["rounds"] == dealer_monitor.state["rounds"] == 40
    assert MonitoredRound.objects.filter(results=True).count() == 40
    assert Baseline.objects.get(pk=1).rounds == 40  # the studio's own rates, from its person-dealt rounds
    assert not Alert.objects.exists()


def test_a_stacked_shoe_alerts_within_a_few_dozen_rounds_and_once_per_check(table, dealer, rng):
    rounds = 0
    while not Alert.objects.exists():
        play(table, dealer, first_card_pack(rng))
        rounds += 1
        assert rounds <= 30
    assert rounds == 14  # engine.integrity: 15 hundredths of log 3 a round against a threshold of 1500
    raised = {(a.monitor.kind, a.check_name) for a in Alert.objects.select_related("monitor")}
    assert raised == {("table", "first_card_match"), ("dealer", "first_card_match")}
    for _ in range(3):
        play(table, dealer, first_card_pack(rng))
    assert Alert.objects.filter(check_name="first_card_match").count() == 2  # still open: no second alert


def test_a_resettled_round_is_not_counted_again(table, dealer, rng):
    round_id = play(table, dealer, fair_pack(rng))
    services.on_round_settled(Round, rnd=Round.objects.get(pk=round_id))  # as a re-settlement sends it
    assert Monitor.objects.get(kind="table", table=table).state["rounds"] == 1


def test_a_void_counts_once_for_the_dealer(table, dealer, supervisor, rng):
    round_id = play(table, dealer, fair_pack(rng))
    incident = incident_raise(round_id=round_id, actor=supervisor, kind="procedure")
    incident_void(incident_id=incident.pk, actor=supervisor, reason="shuffle not verified")
    marker = MonitoredRound.objects.get(round_id=round_id)
    assert marker.results and marker.voided
    base = Baseline.objects.get(pk=1)
    assert (base.rounds, base.voids) == (1, 1)


def test_refused_scans_are_counted_on_their_round_and_reach_the_baseline(table, dealer, rng):
    pack = fair_pack(rng)
    rnd = round_open(table_id=table.pk, joker=pack[0], dealer=dealer)
    round_close_betting(round_id=rnd.pk, actor=dealer)
    for bad in ("ZZ", pack[0]):  # unreadable, then the joker again (a duplicate)
        with pytest.raises(ApplicationError):
            card_deal(round_id=rnd.pk, card=bad, actor=dealer)
    with pytest.raises(ApplicationError):
        card_deal(round_id=rnd.pk, card=pack[1], actor=dealer, by="virtual")  # not this round's driver: not a scan
    assert MonitoredRound.objects.get(round_id=rnd.pk).refused_scans == 2
    for card in pack[1:]:
        if card_deal(round_id=rnd.pk, card=card, actor=dealer)[1]:
            break
    base = Baseline.objects.get(pk=1)
    assert (base.rounds, base.refused, base.refused_scans, base.cards) == (1, 1, 2, Round.objects.get(pk=rnd.pk).cards_dealt)
