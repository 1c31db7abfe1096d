"""Schemathesis against the live schema: no input is a server error, every answer is what the
schema says it is (status code, media type, body), and no input the schema calls invalid is
accepted (its negative_data_rejection check).

The studio runs under uvicorn on the test database (tests.servers.studio_server: a
subprocess, which can see it) with a table, an open round, a finished round with an incident, and
a match in its lobby, and schemathesis's command line fuzzes every operation of /api/schema/ as
each role would: anonymous, a player, a dealer, a supervisor (tokens from POST
/api/auth/token/) and an operator's launched player (a signed launch; the reference operator wallet
runs as a real process), seeded: its coverage phase (each parameter's and field's boundaries, empty
values and wrong types), then at most 20 examples per operation and role (its fuzzing phase, valid
and invalid data both; 6 under CI, every operation all the same), the five roles side by side. Each run's output is kept in
test-artifacts/api-fuzz/. A second test fuzzes the same schema in-process, through Django's WSGI
handler (schemathesis's Python API), with every {id} a real object.

The schema documents neither OPTIONS nor HEAD, and each operation's answer in one format: a sweep
(`_sweep`) asks every path of the schema, as each role and with its {id} a real object, OPTIONS,
HEAD and GET in every format a view renders (`?format=json`, `?format=csv`), without one and in one
no view renders, in-process and against the live server: no 5xx, every refusal the error body,
OPTIONS described in JSON, and HEAD answered as GET is.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, Phase, given
from hypothesis import seed as hypothesis_seed
from hypothesis import settings as hypothesis_settings
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance, negative_data_rejection, response_schema_conformance, status_code_conformance,
)

from accounts.tokens import token_issue
from tables.models import Table
from tests import localhttp
from tests.bets.seamless_world import launch_body, reference_wallet, seamless_operator, signed_launch
from tests.conftest import IN_CI, client_for, make_user
from tests.servers import studio_server


SEED = 20261201
# Examples per operation and role, against the live server and in-process on real objects (one
# process: half as many). CI runs every operation with fewer examples: the same seeds, under a third of the time.
MAX_EXAMPLES = 6 if IN_CI else 20
IN_PROCESS_EXAMPLES = 4 if IN_CI else 10
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,negative_data_rejection"
# Logging out revokes the very token the run fuzzes with (tests/accounts cover it).
NOT_FUZZED = "/api/auth/logout/"
ROLES = {"anonymous": None, "player": "player", "dealer": "dealer", "supervisor": "supervisor"}
# Against the live server, the operator's player too (in-process, a test's transaction would wrap
# the operator's wallet calls, which the studio never makes inside one).
LIVE_ROLES = {**ROLES, "launched": "launched"}


def _world(dealer, alice, bob):
    """Something for the ids to find: a table with an open round and bets on it, an incident on a
    finished round, a match in its lobby."""
    from bets.services import bet_place
    from incidents.services import incident_raise
    from matches.services import match_create, match_join
    from engine.integrity import initial_state
    from integrity.models import Alert, Monitor
    from tables.models import Incident, Shift, Table
    from tables.services import card_deal, round_close_betting, round_open

    first = Table.objects.create(name="Fuzz table", betting_seconds=600)
    done = round_open(table_id=first.pk, joker="KS", dealer=dealer)
    round_close_betting(round_id=done.pk, actor=dealer, reason="dealer")
    card_deal(round_id=done.pk, card="KH", actor=dealer)  # Andar wins on the first card
    incident_raise(round_id=done.pk, actor=dealer, kind="misread", notes="=1+1 looked odd")
    live = Table.objects.create(name="-Live", betting_seconds=600)
    rnd = round_open(table_id=live.pk, joker="QS", dealer=dealer)
    bet_place(round_id=rnd.pk, player=alice, spot="andar", amount="20")
    bet, _ = bet_place(round_id=rnd.pk, player=alice, spot="first_andar", amount="10")
    match = match_create(creator=alice)
    match_join(code=match.code, user=bob)
    incident = Incident.objects.get(round=done)
    shift = Shift.objects.get(dealer=dealer, ended_at=None)  # opening at the live table moved the dealer's shift there
    # An open alert of the first table's monitor (a fair round or two raises none; tests/integrity raise real ones).
    monitor, _ = Monitor.objects.get_or_create(kind=Monitor.Kind.TABLE, table=first, defaults={"state": initial_state()})
    alert = Alert.objects.create(monitor=monitor, check_name="first_card_match", statistic=700, threshold=700, round=done)
    return {"tables": live.pk, "rounds": rnd.pk, "matches": match.pk, "incidents": incident.pk, "bets": bet.pk,
            "corrections": done.pk, "shifts": shift.pk, "alerts": alert.pk}


def _token(url: str, name: str) -> str:
    response = localhttp.post(url + "/api/auth/token/", json={"username": name, "password": "pw-" + name}, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()["token"]


def _launched_token(wallet, ids: dict) -> str:
    """A player launched by a seamless operator (the reference wallet) at the live table, rich there."""
    live_table = Table.objects.get(pk=ids["tables"])
    seamless_operator(wallet, currency=live_table.currency)
    wallet.players({"fuzz-player": "1000000"})
    launch = signed_launch(client_for(None), launch_body("fuzz-player", live_table))
    assert launch.status_code == 201, launch.content
    return launch.json()["token"]


def _users() -> tuple[dict, dict]:
    """The personas, and the ids of the world's objects by the path that names them."""
    users = {"dealer": make_user("dealer", "dealer"), "supervisor": make_user("supervisor", "supervisor"),
             "player": make_user("alice", "player", chips=1000)}
    return users, _world(users["dealer"], users["player"], make_user("bob", "player", chips=1000))


