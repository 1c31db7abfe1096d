import pytest

from tests.bets.seamless_world import reference_wallet


@pytest.fixture
def make_table(make_table):
    """Tables with a long betting window: nothing closes betting by itself in tests (the close task
    does nothing before the deadline), but a bet placed after `closes_at` is refused, and a busy
    machine can take 15 s."""

    def make(**fields):
        fields.setdefault("betting_seconds", 600)
        return make_table(**fields)

    return make


@pytest.fixture(scope="module")
def wallet(tmp_path_factory):
    """The reference operator wallet (scripts/reference_wallet.py), a real process over real HTTP,
    one per test module; its faults are switched per test."""
    with reference_wallet(log_dir=tmp_path_factory.mktemp("wallet")) as control:
        yield control
