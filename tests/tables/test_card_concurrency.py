"""Two consoles (or a double scan) at the same moment, through real HTTP requests to a live server:
never two cards at one position, never a skipped position, a duplicate refused with 409."""
import threading

import pytest
from accounts.tokens import token_issue

from tables.models import DealtCard, Round
from tests import localhttp
from tests.parallel import make_room

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def post_all(live_server, dealer, settings):
    """post_all(url, bodies): POST every body at once, one client and one thread each; the answers in
    order. The live server's threads serving them take their connections from this process's pool:
    room is made for them first (tests.parallel). Eight consoles at one round are more than a
    round's share of a process's threads (studio.bulkhead: those beyond it would be refused with 503
    `busy` rather than wait for the lock, tests/tables/test_held_lock.py): here every one of them
    may wait, so that they all meet at the round's lock."""
    settings.ROUND_SHARE = settings.ROUND_SHARE_ALL = 16
    headers = {"Authorization": "Token " + token_issue(user=dealer).key}

    def run(url, bodies):
        make_room(len(bodies))
        barrier = threading.Barrier(len(bodies))
        answers = [None] * len(bodies)

        def worker(i, body):
            with localhttp.Client(base_url=live_server.url, headers=headers, timeout=20) as client:
                client.get("/healthz")  # connect (and warm the server thread) before the race
                barrier.wait()
                answers[i] = client.post(url, json=body)

        threads = [threading.Thread(target=worker, args=(i, body)) for i, body in enumerate(bodies)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        return answers

    return run


@pytest.fixture
def dealing_round(dealer, make_table):
    from tables.services import round_close_betting, round_open

    def make(joker="KS"):
        rnd = round_open(table_id=make_table().pk, joker=joker, dealer=dealer)
        round_close_betting(round_id=rnd.pk, actor=dealer)
        return rnd.pk

    return make


def assert_contiguous(round_id):
    rows = list(DealtCard.objects.filter(round_id=round_id).order_by("position").values_list("position", "side", "card"))
    assert [p for p, _, _ in rows] == list(range(1, len(rows) + 1))
    assert [s for _, s, _ in rows] == ["andar" if p % 2 else "bahar" for p, _, _ in rows]
    assert len({c for _, _, c in rows}) == len(rows)
    assert Round.objects.get(pk=round_id).cards_dealt == len(rows)
    return rows


def test_the_same_card_from_two_consoles_at_once_is_dealt_once(post_all, dealing_round):
    for _ in range(5):
        rnd = dealing_round()
        answers = post_all(f"/api/rounds/{rnd}/cards/", [{"card": "7H"}, {"card": "7h"}])
        assert sorted(a.status_code for a in answers) == [201, 409], [a.text for a in answers]
        refused = next(a for a in answers if a.status_code == 409).json()
        assert refused["code"] == "duplicate_card"
        assert assert_contiguous(rnd) == [(1, "andar", "7H")]


def test_eight_different_cards_at_once_take_eight_positions(post_all, dealing_round):
    rnd = dealing_round(joker="KS")
    cards = ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C"]
    answers = post_all(f"/api/rounds/{rnd}/cards/", [{"card": c} for c in cards])
    assert [a.status_code for a in answers] == [201] * 8, [a.text for a in answers]
    assert sorted(a.json()["position"] for a in answers) == list(range(1, 9))
    for answer in answers:
        body = answer.json()
        assert body["side"] == ("andar" if body["position"] % 2 else "bahar")
    rows = assert_contiguous(rnd)
    assert sorted(c for _, _, c in rows) == sorted(cards)
    assert Round.objects.get(pk=rnd).cards_dealt == 8


def test_eight_scans_of_four_cards_deal_each_card_once(post_all, dealing_round):
    rnd = dealing_round(joker="KS")
    cards = ["2D", "3D", "4D", "5D"] * 2
    answers = post_all(f"/api/rounds/{rnd}/cards/", [{"card": c} for c in cards])
    assert sorted(a.status_code for a in answers) == [201] * 4 + [409] * 4, [a.text for a in answers]
    assert {a.json()["code"] for a in answers if a.status_code == 409} == {"duplicate_card"}
    assert sorted(c for _, _, c in assert_contiguous(rnd)) == ["2D", "3D", "4D", "5D"]


def test_cards_racing_the_match_stop_at_the_match(post_all, dealing_round):
    rnd = dealing_round(joker="KS")
    cards = ["2H", "3H", "4H", "KH", "5H", "6H", "7H", "8H"]
    answers = post_all(f"/api/rounds/{rnd}/cards/", [{"card": c} for c in cards])
    codes = [a.status_code for a in answers]
    assert set(codes) <= {201, 409}, [a.text for a in answers]
    rows = assert_contiguous(rnd)
    assert rows[-1][2] == "KH"  # the match is the last card, whatever came after it was refused
    assert codes.count(201) == len(rows)
    assert {a.json()["code"] for a in answers if a.status_code == 409} <= {"round_finished", "round_settled"}
    final = Round.objects.get(pk=rnd)
    assert final.status in ("finished", "settled")  # settlement runs right after the match commits
    assert final.winner == ("andar" if len(rows) % 2 else "bahar")
