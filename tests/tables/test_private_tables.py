"""A private match table, its rounds and its join code are seen only by the match's players and by
supervisors (tables.access): everyone else, anonymous, an uninvited player or a dealer, is told
there is no such table or round (404), on every endpoint and page."""
import pytest
from django.apps import apps
from django.test import Client

from bets.models import Bet
from tables.models import Incident, Match, Table
from tests.conftest import client_for, make_user
from tests.matches.play import MatchPlay

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def carol(db):
    return make_user("carol", "player", chips=1000)


@pytest.fixture
def world(alice_api, bob_api, carol, dealer_api, supervisor_api, anon_api, supervisor):
    """A running match of alice and bob with a round in betting (alice has bet in it) and an
    incident raised on it; carol is a player who was not invited."""
    play = MatchPlay.start({"alice": alice_api, "bob": bob_api})
    rnd = play.open("andar")
    play.bet("alice", ("andar", 10))
    incident = Incident.objects.create(round=rnd, raised_by=supervisor, kind="other")
    clients = {"anon": anon_api, "carol": client_for(carol), "dealer": dealer_api, "alice": alice_api, "supervisor": supervisor_api}
    return play, rnd, incident, clients


# Who gets what. 401: the endpoint needs a login; 403: the role never may, at any table.
SEEN_BY_MEMBERS = {"anon": 404, "carol": 404, "dealer": 404, "alice": 200, "supervisor": 200}
LOGGED_IN = {"anon": 401, "carol": 404, "dealer": 404, "alice": 200, "supervisor": 200}
STAFF = {"anon": 401, "carol": 403, "dealer": 404, "alice": 403, "supervisor": 200}
ENDPOINTS = {
    "/api/tables/{table}/": SEEN_BY_MEMBERS,
    "/api/tables/{table}/odds/": SEEN_BY_MEMBERS,
    "/api/tables/{table}/stats/": SEEN_BY_MEMBERS,
    "/api/tables/{table}/rules/": SEEN_BY_MEMBERS,
    "/api/tables/{table}/rounds/": SEEN_BY_MEMBERS,
    "/api/tables/{table}/current-round/": SEEN_BY_MEMBERS,
    "/api/tables/{table}/stream-snapshot/": SEEN_BY_MEMBERS,
    "/api/rounds/{round}/": SEEN_BY_MEMBERS,
    "/api/rounds/{round}/bets/": LOGGED_IN,
    "/api/rounds/{round}/audit/": STAFF,
    "/api/rounds/{round}/incidents/": STAFF,
    "/api/incidents/{incident}/": STAFF,
}


@pytest.mark.parametrize("url", ENDPOINTS)
def test_only_members_and_supervisors_read_a_match_table(world, url):
    play, rnd, incident, clients = world
    path = url.format(table=play.table_id, round=rnd.pk, incident=incident.pk)
    got = {who: client.get(path).status_code for who, client in clients.items()}
    assert got == ENDPOINTS[url]
    assert play.match.code not in clients["carol"].get(path).content.decode()


def test_outsiders_cannot_bet_repeat_deal_or_raise_incidents_on_a_match_round(world, carol):
    play, rnd, incident, clients = world
    carol_api, dealer_api = clients["carol"], clients["dealer"]
    for response in (
        carol_api.post(f"/api/rounds/{rnd.pk}/bets/", {"spot": "andar", "amount": "10"}, format="json"),
        carol_api.post(f"/api/rounds/{rnd.pk}/bets/repeat/"),
        dealer_api.post(f"/api/rounds/{rnd.pk}/cards/", {"card": "2C"}, format="json"),
        dealer_api.post(f"/api/rounds/{rnd.pk}/cards/", {"card": "ZZ"}, format="json"),  # no refused scan told either
        dealer_api.post(f"/api/rounds/{rnd.pk}/incidents/", {"kind": "other"}, format="json"),
        dealer_api.post(f"/api/incidents/{incident.pk}/notes/", {"text": "hello"}, format="json"),
        carol_api.post(f"/api/matches/{play.id}/bet/", {"bets": [{"spot": "andar", "amount": "10"}]}, format="json"),
        carol_api.post(f"/api/matches/{play.id}/start/"),
        carol_api.get(f"/api/matches/{play.id}/"),
    ):
        assert (response.status_code, response.json()["code"]) == (404, "not_found"), response.content
    assert not Bet.objects.filter(round=rnd, player=carol).exists() and not rnd.cards.exists()
    assert Incident.objects.filter(round=rnd).count() == 1 and Incident.objects.get().notes == []
    # a member still gets the match table's own answer: bets go through the match
    member = clients["alice"].post(f"/api/rounds/{rnd.pk}/bets/", {"spot": "andar", "amount": "10"}, format="json")
    assert (member.status_code, member.json()["code"]) == (409, "match_table")


