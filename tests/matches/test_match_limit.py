"""At most MATCHES_PER_PLAYER unfinished matches created by one player (409 `too_many_matches`),
held by the service under the creator's row lock, so that parallel creates cannot exceed it."""
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connections
from accounts.tokens import token_issue

from studio.errors import ApplicationError
from matches.services import match_create
from tables.models import Match, Table
from tests import localhttp
from tests.parallel import at_once
from tests.servers import studio_server


def create(client, status=201):
    response = client.post("/api/matches/", {}, format="json")
    assert response.status_code == status, response.content
    return response.json()


def test_a_fourth_unfinished_match_is_refused(alice_api, bob_api):
    for _ in range(3):
        create(alice_api)
    refused = create(alice_api, status=409)
    assert refused["code"] == "too_many_matches"
    assert Match.objects.count() == Table.objects.count() == 3  # nothing half made
    create(bob_api)  # per player


def test_a_finished_match_frees_its_place(alice_api):
    first = create(alice_api)
    create(alice_api)
    create(alice_api)
    Match.objects.filter(pk=first["id"]).update(status=Match.Status.FINISHED)
    create(alice_api)


def test_the_limit_comes_from_the_settings(alice_api, settings):
    settings.MATCHES_PER_PLAYER = 1
    create(alice_api)
    assert create(alice_api, status=409)["code"] == "too_many_matches"


@pytest.mark.django_db(transaction=True)
def test_parallel_creates_in_the_service_never_exceed_the_limit(alice):
    """Eight creates at once, each on its own PostgreSQL connection."""
    def attempt():
        try:
            return match_create(creator=alice).pk
        except ApplicationError as exc:
            return exc.code

    results = at_once(*[attempt] * 8)
    assert sorted(map(str, results)).count("too_many_matches") == 5, results
    assert Match.objects.filter(created_by=alice).count() == Table.objects.count() == 3


@pytest.mark.django_db(transaction=True)
def test_parallel_creates_over_http_never_exceed_the_limit(alice, tmp_path):
    key = token_issue(user=alice).key
    connections.close_all()
    with studio_server(log_dir=tmp_path, name="limit", WEB_WORKERS="1") as url:
        def post(_):
            return localhttp.post(url + "/api/matches/", json={}, headers={"Authorization": "Token " + key}, timeout=60).status_code

        with ThreadPoolExecutor(8) as pool:
            codes = sorted(pool.map(post, range(8)))
    assert codes == [201] * 3 + [409] * 5, codes
    assert Match.objects.filter(created_by=alice).count() == 3
