"""The seamless wallet's test world: the reference operator wallet (scripts/reference_wallet.py) as a
real process on a port the system picks, a seamless operator pointing at it, signed launches, and
the books the studio must keep (docs/OPERATORS.md)."""
from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from django.conf import settings
from django.db.models import Sum

from accounts.operators import operator_set
from bets.models import Account, Bet, LedgerEntry, WalletTransaction
from studio import signing
from tables.services import card_deal
from tests.bets.flow import EXAMPLE_2_CARDS
from tests import localhttp
from tests.conftest import client_for
from tests.servers import stop

D = Decimal
SECRET = "operator-secret-for-tests"


@contextlib.contextmanager
def reference_wallet(*, log_dir: Path, seed: int = 7, **flags):
    """The reference wallet on a socket made here (as tests.servers.studio_server does); yields its control."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(256)
    port = listener.getsockname()[1]
    args = [sys.executable, str(Path(settings.BASE_DIR) / "scripts" / "reference_wallet.py"), "--fd", str(listener.fileno()),
            "--secret", SECRET, "--seed", str(seed)]
    for name, value in flags.items():
        args += [f"--{name.replace('_', '-')}", str(value)]
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / "wallet.log"
    with open(log_path, "wb") as log, listener:
        proc = subprocess.Popen(args, pass_fds=[listener.fileno()], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    wallet = WalletControl(f"http://127.0.0.1:{port}")
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if localhttp.get(wallet.url + "/_control/state", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("the reference wallet did not start:\n" + log_path.read_text()[-3000:])
            time.sleep(0.05)
        yield wallet
    finally:
        stop(proc)


class WalletControl:
    def __init__(self, url: str):
        self.url = url

    def faults(self, **faults) -> None:
        base = {"latency_ms": 0, "error_share": 0, "timeout_share": 0, "bad_signature_share": 0, "hang_seconds": 2, "refuse_players": []}
        assert localhttp.post(self.url + "/_control/faults", json={**base, **faults}).status_code == 200

    def players(self, balances: dict) -> None:
        assert localhttp.post(self.url + "/_control/players", json={k: str(v) for k, v in balances.items()}).status_code == 200

    def state(self) -> dict:
        return localhttp.get(self.url + "/_control/state").json()

    def balance(self, player_id: str) -> Decimal:
        return D(self.state()["players"][player_id])

    def applied(self, transaction_id: str) -> list[dict]:
        return [t for t in self.state()["transactions"] if t["transaction_id"] == transaction_id]


def seamless_operator(wallet: WalletControl, code: str = "acme", currency: str = "INR"):
    return operator_set(code=code, wallet="seamless", wallet_url=wallet.url, secret=SECRET, currency=currency)[0]


def signed_launch(api, body: dict | bytes, *, code: str = "acme", secret: str = SECRET, signature: str | None = None):
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"HTTP_X_OPERATOR": code, "HTTP_X_SIGNATURE": signature if signature is not None else signing.sign(secret, raw)}
    return api.generic("POST", "/api/operator/sessions/", raw, content_type="application/json", **headers)


def launch_body(who: str, on_table, **fields) -> dict:
    return {"player_id": who, "display_name": who.title(), "currency": on_table.currency, "table": on_table.pk,
            "language": "hi", "timestamp": int(time.time()), **fields}


def launched(player_id: str, table, code: str = "acme"):
    """A launched player's API client and user."""
    from django.contrib.auth import get_user_model

    response = signed_launch(client_for(None), launch_body(player_id, table), code=code)
    assert response.status_code == 201, response.content
    token = response.json()["token"]
    api = client_for(None)
    api.credentials(HTTP_AUTHORIZATION="Token " + token)
    user = get_user_model().objects.get(api_tokens__key=token)
    return api, user


def launched_players(table, wallet: WalletControl, names, balance="1000") -> dict:
    """Launched players, each with `balance` at the operator (ids unique to the table): {name: (api, user, player_id)}."""
    out = {}
    for name in names:
        pid = f"{name}-{table.pk}"
        wallet.players({pid: balance})
        api, user = launched(pid, table)
        out[name] = (api, user, pid)
    return out


def bet(api, round_id, spot, amount):
    return api.post(f"/api/rounds/{round_id}/bets/", {"spot": spot, "amount": str(amount)}, format="json")


def crowd_bets(p: dict, round_id: int) -> None:
    """Ann on Andar and its first card, Ben on Bahar, Cat on Andar: with EXAMPLE_2_CARDS Ann and Cat
    win and Ben loses (each of `p` from launched_players)."""
    for name, spot, amount in (("ann", "andar", 100), ("ann", "first_andar", 30), ("ben", "bahar", 250), ("cat", "andar", 10)):
        assert bet(p[name][0], round_id, spot, amount).status_code == 201, (name, spot)


def deal_all(rnd, dealer, cards=EXAMPLE_2_CARDS):
    for card in cards:
        card_deal(round_id=rnd.pk, card=card, actor=dealer)


def pending() -> int:
    return WalletTransaction.objects.filter(status=WalletTransaction.Status.PENDING).count()


def drain(max_rounds: int = 200) -> None:
    """Send every pending credit and rollback now, again and again, until none is left (the sweep's
    work, without waiting for the backoff): the faults must be off."""
    from bets.outbox import transaction_send

    for _ in range(max_rounds):
        rows = list(WalletTransaction.objects.filter(status=WalletTransaction.Status.PENDING).exclude(kind="debit").order_by("id"))
        if not rows:
            return
        WalletTransaction.objects.filter(pk__in=[r.pk for r in rows]).update(next_attempt_at=rows[0].created_at)
        for row in rows:
            transaction_send(pk=row.pk)
    pytest.fail(f"still pending: {list(WalletTransaction.objects.filter(status='pending').values_list('transaction_id', 'last_error'))}")


def assert_books_exact(operator, expected: dict[str, Decimal], wallet: WalletControl) -> None:
    """Every transaction acknowledged (or a refused or cancelled debit), each player's balance at the
    operator as the studio's rules say, and the studio's ledger exact: the seamless wallets at zero,
    the operator's account at what its players won from the house, every movement summing to zero."""
    assert pending() == 0, list(WalletTransaction.objects.filter(status="pending").values_list("transaction_id", "last_error"))
    state = wallet.state()["players"]
    for player_id, amount in expected.items():
        assert D(state[player_id]) == amount, (player_id, state[player_id], amount)
    assert not Account.objects.filter(operator=operator, kind="player").exclude(balance=0).exists()
    op_account = Account.objects.filter(operator=operator, kind="operator").first()
    won = sum((b.payout - b.amount for b in Bet.objects.filter(account__operator=operator, status__in=["won", "lost"])), D(0))
    if op_account is not None:
        assert (LedgerEntry.objects.filter(account=op_account).aggregate(s=Sum("amount"))["s"] or D(0)) == won
    assert (LedgerEntry.objects.aggregate(s=Sum("amount"))["s"] or D(0)) == 0
    for account in Account.objects.filter(kind="player", operator=operator):
        assert (LedgerEntry.objects.filter(account=account).aggregate(s=Sum("amount"))["s"] or D(0)) == account.balance
