"""python manage.py verify_audit [--table N]: every audit chain whole, and the rounds' cards, rows and
incidents what their events say (integrity.verify; docs/AUDIT.md). Exit status 0 when all is whole
(each chain's length and head printed), 1 otherwise, with the first broken link of each broken chain."""
from django.core.management.base import BaseCommand, CommandError

from tables.models import Table

from integrity.verify import verify


class Command(BaseCommand):
    help = ("Check the audit chains (every table's and the studio's) and that the rounds' cards, rows and incidents "
            "are what their chained events say. Exit status 0 when all is whole, 1 naming the first broken link of each broken chain.")

    def add_arguments(self, parser):
        parser.add_argument("--table", type=int, metavar="N", help="check only table N's chain and rounds")

    def handle(self, *args, table=None, **options):
        if table is not None and not Table.objects.filter(pk=table).exists():
            raise CommandError(f"No table {table}.")
        checked = broken = 0
        for result in verify(table):
            if not result.length and result.whole:
                continue  # a table with nothing recorded yet
            checked += 1
            if result.whole:
                self.stdout.write(f"{result.key}: whole, {result.length} records, head {result.head}")
                continue
            broken += 1
            self.stdout.write(f"BROKEN {result.first}")
        if broken:
            raise CommandError(f"{broken} of {checked} chains are broken.", returncode=1)
        self.stdout.write(self.style.SUCCESS(f"All {checked} chains are whole."))
