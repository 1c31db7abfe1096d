"""bets.fast answers a token-authenticated JSON bet without DRF's request machinery; everything else
goes to the DRF view. The same requests, sent once through each, must get the same answers:
status, body and headers, for bets placed, replayed and refused."""
import pytest

import bets.fast
from tests.bets.flow import D
from tests.conftest import client_for, make_user

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

CASES = [  # (what, spot, amount, Idempotency-Key)
    ("a bet", "andar", "50", None),
    ("a bet with a key", "bahar_never", "10", "k1"),  # refused: not a spot; the key stays unused
    ("a first key", "count_1_5", "20", "k2"),
    ("the same key again", "count_1_5", "20", "k2"),  # the same bet, 200
    ("the key for another bet", "count_1_5", "30", "k2"),  # refused: key reused
    ("the other main side", "bahar", "10", None),  # refused: one main side a round
    ("not a multiple of the chip unit", "andar", "1.5", None),
    ("not an amount", "andar", "lots", None),
    ("zero", "andar", "0", None),
    ("over the max bet", "andar", "500", None),
    ("a number instead of a string", "andar", 10, None),  # DRF's CharField takes it: the DRF path answers
    ("spaces around the spot", " andar ", "10", None),  # DRF trims them: the DRF path answers
    ("an empty spot", "", "10", None),
    ("a spot too long", "andar" * 4, "10", None),
    # Amounts are ASCII digits with at most two decimals, or JSON integers: anything else is DRF's field error.
    ("two decimals", "first_andar", "10.00", None),
    ("an exponent", "andar", "1e1", None),
    ("a capital exponent", "andar", "1E+1", None),
    ("a plus sign", "andar", "+10", None),
    ("an underscore", "andar", "1_0", None),
    ("Arabic-Indic digits", "andar", "١٠", None),
    ("ten decimal places", "andar", "10.0000000000", None),
    ("a JSON float", "andar", 10.0, None),
    ("a boolean", "andar", True, None),
    ("a negative string", "andar", "-10", None),
    ("a negative integer", "andar", -10, None),
    ("an amount with a point and no decimals", "andar", "10.", None),
    ("null", "andar", None, None),
    ("a list", "andar", ["10"], None),
]
REFUSED_AMOUNTS = {"not an amount", "an exponent", "a capital exponent", "a plus sign", "an underscore", "Arabic-Indic digits",
                   "ten decimal places", "a JSON float", "a boolean", "a negative string", "an amount with a point and no decimals",
                   "null", "a list"}


def answers(user, round_id, drf_only: bool, monkeypatch) -> list[tuple]:
    calls = {"drf": 0}
    view = bets.fast._drf_view

    def counting(request, **kwargs):
        calls["drf"] += 1
        return view(request, **kwargs)

    monkeypatch.setattr(bets.fast, "_drf_view", counting)
    if drf_only:
        monkeypatch.setattr(bets.fast, "_fast_input", lambda request, round_id: None)
    api = client_for(user)
    out = []
    for what, spot, amount, key in CASES:
        before = calls["drf"]
        headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
        response = api.post(f"/api/rounds/{round_id}/bets/", {"spot": spot, "amount": amount}, format="json", **headers)
        body = response.json()
        for volatile in ("id", "created_at", "player"):
            body.pop(volatile, None)
        out.append((what, response.status_code, body, response["Content-Type"], response.get("Vary"), response.get("Allow"),
                    calls["drf"] > before))
    monkeypatch.undo()
    return out


def test_the_fast_path_answers_exactly_as_drf(dealer, make_table, monkeypatch):
    from tables.services import round_open

    table = make_table(max_bet=D("300"))
    players = [make_user(name, "player", chips=1000) for name in ("fast_player", "drf_player")]
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    fast = answers(players[0], rnd.pk, False, monkeypatch)
    drf = answers(players[1], rnd.pk, True, monkeypatch)
    assert [a[:6] for a in fast] == [a[:6] for a in drf]
    assert all(a[6] for a in drf)
    took_drf = {a[0] for a in fast if a[6]}
    assert took_drf == {"a number instead of a string", "spaces around the spot", "an empty spot", "a spot too long",
                        "a negative integer"} | REFUSED_AMOUNTS
    statuses = {a[0]: a[1] for a in fast}
    bodies = {a[0]: a[2] for a in fast}
    for what in REFUSED_AMOUNTS:
        assert statuses[what] == 400 and list(bodies[what]["fields"]) == ["amount"], (what, bodies[what])
        expected = "This field may not be null." if what == "null" else "ASCII digits with at most two decimals"
        assert expected in bodies[what]["fields"]["amount"][0], bodies[what]
    assert statuses["two decimals"] == 201 and statuses["a negative integer"] == 400
    assert statuses["a bet"] == 201 and statuses["the same key again"] == 200 and statuses["the key for another bet"] == 409
    assert statuses["over the max bet"] == 400 and statuses["a number instead of a string"] == 201


def test_what_the_fast_path_leaves_to_drf(alice, dealer, make_table, monkeypatch):
    """A bad token (401), a caller who is not a player (403), a form body, a GET: DRF's answers."""
    from tables.services import round_open

    rnd = round_open(table_id=make_table().pk, joker="KS", dealer=dealer)
    calls = []
    view = bets.fast._drf_view
    monkeypatch.setattr(bets.fast, "_drf_view", lambda request, **kw: calls.append(request.method) or view(request, **kw))
    url = f"/api/rounds/{rnd.pk}/bets/"
    bad = client_for(None)
    bad.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    response = bad.post(url, {"spot": "andar", "amount": "10"}, format="json")
    assert (response.status_code, response.json()["message"]) == (401, "Invalid token.")
    response = client_for(dealer).post(url, {"spot": "andar", "amount": "10"}, format="json")
    assert (response.status_code, response.json()["message"]) == (403, "Only a player may bet.")
    response = client_for(alice).post(url, {"spot": "andar", "amount": "10"})  # multipart, as a form would
    assert response.status_code == 201, response.content
    assert client_for(alice).get(url).status_code == 200
    assert calls == ["POST", "POST", "POST", "GET"]
    response = client_for(alice).post(url, {"spot": "andar", "amount": "10"}, format="json")
    assert response.status_code == 201 and len(calls) == 4  # the common case did not reach DRF
