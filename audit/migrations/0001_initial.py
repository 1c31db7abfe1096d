# The heads of the audit chains (audit.chain).

from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
    ]

    operations = [
        migrations.CreateModel(
            name='ChainHead',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.CharField(max_length=40, unique=True)),
                ('seq', models.BigIntegerField(default=0, help_text="The last record's chain_seq (0: none yet).")),
                ('hash', models.CharField(default='0000000000000000000000000000000000000000000000000000000000000000', help_text="The last record's hash (hex SHA-256).", max_length=64)),
            ],
            options={
                'ordering': ['key'],
            },
        ),
    ]