def test_a_bet_from_an_outsider_with_a_wallet_in_the_matchs_currency_is_404(world, carol):
    """An outsider whose wallet exists already (the bet takes the optimistic way)."""
    from bets.ledger import wallet_and_house

    play, rnd, _, clients = world
    wallet_and_house(user=carol, currency=play.match.currency)
    response = clients["carol"].post(f"/api/rounds/{rnd.pk}/bets/", {"spot": "andar", "amount": "10"}, format="json")
    assert (response.status_code, response.json()["code"]) == (404, "not_found")
    assert not Bet.objects.filter(round=rnd, player=carol).exists()


def test_the_list_of_tables_shows_a_match_table_to_members_and_supervisors_only_and_no_console_deals_it(
        world, dealer, carol, alice, supervisor):
    play, _, _, clients = world
    name = Table.objects.get(pk=play.table_id).name
    listed = {who: play.table_id in [t["id"] for t in c.get("/api/tables/").json()] for who, c in clients.items()}
    assert listed == {"anon": False, "carol": False, "dealer": False, "alice": True, "supervisor": True}
    for user in (dealer, supervisor):  # the console lists the tables a person deals: a match's table is the virtual dealer's
        page = Client()
        page.force_login(user)
        assert name not in page.get("/console/").content.decode()


def test_the_play_page_of_a_match_table_is_its_members_and_supervisors_only(world, dealer, carol, alice, supervisor):
    play, _, _, _ = world
    got = {}
    for who, user in (("anon", None), ("carol", carol), ("dealer", dealer), ("alice", alice), ("supervisor", supervisor)):
        page = Client()
        if user is not None:
            page.force_login(user)
        got[who] = (page.get(f"/play/tables/{play.table_id}/").status_code, page.get(f"/matches/{play.id}/").status_code)
    assert got == {"anon": (404, 302), "carol": (404, 404), "dealer": (404, 404), "alice": (200, 200), "supervisor": (200, 200)}


def test_joining_by_code_still_works_and_then_the_table_is_seen(alice_api, carol):
    body = alice_api.post("/api/matches/", {}, format="json").json()
    carol_api = client_for(carol)
    assert carol_api.get(f"/api/tables/{body['table']}/").status_code == 404
    assert carol_api.post("/api/matches/join/", {"code": body["code"]}, format="json").status_code == 200
    assert carol_api.get(f"/api/tables/{body['table']}/").status_code == 200
    assert carol_api.get(f"/api/matches/{body['id']}/").json()["code"] == body["code"]


def test_a_match_table_is_named_without_its_code(alice_api):
    body = alice_api.post("/api/matches/", {}, format="json").json()
    table = Table.objects.get(pk=body["table"])
    assert table.name == f"Match {body['id']}" and body["code"] not in table.name


def test_the_migration_renames_the_tables_of_existing_matches(alice):
    from importlib import import_module

    table = Table.objects.create(name="Match K7QZ2X", is_private=True)
    match = Match.objects.create(table=table, code="K7QZ2X", created_by=alice)
    import_module("tables.migrations.0005_match_table_names").rename(apps, None)
    table.refresh_from_db()
    assert table.name == f"Match {match.pk}"
