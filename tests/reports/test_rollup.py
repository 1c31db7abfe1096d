"""The rollups stay exact through settlements, voids and corrections (re-settlements): each time,
the rollups equal a recomputation from the rounds, the bets and the ledger."""
from datetime import UTC, date, datetime

import pytest

from bets.services import bet_cancel
from bets.settlement import round_settle
from incidents import services as incidents
from reports.models import Rollup, RollupDay
from reports.rollup import rebuild_days
from tables.models import Round

from ..incidents.conftest import place, raise_incident
from .conftest import assert_rollups_exact, close, deal, open_round, play, quick_player

pytestmark = pytest.mark.django_db  # both databases: the embedded mode settles through the same statements


@pytest.fixture
def players(db):
    return [quick_player(f"p{i}", 5000) for i in range(3)]


def test_settlements_are_added_per_spot_and_for_the_round(dealer, table, players):
    alice, bob, carol = players
    # RULES.md example 2: joker KS; 7 cards, Andar wins; First 3 (KS AC QS) a straight; card count 6-10.
    rnd = play(table, dealer, [(alice, "andar", 50), (bob, "bahar", 40), (carol, "first_three", 10), (alice, "count_6_10", 5)],
               ["AC", "QS", "8D", "7C", "JH", "2H", "KD"])
    play(table, dealer, [(bob, "andar", 20), (carol, "bahar", 30)], ["2C", "KD"])
    assert_rollups_exact()
    whole = Rollup.objects.get(spot="", table=table)
    assert (whole.rounds, whole.cards, whole.bets, whole.player_rounds) == (2, 9, 6, 5)
    assert (str(whole.stakes), str(whole.payouts)) == ("155.00", "265.00")  # 95 + 90 + 20, and 60
    andar = Rollup.objects.get(spot="andar", table=table)
    assert (andar.bets, str(andar.stakes), str(andar.payouts)) == (2, "70.00", "95.00")
    assert Rollup.objects.get(spot="first_three").payouts == 90
    assert whole.hour == rnd.opened_at.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


def test_a_cancelled_bet_is_left_out(dealer, table, players):
    alice, bob, _ = players
    rnd = open_round(table, dealer)
    kept = place(alice, rnd, "andar", 50)
    gone = place(bob, rnd, "bahar", 70)
    bet_cancel(bet_id=gone.pk, player=bob)
    close(rnd, dealer)
    assert deal(rnd, dealer, ["KD"])
    assert round_settle(round_id=rnd.pk) and kept
    assert_rollups_exact()
    assert Rollup.objects.get(spot="").bets == 1


def test_voiding_a_settled_round_takes_its_settlement_back_and_counts_the_void(dealer, supervisor, table, players):
    alice, bob, _ = players
    play(table, dealer, [(alice, "andar", 50)], ["2C", "KD"])
    rnd = play(table, dealer, [(alice, "andar", 100), (bob, "bahar", 60), (bob, "first_bahar", 10)], ["3C", "KD"])
    incident = raise_incident(rnd, supervisor, "procedure")
    incidents.incident_void(incident_id=incident.pk, actor=supervisor, reason="shoe not shuffled")
    assert_rollups_exact()
    whole = Rollup.objects.get(spot="")
    assert (whole.rounds, whole.voids, whole.incidents, whole.bets, str(whole.stakes)) == (1, 1, 1, 1, "50.00")
    assert Rollup.objects.get(spot="first_bahar").bets == 0


def test_a_round_voided_before_its_settlement_counts_a_void_and_no_bets(dealer, supervisor, table, players):
    alice, _, _ = players
    rnd = open_round(table, dealer)
    place(alice, rnd, "andar", 100)
    incident = raise_incident(rnd, dealer, "equipment")
    incidents.incident_void(incident_id=incident.pk, actor=supervisor, reason="scanner broken")
    assert_rollups_exact()
    assert Rollup.objects.filter(spot="").values_list("rounds", "voids", "incidents", "bets").get() == (0, 1, 1, 0)
    assert not Rollup.objects.exclude(spot="").exists()


