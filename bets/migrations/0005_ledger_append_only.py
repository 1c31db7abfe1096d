"""Ledger entries are append-only at the database too: a trigger refuses every UPDATE and DELETE of
a row (a raw statement included, which the ORM's guard, studio.appendonly, never sees). Settlement,
voids, refunds and corrections append reversing entries instead. TRUNCATE fires no row trigger: it
is how `manage.py flush` (and the test suite's flush, tests/postgresql/base.py) empty the table."""
from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION studio_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% rows are append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'restrict_violation', HINT = 'Append a new row (a reversing entry) instead.';
END
$$;
"""

TRIGGER = """
CREATE TRIGGER bets_ledgerentry_append_only BEFORE UPDATE OR DELETE ON bets_ledgerentry
    FOR EACH ROW EXECUTE FUNCTION studio_append_only();
"""


class Migration(migrations.Migration):

    dependencies = [
        ('bets', '0004_seamless_wallet'),
    ]

    operations = [
        migrations.RunSQL(FUNCTION, reverse_sql="DROP FUNCTION IF EXISTS studio_append_only();"),
        migrations.RunSQL(TRIGGER, reverse_sql="DROP TRIGGER IF EXISTS bets_ledgerentry_append_only ON bets_ledgerentry;"),
    ]
