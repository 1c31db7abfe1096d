# The studio-wide audit chain (audit.chain): each access change numbered and hashed; `at` set by the writer. audit 0002 chains the rows that exist.

import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0002_carry_drf_tokens'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='accesschange',
            name='chain_seq',
            field=models.BigIntegerField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name='accesschange',
            name='hash',
            field=models.CharField(blank=True, editable=False, max_length=64, null=True),
        ),
        migrations.AddField(
            model_name='accesschange',
            name='prev_hash',
            field=models.CharField(blank=True, editable=False, max_length=64, null=True),
        ),
        migrations.AlterField(
            model_name='accesschange',
            name='at',
            field=models.DateTimeField(db_index=True, default=django.utils.timezone.now),
        ),
        migrations.AddConstraint(
            model_name='accesschange',
            constraint=models.UniqueConstraint(fields=('chain_seq',), name='accesschange_chain_seq_unique'),
        ),
    ]
