# Chain the records that exist (audit.chain), so that an upgraded studio's history is as verifiable
# as what it records from now on:
#
# - first, the notes of incidents become `incident_note` events of their round, at the note's own
#   instant (an older release wrote no event for a note; an incident's row must match its events);
# - then each table's chain: its rounds' events and its change log merged by (at, round events
#   first, id); and the studio's: the access changes by (at, id). Each record gets its seq, its
#   prev_hash and its hash; each chain's head its last seq and hash.
#
# Streaming: the rows are read in order once, through a cursor in chunks, and written back in
# batches; memory holds a batch and each chain's last (seq, hash). Rows already chained are left as
# they are (their chain continues from its head), so running it again changes nothing. The columns a
# record is hashed over are written out here, as they were when it ran (the models' CHAINED_COLUMNS).
# A long history may need DB_STATEMENT_TIMEOUT_MS=0 (docs/DEPLOYMENT.md).
import heapq
from datetime import datetime

from django.db import migrations

from audit.chain import digest, link, numbered

GENESIS = "0" * 64
STUDIO = "studio"
BATCH = 1000
CHUNK = 2000
ROUND_EVENT = ("round_event", ("round_id", "at", "actor_id", "action", "from_status", "to_status", "data"))
TABLE_CHANGE = ("table_change", ("table_id", "at", "actor_name", "source", "field", "old", "new"))
ACCESS_CHANGE = ("access_change", ("at", "actor_name", "source", "username", "field", "old", "new"))


def _form(kind_columns, row: dict) -> dict:
    kind, columns = kind_columns
    return {"kind": kind, **{name: row[name] for name in columns}}


class _Writer:
    """Chain columns written back BATCH rows at a time, per model."""

    def __init__(self, model):
        self.model, self.rows = model, []

    def add(self, row_id: int, **chain):
        self.rows.append(self.model(id=row_id, **chain))
        if len(self.rows) >= BATCH:
            self.flush()

    def flush(self):
        if self.rows:
            self.model.objects.bulk_update(self.rows, ["chain_seq", "prev_hash", "hash"] + (
                ["chain"] if any(f.name == "chain" for f in self.model._meta.fields) else []))
            self.rows = []


def record_notes(apps, schema_editor):
    """Each incident note that is not yet an event becomes one (its round's, at the note's instant)."""
    Incident = apps.get_model("tables", "Incident")
    RoundEvent = apps.get_model("tables", "RoundEvent")
    User = apps.get_model("auth", "User")
    noted = {data.get("incident") for data in RoundEvent.objects.filter(action="incident_note").values_list("data", flat=True)}
    users: dict[str, int | None] = {}
    pending = []
    for incident in Incident.objects.order_by("id").iterator(chunk_size=CHUNK):
        if incident.pk in noted or not incident.notes:
            continue
        for note in incident.notes:
            by = note.get("by", "")
            if by not in users:
                users[by] = User.objects.filter(username=by).values_list("pk", flat=True).first()
            pending.append(RoundEvent(round_id=incident.round_id, at=datetime.fromisoformat(note["at"]), actor_id=users[by],
                                      action="incident_note", from_status="", to_status="",
                                      data={"incident": incident.pk, "note": note}))
        if len(pending) >= BATCH:
            RoundEvent.objects.bulk_create(pending)
            pending = []
    RoundEvent.objects.bulk_create(pending)


def chain_existing(apps, schema_editor):
    RoundEvent = apps.get_model("tables", "RoundEvent")
    TableChange = apps.get_model("tables", "TableChange")
    AccessChange = apps.get_model("accounts", "AccessChange")
    ChainHead = apps.get_model("audit", "ChainHead")
    heads = {h.key: (h.seq, h.hash) for h in ChainHead.objects.all()}
    state: dict[str, tuple[int, str]] = {}

    def chained(key: str, kind_columns, row: dict) -> dict:
        seq, prev = state.get(key) or heads.get(key) or (0, GENESIS)
        seq += 1
        new = link(prev, digest(numbered(_form(kind_columns, row), key=key, seq=seq)))
        state[key] = (seq, new)
        return {"chain_seq": seq, "prev_hash": prev, "hash": new}

    events = (RoundEvent.objects.filter(chain_seq__isnull=True).order_by("at", "id")
              .values("id", "round__table_id", *ROUND_EVENT[1]).iterator(chunk_size=CHUNK))
    changes = (TableChange.objects.filter(chain_seq__isnull=True).order_by("at", "id")
               .values("id", *TABLE_CHANGE[1]).iterator(chunk_size=CHUNK))
    merged = heapq.merge(((row["at"], 0, row["id"], row) for row in events),
                         ((row["at"], 1, row["id"], row) for row in changes), key=lambda item: item[:3])
    event_writer, change_writer = _Writer(RoundEvent), _Writer(TableChange)
    for _, is_change, row_id, row in merged:
        if is_change:
            change_writer.add(row_id, **chained(f"table:{row['table_id']}", TABLE_CHANGE, row))
        else:
            key = f"table:{row['round__table_id']}"
            event_writer.add(row_id, chain=key, **chained(key, ROUND_EVENT, row))
    event_writer.flush()
    change_writer.flush()

    access_writer = _Writer(AccessChange)
    for row in AccessChange.objects.filter(chain_seq__isnull=True).order_by("at", "id").values("id", *ACCESS_CHANGE[1]).iterator(chunk_size=CHUNK):
        access_writer.add(row["id"], **chained(STUDIO, ACCESS_CHANGE, row))
    access_writer.flush()

    for key, (seq, last) in state.items():
        ChainHead.objects.update_or_create(key=key, defaults={"seq": seq, "hash": last})


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0001_initial"),
        ("tables", "0008_audit_chain"),
        ("accounts", "0003_access_chain"),
    ]
    operations = [
        migrations.RunPython(record_notes, migrations.RunPython.noop),
        migrations.RunPython(chain_existing, migrations.RunPython.noop),
    ]
