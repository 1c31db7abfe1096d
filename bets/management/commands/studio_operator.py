"""Create or update an operator: python manage.py studio_operator CODE --wallet internal|seamless
[--wallet-url URL] [--secret SECRET] [--currency CUR] [--name NAME] [--inactive | --active]

A new operator without --secret gets a random one, printed once (and never shown again)."""
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from accounts.models import Operator
from accounts.operators import operator_set
from studio.errors import ApplicationError


class Command(BaseCommand):
    help = "Create or update an operator (docs/OPERATORS.md). Its secret is printed only when made here."

    def add_arguments(self, parser):
        parser.add_argument("code")
        parser.add_argument("--wallet", required=True, choices=Operator.Wallet.values)
        parser.add_argument("--wallet-url")
        parser.add_argument("--secret")
        parser.add_argument("--currency")
        parser.add_argument("--name")
        state = parser.add_mutually_exclusive_group()
        state.add_argument("--inactive", action="store_true", help="Refuse its launches (403).")
        state.add_argument("--active", action="store_true")

    def handle(self, code, wallet, wallet_url=None, secret=None, currency=None, name=None, inactive=False, active=False, **options):
        try:
            operator, created, made = operator_set(code=code, wallet=wallet, wallet_url=wallet_url, secret=secret, currency=currency,
                                                   name=name, active=False if inactive else (True if active else None))
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        except ValidationError as exc:
            raise CommandError(" ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())) from None
        verb = "created" if created else "updated"
        self.stdout.write(f"operator {operator.code} {verb}: wallet {operator.wallet}, currency {operator.currency}, "
                          f"{'active' if operator.active else 'inactive'}")
        if made:
            self.stdout.write(f"secret (shown once): {made}")
