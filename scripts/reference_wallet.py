"""A reference operator wallet: the operator's side of the seamless wallet protocol (docs/OPERATORS.md),
done correctly, as a small separate process. The tests and the benchmark run the studio against it
over real HTTP; the demo can use it to show a launched player.

    python scripts/reference_wallet.py --port 18700 --secret SECRET [--open-balance 1000] [--seed 1]
        [--latency-ms 20] [--error-share 0.1] [--timeout-share 0.05] [--hang-seconds 5] [--refuse-player P]
        [--bad-signature-share 0.0] [--db wallet.sqlite3]

- Its own storage (SQLite: a file, or memory): players' balances in hundredths, and every transaction
  id with the answer it got. A repeat of a transaction id is answered as the first time, and changes
  nothing. A rollback of a transaction it never saw is answered ok and leaves a tombstone: that
  debit, if it arrives later, is refused. A rollback the player cannot cover (winnings spent) is
  refused (`insufficient_funds`) and not remembered, so the studio's retry can succeed later.
- Requests are checked (X-Signature, HMAC-SHA256 of the raw body with the secret) and answers signed.
- Fault switches, from the command line or `POST /_control/faults` (JSON of the same names): a latency
  before every answer, a share of 5xx answers (nothing applied), a share of timeouts after applying
  (the answer comes after --hang-seconds, past the studio's timeout), a share of answers with a wrong
  signature (applied), refusing a player (`player_blocked`). Random choices come from --seed.
- Control (127.0.0.1 only; for tests): `POST /_control/players` {"player_id": "balance", ...} sets
  balances; `GET /_control/state` the balances and every transaction; `POST /_control/faults`.
"""
from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import random
import socket
import sqlite3
import sys
import threading
import time
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CENT = Decimal("0.01")


def to_minor(value: str) -> int:
    amount = Decimal(value)
    if amount != amount.quantize(CENT) or amount < 0:
        raise ValueError(value)
    return int(amount * 100)


def money(minor: int) -> str:
    return f"{Decimal(minor) / 100:.2f}"


class Wallet:
    def __init__(self, path: str, secret: str, open_balance: int | None):
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS players (player_id TEXT PRIMARY KEY, balance INTEGER NOT NULL)")
        self.db.execute("CREATE TABLE IF NOT EXISTS txns (transaction_id TEXT PRIMARY KEY, action TEXT, player_id TEXT, amount INTEGER, "
                        "reference TEXT, applied INTEGER, answer TEXT, at REAL)")
        self.db.execute("CREATE TABLE IF NOT EXISTS tombstones (transaction_id TEXT PRIMARY KEY)")
        self.lock = threading.Lock()
        self.secret = secret
        self.open_balance = open_balance
        self.refused_players: set[str] = set()

    def _balance(self, player_id: str) -> int | None:
        row = self.db.execute("SELECT balance FROM players WHERE player_id = ?", [player_id]).fetchone()
        if row is None and self.open_balance is not None:
            self.db.execute("INSERT INTO players VALUES (?, ?)", [player_id, self.open_balance])
            return self.open_balance
        return None if row is None else row[0]

    def handle(self, action: str, body: dict) -> dict:
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                answer = self._handle(action, body)
                self.db.execute("COMMIT")
                return answer
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    def _remember(self, action, body, applied: bool, answer: dict, amount=0, reference=None) -> dict:
        self.db.execute("INSERT INTO txns VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [body["transaction_id"], action, body["player_id"], amount,
                                                                           reference, int(applied), json.dumps(answer), time.time()])
        return answer

    def _handle(self, action: str, body: dict) -> dict:
        player_id = str(body["player_id"])
        balance = self._balance(player_id)
        if action == "balance":
            if balance is None:
                return error("unknown_player", "No such player.")
            return {"status": "ok", "balance": money(balance)}
        txn_id = str(body["transaction_id"])
        seen = self.db.execute("SELECT answer FROM txns WHERE transaction_id = ?", [txn_id]).fetchone()
        if seen is not None:
            return json.loads(seen[0])  # a repeat: the same answer, nothing changed
        if balance is None:
            return error("unknown_player", "No such player.")
        amount = to_minor(body["amount"])
        if action == "debit":
            if self.db.execute("SELECT 1 FROM tombstones WHERE transaction_id = ?", [txn_id]).fetchone():
                return self._remember(action, body, False, error("transaction_rolled_back", "This debit was rolled back before it came."))
            if player_id in self.refused_players:
                return self._remember(action, body, False, error("player_blocked", "This player may not play now."))
            if amount > balance:
                return self._remember(action, body, False, error("insufficient_funds", "Not enough money."))
            return self._apply(action, body, player_id, balance, -amount)
        if action == "credit":
            return self._apply(action, body, player_id, balance, amount)
        if action == "rollback":
            reference = str(body["reference_transaction_id"])
            ref = self.db.execute("SELECT action, amount, applied FROM txns WHERE transaction_id = ?", [reference]).fetchone()
            if ref is None:
                self.db.execute("INSERT OR IGNORE INTO tombstones VALUES (?)", [reference])
                return self._remember(action, body, False, {"status": "ok", "balance": money(balance)}, reference=reference)
            ref_action, ref_amount, applied = ref
            if not applied:
                return self._remember(action, body, False, {"status": "ok", "balance": money(balance)}, reference=reference)
            if self.db.execute("SELECT 1 FROM txns WHERE reference = ? AND action = 'rollback'", [reference]).fetchone():
                return self._remember(action, body, False, {"status": "ok", "balance": money(balance)}, reference=reference)
            delta = ref_amount if ref_action == "debit" else -ref_amount
            if balance + delta < 0:
                return error("insufficient_funds", "The winnings were spent; the rollback cannot be applied now.")  # not remembered
            return self._apply(action, body, player_id, balance, delta, reference=reference)
        return error("unknown_action", f"No action {action!r}.")

    def _apply(self, action, body, player_id, balance, delta, reference=None) -> dict:
        self.db.execute("UPDATE players SET balance = balance + ? WHERE player_id = ?", [delta, player_id])
        return self._remember(action, body, True, {"status": "ok", "balance": money(balance + delta)}, amount=abs(delta), reference=reference)

    def set_players(self, balances: dict) -> None:
        with self.lock:
            for player_id, value in balances.items():
                self.db.execute("INSERT INTO players VALUES (?, ?) ON CONFLICT (player_id) DO UPDATE SET balance = excluded.balance",
                                [player_id, to_minor(str(value))])

    def state(self) -> dict:
        with self.lock:
            players = {p: money(b) for p, b in self.db.execute("SELECT player_id, balance FROM players")}
            txns = [{"transaction_id": t, "action": a, "player_id": p, "amount": money(m), "reference": r, "applied": bool(ap),
                     "answer": json.loads(ans)} for t, a, p, m, r, ap, ans in
                    self.db.execute("SELECT transaction_id, action, player_id, amount, reference, applied, answer FROM txns ORDER BY at")]
            return {"players": players, "transactions": txns}


