"""The seamless wallet over real HTTP against the reference operator wallet (a real process): bets
debited at the operator before they count, credits and rollbacks exactly once through timeouts, 5xx
answers, wrong signatures and repeats, voids before and after settlement, and a seeded random run
with faults whose books come out exact (docs/OPERATORS.md)."""
import random
from decimal import Decimal

import pytest
from django.db.models import Sum

from bets.ledger import operator_account
from bets.models import Account, Bet, LedgerEntry, WalletTransaction
from bets.outbox import backoff, transaction_send
from incidents.services import incident_raise, incident_void, card_replace
from tables.models import Round
from tables.services import round_close_betting, round_open
from tests.bets.flow import EXAMPLE_2_CARDS
from tests.bets.seamless_world import (
    assert_books_exact, bet, crowd_bets, deal_all, drain, launched, launched_players, pending, seamless_operator,
)
from tests.conftest import make_user

pytestmark = pytest.mark.django_db(transaction=True)
D = Decimal
T = WalletTransaction


@pytest.fixture(autouse=True)
def _short_timeouts(settings, wallet):
    settings.SEAMLESS_TIMEOUT = 1.0
    settings.SEAMLESS_RETRY_FIRST = 0.05
    settings.SEAMLESS_RETRY_MAX = 0.2
    wallet.faults()


@pytest.fixture
def world(db, wallet, make_table):
    operator = seamless_operator(wallet)
    table = make_table(currency="INR", betting_seconds=600, min_bet=10, max_bet=5000, allow_both_sides=True)
    dealer = make_user("dealer", "dealer")
    return operator, table, dealer


def players(world, wallet, names, balance="1000"):
    """Launched players, each with `balance` at the operator (ids unique to this test's table)."""
    return launched_players(world[1], wallet, names, balance)


def test_a_bet_is_debited_and_the_round_credited_once(world, wallet):
    operator, table, dealer = world
    p = players(world, wallet, ["ann", "ben"])
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    placed = bet(p["ann"][0], rnd.pk, "andar", 100)
    assert placed.status_code == 201, placed.content
    assert D(placed.json()["balance"]) == D("900.00")  # the operator's balance after the debit
    assert bet(p["ben"][0], rnd.pk, "bahar", 50).status_code == 201
    me = p["ann"][0].get("/api/me/").json()
    assert (D(me["balance"]), me["currency"]) == (D("900"), "INR")  # a balance call to the operator
    round_close_betting(round_id=rnd.pk, actor=dealer)
    deal_all(rnd, dealer)  # Andar wins (RULES.md example 2): 100 at 0.9:1 returns 190
    assert Round.objects.get(pk=rnd.pk).status == "settled"
    credits = {t.player_id: t for t in T.objects.filter(kind="credit")}
    assert credits[p["ann"][1].pk].amount == D("190") and credits[p["ben"][1].pk].amount == D("0")
    assert credits[p["ann"][1].pk].body["debit_transaction_ids"] == [T.objects.get(bet__player=p["ann"][1]).transaction_id]
    assert wallet.balance(p["ann"][2]) == D("1090") and wallet.balance(p["ben"][2]) == D("950")
    assert_books_exact(operator, {p["ann"][2]: D("1090"), p["ben"][2]: D("950")}, wallet)


def test_a_replayed_bet_answers_the_operators_balance_and_me_makes_no_wallet(world, wallet):
    """An idempotent replay answers what the bet's placing answered (the operator's balance after
    its debit, in the table's currency), never a CHIPS wallet's; GET /api/me/ lists the operator's
    balance alone and makes no wallet."""
    operator, table, dealer = world
    p = players(world, wallet, ["ann"])
    api, user, _ = p["ann"]
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    headers = {"HTTP_IDEMPOTENCY_KEY": "tap-1"}
    first = api.post(f"/api/rounds/{rnd.pk}/bets/", {"spot": "andar", "amount": "100"}, format="json", **headers)
    assert (first.status_code, D(first.json()["balance"])) == (201, D("900"))
    again = api.post(f"/api/rounds/{rnd.pk}/bets/", {"spot": "andar", "amount": "100"}, format="json", **headers)
    assert (again.status_code, again.json()["id"], D(again.json()["balance"])) == (200, first.json()["id"], D("900"))
    me = api.get("/api/me/").json()
    assert (me["currency"], me["balances"]) == ("INR", [{"currency": "INR", "balance": "900.00"}])
    assert list(Account.objects.filter(user=user).values_list("currency", flat=True)) == ["INR"]
    assert T.objects.filter(kind="debit").count() == 1


