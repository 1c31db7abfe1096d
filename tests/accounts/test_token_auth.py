"""accounts.auth.TokenAuthentication: DRF's token authentication with the roles read in the same
query. It must accept and refuse exactly as DRF's does, and its roles must be the user's groups."""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Token
from accounts.tokens import token_issue
from studio.roles import roles_of
from tests.conftest import client_for, make_user

pytestmark = pytest.mark.django_db


def test_a_player_reads_me_with_one_query_for_token_user_and_roles():
    alice = make_user("alice", "player", chips=100)
    api = client_for(alice)
    with CaptureQueriesContext(connection) as queries:
        body = api.get("/api/me/").json()
    assert body["username"] == "alice" and body["roles"] == ["player"]
    table = Token._meta.db_table
    auth_queries = [q["sql"] for q in queries if table in q["sql"]]
    assert len(auth_queries) == 1 and not any("auth_group" in q["sql"] and table not in q["sql"] for q in queries)


def test_roles_come_from_the_groups_and_a_user_without_a_role_is_refused_the_bet(table):
    bob = make_user("bob", "dealer")
    bob.groups.add(*make_user("carol", "supervisor").groups.all())
    api = client_for(bob)
    assert sorted(api.get("/api/me/").json()["roles"]) == ["dealer", "supervisor"]
    user = api.get("/api/me/").wsgi_request.user
    assert roles_of(user) == {"dealer", "supervisor"}
    assert api.post("/api/rounds/1/bets/", {"spot": "andar", "amount": "10"}, format="json").status_code == 403


@pytest.mark.parametrize("header, message", [
    ("Token not-a-real-token", "Invalid token."),
    ("Token", "Invalid token header. No credentials provided."),
    ("Token a b", "Invalid token header. Token string should not contain spaces."),
])
def test_bad_tokens_are_401_as_in_drf(header, message, anon_api):
    anon_api.credentials(HTTP_AUTHORIZATION=header)
    response = anon_api.get("/api/me/")
    assert response.status_code == 401 and message in response.json()["message"]


def test_an_inactive_users_token_is_refused(anon_api):
    dave = make_user("dave", "player", chips=100)
    key = token_issue(user=dave).key
    dave.is_active = False
    dave.save(update_fields=["is_active"])
    anon_api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    response = anon_api.get("/api/me/")
    assert response.status_code == 401 and "inactive" in response.json()["message"]


def test_the_user_read_with_the_token_loads_other_fields_when_asked():
    erin = make_user("erin", "player", chips=100)
    erin.email = "erin@example.com"
    erin.save(update_fields=["email"])
    user = client_for(erin).get("/api/me/").wsgi_request.user
    assert user.pk == erin.pk and user.email == "erin@example.com"  # a deferred field, loaded on use
