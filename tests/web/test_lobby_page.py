"""The lobby page: /play/ for anyone, / for players and visitors; dealers and supervisors keep their
consoles at /. The rows themselves are drawn in the browser (tests/browser/test_lobby.py)."""
import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def page(user, url):
    client = Client()
    if user is not None:
        client.force_login(user)
    return client.get(url)


def test_a_visitor_and_a_player_get_the_lobby_at_the_root_and_at_play(alice, outsider):
    for user in (None, alice, outsider):
        for url in ("/", "/play/"):
            response = page(user, url)
            assert response.status_code == 200, (user, url)
            body = response.content.decode()
            assert 'id="lobby-tables"' in body and "js/pages/lobby/main" in body
            assert 'name="password"' not in body  # a lobby, not a login form
    assert "Log in to bet with your player account." in page(None, "/").content.decode()
    assert "Log in to bet" not in page(alice, "/").content.decode()


def test_dealers_and_supervisors_keep_their_consoles_at_the_root(dealer, supervisor):
    assert page(dealer, "/")["Location"] == "/console/"
    assert page(supervisor, "/")["Location"] == "/supervisor/"
    assert page(dealer, "/play/").status_code == 200  # the lobby is there for them too


def test_the_player_page_has_the_table_switcher(table, alice):
    body = page(alice, f"/play/tables/{table.pk}/").content.decode()
    assert 'id="table-switcher"' in body and f'data-table="{table.pk}"' in body and 'href="/play/"' in body
