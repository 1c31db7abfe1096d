"""Create or update an account: python manage.py studio_user NAME --role ROLE --password PW [--chips N]"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from bets.ledger import chips_set, wallet_get
from studio.money import parse_amount
from studio.roles import ROLES, SUPERVISOR


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
        User = get_user_model()
        try:  # the rules of Django's user forms: the username validator and the field's length
            User._meta.get_field(User.USERNAME_FIELD).clean(name, None)
        except ValidationError as exc:
            raise CommandError(f"NAME: {' '.join(exc.messages)}") from None
        user, created = User.objects.get_or_create(username=name)
        user.set_password(password)
        user.is_staff = role == SUPERVISOR
        user.save()
        user.groups.remove(*Group.objects.filter(name__in=ROLES))
        group = Group.objects.get_or_create(name=role)[0]
        if role == SUPERVISOR:
            group.permissions.set(Permission.objects.filter(
                content_type__app_label__in=["tables", "bets", "auth"], codename__regex=r"^(view|change|add)_(table|user|round|roundevent|bet|account|ledgerentry)$"))
        user.groups.add(group)
        wallet_get(user=user)
        balance = chips_set(user=user, balance=chips_amount) if chips_amount is not None else None
        verb = "created" if created else "updated"
        extra = f", balance {balance}" if balance is not None else ""
        self.stdout.write(f"{verb} {role} {name}{extra}")
