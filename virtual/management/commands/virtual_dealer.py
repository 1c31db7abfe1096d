"""Run the virtual dealer loop for every table with virtual_dealer on (one process is enough;
a second one is harmless). Its broadcasts reach every web process through Redis."""
from django.core.management.base import BaseCommand

from virtual import dealer as virtual


class Command(BaseCommand):
    help = "Run the virtual dealer for every virtual table until interrupted."

    def handle(self, **options):
        self.stdout.write("virtual dealer running; Ctrl-C stops it")
        try:
            virtual.run()
        except KeyboardInterrupt:
            pass