def test_insufficient_funds_refuses_the_bet_with_nothing_recorded(world, wallet):
    operator, table, dealer = world
    p = players(world, wallet, ["ann"], balance="40")
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    entries = LedgerEntry.objects.count()
    refused = bet(p["ann"][0], rnd.pk, "andar", 50)
    assert refused.status_code == 409, refused.content
    assert refused.json()["code"] == "operator_refused" and refused.json()["operator_code"] == "insufficient_funds"
    assert not Bet.objects.filter(round=rnd).exists() and LedgerEntry.objects.count() == entries
    assert T.objects.get().status == "refused" and pending() == 0
    assert wallet.balance(p["ann"][2]) == D("40")


def test_a_blocked_player_is_refused_with_the_operators_code(world, wallet):
    _, table, dealer = world
    p = players(world, wallet, ["ann"])
    wallet.faults(refuse_players=[p["ann"][2]])
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    refused = bet(p["ann"][0], rnd.pk, "andar", 50)
    assert (refused.status_code, refused.json()["operator_code"]) == (409, "player_blocked")


def test_a_debit_timeout_is_503_and_rolled_back(world, wallet):
    operator, table, dealer = world
    p = players(world, wallet, ["ann"])
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    wallet.faults(timeout_share=1, hang_seconds=2)  # the operator applies the debit, then answers too late
    answer = bet(p["ann"][0], rnd.pk, "andar", 100)
    assert answer.status_code == 503 and answer["Retry-After"]
    assert not Bet.objects.filter(round=rnd).exists()
    debit = T.objects.get(kind="debit")
    assert debit.status == "cancelled" and debit.rolled_back_by.kind == "rollback"
    wallet.faults()
    drain()  # the rollback (its first answer may have hung too)
    assert wallet.balance(p["ann"][2]) == D("1000")
    assert_books_exact(operator, {p["ann"][2]: D("1000")}, wallet)


def test_a_wrong_answer_signature_is_an_unknown_outcome(world, wallet):
    operator, table, dealer = world
    p = players(world, wallet, ["ann"])
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    wallet.faults(bad_signature_share=1)  # applied at the operator, but the answer cannot be trusted
    answer = bet(p["ann"][0], rnd.pk, "andar", 100)
    assert answer.status_code == 503 and answer.json()["code"] == "operator_unavailable"
    assert not Bet.objects.filter(round=rnd).exists()
    rollback = T.objects.get(kind="rollback")
    assert rollback.status == "pending" and "signature" in rollback.last_error
    wallet.faults()
    drain()
    assert wallet.balance(p["ann"][2]) == D("1000")
    assert_books_exact(operator, {p["ann"][2]: D("1000")}, wallet)


def test_duplicate_answers_change_nothing(world, wallet):
    """A credit applied at the operator whose answer was lost is sent again with the same id and body:
    the operator answers as the first time and pays once."""
    operator, table, dealer = world
    p = players(world, wallet, ["ann"])
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    assert bet(p["ann"][0], rnd.pk, "andar", 100).status_code == 201
    round_close_betting(round_id=rnd.pk, actor=dealer)
    wallet.faults(timeout_share=1, hang_seconds=2)
    deal_all(rnd, dealer)
    credit = T.objects.get(kind="credit")
    assert credit.status == "pending" and credit.attempts == 1
    assert len(wallet.applied(credit.transaction_id)) == 1  # applied, the answer lost
    wallet.faults()
    drain()
    credit.refresh_from_db()
    assert credit.status == "ok" and credit.attempts == 2 and credit.operator_balance == D("1090")
    assert len(wallet.applied(credit.transaction_id)) == 1
    assert transaction_send(pk=credit.pk) == "skipped"  # acknowledged: never sent again
    assert_books_exact(operator, {p["ann"][2]: D("1090")}, wallet)


