# Dealer shifts (tables.shifts): one open shift per table and per dealer, and each round's shift.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tables', '0006_table_state_changes'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='table',
            name='shift_minutes',
            field=models.PositiveIntegerField(default=30, help_text='Dealer shift length in minutes; a shift that lasts longer is flagged as a rotation due.'),
        ),
        migrations.AddConstraint(
            model_name='table',
            constraint=models.CheckConstraint(condition=models.Q(('shift_minutes__gte', 1), ('shift_minutes__lte', 720)), name='table_shift_minutes_range'),
        ),
        migrations.CreateModel(
            name='Shift',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('started_at', models.DateTimeField()),
                ('ended_at', models.DateTimeField(blank=True, null=True)),
                ('end_reason', models.CharField(blank=True, choices=[('signed_out', 'Signed Out'), ('next_dealer', 'Next Dealer'), ('moved', 'Moved'), ('supervisor', 'Supervisor')], default='', max_length=12)),
                ('dealer', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('ended_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('table', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='shifts', to='tables.table')),
            ],
            options={
                'ordering': ['-id'],
            },
        ),
        migrations.AddField(
            model_name='round',
            name='shift',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='rounds', to='tables.shift'),
        ),
        migrations.AddIndex(
            model_name='shift',
            index=models.Index(fields=['table', '-started_at'], name='shift_table_recent_idx'),
        ),
        migrations.AddConstraint(
            model_name='shift',
            constraint=models.UniqueConstraint(condition=models.Q(('ended_at__isnull', True)), fields=('table',), name='one_open_shift_per_table'),
        ),
        migrations.AddConstraint(
            model_name='shift',
            constraint=models.UniqueConstraint(condition=models.Q(('ended_at__isnull', True)), fields=('dealer',), name='one_open_shift_per_dealer'),
        ),
        migrations.AddConstraint(
            model_name='shift',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('ended_at__isnull', True), ('end_reason', '')), models.Q(('ended_at__gte', models.F('started_at')), models.Q(('end_reason', ''), _negated=True)), _connector='OR'), name='shift_end_consistent'),
        ),
    ]
