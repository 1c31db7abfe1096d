"""The supervisors' stream (ws/supervisors/) on the real ASGI app: a supervisor gets the open alerts
on connect and every new alert and acknowledgement as it commits; a player, a dealer or an anonymous
client is closed with 4403 and never joins; a supervisor's socket closes with 4401 when their token
is revoked, their role changes or the token expires."""
import json

import pytest
from asgiref.sync import sync_to_async

from accounts.services import COMMAND, role_group, user_update
from accounts.tokens import token_issue, token_revoke
from integrity.models import Alert
from integrity.services import alert_acknowledge
from tests.stream.conftest import ORIGIN, TIMEOUT, WebsocketCommunicator, application

from .conftest import first_card_pack, play

pytestmark = pytest.mark.django_db(transaction=True)


def in_thread(fn):
    return sync_to_async(fn, thread_sensitive=True)


@pytest.fixture(autouse=True)
async def _close_thread_connections():
    yield
    from django.db import connections

    await sync_to_async(connections.close_all, thread_sensitive=True)()


def socket(user=None) -> WebsocketCommunicator:
    query = f"?token={token_issue(user=user).key}" if user else ""
    return WebsocketCommunicator(application, f"/ws/supervisors/{query}", headers=ORIGIN)


async def receive(comm) -> dict:
    return json.loads(await comm.receive_from(timeout=TIMEOUT))


def stacked_until_alert(table, dealer, rng) -> None:
    while not Alert.objects.exists():
        play(table, dealer, first_card_pack(rng))


async def test_a_supervisor_receives_an_alert_as_it_is_raised_and_its_acknowledgement(table, dealer, supervisor, rng):
    comm = await in_thread(socket)(supervisor)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    try:
        assert await receive(comm) == {"type": "snapshot", "alerts": []}
        await in_thread(stacked_until_alert)(table, dealer, rng)
        raised = [await receive(comm), await receive(comm)]  # the table's and the dealer's
        assert {m["type"] for m in raised} == {"integrity.alert"}
        assert {(m["alert"]["subject"], m["alert"]["check"]) for m in raised} == {
            ("table", "first_card_match"), ("dealer", "first_card_match")}
        alert_id = next(m["alert"]["id"] for m in raised if m["alert"]["subject"] == "table")
        await in_thread(alert_acknowledge)(alert_id=alert_id, actor=supervisor, note="shoe replaced")
        done = await receive(comm)
        assert done["type"] == "integrity.acknowledged"
        assert (done["alert"]["id"], done["alert"]["note"], done["alert"]["acknowledged_by"]) == (alert_id, "shoe replaced", "supervisor")
    finally:
        await comm.disconnect()

    late = await in_thread(socket)(supervisor)  # a console opened later sees what is still open
    await late.connect(timeout=TIMEOUT)
    try:
        snapshot = await receive(late)
        assert [(a["subject"], a["check"]) for a in snapshot["alerts"]] == [("dealer", "first_card_match")]
    finally:
        await late.disconnect()


@pytest.mark.parametrize("who", ["anonymous", "alice", "dealer"])
async def test_anyone_but_a_supervisor_is_closed_and_hears_no_alert(who, alice, dealer, table, rng):
    user = {"anonymous": None, "alice": alice, "dealer": dealer}[who]
    comm = await in_thread(socket)(user)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    assert await comm.receive_output(TIMEOUT) == {"type": "websocket.close", "code": 4403}
    await in_thread(stacked_until_alert)(table, dealer, rng)
    assert await comm.receive_nothing(timeout=0.3)
    await comm.disconnect()


@pytest.mark.parametrize("end", ["logout", "role", "expiry"])
async def test_a_supervisors_socket_closes_with_4401_when_the_token_is_revoked_the_role_changes_or_it_expires(
        end, settings, supervisor, dealer, table, rng):
    if end == "expiry":
        settings.TOKEN_TTL = 3
    key = (await in_thread(token_issue)(user=supervisor)).key
    comm = WebsocketCommunicator(application, f"/ws/supervisors/?token={key}", headers=ORIGIN)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    try:
        assert (await receive(comm))["type"] == "snapshot"
        if end == "logout":
            await in_thread(token_revoke)(key=key)
        elif end == "role":
            await in_thread(lambda: user_update(actor=None, source=COMMAND, user=supervisor, is_staff=False, groups=[role_group("dealer")]))()
        assert await comm.receive_output(TIMEOUT) == {"type": "websocket.close", "code": 4401}
        await in_thread(stacked_until_alert)(table, dealer, rng)
        assert await comm.receive_nothing(timeout=0.3)
    finally:
        await comm.disconnect()
