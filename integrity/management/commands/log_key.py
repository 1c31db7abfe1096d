"""python manage.py log_key [NAME]: a new signing key for the public round log (a C2SP signed-note
Ed25519 private key) for LOG_SIGNING_KEY, and its verifier key, the one the studio publishes at
GET /api/log/key/ (docs/PUBLIC_LOG.md, "Keys")."""
from django.conf import settings
from django.core.management.base import BaseCommand

from studio.signednote import SigningKey


class Command(BaseCommand):
    help = "Make a signing key for the public round log (LOG_SIGNING_KEY) and print it with its verifier key."

    def add_arguments(self, parser):
        parser.add_argument("name", nargs="?", help="the key's name: the log's origin (LOG_ORIGIN) unless given")

    def handle(self, *args, name=None, **options):
        key = SigningKey.generate(name or settings.LOG_ORIGIN)
        self.stdout.write(f"LOG_SIGNING_KEY={key.text()}")
        self.stdout.write(f"verifier key: {key.verifier()}")