def test_credits_through_a_stretch_of_5xx_arrive_once(world, wallet):
    operator, table, dealer = world
    p = players(world, wallet, ["ann", "ben"])
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    assert bet(p["ann"][0], rnd.pk, "andar", 100).status_code == 201
    assert bet(p["ben"][0], rnd.pk, "first_three", 20).status_code in (201, 400)
    round_close_betting(round_id=rnd.pk, actor=dealer)
    wallet.faults(error_share=1)
    deal_all(rnd, dealer)
    for _ in range(5):  # five more attempts answered 503
        T.objects.filter(status="pending").update(next_attempt_at=rnd.opened_at)
        for pk in T.objects.filter(status="pending").values_list("pk", flat=True):
            assert transaction_send(pk=pk) == "unknown"
    assert all(t.attempts == 6 and t.status == "pending" for t in T.objects.filter(kind="credit"))
    wallet.faults()
    drain()
    assert_books_exact(operator, {p["ann"][2]: D("1090")}, wallet)
    for t in T.objects.filter(kind="credit"):
        assert len(wallet.applied(t.transaction_id)) == 1


def test_the_backoff_doubles_up_to_its_maximum(settings):
    settings.SEAMLESS_RETRY_FIRST, settings.SEAMLESS_RETRY_MAX = 1, 60
    assert [backoff(n) for n in range(1, 9)] == [1, 2, 4, 8, 16, 32, 60, 60]


def test_a_cancelled_bet_goes_back_to_the_operator(world, wallet):
    operator, table, dealer = world
    p = players(world, wallet, ["ann"])
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    placed = bet(p["ann"][0], rnd.pk, "andar", 100).json()
    answer = p["ann"][0].delete(f"/api/bets/{placed['id']}/")
    assert answer.status_code == 200, answer.content
    # The stake goes back to the operator: the answer has no studio balance to show, and says the currency.
    assert (answer.json()["balance"], answer.json()["currency"]) == (None, table.currency)
    assert wallet.balance(p["ann"][2]) == D("1000")
    assert_books_exact(operator, {p["ann"][2]: D("1000")}, wallet)


@pytest.mark.parametrize("when", ["before settlement", "after settlement", "after a re-settlement"])
def test_a_void_returns_every_players_balance_at_the_operator(world, wallet, when):
    operator, table, dealer = world
    supervisor = make_user("supervisor", "supervisor")
    p = players(world, wallet, ["ann", "ben", "cat"])
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    crowd_bets(p, rnd.pk)
    round_close_betting(round_id=rnd.pk, actor=dealer)
    if when == "before settlement":
        deal_all(rnd, dealer, EXAMPLE_2_CARDS[:3])
    else:
        deal_all(rnd, dealer)
        assert wallet.balance(p["ann"][2]) != D("1000")
    incident = incident_raise(round_id=rnd.pk, actor=supervisor, kind="other", notes="test")
    if when == "after a re-settlement":
        card_replace(round_id=rnd.pk, position=7, card="KH", actor=supervisor)  # still the match: the same round re-settled
        assert T.objects.filter(kind="credit", settlement_version=2).exists()
    incident_void(incident_id=incident.pk, actor=supervisor, reason="test void")
    drain()
    for name in ("ann", "ben", "cat"):
        assert wallet.balance(p[name][2]) == D("1000"), name
    assert_books_exact(operator, {p[n][2]: D("1000") for n in p}, wallet)


def test_a_repeat_is_all_or_nothing_at_the_operator(world, wallet):
    operator, table, dealer = world
    p = players(world, wallet, ["ann"])
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    assert bet(p["ann"][0], rnd.pk, "andar", 100).status_code == 201
    assert bet(p["ann"][0], rnd.pk, "first_andar", 50).status_code == 201
    round_close_betting(round_id=rnd.pk, actor=dealer)
    deal_all(rnd, dealer)
    drain()
    after_first = wallet.balance(p["ann"][2])
    wallet.players({p["ann"][2]: "120"})  # covers the first debit, not the second
    nxt = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    refused = p["ann"][0].post(f"/api/rounds/{nxt.pk}/bets/repeat/")
    assert refused.status_code == 409 and refused.json()["operator_code"] == "insufficient_funds"
    assert not Bet.objects.filter(round=nxt).exists()
    drain()
    assert wallet.balance(p["ann"][2]) == D("120")
    wallet.players({p["ann"][2]: str(after_first)})
    repeated = p["ann"][0].post(f"/api/rounds/{nxt.pk}/bets/repeat/")
    assert repeated.status_code == 201 and len(repeated.json()) == 2


