"""A bet reads the player's open bets in the round (its stake so far, its main side) through an
index on the round and the player, whatever PostgreSQL's statistics say.

With an index on the round alone beside one on (player, round), PostgreSQL's generic plan for the
prepared statement could take the round's index whenever the statistics made both look equally
selective (a table never analyzed, or many small rounds), and then read every bet of the round on
every bet: PostgreSQL's CPU per bet grows with the round. Here the statistics are those of 400 rounds of one bet each,
then the round fills with 3,000 bets of another player; the plan must read Alice's two bets only."""
import json

import pytest
from django.db import connection
from django.utils import timezone

from bets.ledger import wallet_get
from bets.models import Bet
from bets.placing import CONTEXT
from tables.models import Round
from tables.services import round_open

pytestmark = pytest.mark.django_db


def plan_nodes(node):
    yield node
    for child in node.get("Plans", []):
        yield from plan_nodes(child)


def generic_plan(statement: str, types: str, args: str) -> list[dict]:
    """Every node of the generic plan PostgreSQL caches for `statement` (%s parameters, in order),
    run once with EXPLAIN ANALYZE."""
    for n in (1, 2):
        statement = statement.replace("%s", f"${n}", 1)
    with connection.cursor() as cur:
        cur.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        cur.execute(f"PREPARE plan_under_test ({types}) AS {statement}")
        try:
            cur.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE plan_under_test ({args})")
            plan = cur.fetchone()[0]
        finally:
            cur.execute("DEALLOCATE plan_under_test")
    plan = json.loads(plan) if isinstance(plan, str) else plan
    return list(plan_nodes(plan[0]["Plan"]))


def test_the_bet_context_reads_only_the_players_bets(dealer, alice, bob, make_table):
    table = make_table()
    now = timezone.now()
    wallets = {p.pk: wallet_get(user=p) for p in (alice, bob)}
    earlier = Round.objects.bulk_create([Round(table=table, settings={}, joker="KS", first_side="andar", status="settled",
                                               opened_at=now, closes_at=now) for _ in range(400)])
    Bet.objects.bulk_create([Bet(round=r, player=bob, account=wallets[bob.pk], spot="andar", amount=1, status="lost", created_at=now)
                             for r in earlier])
    with connection.cursor() as cur:
        cur.execute(f"ANALYZE {Bet._meta.db_table}")  # statistics: one bet a round
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    Bet.objects.bulk_create([Bet(round=rnd, player=bob, account=wallets[bob.pk], spot="bahar", amount=1, created_at=now)
                               for _ in range(3000)]
                            + [Bet(round=rnd, player=alice, account=wallets[alice.pk], spot=spot, amount=5, created_at=now)
                               for spot in ("andar", "count_1_5")])
    nodes = generic_plan(CONTEXT, "bigint, bigint", f"{alice.pk}, {rnd.pk}")
    scans = [n for n in nodes if n.get("Relation Name") == Bet._meta.db_table]
    assert len(scans) == 2, scans  # the stake so far, and the main side
    read = [n["Actual Loops"] * (n["Actual Rows"] + n.get("Rows Removed by Filter", 0) + n.get("Rows Removed by Index Recheck", 0))
            for n in scans]
    assert read == [2, 2], [(n.get("Index Name"), n.get("Index Cond"), n.get("Filter")) for n in scans]


def test_the_bet_context_finds_the_wallet_by_the_player(dealer, alice, make_table):
    """The read must find the wallet by the player, not walk every wallet of the currency (a join
    order PostgreSQL can choose when the round comes first in the statement)."""
    from django.contrib.auth import get_user_model
    from bets.models import Account

    User = get_user_model()
    others = User.objects.bulk_create([User(username=f"wallet{i}") for i in range(300)])
    Account.objects.bulk_create([Account(kind="player", user=u, currency="CHIPS", balance=0) for u in others])
    wallet_get(user=alice)
    with connection.cursor() as cur:
        cur.execute(f"ANALYZE {Account._meta.db_table}, {User._meta.db_table}")
    rnd = round_open(table_id=make_table().pk, joker="KS", dealer=dealer)
    read = 0
    for n in generic_plan(CONTEXT, "bigint, bigint", f"{alice.pk}, {rnd.pk}"):
        if n.get("Relation Name") == Account._meta.db_table:
            read += n["Actual Loops"] * (n["Actual Rows"] + n.get("Rows Removed by Filter", 0))
    assert read <= 3, read  # the wallet and the house, not every wallet of the currency (300 here)
