"""The seamless wallet (docs/OPERATORS.md): players launched by an operator bet with the operator's money.

- A launch (`operator_launch`): the operator's signed request makes (once per operator and player_id)
  the studio's player, and answers with an API token and a page URL carrying a one-time code.
- A bet (`SeamlessWallet`, the wallet kind bets.services places a seamless player's bets with, one
  or a repeat's several): the studio's rules are checked first (as for every bet), then each stake
  is debited at the operator, with no transaction open and no lock held, then bets.services writes
  the bets, all or none, under the round's shared lock and the wallet's lock with the rules checked
  again: a bet counts only if its debit was confirmed while the round still took bets. A refusal reaches the player as 409 `operator_refused`; an unknown outcome as 503;
  a debit that is not turned into a bet (unknown, too late, refused by a rule at the write, a
  sibling's failure) is cancelled and rolled back through the outbox.
- A round's money (called by bets.settlement and bets.refunds in their transaction, only for rounds
  with a seamless bet): credits per player per settlement, rollbacks of credits (a void or a
  re-settlement after settlement) and of debits (a void, a cancel), each with its ledger entries
  (bets.ledger) and its outbox row (bets.outbox).
"""
from __future__ import annotations

import functools
import uuid
from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from accounts.models import Operator, OperatorPlayer
from accounts.operators import (
    launch_record, launch_seen, launch_timestamp_check, operator_authenticate, operator_player,
)
from accounts.tokens import token_issue
from studio import sql
from studio.bulkhead import operator_share
from studio.errors import InvalidInput, NotAllowed, OperatorRefused, OutcomeUnknown, WrongMoment, invalid
from studio.parsers import json_loads
from studio.validators import has_control_characters
from tables.models import Round, Table

from . import ledger, operator_wallet
from .models import Account, Bet, LedgerEntry, WalletTransaction
from .outbox import outbox_add
from .placing import BetContext, bet_context, bets_check

T = WalletTransaction
K = LedgerEntry.Kind


# --- launch ----------------------------------------------------------------------------------------

def _field(data: dict, name: str, kind, *, max_length: int | None = None, required: bool = True):
    """A launch's field: a JSON integer, or a string of one line (no control character anywhere, a
    trailing newline included), its surrounding spaces trimmed."""
    value = data.get(name)
    if value is None:
        if required:
            raise invalid(name, "This field is required.")
        return None
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise invalid(name, "An integer is expected.")
        return value
    if not isinstance(value, str) or not value.strip():
        raise invalid(name, "A non-empty string is expected.")
    if has_control_characters(value):
        raise invalid(name, "Control characters (tab, newline, NUL...) are not allowed here.")
    if max_length and len(value) > max_length:
        raise invalid(name, f"At most {max_length} characters.")
    return value.strip()


def operator_launch(*, operator_code: str | None, signature: str | None, body: bytes) -> dict:
    """A launch, checked in this order, nothing created before every check passed: the operator and
    the body's signature (401; 403 inactive), the body's fields (400), the timestamp and a replay
    (401), the table and its currency (400). Returns the player's token, the page's one-time code,
    the table and the language."""
    operator = operator_authenticate(code=operator_code, signature=signature, body=body)
    try:
        data = json_loads(body)  # nested too deeply for the decoder: not JSON we can read, as any other
    except ValueError:
        raise InvalidInput("The body is not JSON.", code="invalid", fields={"non_field_errors": ["The body is not JSON."]}) from None
    if not isinstance(data, dict):
        raise InvalidInput("The body is a JSON object.", code="invalid", fields={"non_field_errors": ["A JSON object is expected."]})
    player_id = _field(data, "player_id", str, max_length=64)
    display_name = _field(data, "display_name", str, max_length=150, required=False) or player_id
    currency = _field(data, "currency", str, max_length=8)
    table_id = _field(data, "table", int)
    language = _field(data, "language", str, max_length=8, required=False) or "en"
    timestamp = _field(data, "timestamp", int)
    if language not in dict(settings.LANGUAGES):
        raise invalid("language", f"One of {', '.join(code for code, _ in settings.LANGUAGES)}.")
    launch_timestamp_check(timestamp)
    launch_seen(body=body)
    table = Table.objects.filter(pk=table_id).first() if 0 < table_id < 2**62 else None
    if table is None or table.is_private:
        raise invalid("table", "No such table.", code="unknown_table")
    if currency != table.currency or (operator.seamless and currency != operator.currency):
        raise invalid("currency", f"This table plays {table.currency}.", code="currency_not_played")
    with transaction.atomic():
        user = operator_player(operator=operator, player_id=player_id, display_name=display_name)
        if operator.seamless:
            ledger.seamless_wallet(user=user, operator_id=operator.pk, currency=currency)
        else:
            ledger.wallet_get(user=user, currency=currency)
        launch = launch_record(operator=operator, body=body, user=user, table_id=table.pk, language=language)
        token = token_issue(user=user)
    return {"token": token.key, "code": launch.code, "table": table.pk, "language": language}