def test_a_debit_confirmed_after_the_close_is_rolled_back(world, wallet, monkeypatch):
    """Closing never waits for the operator: a debit confirmed once betting closed makes no bet."""
    from bets import operator_wallet

    operator, table, dealer = world
    p = players(world, wallet, ["ann"])
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    real_call = operator_wallet.call

    def close_while_debiting(*, operator, action, body):
        answer = real_call(operator=operator, action=action, body=body)
        if action == "debit":
            round_close_betting(round_id=rnd.pk, actor=dealer)
        return answer

    monkeypatch.setattr(operator_wallet, "call", close_while_debiting)
    answer = bet(p["ann"][0], rnd.pk, "andar", 100)
    assert answer.status_code == 409 and answer.json()["code"] == "betting_closed"
    monkeypatch.setattr(operator_wallet, "call", real_call)
    drain()
    assert not Bet.objects.filter(round=rnd).exists()
    assert wallet.balance(p["ann"][2]) == D("1000")
    assert_books_exact(operator, {p["ann"][2]: D("1000")}, wallet)


def test_supervisors_list_the_unacknowledged_first(world, wallet, settings):
    from tests.conftest import client_for

    _, table, dealer = world
    supervisor = make_user("supervisor", "supervisor")
    p = players(world, wallet, ["ann"])
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    assert bet(p["ann"][0], rnd.pk, "andar", 100).status_code == 201
    round_close_betting(round_id=rnd.pk, actor=dealer)
    wallet.faults(error_share=1)
    deal_all(rnd, dealer)
    settings.SEAMLESS_ALERT_AFTER = 0
    api = client_for(supervisor)
    listed = api.get("/api/operator/transactions/?status=pending").json()["results"]
    assert [t["kind"] for t in listed] == ["credit"] and listed[0]["stuck"] is True
    every = api.get("/api/operator/transactions/?operator=acme").json()["results"]
    assert every[0]["status"] == "pending" and {t["kind"] for t in every} == {"credit", "debit"}
    assert api.get("/api/operators/").json()[0]["stuck"] == 1
    wallet.faults()
    drain()


def test_a_seeded_random_run_with_faults_ends_with_exact_books(world, wallet):
    """Many rounds, several players, random bets, cancels, voids and corrections, with 5xx answers,
    timeouts after applying and wrong signatures injected: at the end every transaction is
    acknowledged, each player's balance at the operator is what the studio's rules say, and the
    studio's ledger is exact."""
    operator, table, dealer = world
    supervisor = make_user("supervisor", "supervisor")
    rng = random.Random(20261202)
    names = ["ann", "ben", "cat", "dan"]
    p = players(world, wallet, names, balance="2000")
    start = {p[n][2]: D("2000") for n in names}
    spots = ["andar", "bahar", "first_andar", "first_bahar"]
    decks = [EXAMPLE_2_CARDS, ["QS", "KD"], ["2C", "3D", "KH"], ["AC", "KD"]]
    wallet.faults(error_share=0.15, timeout_share=0.05, bad_signature_share=0.05, hang_seconds=1.2)
    for n in range(14):
        rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
        for name in names:
            for _ in range(rng.randint(0, 2)):
                answer = bet(p[name][0], rnd.pk, rng.choice(spots), rng.choice([10, 20, 50, 100]))
                assert answer.status_code in (201, 400, 409, 503), answer.content
                if answer.status_code == 201 and rng.random() < 0.15:
                    p[name][0].delete(f"/api/bets/{answer.json()['id']}/")
        round_close_betting(round_id=rnd.pk, actor=dealer)
        deal_all(rnd, dealer, rng.choice(decks))
        fate = rng.random()
        if fate < 0.15:
            incident = incident_raise(round_id=rnd.pk, actor=supervisor, kind="other", notes="random")
            incident_void(incident_id=incident.pk, actor=supervisor, reason="random void")
        if n % 3 == 0:  # now and then the sweep's work mid-run, faults still on
            T.objects.filter(status="pending").update(next_attempt_at=rnd.opened_at)
            for pk in T.objects.filter(status="pending").exclude(kind="debit").values_list("pk", flat=True):
                transaction_send(pk=pk)
    wallet.faults()
    drain()
    expected = dict(start)
    for b in Bet.objects.filter(round__table=table, status__in=["won", "lost"]).select_related("player__operator_player"):
        expected[b.player.operator_player.player_id] += b.payout - b.amount
    assert Bet.objects.filter(round__table=table).count() > 20
    assert T.objects.filter(kind="rollback").exists() and T.objects.filter(attempts__gt=1).exists()
    assert_books_exact(operator, expected, wallet)


