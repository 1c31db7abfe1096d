"""The outbox's order, over real HTTP against the reference operator wallet (a real process): a wallet
transaction written to follow another (a credit's rollback after the credit) is sent once both its
own commit and its predecessor's acknowledgment have happened, whichever comes last, and sent once
when both hand it over; a void or a correction right after a settlement leaves every balance at the
operator as the rules say and nothing pending, with no sweep (docs/OPERATORS.md).

The order of the two events is made here, not waited for: the predecessor is kept pending by a
failed attempt whose retry is not due during the test (nothing but the test sends it again), and
it is acknowledged by an explicit attempt, from another thread (its own database connection) when
it must land while the void is under way (its transaction open, or its commit's attempt not made). Only this is assumed of the task runner: a task
sent after a commit runs right after that commit, in the committing thread."""
import threading
from decimal import Decimal

import pytest
from django.db import connections
from django.utils import timezone

from bets import outbox, seamless
from bets.models import Bet, WalletTransaction
from incidents.services import card_replace, incident_raise, incident_void
from tables.services import round_close_betting, round_open
from tests.bets.seamless_world import (
    assert_books_exact, bet, crowd_bets, deal_all, launched_players, pending, seamless_operator,
)
from tests.conftest import client_for, make_user

pytestmark = pytest.mark.django_db(transaction=True)
D = Decimal
T = WalletTransaction
START = D("1000")


@pytest.fixture(autouse=True)
def _retries_never_due(settings, wallet):
    # A failed attempt's retry is an hour away: only the events each test makes send anything.
    settings.SEAMLESS_TIMEOUT = 2.0
    settings.SEAMLESS_RETRY_FIRST = settings.SEAMLESS_RETRY_MAX = 3600
    wallet.faults()


@pytest.fixture
def world(db, wallet, make_table):
    operator = seamless_operator(wallet)
    table = make_table(currency="INR", betting_seconds=600, min_bet=10, max_bet=5000, allow_both_sides=True)
    return operator, table, make_user("dealer", "dealer"), make_user("supervisor", "supervisor")


def credit_left_pending(world, wallet):
    """Ann bets 100 on Andar and wins 190 (RULES.md example 2); the operator answers the credit's
    attempt 503, so the credit stays pending, its retry not due. Returns the round, the credit and
    Ann's player id."""
    _, table, dealer, _ = world
    ann = launched_players(table, wallet, ["ann"])["ann"]
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    assert bet(ann[0], rnd.pk, "andar", 100).status_code == 201
    round_close_betting(round_id=rnd.pk, actor=dealer)
    wallet.faults(error_share=1)
    deal_all(rnd, dealer)
    wallet.faults()
    credit = T.objects.get(kind="credit", round=rnd)
    assert (credit.amount, credit.status, credit.attempts, credit.last_error) == (D("190"), "pending", 1, "HTTP 503")
    assert credit.next_attempt_at > timezone.now()
    assert wallet.balance(ann[2]) == D("900")  # the debit only
    return rnd, credit, ann[2]


def void(rnd, supervisor):
    incident = incident_raise(round_id=rnd.pk, actor=supervisor, kind="other", notes="void right after the settlement")
    incident_void(incident_id=incident.pk, actor=supervisor, reason="void right after the settlement")


def make_due(row) -> None:
    T.objects.filter(pk=row.pk).update(next_attempt_at=timezone.now())


