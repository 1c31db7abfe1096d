from django.core.management.base import BaseCommand
from django.db import transaction

from reports.rollup import rebuild_days


class Command(BaseCommand):
    help = "Write the reports' daily spot rollups afresh from the hourly ones, in the current TIME_ZONE (run it after changing TIME_ZONE)."

    def handle(self, *args, **options):
        with transaction.atomic():
            rows = rebuild_days()
        self.stdout.write(f"{rows} daily rows written.")
