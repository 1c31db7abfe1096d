"""The stream of a private match table is its players' and supervisors' only: anyone else is closed
as for a table that does not exist (4404), before any event of the table reaches them."""
import pytest
from accounts.tokens import token_issue

from tests.conftest import client_for, make_user
from tests.matches.play import MatchPlay

from .conftest import Watcher, in_thread

pytestmark = pytest.mark.django_db(transaction=True)


def token(user) -> str:
    return token_issue(user=user).key


@pytest.fixture
def match_table(alice, bob):
    play = MatchPlay.start({"alice": client_for(alice), "bob": client_for(bob)})
    return play.table_id


@pytest.mark.parametrize("who", ["anonymous", "carol", "dealer"])
async def test_an_outsider_is_closed_as_for_a_missing_table(match_table, dealer, who):
    user = {"anonymous": None, "dealer": dealer, "carol": await in_thread(make_user)("carol", "player")}[who]
    watcher = Watcher(match_table, token=await in_thread(token)(user) if user else None)
    connected, _ = await watcher.comm.connect()
    assert connected
    assert (await watcher.comm.receive_output(5)) == {"type": "websocket.close", "code": 4404}
    await watcher.close()


@pytest.mark.parametrize("who", ["alice", "supervisor"])
async def test_a_member_or_a_supervisor_watches_a_match_table(match_table, alice, supervisor, who):
    watcher = Watcher(match_table, token=await in_thread(token)({"alice": alice, "supervisor": supervisor}[who]))
    try:
        snapshot = await watcher.connect()
    finally:
        await watcher.close()
    assert snapshot["table"]["id"] == match_table
