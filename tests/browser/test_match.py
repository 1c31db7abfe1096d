"""A match among friends in a real browser: two players on two pages (Alice at a desktop, Bob on a
phone), against the real ASGI server with the virtual dealer running beside it.

pytest-django's `live_server` is WSGI and cannot serve WebSockets, so the studio runs under uvicorn
on the test database, with a virtual dealer process (`manage.py virtual_dealer`) that deals the
match table and whose broadcasts reach the pages through Redis, as in production.

The match is a real 10-round chips match. Rounds 1 and 2 are played through the pages; then the
table is sped up through the ORM (no time to bet, fast deal) and rounds 3 to 10 run out with nobody
betting: each player times out and sits them out, which is also a rule of the match. Screenshots
and the server's log land in test-artifacts/<test name>/.
"""
from __future__ import annotations

import re
import time
from decimal import Decimal

import pytest
from playwright.sync_api import expect

from bets.models import Bet
from matches.services import balances
from tables.models import DealtCard, Match, Round, Table

from tests.matches.play import MatchPlay
from tests.servers import studio_server, studio_with_virtual_dealer

from .conftest import artifacts_dir

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROUND_TIMEOUT = 30_000  # ms: a long deal at the test's pace, with settlement, on a busy machine


@pytest.fixture
def studio_url(transactional_db, request):
    """The studio under uvicorn on the test database, a virtual dealer beside it; both stopped before
    the database is flushed."""
    with studio_with_virtual_dealer(artifacts_dir(request), "match") as url:
        yield url


def chips_text(amount: Decimal) -> str:
    """How the pages write a whole number of chips: 1,090."""
    return f"{amount:,.0f}"


def page_cards(page, side: str) -> list[str]:
    return page.locator(f"#cards-{side} .card").evaluate_all("els => els.map(e => e.dataset.card)")