@pytest.mark.long
@pytest.mark.django_db(transaction=True)
def test_schemathesis_finds_no_server_error_and_no_schema_violation(request, tmp_path):
    users, ids = _users()
    out = Path(request.config.rootpath) / "test-artifacts" / "api-fuzz"
    out.mkdir(parents=True, exist_ok=True)
    with reference_wallet(log_dir=out) as wallet, studio_server(log_dir=out, name="fuzz") as url:
        tokens = {persona: _token(url, users[persona].username) for persona in ROLES.values() if persona}
        tokens["launched"] = _launched_token(wallet, ids)
        runs = {}
        for role, persona in LIVE_ROLES.items():
            command = [sys.executable, "-m", "schemathesis.cli", "run", url + "/api/schema/", "--checks", CHECKS,
                       "--phases", "examples,coverage,fuzzing", "--max-examples", str(MAX_EXAMPLES), "--seed", str(SEED),
                       "--workers", "1", "--request-timeout", "30", "--warnings", "off", "--no-color", "--generation-database", "none",
                       "--exclude-path", NOT_FUZZED]
            if persona is not None:
                command += ["--header", f"Authorization: Token {tokens[persona]}"]
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
        with localhttp.Client(base_url=url, timeout=30) as client:
            def live(method, path, headers):
                response = client.request(method, path, headers=headers)
                return response.status_code, response.headers.get("content-type", ""), response.content

            for role, persona in LIVE_ROLES.items():
                headers = {} if persona is None else {"Authorization": f"Token {tokens[persona]}"}
                if failures := _sweep(live, headers, ids):
                    failed[f"{role}, OPTIONS/HEAD/formats"] = "\n".join(failures)
    assert not failed, "\n\n".join(f"--- as {role} ---\n{text}" for role, text in failed.items())


IN_PROCESS_CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
                     negative_data_rejection]
# Every renderer's format (the reports' CSV, JSON everywhere), none, and one no view renders (a JSON 404).
FORMATS = (None, "json", "csv", "xml")
ERROR_KEYS = {"code", "message", "fields"}


def _sweep(call, headers: dict, ids: dict) -> list[str]:
    """OPTIONS, HEAD and (where the path has one) GET of every path of the schema, its {id} a real
    object, in each of FORMATS: what went wrong. `call(method, path, headers)` answers (status,
    content type, body)."""
    failures = []
    for path, item in SchemaGenerator().get_schema(request=None, public=True)["paths"].items():
        if path == NOT_FUZZED:
            continue
        real = path.replace("{id}", str(_real_id(path, ids))) if "{id}" in path else path
        for fmt in FORMATS:
            url = real + (f"?format={fmt}" if fmt else "")
            statuses = {}
            for method in ("OPTIONS", "HEAD", "GET") if "get" in item else ("OPTIONS", "HEAD"):
                status, content_type, body = call(method, url, headers)
                statuses[method] = status
                where = f"{method} {url}: {status} {content_type} {body[:300]!r}"
                if status >= 500:
                    failures.append(where)
                elif (status >= 400 or method == "OPTIONS") and not content_type.startswith("application/json"):
                    failures.append(f"not JSON: {where}")
                elif status >= 400 and method != "HEAD" and not ERROR_KEYS <= set(json.loads(body)):
                    failures.append(f"not the error body: {where}")
            if "GET" in statuses and statuses["HEAD"] != statuses["GET"]:
                failures.append(f"HEAD {url} answered {statuses['HEAD']}, GET {statuses['GET']}")
    return failures