def test_a_correction_re_settles_and_the_rollup_keeps_only_the_new_figures(dealer, supervisor, table, players):
    alice, bob, carol = players
    # Joker KS, QS to Andar and JS to Bahar: a straight flush for First 3 (120:1), until JS is corrected to 3D.
    rnd = play(table, dealer, [(alice, "first_three", 10), (bob, "bahar", 100), (carol, "andar", 50)], ["QS", "JS", "2C", "KH"])
    assert Rollup.objects.get(spot="first_three").payouts == 1210
    raise_incident(rnd, supervisor, "misread", "card 2 was the 3D")
    incidents.card_replace(round_id=rnd.pk, position=2, card="3D", actor=supervisor)
    assert Round.objects.get(pk=rnd.pk).settlement_version == 2
    assert_rollups_exact()
    assert Rollup.objects.get(spot="first_three").payouts == 0
    whole = Rollup.objects.get(spot="")
    assert (whole.rounds, whole.cards, whole.incidents, str(whole.payouts)) == (1, 4, 1, "200.00")
    # and a void after the correction takes back the re-settled figures
    incident = raise_incident(rnd, supervisor, "procedure")
    incidents.incident_void(incident_id=incident.pk, actor=supervisor, reason="wrong shoe")
    assert_rollups_exact()


def test_rounds_are_placed_by_their_table_dealer_and_opening_hour(dealer, supervisor, make_table, players):
    alice, bob, _ = players
    one, two = make_table(), make_table()
    first = open_round(one, dealer)
    Round.objects.filter(pk=first.pk).update(opened_at=datetime(2026, 11, 30, 23, 59, 59, tzinfo=UTC))
    place(alice, first, "andar", 10)
    close(first, dealer)
    deal(first, dealer, ["KD"])
    round_settle(round_id=first.pk)
    play(two, supervisor, [(bob, "bahar", 20)], ["2C", "KD"])
    assert_rollups_exact()
    assert set(Rollup.objects.filter(spot="").values_list("table_id", "hour", "dealer_id")) == {
        (one.pk, datetime(2026, 11, 30, 23, tzinfo=UTC), dealer.pk),
        (two.pk, Round.objects.filter(table=two).get().opened_at.astimezone(UTC).replace(minute=0, second=0, microsecond=0), supervisor.pk),
    }


def test_the_daily_spots_follow_the_time_zone_and_are_rebuilt_when_it_changes(dealer, table, players, settings):
    alice, bob, _ = players
    play(table, dealer, [(alice, "andar", 10)], ["2C", "3D", "KH"], opened_at=datetime(2026, 12, 1, 4, 30, tzinfo=UTC))
    play(table, dealer, [(bob, "bahar", 20)], ["KD"], opened_at=datetime(2026, 12, 1, 5, 30, tzinfo=UTC))
    assert set(RollupDay.objects.values_list("day", "spot")) == {(date(2026, 12, 1), "andar"), (date(2026, 12, 1), "bahar")}
    settings.TIME_ZONE = "America/New_York"
    assert rebuild_days() == 2
    assert set(RollupDay.objects.values_list("day", "spot")) == {(date(2026, 11, 30), "andar"), (date(2026, 12, 1), "bahar")}
    assert_rollups_exact()



def test_a_multiplier_tables_spots_are_kept_apart_per_multiplier_through_a_correction_and_a_void(dealer, supervisor, make_table, players):
    alice, bob, _ = players
    table = make_table(multipliers={"spots": ["andar", "bahar"], "draws": 1, "values": [[2, 1], [5, 1]]})
    rounds = [play(table, dealer, [(alice, "andar", 50), (bob, "bahar", 40)], ["2C", "3D", "KD"]) for _ in range(4)]
    assert_rollups_exact()  # each round's spots under the multipliers it drew (the recomputation keys them so)
    want = {(spot, next((d["multiplier"] for d in rnd.multipliers if d["spot"] == spot), 1)) for rnd in rounds for spot in ("andar", "bahar")}
    assert set(Rollup.objects.exclude(spot="").values_list("spot", "multiplier")) == want
    assert any(m > 1 for _, m in want)
    rnd = rounds[0]
    incident = raise_incident(rnd, supervisor, "settlement")
    incidents.card_replace(round_id=rnd.pk, position=2, card="4D", actor=supervisor)  # settled again, the same draw
    assert_rollups_exact()
    incidents.incident_void(incident_id=incident.pk, actor=supervisor, reason="shoe fault")
    assert_rollups_exact()
