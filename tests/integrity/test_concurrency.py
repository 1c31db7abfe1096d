"""Real parallel settlements: rounds of eight tables with one dealer settled at once
all reach the dealer's monitor and the studio's baseline (the upserts lock, no update is lost, no
deadlock), and one round settled twice at once is counted once."""
import pytest

from bets.settlement import round_settle
from integrity.models import Baseline, Monitor, MonitoredRound
from tables.services import round_close_betting, round_open
from tests.parallel import at_once
from tests.bets.flow import EXAMPLE_2_CARDS, finish_without_settling

pytestmark = pytest.mark.django_db(transaction=True)


def finished_round(table, dealer):
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    round_close_betting(round_id=rnd.pk, actor=dealer)
    return finish_without_settling(rnd, EXAMPLE_2_CARDS)


def test_parallel_settlements_of_one_dealer_are_all_counted(make_table, dealer):
    rounds = [finished_round(make_table(), dealer) for _ in range(8)]
    results = at_once(*[lambda r=r: round_settle(round_id=r.pk) for r in rounds])
    assert results == [True] * 8
    assert Monitor.objects.get(kind="dealer", dealer=dealer).state["rounds"] == 8
    assert sorted(m.state["rounds"] for m in Monitor.objects.filter(kind="table")) == [1] * 8
    assert Baseline.objects.get(pk=1).rounds == 8


def test_one_round_settled_twice_at_once_is_counted_once(table, dealer):
    rnd = finished_round(table, dealer)
    results = at_once(*[lambda: round_settle(round_id=rnd.pk)] * 2)
    assert sorted(results) == [False, True]
    assert MonitoredRound.objects.filter(round_id=rnd.pk, results=True).count() == 1
    assert Monitor.objects.get(kind="dealer", dealer=dealer).state["rounds"] == 1
