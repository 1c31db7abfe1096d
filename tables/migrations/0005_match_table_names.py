"""Match tables are named after the match, never its join code: whoever may see a table's name must
not learn from it how to join the match."""
from django.db import migrations


def rename(apps, schema_editor):
    Match, Table = apps.get_model("tables", "Match"), apps.get_model("tables", "Table")
    for match in Match.objects.all().only("pk", "code", "table_id"):
        name = f"Match {match.pk}"
        if Table.objects.filter(name=name).exclude(pk=match.table_id).exists():
            name = f"Match table {match.table_id}"
        Table.objects.filter(pk=match.table_id).update(name=name)


class Migration(migrations.Migration):
    dependencies = [("tables", "0004_matches")]

    operations = [migrations.RunPython(rename, migrations.RunPython.noop)]
