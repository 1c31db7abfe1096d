"""The rules each rollup row's rounds were played under: rows written before are given their
table's rules as they are now (what the reports used for them until then)."""
import django.db.models.functions.comparison
from django.conf import settings
from django.db import migrations, models


def rules_of_tables(apps, schema_editor):
    from reports.rollup import rules_key

    Table, Rules = apps.get_model("tables", "Table"), apps.get_model("reports", "Rules")
    Rollup, RollupDay = apps.get_model("reports", "Rollup"), apps.get_model("reports", "RollupDay")
    for table in Table.objects.all():
        config = {"first_card": table.first_card, "mode": table.mode, "commission": str(table.commission),
                  "side_bets": sorted(table.side_bets), "card_count_paytable": table.card_count_paytable,
                  "chip_unit": str(table.chip_unit)}  # as tables.models.Table.config_dict writes a round's snapshot
        key = rules_key(config)
        Rules.objects.get_or_create(key=key, defaults={"config": config})
        Rollup.objects.filter(table_id=table.pk).update(rules=key)
        RollupDay.objects.filter(table_id=table.pk).update(rules=key)


class Migration(migrations.Migration):

    dependencies = [
        ('reports', '0001_rollup'),
        ('tables', '0008_audit_chain'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Rules',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.CharField(help_text="The first 16 hex digits of the SHA-256 of the rules' canonical JSON.", max_length=16, unique=True)),
                ('config', models.JSONField()),
            ],
            options={
                'verbose_name_plural': 'rules',
            },
        ),
        migrations.RemoveConstraint(
            model_name='rollup',
            name='rollup_key',
        ),
        migrations.RemoveConstraint(
            model_name='rollupday',
            name='rollup_day_key',
        ),
        migrations.RemoveIndex(
            model_name='rollup',
            name='rollup_spot_hour_idx',
        ),
        migrations.RemoveIndex(
            model_name='rollupday',
            name='rollup_day_idx',
        ),
        migrations.AddField(
            model_name='rollup',
            name='rules',
            field=models.CharField(default='', help_text="The Rules key of the rounds' rules.", max_length=16),
        ),
        migrations.AddField(
            model_name='rollupday',
            name='rules',
            field=models.CharField(default='', max_length=16),
        ),
        migrations.RunPython(rules_of_tables, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name='rollup',
            index=models.Index(condition=models.Q(('spot', ''), _negated=True), fields=['hour'], include=('table_id', 'dealer_id', 'shift_id', 'rules', 'spot', 'bets', 'stakes', 'payouts'), name='rollup_spot_hour_idx'),
        ),
        migrations.AddIndex(
            model_name='rollupday',
            index=models.Index(fields=['day'], include=('table_id', 'dealer_id', 'shift_id', 'rules', 'spot', 'bets', 'stakes', 'payouts'), name='rollup_day_idx'),
        ),
        migrations.AddConstraint(
            model_name='rollup',
            constraint=models.UniqueConstraint(models.F('table'), models.F('hour'), django.db.models.functions.comparison.Coalesce(models.F('dealer'), 0), django.db.models.functions.comparison.Coalesce(models.F('shift_id'), 0), models.F('rules'), models.F('spot'), name='rollup_key'),
        ),
        migrations.AddConstraint(
            model_name='rollupday',
            constraint=models.UniqueConstraint(models.F('table'), models.F('day'), django.db.models.functions.comparison.Coalesce(models.F('dealer'), 0), django.db.models.functions.comparison.Coalesce(models.F('shift_id'), 0), models.F('rules'), models.F('spot'), name='rollup_day_key'),
        ),
    ]
