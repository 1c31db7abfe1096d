"""The rules page and the round page: who may see them (404 as for what does not exist), and that
they say what the engine pays (RULES.md's worked examples)."""
import gettext
import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.template.loader import render_to_string
from django.test import Client
from django.utils import translation

from bets.services import bet_place
from incidents.services import incident_raise, incident_void
from tables.models import Match, MatchPlayer, Round
from tables.services import card_deal, round_close_betting, round_open, table_update
from virtual.dealer import tick
from web.rules import table_rules, table_spot_name, worked_examples

from tests.audit.world import build
from tests.web.test_page_policy import EXTERNAL, HANDLER, INLINE_SCRIPT

pytestmark = pytest.mark.django_db

DEAL = ["AC", "QS", "8D", "7C", "JH", "2H", "KD"]  # worked example 2: Andar wins on card 7


def client_of(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def play_round(table, dealer, bets=(), cards=DEAL) -> Round:
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    for player, spot, amount in bets:
        bet_place(round_id=rnd.pk, player=player, spot=spot, amount=Decimal(amount), idempotency_key=f"{player.pk}-{spot}-{rnd.pk}")
    round_close_betting(round_id=rnd.pk, actor=dealer, reason="dealer")
    for card in cards:
        card_deal(round_id=rnd.pk, card=card, actor=dealer)
    return Round.objects.get(pk=rnd.pk)


def private_table(make_table, player):
    table = make_table(name="Match 1", is_private=True, virtual_dealer=True)
    match = Match.objects.create(table=table, code="ABCDEF", created_by=player, rounds_total=10)
    MatchPlayer.objects.create(match=match, user=player)
    return table


# --- the rules page ---------------------------------------------------------------------------

def test_rules_page_shows_the_tables_settings_paytable_and_returns(make_table):
    table = make_table(name="Play chips", card_count_paytable="play", chip_unit=1, min_bet=10, max_bet=500)
    response = client_of().get(f"/play/tables/{table.pk}/rules/")
    assert response.status_code == 200
    text = response.content.decode()
    assert "Rules of Play chips" in text
    assert "97.8511%" in text and "96.9988%" in text  # Andar 0.9:1 and Bahar 1:1: RULES.md says 97.85% and 97.00%
    assert "429/833" in text  # the first-card side's chance
    assert "from 10 to 500" in text
    assert 'data-spot="count_41_49"' in text and "119:1" in text  # the play paytable
    assert 'data-spot="count_46_49"' not in text


def test_rules_follow_a_no_commission_table(make_table):
    table = make_table(mode="no_commission")
    rules = table_rules(table)
    assert [bet.spot for bet in rules["bets"]] == ["andar", "bahar"]  # no side bets but card count
    andar = rules["bets"][0]
    assert {pay["ratio"] for pay in andar.pays} == {"1:1", "0.25:1"}
    assert andar.rtp == "98.5894"  # RULES.md: 98.59%
    assert len(rules["boxes"]) == 10


def test_private_table_rules_are_404_to_outsiders_and_shown_to_its_players(make_table, alice, bob, supervisor):
    table = private_table(make_table, alice)
    url = f"/play/tables/{table.pk}/rules/"
    assert client_of().get(url).status_code == 404
    assert client_of(bob).get(url).status_code == 404
    assert client_of(alice).get(url).status_code == 200
    assert client_of(supervisor).get(url).status_code == 200
    assert client_of().get("/play/tables/999999/rules/").status_code == 404


def test_worked_examples_pay_what_rules_md_says():
    examples = {ex["number"]: ex for ex in worked_examples()}
    assert (examples[1]["first_side"], examples[1]["winner"], examples[1]["cards_dealt"]) == ("Bahar", "Bahar", 3)
    assert [c["side"] for c in examples[1]["cards"]] == ["bahar", "andar", "bahar"]
    won = lambda n: [(b["stake"], b["spot"], b["winnings"], b["payout"]) for b in examples[n]["bets"]]  # noqa: E731
    assert won(2) == [("10", "Andar", "2.50", "12.50"), ("50", "Andar", "45", "95"), ("20", "First Andar", "300", "320")]
    assert won(3) == [("10", "First 3", "80", "90"), ("5", "Card count 6-10", "15", "20")]
    assert examples[3]["first_three"] == "straight"
    assert won(4) == [("50", "Andar", "45", "95"), ("25", "Card count 6-10", "87", "112"), ("25", "Andar", "22", "47")]
    assert examples[4]["bets"][1]["exact"] == "87.5"
    assert examples[4]["together_won"] == "132"


def test_rules_page_is_translated(make_table):
    table = make_table()
    response = client_of().get(f"/play/tables/{table.pk}/rules/?lang=hi", HTTP_ACCEPT_LANGUAGE="hi")
    assert response.status_code == 200
    assert 'lang="hi"' in response.content.decode()


def test_rules_page_writes_numbers_as_the_language_does(make_table):
    table = make_table(name="Play chips", card_count_paytable="play", chip_unit=1, min_bet=10, max_bet=25000)
    english = client_of().get(f"/play/tables/{table.pk}/rules/?lang=en").content.decode()
    vietnamese = client_of().get(f"/play/tables/{table.pk}/rules/?lang=vi").content.decode()
    assert "97.8511%" in english and "25,000" in english and "0.9:1" in english
    assert "97,8511%" in vietnamese and "25.000" in vietnamese and "0,9:1" in vietnamese
    assert "97.8511" not in vietnamese


# --- the round page ---------------------------------------------------------------------------

def test_round_page_shows_the_deal_and_the_players_own_bets(table, dealer, alice, bob):
    rnd = play_round(table, dealer, bets=[(alice, "andar", "50"), (alice, "count_6_10", "25"), (bob, "bahar", "30")])
    response = client_of(alice).get(f"/rounds/{rnd.pk}/")
    assert response.status_code == 200
    text = response.content.decode()
    assert f"Round {rnd.pk}" in text
    assert 'data-card="KS"' in text and text.index('data-card="AC"') < text.index('data-card="KD"')
    assert "Andar wins" in text
    assert 'data-testid="my-bets"' in text and "6–10 cards" in text  # as the table names the spot
    assert "bob" not in text.split('data-testid="my-bets"')[1]  # only her own bets
    assert 'data-testid="spot-totals"' not in text  # the all-players totals are a supervisor's


def test_round_page_is_404_to_a_player_who_did_not_bet_and_to_the_dealer(table, dealer, alice, bob):
    rnd = play_round(table, dealer, bets=[(alice, "andar", "50")])
    assert client_of(bob).get(f"/rounds/{rnd.pk}/").status_code == 404
    assert client_of(dealer).get(f"/rounds/{rnd.pk}/").status_code == 404
    assert client_of(alice).get("/rounds/999999/").status_code == 404


def test_round_page_asks_an_anonymous_reader_to_log_in(table, dealer, alice):
    rnd = play_round(table, dealer, bets=[(alice, "andar", "50")])
    response = client_of().get(f"/rounds/{rnd.pk}/")
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_supervisor_sees_any_round_with_totals_per_spot_and_the_audit(table, dealer, alice, bob, supervisor):
    rnd = play_round(table, dealer, bets=[(alice, "andar", "50"), (bob, "andar", "30"), (bob, "first_three", "10")])
    response = client_of(supervisor).get(f"/rounds/{rnd.pk}/")
    assert response.status_code == 200
    text = response.content.decode()
    totals = text.split('data-testid="spot-totals"')[1].split("</table>")[0]
    assert totals.index("Andar") < totals.index("First 3") and ">80<" in totals
    assert 'data-testid="audit"' in text


def test_voided_round_page_says_why_and_refunds(table, dealer, alice, supervisor):
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    bet_place(round_id=rnd.pk, player=alice, spot="andar", amount=Decimal("50"), idempotency_key="void-1")
    incident = incident_raise(round_id=rnd.pk, actor=supervisor, kind="equipment", notes="shoe jammed")
    incident_void(incident_id=incident.pk, actor=supervisor, reason="Shoe jammed: cards unreadable")
    text = client_of(alice).get(f"/rounds/{rnd.pk}/").content.decode()
    assert "Shoe jammed: cards unreadable" in text and "refunded" in text.lower()


def test_an_audit_records_form_is_text_on_the_page_markup_escaped_quotes_kept(table, dealer, alice, supervisor):
    """The forms read as JSON (its own quotes: a record is about 60 of them) and what a person typed
    stays text: a void reason with markup in it is never markup."""
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    incident = incident_raise(round_id=rnd.pk, actor=supervisor, kind="equipment", notes="ok")
    incident_void(incident_id=incident.pk, actor=supervisor, reason='<img src=x onerror="alert(1)"> & "more"')
    text = client_of(supervisor).get(f"/rounds/{rnd.pk}/").content.decode()
    forms = [part.split("</code>")[0] for part in text.split('<code class="form">')[1:]]
    assert forms and all(form.startswith('{"action":"') for form in forms)
    voided = next(form for form in forms if '"action":"voided"' in form)
    assert '&lt;img src=x onerror=\\"alert(1)\\"&gt; &amp; \\"more\\"' in voided, voided
    assert "<img" not in text


def test_private_table_round_is_404_to_a_supervisor_free_outsider(make_table, alice, bob, dealer):
    table = private_table(make_table, alice)
    rnd = Round.objects.create(table=table, settings=table.snapshot(), joker="KS", first_side="andar",
                               opened_at="2026-01-01T00:00:00Z", closes_at="2026-01-01T00:00:10Z", status="voided")
    assert client_of(bob).get(f"/rounds/{rnd.pk}/").status_code == 404


def test_the_pages_have_no_inline_script_and_the_player_page_mounts_the_extras(make_table, alice, supervisor):
    table = make_table(virtual_dealer=True)
    assert tick(table_id=table.pk)[0] == "opened"
    rnd = Round.objects.get(table=table)
    bet_place(round_id=rnd.pk, player=alice, spot="andar", amount=Decimal("10"), idempotency_key="policy-1")
    incident = incident_raise(round_id=rnd.pk, actor=supervisor, kind="equipment")
    incident_void(incident_id=incident.pk, actor=supervisor, reason="test")
    extras = render_to_string("partials/play_extras.html", {"table": table, "token": "t0ken"})
    for html in (client_of(alice).get(f"/play/tables/{table.pk}/rules/").content.decode(),
                 client_of(alice).get(f"/rounds/{rnd.pk}/").content.decode(), extras):
        assert not INLINE_SCRIPT.search(html) and not HANDLER.search(html) and not EXTERNAL.search(html)
    assert 'id="fairness"' in extras and 'data-player="1"' in extras and "js/pages/play/extras" in extras
    play = client_of(alice).get(f"/play/tables/{table.pk}/").content.decode()
    assert 'id="play-extras"' in play
    assert 'id="round-proof"' in client_of(alice).get(f"/rounds/{rnd.pk}/").content.decode()


# --- the round's record on its page -----------------------------------------------------------------

def test_the_round_page_renders_the_record_with_its_verified_mark(dealer, supervisor, alice, bob):
    world = build(dealer=dealer, supervisor=supervisor, alice=alice, bob=bob)
    text = client_of(supervisor).get(f"/rounds/{world.settled.pk}/").content.decode()
    assert 'data-testid="verified" data-ok="true"' in text
    assert 'data-testid="round-dealer">dealer<' in text and f"Shift {world.settled.shift_id}, from " in text
    times = text.split('data-testid="card-times"')[1].split("</table>")[0]
    assert times.count("<tr>") == 8 and 'data-card="9D"' in times  # a header and seven cards, the corrected one included
    assert re.search(r'<time datetime="[0-9T:.-]+Z">\d{4}-\d\d-\d\d <wbr>\d\d:\d\d:\d\d\.\d{3} UTC</time>', times)  # its zone named
    incidents = text.split('data-testid="incidents"')[1]
    assert "Misread card" in incidents and "checked on camera 2" in incidents and "corrected from the camera" in incidents
    assert 'data-testid="corrections"' in incidents
    assert "Settlement version 2." in text
    chain = text.split('data-testid="audit"')[1].split("</table>")[0]
    assert chain.count('class="own"') == 17 and chain.count('class="other"') == 1
    assert 'data-action="resettled"' in chain and "Its form" in chain
    assert f'href="/api/rounds/{world.settled.pk}/record/"' in text

    # A player who bet reads the same record beside their own bets; the all-players figures stay the supervisors'.
    mine = client_of(bob).get(f"/rounds/{world.settled.pk}/").content.decode()
    assert 'data-testid="verified" data-ok="true"' in mine and 'data-testid="my-bets"' in mine
    assert 'data-testid="card-times"' in mine and 'data-testid="spot-totals"' not in mine

    voided = client_of(supervisor).get(f"/rounds/{world.voided.pk}/").content.decode()
    assert 'data-testid="void">Voided by supervisor at ' in voided and "1 bet refunded, 20 in all." in voided


def test_the_round_pages_mark_says_when_a_row_no_longer_agrees_with_the_chain(dealer, supervisor, alice, bob):
    world = build(dealer=dealer, supervisor=supervisor, alice=alice, bob=bob)
    with connection.cursor() as cur:
        cur.execute("UPDATE tables_dealtcard SET card = 'JC' WHERE round_id = %s AND position = 5", [world.settled.pk])
    text = client_of(supervisor).get(f"/rounds/{world.settled.pk}/").content.decode()
    assert 'data-testid="verified" data-ok="false"' in text
    assert "card 5: the record shows JC" in text


def test_the_round_pages_chain_shows_a_run_of_other_records_as_one_line(table, dealer, supervisor, alice):
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    bet_place(round_id=rnd.pk, player=alice, spot="andar", amount=Decimal("10"), idempotency_key="run-1")
    for n in range(3):  # the table's change log moves on while the round takes bets
        table_update(table_id=table.pk, changes={"shift_minutes": 40 + n}, actor=supervisor, source="api")
    round_close_betting(round_id=rnd.pk, actor=dealer)
    card_deal(round_id=rnd.pk, card="KD", actor=dealer)
    chain = client_of(alice).get(f"/rounds/{rnd.pk}/").content.decode().split('data-testid="audit"')[1].split("</table>")[0]
    assert chain.count('class="other"') == 1 and "3 other records of this table" in chain
    assert chain.count('class="own"') == 4  # opened, betting closed, the card, finished


@pytest.mark.parametrize("lang", [code for code, _name in settings.LANGUAGES])
def test_the_round_page_names_spots_with_the_player_pages_words(lang):
    """The round page (web/rules.py table_spot_name, django.po) and the player page (words.js
    spotName, djangojs.po) say a spot the same way in every language."""
    mo = Path(settings.BASE_DIR) / "locale" / lang / "LC_MESSAGES" / "djangojs.mo"
    js = gettext.GNUTranslations(mo.open("rb")) if mo.exists() else gettext.NullTranslations()
    with translation.override(lang):
        assert table_spot_name("first_andar") == js.gettext("1st Andar")
        assert table_spot_name("first_bahar") == js.gettext("1st Bahar")
        assert table_spot_name("first_three") == js.gettext("First 3")
        assert table_spot_name("count_6_10") == js.gettext("%(low)s–%(high)s cards") % {"low": 6, "high": 10}
        assert table_spot_name("andar") == js.pgettext("side", "Andar")
