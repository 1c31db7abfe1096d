"""The table's crowd in a real browser: players bet through the real server's API while one player
watches the table and a visitor watches the lobby; the crowd task (bets.crowd, run here in the
test's process, as a beat would) sends the figures over the channel layer, and both pages show the
server's figures: the player page's crowd line (players, the main stakes' shares, in the page's
language) and the lobby row's seat count.

The module's server shares the test process's channel prefix, so what the task publishes here
reaches the server's sockets, as a worker's would in production.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.conf import settings
from playwright.sync_api import expect

from bets import crowd
from tests.conftest import make_user
from tests.servers import studio_server

from .studio_api import Api

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("patient_waits")]


@pytest.fixture(scope="module")
def crowd_url(django_db_setup, request):
    folder = Path(request.config.rootpath) / "test-artifacts" / "test_crowd-server"
    with studio_server(log_dir=folder, name="crowd", channels_prefix=settings.REDIS_PREFIX) as url:
        yield url


@pytest.fixture
def apis(crowd_url, dealer, alice, bob):
    made = {"dealer": Api(crowd_url, dealer), "alice": Api(crowd_url, alice), "bob": Api(crowd_url, bob)}
    yield made
    for api in made.values():
        api.http.close()


def crowd_task() -> int:
    """One run of the crowd task, in a thread of its own: Playwright's sync API keeps an event loop
    on the test's thread, where the channel layer's async_to_sync may not run."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(crowd.crowd_publish).result(timeout=30)


def live(page, url: str) -> None:
    page.goto(url)
    expect(page.get_by_test_id("connection")).to_have_attribute("data-state", "live")


def test_the_crowd_reaches_the_player_page_and_the_lobby(crowd_url, apis, make_table, page, phone_page, login,
                                                         accessible, shot):
    table = make_table(name="Lotus", min_bet=10, max_bet=500, betting_seconds=120)
    make_user("carol", "player", chips=1000)
    round_id = apis["dealer"]("POST", f"tables/{table.pk}/rounds/", json={"joker": "KS"})["id"]
    login(page, crowd_url, "carol")
    live(page, f"{crowd_url}/play/tables/{table.pk}/?lang=ja")
    live(phone_page, f"{crowd_url}/play/")
    row = phone_page.get_by_test_id(f"lobby-table-{table.pk}")
    expect(row.get_by_test_id("players")).to_have_text("0 players")
    expect(page.get_by_test_id("crowd")).to_have_text("")

    apis["alice"]("POST", f"rounds/{round_id}/bets/", json={"spot": "andar", "amount": "30"})
    apis["bob"]("POST", f"rounds/{round_id}/bets/", json={"spot": "bahar", "amount": "10"})
    assert crowd_task() == 1
    expect(page.get_by_test_id("crowd")).to_have_text("このラウンドのプレイヤー2人 · Andar 75% · Bahar 25%")
    expect(row.get_by_test_id("players")).to_have_text("2 players")
    accessible(page, "the player page with its crowd, in Japanese")
    accessible(phone_page, "the lobby counting the players")
    shot(page, "crowd", full_page=False)
    shot(phone_page, "lobby-players", full_page=False)

    apis["dealer"]("POST", f"rounds/{round_id}/close-betting/")
    apis["dealer"]("POST", f"rounds/{round_id}/cards/", json={"card": "KD"})  # the first card matches: the round is over
    expect(page.get_by_test_id("crowd")).to_contain_text("2人")  # the round's crowd stays with it
    apis["dealer"]("POST", f"tables/{table.pk}/rounds/", json={"joker": "7H"})
    expect(page.get_by_test_id("crowd")).to_have_text("")  # the next round's crowd is its own
    expect(row.get_by_test_id("players")).to_have_text("0 players")
    assert page.js_errors == [] and phone_page.js_errors == []
