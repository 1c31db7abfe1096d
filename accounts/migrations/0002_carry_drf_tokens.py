"""Tokens of DRF's authtoken (one per user, no expiry) become tokens of this app with a fresh expiry:
a client holding one keeps working until then. A database that never had them has nothing to carry."""
from datetime import timedelta

from django.conf import settings
from django.db import migrations
from django.utils import timezone

DRF_TABLE = "authtoken_token"


def carry(apps, schema_editor):
    connection = schema_editor.connection
    if DRF_TABLE not in connection.introspection.table_names():
        return
    with connection.cursor() as cur:
        cur.execute(f"SELECT key, user_id, created FROM {DRF_TABLE}")
        rows = cur.fetchall()
    Token = apps.get_model("accounts", "Token")
    now = timezone.now()
    expires = now + timedelta(seconds=settings.TOKEN_TTL)
    known = set(Token.objects.filter(key__in=[r[0] for r in rows]).values_list("key", flat=True))
    Token.objects.bulk_create([Token(key=key, user_id=user_id, kind="api", created=created or now, expires_at=expires)
                               for key, user_id, created in rows if key not in known], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]
    operations = [migrations.RunPython(carry, migrations.RunPython.noop)]
