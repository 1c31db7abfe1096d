"""The virtual dealer's own shuffles are monitored as a person's deals are: its rounds feed its
table's monitor and the virtual dealer's; a shuffler that stacks the pack is flagged. Its rounds
feed no operational check (nobody scans, corrects or paces them)."""
import random

import pytest

from integrity.models import Alert, Baseline, Monitor
from tables.models import Round
from virtual import dealer as virtual

pytestmark = pytest.mark.django_db(transaction=True)


class StackedShuffler(random.Random):
    """Shuffles, then puts a card of the joker's rank second: every deal ends on its first card."""

    def shuffle(self, pack):
        super().shuffle(pack)
        mate = next(i for i, c in enumerate(pack[1:], 1) if c[:-1] == pack[0][:-1])
        pack[1], pack[mate] = pack[mate], pack[1]


def run(table, rng, *, rounds: int | None = None, until_alert: bool = False) -> int:
    for _ in range(5000):
        settled = Round.objects.filter(table=table, status="settled").count()
        if (rounds is not None and settled >= rounds) or (until_alert and Alert.objects.exists()):
            return settled
        virtual.tick(table_id=table.pk, rng=rng)
    raise AssertionError("the virtual dealer did not get there")


@pytest.fixture
def virtual_table(make_table):
    return make_table(virtual_dealer=True, betting_seconds=0, deal_interval_ms=0, round_gap_ms=0)


def test_the_virtual_dealers_rounds_feed_its_table_and_itself(virtual_table):
    run(virtual_table, random.Random(15), rounds=8)
    dealer = Monitor.objects.get(kind="dealer", dealer__username=virtual.VIRTUAL_DEALER)
    assert Monitor.objects.get(kind="table", table=virtual_table).state["rounds"] == dealer.state["rounds"] == 8
    assert dealer.state["ops_rounds"] == 0 and not Baseline.objects.exists()
    assert not Alert.objects.exists()


def test_a_stacked_shuffler_is_flagged_within_a_few_dozen_rounds(virtual_table):
    rounds = run(virtual_table, StackedShuffler(15), until_alert=True)
    assert rounds <= 20
    assert {(a.monitor.kind, a.check_name) for a in Alert.objects.select_related("monitor")} == {
        ("table", "first_card_match"), ("dealer", "first_card_match")}