def in_thread(call):
    """`call()` run to its end in another thread, on that thread's own database connection (closed
    after); returns what it returned, or raises what it raised."""
    out = {}
    finished = threading.Event()

    def run():
        try:
            out["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - raised again in the test's thread
            out["error"] = exc
        finally:
            connections.close_all()
            finished.set()

    thread = threading.Thread(target=run, name="acknowledgment")
    thread.start()
    assert finished.wait(120), "the other thread hung (a lock held by the test's transaction?)"
    thread.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def test_a_rollback_committed_before_its_credit_is_acknowledged_is_sent_by_the_acknowledgment(world, wallet):
    """Order A: the void commits while the credit is pending; the credit's acknowledgment sends it."""
    operator, _, _, supervisor = world
    rnd, credit, pid = credit_left_pending(world, wallet)
    void(rnd, supervisor)
    rollback = T.objects.get(reference=credit)
    assert (rollback.after_id, rollback.status, rollback.attempts) == (credit.pk, "pending", 0)  # handed over, held back
    assert outbox.transaction_send(pk=rollback.pk) == "skipped"  # refused while the credit is not acknowledged
    assert wallet.applied(rollback.transaction_id) == []
    make_due(credit)
    assert outbox.transaction_send(pk=credit.pk) == "ok"  # the acknowledgment, and then the rollback waiting on it
    rollback.refresh_from_db()
    assert (rollback.status, rollback.attempts) == ("ok", 1)
    assert len(wallet.applied(credit.transaction_id)) == 1 and len(wallet.applied(rollback.transaction_id)) == 1
    assert_books_exact(operator, {pid: START}, wallet)


def test_a_rollback_whose_credit_is_acknowledged_before_its_commit_is_sent_by_the_commit(world, wallet, monkeypatch):
    """Order B, the issue's: the credit is acknowledged (another connection) after the void wrote the
    rollback and before the void commits. The acknowledgment cannot see the rollback; the commit
    sends it."""
    operator, _, _, supervisor = world
    rnd, credit, pid = credit_left_pending(world, wallet)
    make_due(credit)
    real_add = seamless.outbox_add
    seen = {}

    def add_then_acknowledge(rows):
        created = real_add(rows)
        if any(row.after_id == credit.pk for row in created):  # the rollback is written, the void not committed yet
            seen["acknowledged"] = in_thread(lambda: outbox.transaction_send(pk=credit.pk))
            seen["credit"] = T.objects.get(pk=credit.pk).status  # the acknowledgment is committed
            seen["waiting"] = in_thread(lambda: T.objects.filter(after=credit).count())  # the rollback is not, for others
        return created

    monkeypatch.setattr(seamless, "outbox_add", add_then_acknowledge)
    void(rnd, supervisor)
    assert seen == {"acknowledged": "ok", "credit": "ok", "waiting": 0}
    rollback = T.objects.get(reference=credit)
    assert (rollback.after_id, rollback.status, rollback.attempts) == (credit.pk, "ok", 1)  # sent by the void's commit
    assert len(wallet.applied(credit.transaction_id)) == 1 and len(wallet.applied(rollback.transaction_id)) == 1
    assert_books_exact(operator, {pid: START}, wallet)


def test_a_rollback_handed_over_by_both_its_commit_and_the_acknowledgment_is_sent_once(world, wallet, monkeypatch):
    """Both events hand the rollback over: the credit is acknowledged (another thread) after the void
    committed and before the commit's own attempt. The acknowledgment's attempt sends it; the
    commit's finds it acknowledged."""
    operator, _, _, supervisor = world
    rnd, credit, pid = credit_left_pending(world, wallet)
    make_due(credit)
    real_send = outbox.transaction_send
    main = threading.current_thread()
    outcomes = []

    def acknowledge_first(*, pk):
        if threading.current_thread() is main and T.objects.filter(pk=pk, after=credit).exists():
            assert in_thread(lambda: real_send(pk=credit.pk)) == "ok"  # whose attempt sends the rollback, in that thread
            outcomes.append(real_send(pk=pk))
            return outcomes[-1]
        return real_send(pk=pk)

    monkeypatch.setattr(outbox, "transaction_send", acknowledge_first)
    void(rnd, supervisor)
    assert outcomes == ["skipped"]  # the commit handed it over too, and found it already acknowledged
    rollback = T.objects.get(reference=credit)
    assert (rollback.status, rollback.attempts) == ("ok", 1)
    assert len(wallet.applied(rollback.transaction_id)) == 1
    assert_books_exact(operator, {pid: START}, wallet)


def test_a_void_right_after_a_settlement_returns_every_balance_at_the_operator(world, wallet):
    """The credits are acknowledged as the settlement commits; a supervisor voids the round right
    after (over the API): every player's balance at the operator is back where it was before the
    bets, with no sweep and nothing left pending."""
    operator, table, dealer, supervisor = world
    p = launched_players(table, wallet, ["ann", "ben", "cat"])
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    crowd_bets(p, rnd.pk)
    round_close_betting(round_id=rnd.pk, actor=dealer)
    deal_all(rnd, dealer)
    assert set(T.objects.filter(round=rnd).values_list("kind", "status")) == {("debit", "ok"), ("credit", "ok")}
    won = {n: sum((b.payout - b.amount for b in Bet.objects.filter(round=rnd, player=p[n][1])), D(0)) for n in p}
    assert won["ann"] > 0 and won["cat"] > 0 and won["ben"] < 0
    for name in p:
        assert wallet.balance(p[name][2]) == START + won[name], name
    api = client_for(supervisor)
    raised = api.post(f"/api/rounds/{rnd.pk}/incidents/", {"kind": "other", "notes": "wrong shoe"}, format="json")
    assert raised.status_code == 201, raised.content
    voided = api.post(f"/api/incidents/{raised.json()['id']}/void/", {"reason": "wrong shoe"}, format="json")
    assert voided.status_code == 200, voided.content
    assert pending() == 0, list(T.objects.filter(status="pending").values_list("transaction_id", "attempts", "last_error"))
    assert T.objects.filter(round=rnd, kind="rollback", reference__kind="credit").count() == 2  # Ann's and Cat's winnings
    for name in p:
        assert wallet.balance(p[name][2]) == START, name
    assert_books_exact(operator, {p[n][2]: START for n in p}, wallet)


def test_a_correction_right_after_a_settlement_sends_the_rollbacks_and_the_new_credits(world, wallet):
    """A re-settlement right after the settlement: each credit's rollback (after the credit) and each
    new credit (after that rollback) are sent by the correction's commit and the acknowledgments,
    with no sweep; the balances at the operator are the result's."""
    operator, table, dealer, supervisor = world
    p = launched_players(table, wallet, ["ann", "ben"])
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    assert bet(p["ann"][0], rnd.pk, "andar", 100).status_code == 201
    assert bet(p["ben"][0], rnd.pk, "bahar", 50).status_code == 201
    round_close_betting(round_id=rnd.pk, actor=dealer)
    deal_all(rnd, dealer)
    incident_raise(round_id=rnd.pk, actor=supervisor, kind="other", notes="misread")
    card_replace(round_id=rnd.pk, position=7, card="KH", actor=supervisor)  # still the match: re-settled, the same result
    new = T.objects.get(kind="credit", round=rnd, settlement_version=2, player=p["ann"][1])
    assert new.after.reference.settlement_version == 1 and new.after.status == "ok"
    assert pending() == 0, list(T.objects.filter(status="pending").values_list("transaction_id", "attempts", "last_error"))
    assert wallet.balance(p["ann"][2]) == D("1090") and wallet.balance(p["ben"][2]) == D("950")
    assert_books_exact(operator, {p["ann"][2]: D("1090"), p["ben"][2]: D("950")}, wallet)
