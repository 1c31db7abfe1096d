"""A bet on its own (not inside another transaction): read without locks, checked,
written in one statement only if nothing changed, else placed the locked way (bets.services).

These tests are transactional: inside the test's own transaction every bet takes the locked way.
Between the read and the write they make a real change through the real services (chips issued
to the wallet, betting closed), the way a concurrent request would."""
import pytest
from django.db import connection
from django.db.models import Sum
from django.test.utils import CaptureQueriesContext

from bets import services
from bets.ledger import chips_issue
from bets.models import Bet, LedgerEntry
from tables.services import round_close_betting, round_open
from tests.bets.flow import D, balance

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def rnd(dealer, make_table):
    return round_open(table_id=make_table().pk, joker="KS", dealer=dealer)


def place(alice, rnd, spot="andar", amount="50", key=None):
    with CaptureQueriesContext(connection) as queries:
        bet, created = services.bet_place(round_id=rnd.pk, player=alice, spot=spot, amount=amount, idempotency_key=key)
    return bet, created, [q["sql"] for q in queries.captured_queries]


def all_entries():
    return LedgerEntry.objects.aggregate(s=Sum("amount"))["s"]


def locked(statements) -> bool:
    return any("FOR UPDATE" in s for s in statements)


def test_a_bet_on_its_own_is_one_read_and_one_write_without_a_transaction(alice, rnd):
    bet, created, statements = place(alice, rnd)
    assert created and bet.balance == D("950") and balance(alice) == D("950")
    assert len(statements) == 2 and not locked(statements), statements
    assert "FOR SHARE" in statements[1] and "xmin" in statements[1]  # the write's guards
    assert sorted(LedgerEntry.objects.filter(bet=bet).values_list("amount", flat=True)) == [D("-50"), D("50")]
    assert all_entries() == 0


def test_a_wallet_changed_after_the_read_sends_the_bet_the_locked_way(alice, rnd, monkeypatch):
    read = services.bet_context

    def read_then_issue(**kwargs):
        context = read(**kwargs)
        if not kwargs["locked"]:
            chips_issue(user=alice, amount=D("100"))  # another request, between this bet's read and its write
        return context

    monkeypatch.setattr(services, "bet_context", read_then_issue)
    bet, created, statements = place(alice, rnd)
    assert created and locked(statements)
    assert balance(alice) == D("1050") and bet.balance == D("1050")
    assert Bet.objects.filter(player=alice).count() == 1 and LedgerEntry.objects.filter(bet=bet).count() == 2
    assert all_entries() == 0


def test_betting_closed_after_the_read_refuses_the_bet(alice, dealer, rnd, monkeypatch):
    read = services.bet_context

    def read_then_close(**kwargs):
        context = read(**kwargs)
        if not kwargs["locked"]:
            round_close_betting(round_id=rnd.pk, actor=dealer)
        return context

    monkeypatch.setattr(services, "bet_context", read_then_close)
    with pytest.raises(services.ApplicationError) as refused:
        place(alice, rnd)
    assert refused.value.code == "betting_closed"
    assert balance(alice) == D("1000") and not Bet.objects.filter(player=alice).exists()


def test_the_guarded_write_does_nothing_when_the_wallet_moved(alice, rnd):
    from bets.ledger import bet_stake
    from bets.placing import bet_context

    def write(context):
        return bet_stake(round_id=rnd.pk, player=alice, wallet=context.wallet, house=context.house, spot="andar",
                         amount=D("50"), idempotency_key=None, seen=context.seen)

    context = bet_context(round_id=rnd.pk, player=alice, locked=False)
    chips_issue(user=alice, amount=D("1"))
    assert write(context) is None
    assert balance(alice) == D("1001") and not Bet.objects.exists()
    bet, new_balance = write(bet_context(round_id=rnd.pk, player=alice, locked=False))
    assert new_balance == D("951") and Bet.objects.get().pk == bet.pk


def test_a_first_bet_in_a_new_wallet_and_a_refusal_from_the_read(rnd, dealer):
    from tests.bets.flow import quick_player

    newcomer = quick_player("newcomer", 0)  # a wallet of 0
    with pytest.raises(services.ApplicationError) as refused:
        services.bet_place(round_id=rnd.pk, player=newcomer, spot="andar", amount="50")
    assert refused.value.code == "insufficient_funds"
    chips_issue(user=newcomer, amount=D("60"))
    bet, created = services.bet_place(round_id=rnd.pk, player=newcomer, spot="andar", amount="50", idempotency_key="once")
    again, created_again = services.bet_place(round_id=rnd.pk, player=newcomer, spot="andar", amount="50", idempotency_key="once")
    assert (created, created_again, again.pk) == (True, False, bet.pk)
    assert balance(newcomer) == D("10")


def test_an_api_bet_with_a_token_is_two_statements(alice, rnd):
    """The token with its user, their roles and the bet's context (bets.auth), then the guarded write."""
    from tests.conftest import client_for

    api = client_for(alice)
    with CaptureQueriesContext(connection) as queries:
        response = api.post(f"/api/rounds/{rnd.pk}/bets/", {"spot": "andar", "amount": "50"}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["balance"] == "950.00" and balance(alice) == D("950")
    statements = [q["sql"] for q in queries.captured_queries]
    assert len(statements) == 2, statements
    assert "t.key" in statements[0] and "xmin" in statements[0] and not locked(statements)
    assert statements[1].lstrip().startswith("WITH r AS")


def test_an_api_bet_whose_wallet_changed_after_the_token_read_is_checked_again(alice, dealer, make_table, monkeypatch):
    """The context read with the token is a snapshot: another bet between that read and the write
    changes the wallet, the guarded write misses, and the bet is checked again the locked way (here
    it is then over the table's limit, which the snapshot did not know)."""
    from bets.auth import BetTokenAuthentication
    from tests.conftest import client_for

    rnd = round_open(table_id=make_table(max_bet=60).pk, joker="KS", dealer=dealer)
    read = BetTokenAuthentication.authenticate_credentials

    def read_then_another_bet(self, key):
        found = read(self, key)
        services.bet_place(round_id=rnd.pk, player=alice, spot="andar", amount="30")  # between the read and the write
        return found

    monkeypatch.setattr(BetTokenAuthentication, "authenticate_credentials", read_then_another_bet)
    response = client_for(alice).post(f"/api/rounds/{rnd.pk}/bets/", {"spot": "andar", "amount": "50"}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "over_max_bet", response.content
    assert balance(alice) == D("970") and Bet.objects.filter(round=rnd, player=alice).count() == 1
