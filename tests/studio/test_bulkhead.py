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
