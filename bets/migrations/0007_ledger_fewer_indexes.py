"""Ledger entries lose the two indexes other indexes already serve: the account's (account_id) is the
first column of ledger_account_recent_idx (account, id descending), and the bet's (bet_id) the first
of ledger_once_per_bet, which holds every entry that has a bet (a lookup by bet, the foreign key's
check included, implies `bet_id IS NOT NULL`). Each index is written again for every entry; a
settlement appends one per winning bet. `scripts/bench_settle.py` (100,000 bets, 22,337 winners),
three alternated pairs on a 2-core AMD EPYC VM: the winners' entries' INSERT 294-408 ms against
520-561 ms, the whole settlement 1.78-2.08 s against 2.17-2.49 s.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('bets', '0006_room_for_settlement'),
    ]

    operations = [
        migrations.AlterField(
            model_name='ledgerentry',
            name='account',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='entries', to='bets.account'),
        ),
        migrations.AlterField(
            model_name='ledgerentry',
            name='bet',
            field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='entries', to='bets.bet'),
        ),
    ]
