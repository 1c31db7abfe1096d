"""python manage.py wallet_reconcile CODE --from 2026-01-01 --to 2026-01-02

Per round of the period (rounds opened from --from, before --to, UTC): the studio's debits, credits
and rollbacks with the operator, each with its transaction id, amount and state, and the round's
totals; the unacknowledged ones are marked. What to compare with the operator's own records."""
from collections import defaultdict
from datetime import datetime, time, timezone as tz
from decimal import Decimal

from django.core.management.base import BaseCommand, CommandError
from django.utils.dateparse import parse_date, parse_datetime

from accounts.models import Operator
from bets.models import WalletTransaction


def _when(value: str, name: str) -> datetime:
    parsed = parse_datetime(value) or (datetime.combine(parse_date(value), time()) if parse_date(value) else None)
    if parsed is None:
        raise CommandError(f"--{name}: a date (2026-01-31) or a date and time (2026-01-31T12:00:00Z)")
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=tz.utc)


class Command(BaseCommand):
    help = "Print per round an operator's debits, credits and rollbacks and their states."

    def add_arguments(self, parser):
        parser.add_argument("code")
        parser.add_argument("--from", dest="start", required=True)
        parser.add_argument("--to", dest="end", required=True)

    def handle(self, code, start, end, **options):
        operator = Operator.objects.filter(code=code).first()
        if operator is None:
            raise CommandError(f"no operator {code!r}")
        rows = (WalletTransaction.objects.filter(operator=operator, round__opened_at__gte=_when(start, "from"),
                                                 round__opened_at__lt=_when(end, "to"))
                .select_related("reference").order_by("round_id", "id"))
        per_round = defaultdict(list)
        for row in rows:
            per_round[row.round_id].append(row)
        unacknowledged = 0
        for round_id, txns in per_round.items():
            totals = defaultdict(lambda: Decimal("0.00"))
            self.stdout.write(f"round {round_id}")
            for t in txns:
                mark = "  <- unacknowledged" if t.status == WalletTransaction.Status.PENDING else ""
                unacknowledged += t.status == WalletTransaction.Status.PENDING
                ref = f" ref {t.reference.transaction_id}" if t.reference_id else ""
                self.stdout.write(f"  {t.kind:<8} {t.transaction_id:<48} {t.body.get('player_id', ''):<16} {t.amount:>12} "
                                  f"{t.status:<9}{ref}{mark}")
                if t.status == WalletTransaction.Status.OK:
                    totals[t.kind] += t.amount
            self.stdout.write(f"  acknowledged: debits {totals['debit']}, credits {totals['credit']}, rollbacks {totals['rollback']}")
        self.stdout.write(f"{len(per_round)} rounds, {sum(len(v) for v in per_round.values())} transactions, {unacknowledged} unacknowledged")
