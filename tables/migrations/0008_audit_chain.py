# The audit chains (audit.chain): each round event and change-log row numbered and hashed in its table's chain; `at` set by the writer (it is hashed). audit 0002 chains the rows that exist.

import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tables', '0007_shifts'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='roundevent',
            name='chain',
            field=models.CharField(blank=True, editable=False, max_length=40, null=True),
        ),
        migrations.AddField(
            model_name='roundevent',
            name='chain_seq',
            field=models.BigIntegerField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name='roundevent',
            name='hash',
            field=models.CharField(blank=True, editable=False, max_length=64, null=True),
        ),
        migrations.AddField(
            model_name='roundevent',
            name='prev_hash',
            field=models.CharField(blank=True, editable=False, max_length=64, null=True),
        ),
        migrations.AddField(
            model_name='tablechange',
            name='chain_seq',
            field=models.BigIntegerField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name='tablechange',
            name='hash',
            field=models.CharField(blank=True, editable=False, max_length=64, null=True),
        ),
        migrations.AddField(
            model_name='tablechange',
            name='prev_hash',
            field=models.CharField(blank=True, editable=False, max_length=64, null=True),
        ),
        migrations.AlterField(
            model_name='roundevent',
            name='at',
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
        migrations.AlterField(
            model_name='tablechange',
            name='at',
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
        migrations.AddConstraint(
            model_name='roundevent',
            constraint=models.UniqueConstraint(fields=('chain', 'chain_seq'), name='roundevent_chain_seq_unique'),
        ),
        migrations.AddConstraint(
            model_name='tablechange',
            constraint=models.UniqueConstraint(fields=('table', 'chain_seq'), name='tablechange_chain_seq_unique'),
        ),
    ]
