"""Sign-ins at the same moment, each on its own PostgreSQL connection: one dealer per table and
one table per dealer whatever the interleaving, and a swap of two dealers between two tables ends
with both swapped, no deadlock, nothing half-applied."""

import pytest

from tables import shifts
from tables.models import Shift
from tests.parallel import at_once

from ..conftest import make_user

pytestmark = pytest.mark.django_db(transaction=True)


def open_shifts():
    return sorted(Shift.objects.filter(ended_at=None).values_list("table_id", "dealer__username"))


def test_many_dealers_signing_in_at_one_table_leave_one_on_shift(make_table):
    table = make_table()
    dealers = [make_user(f"d{i}", "dealer") for i in range(6)]
    results = at_once(*[lambda d=d: shifts.shift_start(table_id=table.pk, dealer=d) for d in dealers])
    assert all(isinstance(r, tuple) for r in results), results
    assert len(open_shifts()) == 1
    assert Shift.objects.filter(table=table).count() == 6  # each signed in once, each but the last replaced


def test_one_dealer_signing_in_at_many_tables_is_on_shift_at_one(dealer, make_table):
    tables = [make_table() for _ in range(5)]
    results = at_once(*[lambda t=t: shifts.shift_start(table_id=t.pk, dealer=dealer) for t in tables])
    assert all(isinstance(r, tuple) or getattr(r, "code", "") == "shift_race" for r in results), results
    assert len(open_shifts()) == 1 and open_shifts()[0][1] == "dealer"


def test_two_dealers_swapping_tables_at_once_end_up_swapped(make_table):
    one, two = make_table(), make_table()
    a, b = make_user("a", "dealer"), make_user("b", "dealer")
    for _ in range(5):
        shifts.shift_start(table_id=one.pk, dealer=a)
        shifts.shift_start(table_id=two.pk, dealer=b)
        results = at_once(lambda: shifts.shift_start(table_id=two.pk, dealer=a),
                          lambda: shifts.shift_start(table_id=one.pk, dealer=b))
        assert all(isinstance(r, tuple) for r in results), results
        assert open_shifts() == [(one.pk, "b"), (two.pk, "a")]
