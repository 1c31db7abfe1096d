"""Schemathesis against the live schema of a real server: no input is a server error, and every
answer is what the schema says it is (status code, media type, body).

The studio runs under uvicorn on the test database (tests.servers.studio_server: a subprocess, so
PostgreSQL) with a table, an open round, a settled round's worth of objects, an incident and a
match in its lobby, and schemathesis fuzzes every operation of /api/schema/ as each role would:
anonymous, a player, a dealer and a supervisor (tokens from POST /api/auth/token/), seeded, at most
20 examples per operation and role (its fuzzing phase, valid and invalid data both), the four roles
side by side. Each run's output is kept in test-artifacts/api-fuzz/.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.conftest import make_user
from tests.servers import studio_server

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

PORTS = range(8180, 8190)
SEED = 20261201
MAX_EXAMPLES = 20
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"
ROLES = {"anonymous": None, "player": "player", "dealer": "dealer", "supervisor": "supervisor"}


@pytest.fixture
def _fast_passwords():
    """Overrides the package's cheap test hasher: the users log in on the uvicorn process, which
    has the real settings' hashers and could not check an MD5 hash."""


def _world(dealer, alice, bob):
    """Something for the ids to find: a table with an open round and bets on it, an incident on a
    finished round, a match in its lobby."""
    from bets.services import bet_place
    from tables.incidents import incident_raise
    from tables.matches import match_create, match_join
    from tables.models import Table
    from tables.services import card_deal, round_close_betting, round_open

    first = Table.objects.create(name="Fuzz table", betting_seconds=600)
    done = round_open(table_id=first.pk, joker="KS", dealer=dealer)
    round_close_betting(round_id=done.pk, actor=dealer, reason="dealer")
    card_deal(round_id=done.pk, card="KH", actor=dealer)  # Andar wins on the first card
    incident_raise(round_id=done.pk, actor=dealer, kind="misread", notes="=1+1 looked odd")
    live = Table.objects.create(name="-Live", betting_seconds=600)
    rnd = round_open(table_id=live.pk, joker="QS", dealer=dealer)
    bet_place(round_id=rnd.pk, player=alice, spot="andar", amount="20")
    match = match_create(creator=alice)
    match_join(code=match.code, user=bob)


def _token(url: str, name: str) -> str:
    response = httpx.post(url + "/api/auth/token/", json={"username": name, "password": "pw-" + name}, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()["token"]


def test_schemathesis_finds_no_server_error_and_no_schema_violation(request, tmp_path):
    users = {"dealer": make_user("dealer", "dealer"), "supervisor": make_user("supervisor", "supervisor"),
             "player": make_user("alice", "player", chips=1000)}
    _world(users["dealer"], users["player"], make_user("bob", "player", chips=1000))
    out = Path(request.config.rootpath) / "test-artifacts" / "api-fuzz"
    out.mkdir(parents=True, exist_ok=True)
    with studio_server(ports=PORTS, log_dir=out, name="fuzz") as url:
        runs = {}
        for role, persona in ROLES.items():
            command = [sys.executable, "-m", "schemathesis.cli", "run", url + "/api/schema/", "--checks", CHECKS,
                       "--phases", "examples,fuzzing", "--max-examples", str(MAX_EXAMPLES), "--seed", str(SEED),
                       "--workers", "1", "--request-timeout", "30", "--warnings", "off", "--no-color"]
            if persona is not None:
                command += ["--header", f"Authorization: Token {_token(url, users[persona].username)}"]
            log = open(out / f"{role}.txt", "w")
            runs[role] = (subprocess.Popen(command, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL), log)
        failed = {}
        for role, (proc, log) in runs.items():
            try:
                code = proc.wait(timeout=300)
            except subprocess.TimeoutExpired:
                proc.kill()
                code = proc.wait()
            log.close()
            if code != 0:
                failed[role] = (out / f"{role}.txt").read_text()[-6000:]
    assert not failed, "\n\n".join(f"--- as {role} ---\n{text}" for role, text in failed.items())
