"""The virtual dealer: it runs rounds through the same services as a person, commits to each shuffled
pack before betting opens and reveals it after, and its rounds follow the exact odds."""
import random
from collections import Counter
from fractions import Fraction

import pytest

from virtual import dealer as virtual
from engine import PAYTABLES, Paytable, TableConfig, odds
from tables.models import DealtCard, Round

# Chi-square critical values at significance 0.001 (NIST/SEMATECH e-Handbook, table 1.3.6.7.4).
CHI2_0_001 = {1: 10.828, 2: 13.816, 3: 16.266, 4: 18.467, 5: 20.515, 6: 22.458, 7: 24.322, 8: 26.124, 9: 27.877}


def _virtual_table(make_table, **extra):
    fields = {"virtual_dealer": True, "betting_seconds": 0, "deal_interval_ms": 0, "round_gap_ms": 0}
    fields.update(extra)
    return make_table(**fields)


def _played(table):
    return list(Round.objects.filter(table=table, status=Round.Status.SETTLED).order_by("id"))


def _cards(rnd):
    return list(DealtCard.objects.filter(round=rnd).order_by("position").values_list("card", flat=True))


def test_fairness_check_accepts_the_committed_pack_and_rejects_a_tampered_one():
    pack = virtual.shuffled_pack()
    salt, text = "ab" * 16, ",".join(pack)
    digest = virtual.commitment(salt, text)
    dealt = pack[1:8]
    assert virtual.verify(commitment_hex=digest, salt=salt, pack=text, joker=pack[0], cards=dealt)
    swapped = ",".join([pack[0], pack[2], pack[1], *pack[3:]])
    assert not virtual.verify(commitment_hex=digest, salt=salt, pack=swapped, joker=pack[0], cards=dealt)
    assert not virtual.verify(commitment_hex=digest, salt=salt, pack=text, joker=pack[0], cards=[pack[2], *dealt[1:]])
    assert not virtual.verify(commitment_hex=digest, salt="cd" * 16, pack=text, joker=pack[0], cards=dealt)


def test_shuffles_differ_and_are_full_packs():
    packs = {tuple(virtual.shuffled_pack()) for _ in range(50)}
    assert len(packs) == 50
    assert all(len(set(p)) == 52 for p in packs)


@pytest.mark.django_db(transaction=True)
def test_commitment_is_public_while_betting_and_the_pack_only_after_the_round(make_table, anon_api):
    table = _virtual_table(make_table, betting_seconds=60)
    did, _ = virtual.tick(table_id=table.pk)
    assert did == "opened"
    rnd = Round.objects.get(table=table)
    body = anon_api.get(f"/api/rounds/{rnd.pk}/").json()
    assert body["status"] == "betting" and body["joker"] == rnd.pack.split(",")[0]
    assert body["fairness"]["commitment"] == rnd.commitment and len(rnd.commitment) == 64
    assert body["fairness"]["pack"] is None and body["fairness"]["salt"] is None
    Round.objects.filter(pk=rnd.pk).update(closes_at=rnd.opened_at)  # the countdown ran out
    for _ in range(60):
        did, _ = virtual.tick(table_id=table.pk)
        if did == "match":
            break
    body = anon_api.get(f"/api/rounds/{rnd.pk}/").json()
    assert body["status"] == "settled"
    fair = body["fairness"]
    assert virtual.verify(commitment_hex=fair["commitment"], salt=fair["salt"], pack=fair["pack"], joker=body["joker"],
                          cards=[c["card"] for c in body["cards"]])


@pytest.mark.django_db(transaction=True)
def test_a_person_cannot_deal_on_top_of_the_virtual_dealer(make_table, dealer_api):
    table = _virtual_table(make_table, betting_seconds=60)
    virtual.tick(table_id=table.pk)
    response = dealer_api.post(f"/api/tables/{table.pk}/rounds/", {"joker": "KS"}, format="json")
    assert response.status_code == 409


