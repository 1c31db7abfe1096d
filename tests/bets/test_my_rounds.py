"""GET /api/me/rounds/: a player's own rounds (game recall), newest first, with the joker, the cards
in order, their bets, what came back and the net; a voided round with its reason."""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bets.models import Bet
from incidents.services import incident_raise, incident_void
from tests.bets.flow import D, EXAMPLE_2_CARDS, close, deal, open_round, placed

pytestmark = pytest.mark.django_db


def test_a_settled_round_shows_cards_bets_payouts_and_net(alice_api, bob_api, dealer_api, table, django_capture_on_commit_callbacks):
    rid = open_round(dealer_api, table)
    placed(alice_api, rid, "andar", "50")
    placed(alice_api, rid, "count_6_10", "20")
    cancelled = placed(alice_api, rid, "first_three", "10")
    alice_api.delete(f"/api/bets/{cancelled['id']}/")
    placed(bob_api, rid, "bahar", "30")  # Bob's bet is his, not Alice's
    close(dealer_api, rid)
    with django_capture_on_commit_callbacks(execute=True):  # the settlement, after the last card commits
        deal(dealer_api, rid, EXAMPLE_2_CARDS)

    body = alice_api.get("/api/me/rounds/").json()
    assert body["count"] == 1
    row = body["results"][0]
    assert (row["round"], row["status"], row["joker"], row["winner"]) == (rid, "settled", "KS", "andar")
    assert [c["card"] for c in row["cards"]] == EXAMPLE_2_CARDS
    assert [c["side"] for c in row["cards"]] == ["andar", "bahar"] * 3 + ["andar"]
    assert [(b["spot"], b["status"]) for b in row["bets"]] == [("andar", "won"), ("count_6_10", "won"), ("first_three", "cancelled")]
    payouts = {b.spot: b.payout for b in Bet.objects.filter(round_id=rid, player__username="alice")}
    assert D(row["bets"][0]["payout"]) == D("95.00") == payouts["andar"]
    assert D(row["staked"]) == D("70.00")
    assert D(row["returned"]) == payouts["andar"] + payouts["count_6_10"]
    assert D(row["net"]) == D(row["returned"]) - D("70.00")
    assert row["void_reason"] is None
    assert [r["round"] for r in bob_api.get("/api/me/rounds/").json()["results"]] == [rid]


def test_newest_first_an_open_round_has_no_net_yet_and_a_voided_one_its_reason(alice, alice_api, dealer, dealer_api, supervisor, table):
    first = open_round(dealer_api, table)
    placed(alice_api, first, "andar", "40")
    close(dealer_api, first)
    incident = incident_raise(round_id=first, actor=dealer, kind="equipment", notes="shoe fault")
    incident_void(incident_id=incident.pk, actor=supervisor, reason="the shoe jammed")
    second = open_round(dealer_api, table, joker="7H")
    placed(alice_api, second, "bahar", "25")

    rows = alice_api.get("/api/me/rounds/").json()["results"]
    assert [r["round"] for r in rows] == [second, first]
    assert (rows[0]["status"], D(rows[0]["staked"]), rows[0]["returned"], rows[0]["net"]) == ("betting", D("25.00"), None, None)
    assert (rows[1]["status"], rows[1]["void_reason"], D(rows[1]["returned"]), D(rows[1]["net"])) == (
        "voided", "the shoe jammed", D("40.00"), D("0.00"))
    assert rows[1]["bets"][0]["status"] == "refunded"


def _queries(api, path) -> int:
    with CaptureQueriesContext(connection) as seen:
        assert api.get(path).status_code == 200
    return len(seen.captured_queries)


def test_pages_and_who_may_ask(alice_api, anon_api, dealer_api, table):
    ids, counts = [], []
    for _ in range(3):
        rid = open_round(dealer_api, table)
        placed(alice_api, rid, "andar", "10")
        close(dealer_api, rid)
        deal(dealer_api, rid, EXAMPLE_2_CARDS)
        ids.append(rid)
        counts.append(_queries(alice_api, "/api/me/rounds/"))
    assert counts[0] == counts[1] == counts[2]  # a page's queries do not grow with its rounds
    body = alice_api.get("/api/me/rounds/?page=1").json()
    assert body["count"] == 3 and [r["round"] for r in body["results"]] == ids[::-1]
    assert alice_api.get("/api/me/rounds/?page=9").status_code == 404
    newest = alice_api.get("/api/me/rounds/?page_size=1").json()
    assert [r["round"] for r in newest["results"]] == ids[-1:] and newest["next"]
    assert len(alice_api.get("/api/me/rounds/?page_size=1000").json()["results"]) == 3  # capped at 100, not refused
    assert anon_api.get("/api/me/rounds/").status_code == 401
    assert dealer_api.get("/api/me/rounds/").json()["results"] == []  # no bets of their own


def test_one_tables_rounds_and_a_bad_table_is_a_400(alice_api, dealer_api, make_table, django_capture_on_commit_callbacks):
    """`?table=`: the player page's catch-up reads only its own table's newest rounds."""
    first, second = make_table(name="One"), make_table(name="Two")
    mine = {}
    for table in (first, second, first):
        rid = open_round(dealer_api, table)
        placed(alice_api, rid, "andar", "10")
        close(dealer_api, rid)
        with django_capture_on_commit_callbacks(execute=True):
            deal(dealer_api, rid, EXAMPLE_2_CARDS)
        mine.setdefault(table.pk, []).append(rid)
    rounds = lambda query: [r["round"] for r in alice_api.get("/api/me/rounds/" + query).json()["results"]]  # noqa: E731
    assert rounds(f"?table={first.pk}") == mine[first.pk][::-1]
    assert rounds(f"?table={second.pk}&page_size=1") == mine[second.pk]
    assert rounds("?table=999999") == []
    for bad in ("abc", "0", "-1", "1.5"):
        response = alice_api.get(f"/api/me/rounds/?table={bad}")
        assert response.status_code == 400 and "table" in response.json()["fields"], (bad, response.content)
