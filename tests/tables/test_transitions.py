"""A round's compare-and-set: the transition a lock holder makes is refused whole (409, nothing
written, nothing sent) if the round is not where the holder read it, so no caller goes on as if
a move that did not happen had."""
import pytest
from django.db import transaction

from studio.errors import WrongMoment
from tables.models import Round, RoundEvent, Table
from tables.selectors import round_deal
from tables.services import card_deal, round_close_betting, round_finish, round_open
from tables.locking import Held, lock_round
from tables.transitions import transition, transition_or_refuse

pytestmark = pytest.mark.django_db
S = Round.Status


def seq(table) -> int:
    return Table.objects.values_list("stream_seq", flat=True).get(pk=table.pk)


def test_a_transition_from_a_status_the_round_has_left_changes_nothing(dealer, table):
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    events = RoundEvent.objects.filter(round=rnd).count()
    with transaction.atomic():
        held = lock_round(rnd.pk)
        assert transition(held, frm=S.DEALING, to=S.FINISHED, action="finished") is False
        with pytest.raises(WrongMoment) as refused:
            transition_or_refuse(held, frm=S.DEALING, to=S.FINISHED, action="finished")
    assert (refused.value.code, refused.value.extra, refused.value.status) == ("round_changed", {"status": "betting"}, 409)
    assert Round.objects.get(pk=rnd.pk).status == S.BETTING
    assert RoundEvent.objects.filter(round=rnd).count() == events


def test_finishing_a_round_that_moved_under_the_reader_is_refused_whole(dealer, table):
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    round_close_betting(round_id=rnd.pk, actor=dealer)
    card_deal(round_id=rnd.pk, card="2C", actor=dealer)
    read = Round.objects.get(pk=rnd.pk)  # read while dealing...
    Round.objects.filter(pk=rnd.pk).update(status=S.PAUSED)  # ...then moved by a writer that skipped the lock
    outcome = round_deal(read, ["2C", "KD"]).outcome
    before = seq(table)
    with pytest.raises(WrongMoment) as refused, transaction.atomic():
        round_finish(Held(table_id=read.table_id, round=read), outcome=outcome, actor=dealer)
    assert refused.value.code == "round_changed"
    after = Round.objects.get(pk=rnd.pk)
    assert (after.status, after.winner, after.finished_at) == (S.PAUSED, "", None)
    assert not RoundEvent.objects.filter(round=rnd, action="finished").exists()
    assert seq(table) == before  # no round.finished on the stream