def test_a_bet_is_its_debit_then_one_locked_read_and_one_write_through_the_ledger(world, wallet):
    """The operator's wallet is a kind of wallet behind the same service: the rules on a snapshot, the
    debit at the operator (no transaction open), then the locked read, the rules again, and the
    stake in the ledger's one statement: from the operator's account through the player's wallet
    (unchanged) to the house."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    operator, table, dealer = world
    p = players(world, wallet, ["ann"])
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    with CaptureQueriesContext(connection) as queries:
        placed = bet(p["ann"][0], rnd.pk, "andar", 100)
    assert placed.status_code == 201, placed.content
    statements = [q["sql"] for q in queries.captured_queries]
    locked = [i for i, s in enumerate(statements) if "FOR SHARE OF r FOR UPDATE OF a" in s]
    stakes = [i for i, s in enumerate(statements) if s.lstrip().startswith("WITH w AS (UPDATE")]
    debit = [i for i, s in enumerate(statements) if s.startswith("INSERT INTO") and "wallettransaction" in s]
    assert len(locked) == len(stakes) == len(debit) == 1 and debit[0] < locked[0] < stakes[0], statements
    bet_row = Bet.objects.get(round=rnd)
    assert sorted(LedgerEntry.objects.filter(bet=bet_row).values_list("kind", "amount")) == [
        ("bet", D("-100")), ("bet", D("100")), ("op_debit", D("-100")), ("op_debit", D("100"))]
    assert Account.objects.get(user=p["ann"][1], kind="player").balance == 0
    assert T.objects.get(kind="debit").bet_id == bet_row.pk and wallet.balance(p["ann"][2]) == D("900")
    op_account = operator_account(operator_id=operator.pk, currency="INR")
    assert LedgerEntry.objects.filter(account=op_account).aggregate(s=Sum("amount"))["s"] == D("-100")
    assert LedgerEntry.objects.aggregate(s=Sum("amount"))["s"] == 0


def test_at_a_table_of_another_currency_the_player_bets_from_the_studios_wallet(world, wallet, make_table):
    """The kind of wallet is the player's wallet's in the round's currency: an operator's player at a
    table playing another currency (a match's chips are one) bets from the studio's wallet in it,
    with nothing asked of the operator."""
    from bets.ledger import chips_issue

    _, _, dealer = world
    p = players(world, wallet, ["ann"])
    chips = round_open(table_id=make_table(currency="CHIPS").pk, joker="KS", dealer=dealer)
    refused = bet(p["ann"][0], chips.pk, "andar", 100)
    assert (refused.status_code, refused.json()["code"]) == (400, "insufficient_funds"), refused.content
    chips_issue(user=p["ann"][1], amount=D("150"))
    placed = bet(p["ann"][0], chips.pk, "andar", 100)
    assert placed.status_code == 201 and D(placed.json()["balance"]) == D("50"), placed.content
    assert not T.objects.exists() and wallet.balance(p["ann"][2]) == D("1000")


def test_an_inactive_operators_players_cannot_bet(world, wallet):
    from accounts.operators import operator_set

    _, table, dealer = world
    p = players(world, wallet, ["ann"])
    operator_set(code="acme", wallet="seamless", active=False)
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    refused = bet(p["ann"][0], rnd.pk, "andar", 100)
    assert (refused.status_code, refused.json()["code"]) == (403, "operator_inactive")
    assert not T.objects.exists() and wallet.balance(p["ann"][2]) == D("1000")


def test_reports_grouped_by_operator_split_the_operators_players_from_the_studios_wallets(world, wallet):
    from bets.ledger import chips_issue
    from tests.conftest import client_for

    operator, table, dealer = world
    supervisor = make_user("supervisor", "supervisor")
    p = players(world, wallet, ["ann"])
    own = make_user("olga", "player")
    chips_issue(user=own, amount=D("500"), currency="INR")  # a studio wallet at the same table
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    assert bet(p["ann"][0], rnd.pk, "andar", 100).status_code == 201
    assert bet(client_for(own), rnd.pk, "bahar", 40).status_code == 201
    round_close_betting(round_id=rnd.pk, actor=dealer)
    deal_all(rnd, dealer)
    day = rnd.opened_at.date()
    query = {"group": "operator", "from": str(day), "to": str(day.fromordinal(day.toordinal() + 1))}
    answer = client_for(supervisor).get("/api/reports/", query)
    assert answer.status_code == 200, answer.content
    rows = {r["key"]: r for r in answer.json()["rows"]}
    assert (rows["acme"]["bets"], rows["acme"]["stakes"], rows["acme"]["payouts"]) == (1, "100.00", "190.00")
    assert (rows["studio"]["bets"], rows["studio"]["stakes"], rows["studio"]["payouts"]) == (1, "40.00", "0.00")
    assert answer.json()["total"]["stakes"] == "140.00"
    supervisor_api = client_for(supervisor)
    incident = incident_raise(round_id=rnd.pk, actor=supervisor, kind="other", notes="test")
    incident_void(incident_id=incident.pk, actor=supervisor, reason="void")
    rows = {r["key"]: r for r in supervisor_api.get("/api/reports/", query).json()["rows"]}
    assert rows.get("acme") is None and rows["studio"]["bets"] == 0
    assert supervisor_api.get("/api/reports/", {**query, "dealer": dealer.pk}).status_code == 400
    drain()


def test_the_settlements_event_in_the_audit_chain_records_each_operators_credit(world, wallet):
    from tables.models import RoundEvent

    _, table, dealer = world
    p = players(world, wallet, ["ann", "ben"])
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    assert bet(p["ann"][0], rnd.pk, "andar", 100).status_code == 201
    assert bet(p["ben"][0], rnd.pk, "bahar", 50).status_code == 201
    round_close_betting(round_id=rnd.pk, actor=dealer)
    deal_all(rnd, dealer)
    assert RoundEvent.objects.get(round=rnd, action="settled").data["operators"] == {"acme": "190.00"}


def test_a_debit_arriving_after_its_rollback_is_refused_by_the_operator(world, wallet):
    """The protocol's tombstone: a rollback of a debit the operator never saw is answered ok, and the
    debit, when it comes late, is refused; repeats are answered as the first time."""
    from bets import operator_wallet

    operator, table, _ = world
    wallet.players({f"zed-{table.pk}": "100"})
    debit = {"transaction_id": f"debit-late-{table.pk}", "player_id": f"zed-{table.pk}", "currency": "INR", "amount": "30.00",
             "round_id": "1", "table_id": str(table.pk), "bet_id": "bet-late", "spot": "andar"}
    rollback = {"transaction_id": f"rollback-{debit['transaction_id']}", "player_id": debit["player_id"], "currency": "INR",
                "amount": "30.00", "round_id": "1", "table_id": str(table.pk), "reference_transaction_id": debit["transaction_id"]}
    assert operator_wallet.call(operator=operator, action="rollback", body=rollback).ok
    late = operator_wallet.call(operator=operator, action="debit", body=debit)
    assert (late.outcome, late.code) == ("refused", "transaction_rolled_back")
    assert operator_wallet.call(operator=operator, action="debit", body=debit).code == "transaction_rolled_back"
    assert operator_wallet.call(operator=operator, action="rollback", body=rollback).balance == D("100")
    assert wallet.balance(debit["player_id"]) == D("100")


def test_one_players_simultaneous_bets_never_pass_the_tables_limit_together(world, wallet, make_table):
    """Two bets of one player at once, each within the limit but not both: whatever the order of
    their debits and writes, one counts and the other is refused and rolled back at the operator."""
    from tests.conftest import client_for
    from tests.parallel import at_once

    operator, _, dealer = world
    small = make_table(currency="INR", betting_seconds=600, min_bet=10, max_bet=100, allow_both_sides=True)
    pid = f"racer-{small.pk}"
    wallet.players({pid: "1000"})
    _, user = launched(pid, small)
    rnd = round_open(table_id=small.pk, joker="KS", dealer=dealer)
    token = user.api_tokens.first().key
    clients = [client_for(None), client_for(None)]
    for c in clients:
        c.credentials(HTTP_AUTHORIZATION="Token " + token)
    wallet.faults(latency_ms=200)  # both debits in flight together: both rule checks saw the other's bet not yet written
    answers = at_once(lambda: bet(clients[0], rnd.pk, "andar", 60), lambda: bet(clients[1], rnd.pk, "first_andar", 60))
    wallet.faults()
    codes = sorted(a.status_code for a in answers)
    assert codes == [201, 400], [a.content for a in answers]
    assert Bet.objects.filter(round=rnd).count() == 1
    drain()
    assert wallet.balance(pid) == D("940")
    # The refused one was refused before its debit (the other already written), or after it (rolled back).
    assert T.objects.filter(kind="debit", status="ok").count() == 1
    assert T.objects.filter(kind="debit", status="cancelled").count() == T.objects.filter(kind="rollback", status="ok").count() <= 1
