import pytest


@pytest.fixture
def make_table(make_table):
    """Tables with a long betting window: nothing closes betting by itself in tests (timers are
    off), but a bet placed after `closes_at` is refused, and a busy machine can take 15 s."""

    def make(**fields):
        fields.setdefault("betting_seconds", 600)
        return make_table(**fields)

    return make