def wait_for(predicate, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting for the server"
        time.sleep(0.1)


def bets_of(rnd: Round) -> dict:
    return {(b.player.username, b.spot): b.amount for b in Bet.objects.filter(round=rnd).select_related("player")}


def expect_result_line(page, rnd: Round, player: str):
    """The banner under the cards says what this player's bets brought back (or that they sat out)."""
    bets = list(Bet.objects.filter(round=rnd, player__username=player))
    payout, staked = sum(b.payout for b in bets), sum(b.amount for b in bets)
    line = f"you won {chips_text(payout)}" if payout else f"you lost {chips_text(staked)}" if bets else "you sat out"
    expect(page.get_by_test_id("result")).to_contain_text(f"{rnd.winner.capitalize()} wins on card {rnd.cards_dealt} — {line}")


def expect_standings(page, match: Match):
    money = balances(match)
    for player in match.players.select_related("user"):
        row = page.get_by_test_id(f"standing-{player.user.username}")
        expect(row.get_by_test_id("score")).to_have_text(chips_text(money[player.user_id]) + "chips")


def line_heights(page) -> dict[str, list[float]]:
    """The y of each point of each player's line in the results chart (smaller is higher)."""
    return page.locator("[data-testid=chart-line]").evaluate_all(
        "els => Object.fromEntries(els.map(e => [e.dataset.player, e.getAttribute('points').split(' ').map(p => +p.split(',')[1])]))")


@pytest.mark.long
def test_two_friends_play_a_match_on_two_pages(studio_url, page, phone_page, alice, bob, login, shot, accessible):
    url, bob_page = studio_url, phone_page
    login(page, url, "alice")
    login(bob_page, url, "bob")

    # Alice creates a 10-round play-chips match with 10 seconds to bet (5 is too tight for two
    # browsers driven one after the other on a busy machine).
    page.goto(url + "/matches/")
    expect(page.get_by_test_id("my-matches")).to_contain_text("No matches yet")
    shot(page, "00-play-with-friends")
    accessible(page, "play with friends")
    page.locator("label", has=page.get_by_test_id("rounds-10")).click()
    page.get_by_test_id("betting-seconds").select_option("10")
    page.get_by_test_id("create").click()
    page.wait_for_url(re.compile(r"/matches/\d+/$"))
    match = Match.objects.select_related("table").get()
    assert (match.scoring, match.rounds_total, match.status, match.table.betting_seconds) == ("chips", 10, "lobby", 10)
    expect(page.get_by_test_id("match-code")).to_have_text(match.code)
    expect(page.get_by_test_id("share-link")).to_have_value(f"{url}/matches/join/{match.code}/")
    expect(page.get_by_test_id("start")).to_be_disabled()  # a match needs two players
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    page.get_by_test_id("copy-link").click()
    expect(page.get_by_test_id("copy-link")).to_have_text("Copied ✓")
    assert page.evaluate("navigator.clipboard.readText()") == f"{url}/matches/join/{match.code}/"

    # Bob types the code on his phone (in lower case) and lands in the same lobby.
    bob_page.goto(url + "/matches/")
    bob_page.get_by_test_id("join-code").fill(match.code.lower())
    expect(bob_page.get_by_test_id("join-code")).to_have_value(match.code)  # typed in lower case, shown in capitals
    shot(bob_page, "phone-00-join")
    accessible(bob_page, "play with friends on a phone")
    bob_page.get_by_test_id("join").tap()
    bob_page.wait_for_url(f"**/matches/{match.pk}/")
    expect(bob_page.get_by_test_id("lobby")).to_contain_text("Waiting for alice to start the match")
    expect(bob_page.get_by_test_id("start")).to_be_hidden()
    expect(page.get_by_test_id("lobby-players")).to_contain_text("bob")  # Alice's lobby refreshes by itself
    expect(page.get_by_test_id("start")).to_be_enabled()
    shot(page, "01-lobby")
    shot(bob_page, "phone-01-lobby")
    accessible(page, "the lobby")
    accessible(bob_page, "the lobby on a phone")

    # A brisk dealer for the test, and no next round until the test has checked this one's result
    # (the dealer looks at the table's pace again within half a second); Alice starts, and both
    # pages turn into the table.
    Table.objects.filter(pk=match.table_id).update(deal_interval_ms=100, round_gap_ms=600_000)
    page.get_by_test_id("start").click()
    for p in (page, bob_page):
        expect(p.get_by_test_id("phase")).to_have_text("Place your bets", timeout=15_000)
        expect(p.get_by_test_id("round-counter")).to_have_text("Round 1 of 10")
        expect(p.get_by_test_id("my-chips")).to_have_text("1,000")
        expect(p.get_by_test_id("proposal")).to_be_hidden()  # nothing to set out in the first round
    round1 = Round.objects.get(table_id=match.table_id)
    expect(page.locator("#joker .card")).to_have_attribute("data-card", round1.joker)

    accessible(page, "betting open")
    # Round 1: Alice 100 on Andar; Bob 50 on Bahar and 10 on 6-10 cards. Chips first, then spots.
    # Alice uses the keyboard: chips, spots and Bet are buttons.
    page.get_by_test_id("chip-100").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("chip-100")).to_have_attribute("aria-pressed", "true")
    page.get_by_test_id("spot-andar").focus()
    page.keyboard.press("Space")
    expect(page.get_by_test_id("stake-andar")).to_have_text("100")
    expect(page.get_by_test_id("spot-andar")).to_have_accessible_name("Andar 0.9:1 your stake 100")
    page.get_by_test_id("bet").focus()
    page.keyboard.press("Enter")
    bob_page.get_by_test_id("chip-50").tap()
    bob_page.get_by_test_id("spot-bahar").tap()
    bob_page.get_by_test_id("chip-10").tap()
    bob_page.get_by_test_id("spot-count_6_10").tap()
    expect(bob_page.get_by_test_id("bet")).to_have_text("Bet 60")
    bob_page.get_by_test_id("bet").tap()
    expect(page.get_by_test_id("standing-alice").get_by_test_id("round-status")).to_have_text("Bet ✓")
    expect(bob_page.get_by_test_id("slip")).to_contain_text("50 on Bahar + 10 on 6–10 cards")
    wait_for(lambda: Round.objects.get(pk=round1.pk).closed_at is not None)
    round1.refresh_from_db()
    assert round1.closed_at < round1.closes_at  # everyone was in: betting closed before the countdown ended
    assert bets_of(round1) == {("alice", "andar"): 100, ("bob", "bahar"): 50, ("bob", "count_6_10"): 10}
    # Round 2 gets a longer countdown: the checks below take a while on a busy machine, and the
    # players must still find round 2 open when they are done.
    Table.objects.filter(pk=match.table_id).update(betting_seconds=15)

    # The cards come to both pages one by one, then the result and the new standings.
    expect(page.locator("#cards-andar .card").first).to_be_visible(timeout=ROUND_TIMEOUT)
    wait_for(lambda: Match.objects.get(pk=match.pk).rounds_played == 1, timeout=ROUND_TIMEOUT / 1000)
    round1.refresh_from_db()
    dealt = list(DealtCard.objects.filter(round=round1).order_by("position").values_list("side", "card"))
    for p in (page, bob_page):
        expect_result_line(p, round1, "alice" if p is page else "bob")
        for side in ("andar", "bahar"):
            assert page_cards(p, side) == [card for s, card in dealt if s == side]
        expect(p.locator(f"#cards-{round1.winner} .card.match")).to_have_attribute("data-card", dealt[-1][1])
        expect_standings(p, match)
        expect(p.get_by_test_id("round-counter")).to_have_text("Round 1 of 10")
    shot(page, "02-round-1-result")
    shot(bob_page, "phone-02-round-1-result")
    accessible(page, "a round's result")
    Table.objects.filter(pk=match.table_id).update(round_gap_ms=100)

    # Round 2: the table sets out each player's last bet again. Alice just taps Bet; Bob sits out.
    expect(page.get_by_test_id("proposal")).to_have_text("Your last bet: 100 on Andar — tap Bet", timeout=ROUND_TIMEOUT)
    expect(bob_page.get_by_test_id("proposal")).to_have_text("Your last bet: 50 on Bahar + 10 on 6–10 cards — tap Bet")
    expect(page.get_by_test_id("round-counter")).to_have_text("Round 2 of 10")
    Table.objects.filter(pk=match.table_id).update(round_gap_ms=600_000)  # round 3 waits until round 2's result is checked
    shot(bob_page, "phone-03-round-2-set-out", full_page=False)
    accessible(bob_page, "betting on a phone, the last bet set out")
    page.get_by_test_id("bet").click()
    bob_page.get_by_test_id("sit-out").tap()
    expect(bob_page.get_by_test_id("slip")).to_contain_text(re.compile("(sit|sat) this round out"))
    expect(bob_page.get_by_test_id("who")).to_contain_text("you · Sat out")
    round2 = Round.objects.filter(table_id=match.table_id).latest("id")
    assert round2.pk != round1.pk
    wait_for(lambda: Round.objects.get(pk=round2.pk).closed_at is not None)
    assert bets_of(round2) == {("alice", "andar"): 100}
    wait_for(lambda: Match.objects.get(pk=match.pk).rounds_played == 2, timeout=ROUND_TIMEOUT / 1000)
    round2.refresh_from_db()
    expect_result_line(bob_page, round2, "bob")  # "... — you sat out"
    expect_result_line(page, round2, "alice")
    # Rounds 3 to 10 with no time to bet: everyone times out, and the match runs to its end.
    Table.objects.filter(pk=match.table_id).update(betting_seconds=0, deal_interval_ms=0, round_gap_ms=100)

    # The results, on both pages: the ranking in words and a chart with one line per player.
    for p in (page, bob_page):
        expect(p.get_by_test_id("results")).to_be_visible(timeout=60_000)
    match.refresh_from_db()
    assert match.status == "finished" and match.rounds_played == 10
    assert Bet.objects.filter(round__table_id=match.table_id).exclude(round__in=[round1, round2]).count() == 0
    result, money = match.result, balances(match)
    histories = {mp.user.username: [Decimal(1000)] + [Decimal(h["chips"]) for h in mp.history]
                 for mp in match.players.select_related("user")}
    assert histories["alice"][-1] == money[alice.pk] and histories["bob"][-1] == money[bob.pk]
    for p, me in ((page, "alice"), (bob_page, "bob")):
        if result["draw"]:
            expect(p.get_by_test_id("headline")).to_have_text("A draw: everyone finished level")
        else:
            winner = result["winners"][0]
            expect(p.get_by_test_id("headline")).to_have_text("You win!" if winner == me else f"{winner} wins!")
        for row in result["ranking"]:
            expect(p.get_by_test_id(f"rank-{row['player']}")).to_have_attribute("data-rank", str(row["rank"]))
            expect(p.get_by_test_id(f"rank-{row['player']}")).to_contain_text(chips_text(Decimal(row["chips"])))
        lines = p.get_by_test_id("chart-line")
        expect(lines).to_have_count(2)
        heights = line_heights(p)
        assert sorted(heights) == ["alice", "bob"] and all(len(ys) == 11 for ys in heights.values())  # rounds 0-10
        for n in range(11):  # the chart follows the history: whoever had more chips is drawn higher
            a, b, ya, yb = histories["alice"][n], histories["bob"][n], heights["alice"][n], heights["bob"][n]
            assert (ya < yb) if a > b else (ya > yb) if a < b else abs(ya - yb) < 4, (me, n, a, b, ya, yb)
    shot(page, "04-results")
    shot(bob_page, "phone-04-results")
    accessible(page, "the results with the chart")
    accessible(bob_page, "the results with the chart on a phone")
    assert page.js_errors == [] and bob_page.js_errors == []
    assert page.csp_violations == [] and bob_page.csp_violations == []

    # Alice's list of matches has it, finished.
    page.goto(url + "/matches/")
    listed = page.get_by_test_id("my-matches").locator(f'li[data-code="{match.code}"]')
    expect(listed.get_by_test_id("match-status")).to_have_text("Finished")
    shot(page, "05-my-matches")
    accessible(page, "my matches")
    expect(listed).to_contain_text("a draw" if result["draw"] else f"won by {'you' if result['winners'] == ['alice'] else 'bob'}")
    assert page.js_errors == [] and page.csp_violations == []