# --- placing bets: the operator's wallet as a kind of wallet (bets.wallets) ------------------------------

_OPERATOR_FIELDS = ["id", "code", "wallet", "wallet_url", "secret", "currency", "active"]
_ACCOUNT = Account._meta.db_table
# The operator of the player's wallet in the round's currency, with the player's link to it and the
# operator's account in its currency; no row for a wallet of the studio's own (or none yet).
# Parameters: the player's id, then the round's.
_WALLET_OPERATOR = (
    f"SELECT {sql.columns(Operator, _OPERATOR_FIELDS, alias='o')}, l.id, l.player_id, "
    f"(SELECT x.id FROM {_ACCOUNT} x WHERE x.kind = 'operator' AND x.operator_id = o.id AND x.currency = o.currency) "
    f"FROM {Round._meta.db_table} r JOIN {_ACCOUNT} a ON a.kind = 'player' AND a.user_id = %s AND a.currency = r.settings->>'currency' "
    f"JOIN {Operator._meta.db_table} o ON o.id = a.operator_id "
    f"JOIN {OperatorPlayer._meta.db_table} l ON l.user_id = a.user_id AND l.operator_id = o.id WHERE r.id = %s")


def seamless_wallet_for(*, player, round_id: int) -> SeamlessWallet | None:
    """The operator's wallet, when the player's wallet in the round's currency is an operator's (a
    seamless player at a table in their operator's currency); None for a wallet of the studio's own
    (a match's chips, another currency). One statement."""
    row = sql.fetch_one(_WALLET_OPERATOR, [player.pk, round_id])
    if row is None:
        return None
    n = len(_OPERATOR_FIELDS)
    operator = sql.instance(Operator, _OPERATOR_FIELDS, row[:n])
    return SeamlessWallet(link=OperatorPlayer(pk=row[n], operator=operator, player_id=row[n + 1], user_id=player.pk),
                          operator_account_id=row[n + 2])


def _ids(rnd: Round) -> dict:
    return {"round_id": str(rnd.pk), "table_id": str(rnd.table_id)}


