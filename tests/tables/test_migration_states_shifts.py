"""The migrations of table states, the change log and shifts leave existing rows valid: every
table open with no reason and a 30-minute shift length, every round without a shift."""
import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("tables", "0005_match_table_names")]
AFTER = [("tables", "0007_shifts")]


def test_existing_tables_and_rounds_stay_valid():
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    try:
        executor.migrate(BEFORE)
        old = executor.loader.project_state(BEFORE).apps
        table = old.get_model("tables", "Table").objects.create(name="Old table")
        now = timezone.now()
        old.get_model("tables", "Round").objects.create(
            table=table, settings={}, joker="KS", first_side="andar", status="settled", opened_at=now, closes_at=now)

        executor = MigrationExecutor(connection)
        executor.migrate(AFTER)
        new = executor.loader.project_state(AFTER).apps
        migrated = new.get_model("tables", "Table").objects.get(pk=table.pk)
        assert (migrated.state, migrated.state_reason, migrated.shift_minutes) == ("open", "", 30)
        assert list(new.get_model("tables", "Round").objects.filter(table_id=table.pk).values_list("shift_id", flat=True)) == [None]
        assert not new.get_model("tables", "Shift").objects.exists()
        assert not new.get_model("tables", "TableChange").objects.exists()
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(latest)