@pytest.mark.django_db(transaction=True)
def test_a_paused_virtual_round_waits_for_the_supervisor(make_table, dealer_api, supervisor_api):
    table = _virtual_table(make_table, betting_seconds=60)
    virtual.tick(table_id=table.pk)
    rnd = Round.objects.get(table=table)
    refused = dealer_api.post(f"/api/rounds/{rnd.pk}/incidents/", {"kind": "stream"}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (409, "virtual_table")  # only a supervisor pauses it
    assert supervisor_api.post(f"/api/rounds/{rnd.pk}/incidents/", {"kind": "stream"}, format="json").status_code == 201
    Round.objects.filter(pk=rnd.pk).update(closes_at=rnd.opened_at)
    assert virtual.tick(table_id=table.pk)[0] == "paused"
    assert DealtCard.objects.filter(round=rnd).count() == 0


def _chi_square(observed: Counter, expected: dict) -> float:
    return sum((observed[k] - e) ** 2 / e for k, e in expected.items())


@pytest.mark.long
@pytest.mark.django_db(transaction=True)
def test_a_thousand_unattended_rounds_verify_and_follow_the_exact_odds(make_table, settings):
    """1,000 rounds, each revealed pack verified; the share of Andar wins and of each card-count box
    agree with the exact odds (chi-square at significance 0.001; rare boxes merged so that every
    expected count is at least 5). The packs come from a seeded generator through the dealer's own
    shuffle, so the test gives the same answer every run; settlement runs in-process, so the dealer
    need not wait for it. Nobody watches, so no channel layer is configured and nothing is published
    (publishing is tests/stream's subject, not this one's)."""
    n = 1000
    settings.VIRTUAL_DEALER_SETTLE_POLL = 0
    settings.CHANNEL_LAYERS = {}
    table = _virtual_table(make_table)
    virtual.run(max_rounds=n + 1, tables=[table.pk], rng=random.Random(2026))
    rounds = _played(table)[:n]
    assert len(rounds) == n
    for rnd in rounds:
        assert virtual.verify(commitment_hex=rnd.commitment, salt=rnd.salt, pack=rnd.pack, joker=rnd.joker, cards=_cards(rnd)), rnd.pk

    config = TableConfig()
    exact = {o.spot: o.probability for o in odds(config)}
    andar = sum(r.winner == "andar" for r in rounds)
    chi_andar = _chi_square(Counter({"andar": andar, "bahar": n - andar}),
                            {"andar": n * exact["andar"], "bahar": n * exact["bahar"]})
    assert chi_andar < CHI2_0_001[1], (andar, chi_andar)

    groups: list[tuple[str, Fraction, range]] = []
    for lo, hi, _ in PAYTABLES[Paytable.LIVE]:
        p = exact[f"count_{lo}_{hi}"]
        if groups and n * groups[-1][1] < 5:
            name, q, span = groups.pop()
            groups.append((name + "+", q + p, range(span.start, hi + 1)))
        else:
            groups.append((f"{lo}-{hi}", p, range(lo, hi + 1)))
    while n * groups[-1][1] < 5:  # fold a rare tail into the group before it
        name, q, span = groups.pop()
        prev_name, prev_q, prev_span = groups.pop()
        groups.append((prev_name + "+", prev_q + q, range(prev_span.start, span.stop)))
    observed = Counter(next(name for name, _, span in groups if r.cards_dealt in span) for r in rounds)
    chi_boxes = _chi_square(observed, {name: n * p for name, p, _ in groups})
    assert chi_boxes < CHI2_0_001[len(groups) - 1], (observed, chi_boxes)


def test_a_closed_virtual_table_opens_no_round_until_it_reopens(make_table, supervisor):
    from tables.services import table_state_set

    table = _virtual_table(make_table, betting_seconds=60)
    table_state_set(table_id=table.pk, state="maintenance", reason="Shuffler check", actor=supervisor)
    assert virtual.tick(table_id=table.pk) == ("closed", 2.0)
    assert not Round.objects.filter(table=table).exists()
    table_state_set(table_id=table.pk, state="open", actor=supervisor)
    assert virtual.tick(table_id=table.pk)[0] == "opened"