def test_a_finished_teaching_match_shows_its_points_round_by_round(request, page, phone_page, alice_api, bob_api, login, shot, accessible):
    """A 10-round teaching match played through the API (alice 2 points, bob 1), then its results on
    Alice's desktop and Bob's phone, from the real server (a finished match's table has no dealer)."""
    play = MatchPlay.start({"alice": alice_api, "bob": bob_api}, scoring="points")
    play.play("andar", alice=("andar", 10), bob=("andar", 10))
    play.play("bahar", alice=("bahar", 10), bob=("andar", 10))
    for _ in range(8):
        play.nobody_bets()
    assert play.refresh().status == "finished" and play.match.result["winners"] == ["alice"]
    with studio_server(log_dir=artifacts_dir(request), name="teaching") as url:
        for p, who, headline in ((page, "alice", "You win!"), (phone_page, "bob", "alice wins!")):
            login(p, url, who)
            p.goto(f"{url}/matches/{play.id}/")
            expect(p.get_by_test_id("headline")).to_have_text(headline)
            expect(p.get_by_test_id("results")).to_contain_text("Teaching match · 10 of 10 rounds")
            expect(p.get_by_test_id("rank-alice")).to_have_attribute("data-rank", "1")
            expect(p.get_by_test_id("rank-alice")).to_contain_text("2points")
            expect(p.get_by_test_id("rank-bob")).to_contain_text("2nd place")
            expect(p.get_by_test_id("chart-line")).to_have_count(2)
            heights = line_heights(p)
            assert all(len(ys) == 11 for ys in heights.values())
            assert abs(heights["alice"][0] - heights["bob"][0]) < 4  # both start at 0 points
            assert heights["alice"][2] < heights["bob"][2]  # after round 2: alice 2 points, bob 1
            accessible(p, f"a teaching match's results ({who})")
            assert p.js_errors == []
        # The page's weight on a cold load, and nothing from another host.
        resources = page.evaluate("""() => [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]
            .map(e => [e.name, e.transferSize])""")
        assert all(name.startswith(url) for name, _ in resources), resources
        assert sum(size for _, size in resources) < 150_000, resources
    shot(page, "teaching-results")
    shot(phone_page, "phone-teaching-results")
