"""Demo users and a demo table, created if missing (make run): in the embedded mode, or when asked for
(DEMO_DATA=1 or --force). A production studio never gets accounts whose password is in the README."""
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand

from accounts.models import Operator
from engine.config import SUPER_MULTIPLIERS
from accounts.operators import operator_set
from tables.changes import COMMAND
from tables.models import Table
from tables.services import table_create

DEMO_USERS = [
    ("dealer", "dealer", None),
    ("supervisor", "supervisor", None),
    ("alice", "player", "1000"),
    ("bob", "player", "1000"),
    ("carol", "player", "1000"),
]
DEMO_PASSWORD = "demo-pass"
# The demo's operator (internal wallet): its launches are signed with this secret (docs/OPERATORS.md).
DEMO_OPERATOR, DEMO_OPERATOR_SECRET = "demo", "demo-operator-secret"


class Command(BaseCommand):
    help = ("Create the demo users (password demo-pass) and a demo table if they are missing: in the embedded mode, "
            "or with DEMO_DATA=1 or --force.")

    def add_arguments(self, parser):
        parser.add_argument("--force", action="store_true", help="Create the demo data outside the embedded mode too.")
        parser.add_argument("--url", default="http://127.0.0.1:8000", help="Where the studio is served, for the links it prints.")

    def handle(self, **options):
        if not (settings.DEMO_DATA or options["force"]):
            self.stdout.write("No demo data: this is not the embedded mode (set DEMO_DATA=1 or pass --force to create it).")
            return
        User = get_user_model()
        for name, role, chips in DEMO_USERS:
            if User.objects.filter(username=name).exists():
                continue
            args = [name, "--role", role, "--password", DEMO_PASSWORD] + (["--chips", chips] if chips else [])
            call_command("studio_user", *args, stdout=self.stdout)
        if not Operator.objects.filter(code=DEMO_OPERATOR).exists():  # its players use the studio's own wallets
            operator_set(code=DEMO_OPERATOR, wallet=Operator.Wallet.INTERNAL, currency="CHIPS", secret=DEMO_OPERATOR_SECRET, name="Demo casino")
        table = _demo_table("Virtual table", betting_seconds=12, virtual_dealer=True, deal_interval_ms=1200, round_gap_ms=5000)
        _demo_table("Studio table", betting_seconds=15)
        _demo_table("Play-chips table", card_count_paytable="play", chip_unit=1, min_bet=10, max_bet=500, betting_seconds=20)
        _demo_table("Super table", multipliers=SUPER_MULTIPLIERS, betting_seconds=15)  # random multipliers on the card count
        self.stdout.write("Demo logins (password demo-pass): dealer, supervisor, alice, bob, carol")
        self.stdout.write(f"Demo operator:   {DEMO_OPERATOR} (internal wallet, secret {DEMO_OPERATOR_SECRET}): POST /api/operator/sessions/")
        url = options["url"].rstrip("/")
        self.stdout.write(f"Dealer console:  {url}/console/")
        self.stdout.write(f"Player page:     {url}/play/tables/{table.pk}/  (the virtual dealer deals here)")
        self.stdout.write(f"Supervisor:      {url}/supervisor/")
        self.stdout.write(f"API docs:        {url}/api/docs/   Admin: {url}/admin/ (supervisor)")


def _demo_table(name: str, **fields) -> Table:
    """The demo table of that name, created through the service (a row of the change log) if missing."""
    return Table.objects.filter(name=name).first() or table_create(table=Table(name=name, **fields), actor=None, source=COMMAND)
