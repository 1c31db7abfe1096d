"""What an operator's wallet answers is read within bounds (bets.operator_wallet): an answer nested
deeper than Python's decoder can follow, longer than MAX_ANSWER, or with a field that is neither a
string nor a number, is an unknown outcome (what was asked is then undone, docs/OPERATORS.md), never
an exception out of the call; the thread's connection to the wallet is usable again afterwards. The wallet here is a small HTTP server in the
test's process answering, correctly signed, whatever the test sets."""
from __future__ import annotations

import threading
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from accounts.models import Operator
from bets import operator_wallet
from studio import signing

SECRET = "answers-secret"
DEEP = b"[" * 30_000 + b"]" * 30_000


class _Wallet(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        content = self.server.content
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(content)))
        self.send_header("X-Signature", signing.sign(SECRET, content))
        self.end_headers()
        self.wfile.write(content)

    def log_message(self, *args):
        pass


@pytest.fixture
def wallet():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Wallet)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def ask(wallet) -> operator_wallet.Answer:
    operator = Operator(code="acme", secret=SECRET, wallet_url=f"http://127.0.0.1:{wallet.server_address[1]}")
    return operator_wallet.call(operator=operator, action="balance", body={"player_id": "p-1", "currency": "INR"})


@pytest.mark.parametrize("content", [
    DEEP,
    b'{"status": "ok", "balance": ' + DEEP + b"}",
    b'{"status": "error", "code": ' + b"[" * 900 + b"]" * 900 + b"}",  # no string: never turned into text
    b'{"status": "ok", "balance": "900.00", "note": "' + b"x" * operator_wallet.MAX_ANSWER + b'"}',
    b'{"status": "ok", "balance": NaN}',
    b'{"status": "ok", "balance": {"amount": "900.00"}}',
], ids=["deep", "deep balance", "deep code", "too long", "NaN", "an object"])
def test_an_answer_too_deep_or_too_long_is_an_unknown_outcome(wallet, content):
    wallet.content = content
    answer = ask(wallet)
    assert answer.outcome == operator_wallet.UNKNOWN, answer
    wallet.content = b'{"status": "ok", "balance": "900.00"}'  # the next call, on the same thread, reads its answer
    assert ask(wallet) == operator_wallet.Answer(operator_wallet.OK, balance=Decimal("900.00"))
