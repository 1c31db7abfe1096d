"""Create or update an account: python manage.py studio_user NAME --role ROLE --password PW [--chips N]

Roles and the password change through accounts.services, which records each change."""
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from accounts.services import COMMAND, account_set
from bets.ledger import chips_set, wallet_get
from studio.money import parse_amount
from studio.roles import ROLES


class Command(BaseCommand):
    help = "Create or update a studio account (dealer, supervisor or player). Prints nothing secret."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--role", required=True, choices=ROLES)
        parser.add_argument("--password", required=True)
        parser.add_argument("--chips", help="Set the player's play-chip balance to this amount (an adjustment in the ledger).")

    @transaction.atomic
    def handle(self, name, role, password, chips=None, **options):
        chips_amount = None
        if chips is not None:
            try:
                chips_amount = parse_amount(chips)
            except ValueError as exc:
                raise CommandError(f"--chips: {exc}") from None
            if chips_amount < 0:
                raise CommandError("--chips must not be negative")
        try:
            user, created = account_set(actor=None, source=COMMAND, name=name, role=role, password=password)
        except ValidationError as exc:  # the username (Django's validator and length)
            raise CommandError(f"NAME: {' '.join(exc.messages)}") from None
        wallet_get(user=user)
        balance = chips_set(user=user, balance=chips_amount) if chips_amount is not None else None
        verb = "created" if created else "updated"
        extra = f", balance {balance}" if balance is not None else ""
        self.stdout.write(f"{verb} {role} {name}{extra}")
