"""A bet is one pass down (bets.services): the player's kind of wallet, one locked read of the
bet's context, one check, one statement writing the stake through the ledger, the answer from its
serializer. These tests count the statements and change things between the steps through the real
services, the way a concurrent request would."""
import pytest
from django.db import connection, transaction
from django.db.models import Sum
from django.test.utils import CaptureQueriesContext

from bets import services
from bets.ledger import bet_stake, chips_issue
from bets.models import Bet, LedgerEntry
from bets.placing import bet_context
from bets.serializers import PlacedBetSerializer
from studio.errors import InvalidInput
from tables.services import round_open
from tests.bets.flow import D, balance

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def rnd(dealer, make_table):
    return round_open(table_id=make_table().pk, joker="KS", dealer=dealer)


def place(alice, rnd, spot="andar", amount="50", key=None):
    with CaptureQueriesContext(connection) as queries:
        bet, created = services.bet_place(round_id=rnd.pk, player=alice, spot=spot, amount=amount, idempotency_key=key)
    return bet, created, statements(queries)


def statements(queries) -> list[str]:
    """The statements run, without the transaction's BEGIN and COMMIT."""
    return [q["sql"] for q in queries.captured_queries if q["sql"] not in ("BEGIN", "COMMIT")]


def all_entries():
    return LedgerEntry.objects.aggregate(s=Sum("amount"))["s"]


def test_a_bet_is_the_wallets_kind_the_locks_one_read_and_one_write(alice, rnd):
    bet, created, run = place(alice, rnd)
    assert created and bet.balance == D("950") and balance(alice) == D("950")
    assert len(run) == 4, run
    kind, locks, read, write = run
    assert "operator" in kind and "FOR" not in kind  # the player's kind of wallet: no operator's here
    assert "FOR SHARE OF r FOR UPDATE OF a" in locks  # the round, then the wallet
    assert "SUM(b.amount)" in read and "FOR" not in read  # read after the locks: it sees every bet committed before them
    assert write.lstrip().startswith("WITH w AS (UPDATE")  # the wallet, the bet and its entries: one statement
    assert sorted(LedgerEntry.objects.filter(bet=bet).values_list("amount", flat=True)) == [D("-50"), D("50")]
    assert all_entries() == 0


def test_the_stake_is_refused_whole_when_the_wallet_cannot_cover_it(alice, rnd):
    """The ledger's one writer of a stake debits the wallet only if it covers the stake, and writes the
    bet and its entries only if it did (a check that read an old balance cannot overdraw it)."""
    with transaction.atomic():
        context = bet_context(round_id=rnd.pk, player=alice)
        with pytest.raises(InvalidInput) as refused:
            bet_stake(round_id=rnd.pk, player=alice, wallet=context.wallet, house=context.house, spot="andar",
                      amount=D("1000.01"), idempotency_key=None)
    assert refused.value.code == "insufficient_funds"
    assert balance(alice) == D("1000") and not Bet.objects.exists() and not LedgerEntry.objects.filter(kind="bet").exists()


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


def test_an_api_bet_is_the_token_then_the_one_pass_and_answers_its_serializers_body(alice, rnd):
    from tests.conftest import client_for

    api = client_for(alice)
    with CaptureQueriesContext(connection) as queries:
        response = api.post(f"/api/rounds/{rnd.pk}/bets/", {"spot": "andar", "amount": "50"}, format="json")
    assert response.status_code == 201, response.content
    run = statements(queries)
    assert len(run) == 5 and "t.key" in run[0] and "FOR" not in run[0], run
    bet = Bet.objects.select_related("player").get()
    bet.balance = D("950")
    assert response.json() == PlacedBetSerializer(bet).data and balance(alice) == D("950")
