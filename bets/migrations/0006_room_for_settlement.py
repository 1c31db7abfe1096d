"""Room on every page for a settlement's new row versions, so that PostgreSQL updates each bet and
each wallet in place (HOT: no index touched) instead of writing every index again for the row.

A settlement rewrites every bet of its round (status, payout, and settled_at, which grows the row by
8 bytes) and the winners' wallets in one transaction, so none of the old versions can be pruned to
make room while it runs: a page takes all its rows' new versions only if at least half of it is
free. At 60% (bets) and 70% (wallets) only 64% of the bets' updates and 65% of the
wallets' were HOT in `scripts/bench_settle.py`; at 45% and 50%, all the bets' and 99% of the
wallets'. Alternated runs on a 2-core AMD EPYC VM (five pairs for the bets, then three with the
wallets too): the settling UPDATE 471-775 ms against 792-1,418 ms (medians 646 and 1,048), the
wallets' UPDATE 113-182 against 125-260 ms, the COMMIT 487-512 against 628-666 ms; the whole
settlement of 100,000 bets 1.97-2.36 s against 1.80-3.30 s (medians 2.08 and 2.54) with the bets'
room, 1.70-2.25 s against 1.77-2.54 s with the wallets' too. The price is space: 50 MB against
44 MB for the benchmark's 200,000 settled bets. tests/bets/test_settlement.py checks that a round's
bets settle in place.
"""
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('bets', '0005_ledger_append_only'),
    ]

    operations = [
        migrations.RunSQL(
            ["ALTER TABLE bets_bet SET (fillfactor = 45)", "ALTER TABLE bets_account SET (fillfactor = 50)"],
            ["ALTER TABLE bets_bet SET (fillfactor = 60)", "ALTER TABLE bets_account SET (fillfactor = 70)"],
        ),
    ]