@pytest.mark.django_db
def test_options_head_and_every_format_answer_without_a_server_error():
    """The sweep in-process (Django's test client): every path, as each role, on real objects."""
    users, ids = _users()
    failed = {}
    for role, persona in ROLES.items():
        client = client_for(users[persona] if persona else None)

        def in_process(method, path, headers, client=client):
            response = client.generic(method, path, **{"HTTP_" + k.upper().replace("-", "_"): v for k, v in headers.items()})
            body = b"".join(response.streaming_content) if response.streaming else response.content
            return response.status_code, response.get("Content-Type", ""), body

        if failures := _sweep(in_process, {}, ids):
            failed[role] = failures
    assert not failed, "\n\n".join(f"--- as {role} ---\n" + "\n".join(fs) for role, fs in failed.items())


def _real_id(path: str, ids: dict) -> int:
    """The id of a real object for an operation's {id}: corrections on the finished round, the rest by
    the kind of object the path names (/api/rounds/{id}/bets/: the open round)."""
    kind = "corrections" if "/corrections/" in path else path.split("/")[2]
    return ids[kind]


def _fuzz_in_process(schema, headers: dict, ids: dict, succeeded: set) -> list[str]:
    """Every operation on real objects (its {id} one of the world's), valid and invalid data, seeded:
    the failures; `succeeded` collects the operations that answered 2xx at least once."""
    failures = []
    for result in schema.get_all_operations():
        operation = result.ok()
        if operation.path == NOT_FUZZED:
            continue
        fixed = {"id": _real_id(operation.path, ids)} if "{id}" in operation.path else None
        # Invalid data only where something is left to make invalid once the id is fixed (a body, a query
        # parameter): elsewhere the live run's invalid ids cover it, and generation would only search.
        invalid = len(operation.body) > 0 or len(operation.query) > 0
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE) if invalid else (GenerationMode.POSITIVE,):
            @hypothesis_seed(SEED)
            @hypothesis_settings(max_examples=IN_PROCESS_EXAMPLES // 2, deadline=None, database=None,
                                 phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
            @given(case=operation.as_strategy(generation_mode=mode, path_parameters=fixed))
            def run(case):
                response = case.call_and_validate(headers=headers, checks=IN_PROCESS_CHECKS)
                if response.status_code < 300:
                    succeeded.add(case.operation.label)

            try:
                run()
            except Unsatisfiable:  # nothing in the operation can be made invalid (no parameters, no body)
                assert mode is GenerationMode.NEGATIVE, operation.label
            except Exception as exc:  # a check's failure, with the case that reproduces it
                failures.append(f"{operation.label} ({mode}): {exc}")
    return failures


@pytest.mark.django_db
def test_schemathesis_on_real_objects_finds_no_server_error_and_no_schema_violation():
    """The same checks in-process, through Django's WSGI handler, with every {id}
    a real object (the open round, the match, the incident, a bet): the answers that succeed are
    checked against the schema as well as the refusals. The test's database connection stays open
    across requests, as Django's test client keeps it."""
    users, ids = _users()
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        schema = schemathesis.openapi.from_wsgi("/api/schema/", WSGIHandler())
        failed, succeeded = {}, set()
        for role, persona in ROLES.items():
            headers = {} if persona is None else {"Authorization": "Token " + token_issue(user=users[persona]).key}
            failures = _fuzz_in_process(schema, headers, ids, succeeded)
            if failures:
                failed[role] = failures
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    assert not failed, "\n\n".join(f"--- as {role} ---\n" + "\n".join(f[:3000] for f in fs) for role, fs in failed.items())
    assert len(succeeded) >= 20, sorted(succeeded)  # the real objects were reached: most operations answered 2xx (28 of 39 seen)
    # A round's record on the open round (the player bet in it): answered, and as its schema says.
    assert "GET /api/rounds/{id}/record/" in succeeded, sorted(succeeded)
