"""python manage.py verify_log: the public round log against the database, from scratch
(integrity.logcheck; docs/PUBLIC_LOG.md). Exit status 0 when it is whole, 1 naming the first leaf
index and round that differ."""
from django.core.management.base import BaseCommand, CommandError

from integrity import publiclog
from integrity.logcheck import log_problem


class Command(BaseCommand):
    help = ("Recompute every round's newest leaf from its rows, rebuild the log's tree from its leaves and compare them with "
            "the stored subtrees, the head and the latest signed checkpoint. Exit status 0 when whole, 1 naming the first "
            "leaf and round that differ.")

    def handle(self, *args, **options):
        problem = log_problem()
        if problem is not None:
            raise CommandError(f"BROKEN {problem}", returncode=1)
        size, root = publiclog.head(lock=False)
        self.stdout.write(self.style.SUCCESS(f"The log is whole: {size} leaves, root {root.hex()}."))