class SeamlessWallet:
    """A seamless player's wallet: their money is at their operator (docs/OPERATORS.md). The receipts
    are the confirmed debits (WalletTransaction rows, with the operator's answered balance)."""

    studio = False

    def __init__(self, *, link: OperatorPlayer, operator_account_id: int | None):
        self.link, self.operator = link, link.operator
        self.operator_account_id = operator_account_id

    def debit(self, *, round_id: int, player, wanted: list) -> list[WalletTransaction]:
        """The rules checked on a snapshot (nothing is asked of the operator for a bet they refuse),
        then each stake debited at the operator in the operator's bulkhead, all or none: a refusal is
        409 `operator_refused`, an unknown outcome 503, and the debits made so far are rolled back."""
        operator = self.operator
        if not operator.active:
            raise NotAllowed("This player's operator is not active.", code="operator_inactive")
        context = bet_context(round_id=round_id, player=player, lock=False)
        if operator.wallet != Operator.Wallet.SEAMLESS or context is None or context.operator_id != operator.pk:
            raise WrongMoment("This wallet is not a seamless operator's.", code="not_seamless")
        stakes = bets_check(context, wanted)
        debits = []
        try:
            with operator_share(operator_id=operator.pk, operator_code=operator.code):  # or 503 at once, nothing debited yet
                for item, stake in zip(wanted, stakes):
                    if context.round.closes_at is None or context.round.closes_at <= timezone.now():
                        raise WrongMoment("Betting is closed for this round.", code="betting_closed")  # no debit after the close
                    debit = self._debit_open(rnd=context.round, item=item, stake=stake)
                    debits.append(debit)
                    answer = operator_wallet.call(operator=operator, action="debit", body=debit.body)
                    if answer.outcome == operator_wallet.REFUSED:
                        T.objects.filter(pk=debit.pk, status=T.Status.PENDING).update(
                            status=T.Status.REFUSED, acknowledged_at=timezone.now(), last_error=f"{answer.code}: {answer.message}"[:200])
                        debits.pop()
                        raise OperatorRefused(answer.code, answer.message)
                    if not answer.ok:
                        raise OutcomeUnknown("The operator's wallet did not confirm the debit; it is being rolled back. Try again.",
                                             extra={"reason": answer.message})
                    debit.answer_balance = answer.balance
        except Exception:  # a refusal, an unknown outcome, a database error: no debit stays without its bet
            self.release(debits)
            raise
        return debits

    def stake(self, *, context: BetContext, item, stake: Decimal, receipt: WalletTransaction) -> tuple[Bet, Decimal]:
        """A confirmed debit become a bet: the stake through the ledger from the operator's account, and
        the debit marked confirmed and tied to the bet (compare-and-set: unless the sweep rolled it
        back meanwhile)."""
        if stake != receipt.amount or context.operator_id != self.operator.pk:  # the same rules on the same wallet: never, unless the code broke
            raise RuntimeError(f"bet {item.spot}: the stake checked ({stake}) is not the amount debited ({receipt.amount})")
        if self.operator_account_id is not None and context.wallet.currency == self.operator.currency:
            operator_account = Account(pk=self.operator_account_id, kind=Account.Kind.OPERATOR, operator_id=self.operator.pk)
        else:
            operator_account = ledger.operator_account(operator_id=self.operator.pk, currency=context.wallet.currency)
        bet, _ = ledger.bet_stake(round_id=context.round.pk, player=item.player, wallet=context.wallet, house=context.house,
                                  spot=item.spot, amount=stake, idempotency_key=item.idempotency_key, operator=operator_account)
        if T.objects.filter(pk=receipt.pk, status=T.Status.PENDING).update(status=T.Status.OK, acknowledged_at=timezone.now(), bet=bet,
                                                                           operator_balance=receipt.answer_balance) != 1:
            raise OutcomeUnknown("The debit was already rolled back. Try again.")  # swept as abandoned meanwhile (the bet rolls back)
        return bet, receipt.answer_balance if receipt.answer_balance is not None else Decimal("0.00")

    def release(self, receipts: list[WalletTransaction]) -> None:
        for debit in receipts:
            debit_cancel(pk=debit.pk)

    def _debit_open(self, *, rnd: Round, item, stake: Decimal) -> WalletTransaction:
        """The debit's row, written (autocommitted) before it is sent: one INSERT."""
        link, ref = self.link, uuid.uuid4().hex
        body = {"transaction_id": f"debit-{ref}", "player_id": link.player_id, "currency": rnd.settings["currency"],
                "amount": f"{stake:.2f}", **_ids(rnd), "bet_id": f"bet-{ref}", "spot": item.spot}
        now = timezone.now()
        debit = T(transaction_id=body["transaction_id"], operator=self.operator, player_id=link.user_id, kind=T.Kind.DEBIT,
                  status=T.Status.PENDING, amount=stake, currency=body["currency"], round_id=rnd.pk, settlement_version=0,
                  idempotency_key=item.idempotency_key, body=body, attempts=0, next_attempt_at=now, last_error="", created_at=now)
        values = [field.get_db_prep_save(getattr(debit, name), connection) for name, field in zip(_DEBIT_FIELDS, _debit_fields())]
        try:
            debit.pk = sql.fetch_one(_INSERT_DEBIT, values)[0]
        except IntegrityError:
            raise WrongMoment("A bet with this Idempotency-Key is still being placed.", code="idempotency_key_in_flight") from None
        return debit


_DEBIT_FIELDS = ["transaction_id", "operator_id", "player_id", "kind", "status", "amount", "currency", "round_id", "settlement_version",
                 "idempotency_key", "body", "attempts", "next_attempt_at", "last_error", "created_at"]
_INSERT_DEBIT = (f"INSERT INTO {T._meta.db_table} ({sql.columns(T, _DEBIT_FIELDS)}) VALUES ({', '.join(['%s'] * len(_DEBIT_FIELDS))}) "
                 "RETURNING id")


@functools.cache
def _debit_fields() -> list:
    return [T._meta.get_field(name if not name.endswith("_id") or name == "transaction_id" else name[:-3]) for name in _DEBIT_FIELDS]