def error(code: str, message: str) -> dict:
    return {"status": "error", "code": code, "message": message}


class Faults:
    def __init__(self, seed: int):
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        self.latency_ms = 0.0
        self.error_share = 0.0
        self.timeout_share = 0.0
        self.bad_signature_share = 0.0
        self.hang_seconds = 5.0

    def roll(self, share: float) -> bool:
        if share <= 0:
            return False
        with self.lock:
            return self.random.random() < share


def make_handler(wallet: Wallet, faults: Faults):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: the studio reuses its connections
        disable_nagle_algorithm = True  # the head and the body are two writes: no 40 ms delayed-ACK stall between them

        def log_message(self, *args):
            pass

        def _send(self, status: int, body: dict | None, *, sign: bool = True, corrupt: bool = False) -> None:
            raw = json.dumps(body, separators=(",", ":")).encode() if body is not None else b""
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            if sign:
                signature = hmac.new(wallet.secret.encode(), raw, hashlib.sha256).hexdigest()
                self.send_header("X-Signature", ("0" * 64) if corrupt else signature)
            self.end_headers()
            self.wfile.write(raw)

        def do_GET(self):
            if self.path == "/_control/state":
                return self._send(200, wallet.state(), sign=False)
            return self._send(404, {"status": "error", "code": "not_found"}, sign=False)

        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            path = self.path.strip("/")
            if path.startswith("_control/"):
                data = json.loads(raw or b"{}")
                if path == "_control/players":
                    wallet.set_players(data)
                elif path == "_control/faults":
                    for name in ("latency_ms", "error_share", "timeout_share", "bad_signature_share", "hang_seconds"):
                        if name in data:
                            setattr(faults, name, float(data[name]))
                    if "refuse_players" in data:
                        wallet.refused_players = set(data["refuse_players"])
                return self._send(200, {"status": "ok"}, sign=False)
            signature = self.headers.get("X-Signature") or ""
            expected = hmac.new(wallet.secret.encode(), raw, hashlib.sha256).hexdigest()
            if not hmac.compare_digest(expected, signature):
                return self._send(401, error("bad_signature", "The request's signature is wrong."))
            if faults.latency_ms:
                time.sleep(faults.latency_ms / 1000)
            if path not in ("balance", "debit", "credit", "rollback"):
                return self._send(404, error("unknown_action", "No such action."))
            if faults.roll(faults.error_share):
                return self._send(503, {"status": "error", "code": "unavailable", "message": "injected 5xx"}, sign=False)
            try:
                answer = wallet.handle(path, json.loads(raw))
            except (ValueError, KeyError, TypeError) as exc:
                return self._send(400, error("bad_request", str(exc)))
            if faults.roll(faults.timeout_share):
                time.sleep(faults.hang_seconds)  # applied, answered after the studio stopped waiting
            self._send(200, answer, corrupt=faults.roll(faults.bad_signature_share))

    return Handler


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=18700)
    parser.add_argument("--fd", type=int, help="serve on this already listening socket (the tests')")
    parser.add_argument("--secret", required=True)
    parser.add_argument("--db", default=":memory:")
    parser.add_argument("--open-balance", help="unknown players start with this balance (else: unknown_player)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--latency-ms", type=float, default=0)
    parser.add_argument("--error-share", type=float, default=0)
    parser.add_argument("--timeout-share", type=float, default=0)
    parser.add_argument("--bad-signature-share", type=float, default=0)
    parser.add_argument("--hang-seconds", type=float, default=5)
    parser.add_argument("--refuse-player", action="append", default=[])
    args = parser.parse_args(argv)
    wallet = Wallet(args.db, args.secret, to_minor(args.open_balance) if args.open_balance else None)
    wallet.refused_players = set(args.refuse_player)
    faults = Faults(args.seed)
    faults.latency_ms, faults.error_share, faults.timeout_share = args.latency_ms, args.error_share, args.timeout_share
    faults.bad_signature_share, faults.hang_seconds = args.bad_signature_share, args.hang_seconds
    handler = make_handler(wallet, faults)
    if args.fd is not None:
        server = Server((args.host, 0), handler, bind_and_activate=False)
        server.socket = socket.socket(fileno=args.fd)
    else:
        server = Server((args.host, args.port), handler)
    host, port = server.socket.getsockname()[:2]
    print(f"reference wallet listening on http://{host}:{port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
