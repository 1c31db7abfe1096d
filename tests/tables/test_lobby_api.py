"""GET /api/lobby/: every table the caller may see at a glance, in three queries whatever the number
of tables; GET /api/tables/{id}/rounds/?last=N reads only the newest rounds a page needs."""
import pytest

from tests.bets.flow import close, deal, open_round, placed
from tests.matches.play import MatchPlay
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def test_the_lobby_lists_each_table_with_its_round_players_and_road(make_table, dealer_api, alice_api, bob_api, anon_api,
                                                                    django_capture_on_commit_callbacks):
    table = make_table(name="Lotus", max_bet=1000, multipliers={"spots": ["andar", "bahar"], "draws": 1, "values": [[3, 1]]})
    make_table(name="Orchid", state="maintenance", state_reason="new felt")
    for cards in (["2C", "KD"], ["2C", "3D", "KH"]):
        round_id = open_round(dealer_api, table)
        placed(alice_api, round_id, "andar", 10)
        close(dealer_api, round_id)
        with django_capture_on_commit_callbacks(execute=True):
            deal(dealer_api, round_id, cards)
    current = open_round(dealer_api, table)
    placed(alice_api, current, "andar", 10)
    placed(bob_api, current, "bahar", 10)
    rows = {row["name"]: row for row in anon_api.get("/api/lobby/").json()}
    lotus, orchid = rows["Lotus"], rows["Orchid"]
    assert (lotus["round"]["id"], lotus["round"]["status"], lotus["players"]) == (current, "betting", 2)
    assert 0 < lotus["round"]["betting_left_ms"] <= 15_000
    assert lotus["road"] == [{"winner": "bahar", "cards_dealt": 2}, {"winner": "andar", "cards_dealt": 3}]
    assert (lotus["max_bet"], lotus["driver"], lotus["multipliers"]) == ("1000.00", "person", {"draws": 1, "spots": 2, "highest": 3})
    assert (orchid["state"], orchid["state_reason"], orchid["round"], orchid["road"]) == ("maintenance", "new felt", None, [])


def test_a_private_table_is_only_in_its_players_and_supervisors_lobby(alice, bob, anon_api, supervisor_api, make_table,
                                                                      django_assert_max_num_queries):
    make_table(name="Public")
    play = MatchPlay.start({"alice": client_for(alice), "bob": client_for(bob)})
    names = lambda api: {row["name"] for row in api.get("/api/lobby/").json()}  # noqa: E731
    assert names(anon_api) == {"Public"}
    assert len(names(client_for(alice))) == len(names(supervisor_api)) == 2
    for n in range(10):
        make_table(name=f"More {n}")
    with django_assert_max_num_queries(4):  # the tables with their rounds, the players, the roads (and the savepoint)
        anon_api.get("/api/lobby/")
    assert play.table_id


def test_a_page_reads_only_the_newest_rounds_it_needs(make_table, dealer_api, anon_api):
    table = make_table()
    ids = []
    for _ in range(3):
        ids.append(open_round(dealer_api, table))
        close(dealer_api, ids[-1])
        deal(dealer_api, ids[-1], ["KD"])
    assert [r["id"] for r in anon_api.get(f"/api/tables/{table.pk}/rounds/", {"last": 2}).json()] == ids[:0:-1]
    assert len(anon_api.get(f"/api/tables/{table.pk}/rounds/").json()) == 3
    for bad in ("0", "21", "x"):
        response = anon_api.get(f"/api/tables/{table.pk}/rounds/", {"last": bad})
        assert response.status_code == 400 and "last" in response.json()["fields"]
