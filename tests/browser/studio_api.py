"""One user's calls to a test server's API over HTTP (a token of theirs), for the browser tests that
drive a round while a page watches it."""
from __future__ import annotations

from accounts.tokens import token_issue
from tests import localhttp


class Api:
    def __init__(self, url: str, user):
        self.http = localhttp.Client(base_url=url + "/api/", timeout=30,
                                     headers={"Authorization": "Token " + token_issue(user=user).key})

    def __call__(self, method: str, path: str, **kwargs) -> dict:
        response = self.http.request(method, path, **kwargs)
        assert response.status_code in (200, 201), response.text
        return response.json()


def deal_round(dealer: Api, table_id: int, joker: str, cards: list[str], bets=()) -> int:
    """A whole round through the server's API: open with `joker`, the players' bets ((Api, spot,
    amount)), close, deal `cards` to the match."""
    round_id = dealer("POST", f"tables/{table_id}/rounds/", json={"joker": joker})["id"]
    for player, spot, amount in bets:
        player("POST", f"rounds/{round_id}/bets/", json={"spot": spot, "amount": amount},
               headers={"Idempotency-Key": f"round-{round_id}-{spot}"})
    dealer("POST", f"rounds/{round_id}/close-betting/")
    for card in cards:
        dealer("POST", f"rounds/{round_id}/cards/", json={"card": card})
    return round_id
