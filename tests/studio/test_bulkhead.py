"""The bulkhead's shares (studio/bulkhead.py): a place per call, refused at once beyond the
operator's share or all operators' share, given back however the call ends."""
import pytest

from studio.bulkhead import ALL, in_use, operator_share
from studio.errors import OperatorBusy


def test_a_share_refuses_at_once_beyond_its_places_and_gives_them_back(settings):
    settings.SEAMLESS_SHARE, settings.SEAMLESS_SHARE_ALL = 2, 3
    with operator_share(operator_id=1, operator_code="slow"), operator_share(operator_id=1, operator_code="slow"):
        with pytest.raises(OperatorBusy) as refused:
            with operator_share(operator_id=1, operator_code="slow"):
                pytest.fail("a third place in a share of two")
        assert (refused.value.status, refused.value.code) == (503, "operator_busy")
        with operator_share(operator_id=2, operator_code="other"):  # another operator's share is its own...
            with pytest.raises(OperatorBusy):  # ...but all operators' share (3) is full now
                with operator_share(operator_id=3, operator_code="third"):
                    pass
        assert (in_use(1), in_use(2), in_use(ALL)) == (2, 0, 2)
    assert (in_use(1), in_use(ALL)) == (0, 0)


def test_a_place_is_given_back_when_the_call_fails(settings):
    settings.SEAMLESS_SHARE, settings.SEAMLESS_SHARE_ALL = 1, 1
    with pytest.raises(RuntimeError):
        with operator_share(operator_id=1, operator_code="slow"):
            raise RuntimeError("the call failed")
    with operator_share(operator_id=1, operator_code="slow"):
        assert in_use(1) == 1


def _lock_timeout() -> str:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SHOW lock_timeout")
        return cur.fetchone()[0]


@pytest.mark.django_db
def test_a_write_beyond_a_rounds_share_waits_for_locks_a_moment_only(settings, rf):
    """Within the round's share a write waits for a lock as long as the connection's lock_timeout;
    beyond it (the share of round 7 full), ROUND_SHARE_OVER_WAIT_MS; a read takes no place; the
    connection's own lock_timeout is back after the write."""
    from django.http import HttpResponse

    from studio.bulkhead import ROUNDS, round_share

    settings.ROUND_SHARE, settings.ROUND_SHARE_ALL, settings.ROUND_SHARE_OVER_WAIT_MS = 1, 2, 10
    seen = []
    view = round_share(lambda request, pk: seen.append((_lock_timeout(), ROUNDS.in_use(("round", pk)))) or HttpResponse(),
                       lambda request, pk: ("round", pk))
    default = _lock_timeout()
    view(rf.post("/"), pk=7)
    with ROUNDS.place(("round", 7)) as got:
        assert got
        view(rf.post("/"), pk=7)  # beyond round 7's share of one
        view(rf.post("/"), pk=8)  # another round's share is its own
        view(rf.get("/"), pk=7)  # a read takes no place
    assert seen == [(default, 1), ("10ms", 1), (default, 1), (default, 1)]
    assert _lock_timeout() == default != "10ms" and ROUNDS.in_use("all") == 0