def debit_cancel(*, pk: int) -> bool:
    """A debit that did not become a bet: cancelled (compare-and-set from pending) and rolled back
    through the outbox. False when it was not pending (confirmed into a bet, refused, or done)."""
    with transaction.atomic():
        debit = T.objects.select_for_update().filter(pk=pk, status=T.Status.PENDING, kind=T.Kind.DEBIT).first()
        if debit is None:
            return False
        T.objects.filter(pk=pk).update(status=T.Status.CANCELLED, acknowledged_at=timezone.now())
        outbox_add([_rollback(debit)])
        return True


def _rollback(reference: WalletTransaction, *, after: WalletTransaction | None = None) -> WalletTransaction:
    body = {"transaction_id": f"rollback-{reference.transaction_id}", "player_id": reference.body["player_id"],
            "currency": reference.currency, "amount": f"{reference.amount:.2f}", "round_id": reference.body["round_id"],
            "table_id": reference.body["table_id"], "reference_transaction_id": reference.transaction_id}
    return T(transaction_id=body["transaction_id"], operator_id=reference.operator_id, player_id=reference.player_id, kind=T.Kind.ROLLBACK,
             amount=reference.amount, currency=reference.currency, round_id=reference.round_id, bet_id=reference.bet_id,
             reference=reference, after=after, settlement_version=reference.settlement_version, body=body)


def bet_cancelled(*, bet: Bet, wallet: Account) -> None:
    """bets.services.bet_cancel, in its transaction, for a seamless player's bet: the stake (returned
    to the wallet by the cancel) goes back to the operator, and the debit is rolled back."""
    debit = T.objects.filter(bet=bet, kind=T.Kind.DEBIT).first()
    operator_account = ledger.operator_account(operator_id=wallet.operator_id, currency=wallet.currency)
    ledger.post(wallet=wallet, counter=operator_account, amount=-bet.amount, kind=K.OP_RB_DEBIT, bet=bet, round_id=bet.round_id)
    if debit is not None:
        outbox_add([_rollback(debit)])


def operator_balance(*, player) -> tuple[Decimal, str] | None:
    """A seamless player's balance at their operator (a `balance` call); None for any other player.
    409 `operator_refused` or 503 when the operator does not tell it."""
    link = OperatorPlayer.objects.select_related("operator").filter(user=player).first()
    if link is None or not link.operator.seamless:
        return None
    operator = link.operator
    with operator_share(operator_id=operator.pk, operator_code=operator.code):
        answer = operator_wallet.call(operator=operator, action="balance", body={"player_id": link.player_id, "currency": operator.currency})
    if answer.outcome == operator_wallet.REFUSED:
        raise OperatorRefused(answer.code, answer.message)
    if not answer.ok or answer.balance is None:
        raise OutcomeUnknown("The operator's wallet did not answer. Try again.", extra={"reason": answer.message})
    return answer.balance, operator.currency


def debit_balance(*, bet: Bet) -> Decimal:
    """A seamless bet's balance as its placing answered it: the operator's balance after the bet's
    debit (0.00 when the operator did not tell it). An idempotent replay of the bet answers it again."""
    balance = T.objects.filter(bet=bet, kind=T.Kind.DEBIT).values_list("operator_balance", flat=True).first()
    return balance if balance is not None else Decimal("0.00")


# --- a round's money: called by bets.settlement and bets.refunds inside their transaction ------------

def _seamless_bets(round_id: int, statuses) -> list[tuple]:
    return list(Bet.objects.filter(round_id=round_id, status__in=statuses, account__operator__isnull=False)
                .values_list("id", "player_id", "account_id", "account__operator_id", "account__currency", "amount", "payout"))


def _operator_accounts(pairs) -> dict[tuple[int, str], int]:
    return {(op, cur): ledger.operator_account(operator_id=op, currency=cur).pk for op, cur in set(pairs)}


def round_credits(*, rnd: Round, version: int) -> dict[str, str]:
    """After a settlement's wins: one credit per seamless player of the round (what came back to
    them, 0.00 when they lost), the money from their wallets to their operators' accounts. A new
    credit after a re-settlement goes after the old credit's rollback. Returns what each operator
    is credited ({code: amount}), which the settlement's event records in the audit chain."""
    bets = _seamless_bets(rnd.pk, (Bet.Status.WON, Bet.Status.LOST))
    if not bets:
        return {}
    debits = dict(T.objects.filter(round_id=rnd.pk, kind=T.Kind.DEBIT, status=T.Status.OK).values_list("bet_id", "transaction_id"))
    per_player: dict[int, dict] = {}
    for bet_id, player_id, account_id, operator_id, currency, amount, payout in bets:
        p = per_player.setdefault(player_id, {"account": account_id, "operator": operator_id, "currency": currency, "total": Decimal(0),
                                              "debits": []})
        p["total"] += payout
        if bet_id in debits:
            p["debits"].append(debits[bet_id])
    links = dict(OperatorPlayer.objects.filter(user_id__in=per_player).values_list("user_id", "player_id"))
    accounts = _operator_accounts((p["operator"], p["currency"]) for p in per_player.values())
    previous = {}
    if version > 1:  # the rollback of each player's previous credit, which the new one follows
        for rollback in T.objects.filter(round_id=rnd.pk, kind=T.Kind.ROLLBACK, reference__kind=T.Kind.CREDIT).order_by("id"):
            previous[rollback.player_id] = rollback
    ledger.seamless_round_moves(round_id=rnd.pk, kind=K.OP_CREDIT, version=version, memo="credits to operators",
                                moves=[(p["account"], accounts[(p["operator"], p["currency"])], -p["total"], None) for p in per_player.values()])
    rows = []
    for player_id, p in sorted(per_player.items()):
        body = {"transaction_id": f"credit-{rnd.pk}-{player_id}-{version}", "player_id": links[player_id], "currency": p["currency"],
                "amount": f"{p['total']:.2f}", **_ids(rnd), "debit_transaction_ids": sorted(p["debits"])}
        rows.append(T(transaction_id=body["transaction_id"], operator_id=p["operator"], player_id=player_id, kind=T.Kind.CREDIT,
                      amount=p["total"], currency=p["currency"], round_id=rnd.pk, settlement_version=version,
                      after=previous.get(player_id), body=body))
    outbox_add(rows)
    per_operator: dict[int, Decimal] = {}
    for p in per_player.values():
        per_operator[p["operator"]] = per_operator.get(p["operator"], Decimal(0)) + p["total"]
    codes = dict(Operator.objects.filter(pk__in=per_operator).values_list("pk", "code"))
    return {codes[op]: f"{total:.2f}" for op, total in sorted(per_operator.items())}


def credits_rollback(*, rnd: Round, version: int) -> int:
    """A settled round about to be voided or re-settled (its wins already reversed): each credit that
    returned something is rolled back (after it is acknowledged), the money from the operators'
    accounts back into the wallets."""
    credits = list(T.objects.filter(round_id=rnd.pk, kind=T.Kind.CREDIT, amount__gt=0, rolled_back_by__isnull=True).order_by("id"))
    if not credits:
        return 0
    wallets = dict(Account.objects.filter(kind=Account.Kind.PLAYER, user_id__in={c.player_id for c in credits},
                                          operator__isnull=False).values_list("user_id", "id"))
    accounts = _operator_accounts((c.operator_id, c.currency) for c in credits)
    ledger.seamless_round_moves(round_id=rnd.pk, kind=K.OP_RB_CREDIT, version=version, memo="credits rolled back",
                                moves=[(wallets[c.player_id], accounts[(c.operator_id, c.currency)], c.amount, None) for c in credits])
    outbox_add([_rollback(c, after=c) for c in credits])
    return len(credits)


def debits_rollback(*, rnd: Round, version: int, statuses) -> int:
    """A voided round (its stakes already refunded to the wallets): every confirmed debit of a bet in
    `statuses` is rolled back, the stakes from the wallets back to the operators' accounts."""
    bets = {b[0]: b for b in _seamless_bets(rnd.pk, statuses)}
    if not bets:
        return 0
    debits = list(T.objects.filter(round_id=rnd.pk, kind=T.Kind.DEBIT, status=T.Status.OK, bet_id__in=bets,
                                   rolled_back_by__isnull=True).order_by("id"))
    accounts = _operator_accounts((bets[d.bet_id][3], bets[d.bet_id][4]) for d in debits)
    ledger.seamless_round_moves(round_id=rnd.pk, kind=K.OP_RB_DEBIT, version=version, memo="debits rolled back",
                                moves=[(bets[d.bet_id][2], accounts[(bets[d.bet_id][3], bets[d.bet_id][4])], -d.amount, d.bet_id) for d in debits])
    outbox_add([_rollback(d) for d in debits])
    return len(debits)

