"""The round page and the public round log, in a real browser: a settled round not yet in the log
says so; once the log's publisher has run, the page lists the round's leaves (the settlement, a
re-settlement after a correction) and the browser checks with Web Crypto that each inclusion proof
leads to the checkpoint's root and that the checkpoint's Ed25519 signature verifies with the
studio's key. A proof with one byte flipped on its way to the page fails the check; a browser
without Ed25519 says the signature was not checked. axe on each state; screenshots at a desktop's
and a phone's size in test-artifacts/<test name>/."""
from __future__ import annotations

import base64
import json
import re

import pytest
from playwright.sync_api import expect

from incidents.services import card_replace, incident_raise, incident_void
from integrity import publiclog
from tests.bets.flow import close, deal, open_round, placed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROUND_PAGE = "**/rounds/*/"  # the page, which carries the round's log (#round-log)
LOG_JSON = re.compile(r'(<script id="round-log" type="application/json">)(.*?)(</script>)', re.S)


def settled_round(dealer_api, alice_api, table) -> int:
    """Alice bets on Andar; joker KS, then 2C to Andar and KD to Bahar: Bahar wins on card 2."""
    round_id = open_round(dealer_api, table)
    placed(alice_api, round_id, "andar", 50)
    close(dealer_api, round_id)
    deal(dealer_api, round_id, ["2C", "KD"])
    return round_id


def flip_a_proof_byte(route) -> None:
    """The round page as the studio serves it, with one bit of the first leaf's first proof hash
    flipped in the log it carries."""
    response = route.fetch()
    page = response.text()

    def flipped(match) -> str:
        log = json.loads(match.group(2))
        proof = bytearray(base64.b64decode(log["entries"][0]["proof"][0]))
        proof[5] ^= 0x01
        log["entries"][0]["proof"][0] = base64.b64encode(bytes(proof)).decode()
        return match.group(1) + json.dumps(log) + match.group(3)

    assert LOG_JSON.search(page), "the page carries no log"
    route.fulfill(response=response, body=LOG_JSON.sub(flipped, page))


NO_ED25519 = """(() => {
  const importKey = crypto.subtle.importKey.bind(crypto.subtle);
  crypto.subtle.importKey = (format, key, algorithm, ...rest) =>
    (algorithm && (algorithm.name || algorithm) === "Ed25519")
      ? Promise.reject(new DOMException("Unrecognized algorithm name", "NotSupportedError"))
      : importKey(format, key, algorithm, ...rest);
})();"""


def test_the_round_page_checks_the_rounds_leaves_in_the_public_log(page, phone_page, live_server, dealer_api, alice_api,
                                                                    supervisor, make_table, login, shot, accessible):
    table = make_table()
    round_id = settled_round(dealer_api, alice_api, table)
    url = f"{live_server.url}/rounds/{round_id}/"
    login(page, live_server.url, "alice")

    page.goto(url)
    log = page.get_by_test_id("public-log")
    expect(log.get_by_role("heading")).to_have_text("In the public log")
    expect(page.get_by_test_id("log-pending")).to_have_text(
        "This round is not in the public log yet: it is added within seconds of its settlement.")
    accessible(page, "the round page before the round is in the log")
    shot(page, "not-yet")

    publiclog.log_publish()
    incident_raise(round_id=round_id, actor=supervisor, kind="settlement")
    card_replace(round_id=round_id, position=2, card="KC", actor=supervisor)  # the match still: settled again, version 2
    page.reload()
    expect(page.get_by_test_id("log-behind")).to_be_visible()
    expect(page.get_by_test_id("log-result")).to_have_attribute("data-ok", "true")

    publiclog.log_publish()
    page.reload()
    result = page.get_by_test_id("log-result")
    expect(result).to_have_attribute("data-ok", "true")
    expect(result).to_have_attribute("data-signature", "ok")
    expect(result).to_contain_text("Checked in your browser: each of the 2 leaves' inclusion proofs leads to the root of the "
                                   "signed checkpoint (tree size 2, SHA-256); the checkpoint's Ed25519 signature verifies with the "
                                   "studio's key tests.andar-bahar.studio/log.")
    entries = page.get_by_test_id("log-entries").locator("li")
    expect(entries).to_have_count(2)
    expect(entries.locator(".what")).to_have_text(["Leaf 0: the settlement", "Leaf 1: a re-settlement (version 2)"])
    expect(entries.locator(".outcome")).to_have_text(["Bahar won, 2 cards dealt"] * 2)
    for i in range(2):
        expect(entries.nth(i)).to_have_attribute("data-ok", "true")
        expect(entries.nth(i).locator("[data-check]")).to_have_text("✓ leads to the root")
    expect(page.get_by_test_id("log-size")).to_have_text("2")
    expect(page.get_by_test_id("log-key")).to_have_text("tests.andar-bahar.studio/log")
    expect(page.get_by_test_id("log-behind")).to_have_count(0)
    links = {a.get_attribute("href") for a in log.locator("a").all()}
    assert {"/api/log/checkpoint/", "/api/log/key/", "/api/log/entries/0/", "/api/log/proof/inclusion/?index=1&size=2"} <= links
    proof = page.request.get(live_server.url + "/api/log/proof/inclusion/?index=1&size=2")  # the link answers JSON
    assert proof.ok and len(proof.json()["hashes"]) == 1
    accessible(page, "the round page checked in the public log")
    shot(page, "checked")
    assert page.js_errors == []

    login(phone_page, live_server.url, "alice")
    phone_page.goto(url)
    expect(phone_page.get_by_test_id("log-result")).to_have_attribute("data-ok", "true")
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing widens the page sideways
    phone_page.get_by_test_id("public-log").scroll_into_view_if_needed()
    shot(phone_page, "phone-checked")
    shot(phone_page, "phone-checked-screen", full_page=False)
    accessible(phone_page, "the round page checked in the public log, on a phone")

    page.route(ROUND_PAGE, flip_a_proof_byte)
    page.reload()
    expect(result).to_have_attribute("data-ok", "false")
    expect(result).to_contain_text("Check failed")
    expect(result).to_contain_text("Leaf 0: its inclusion proof does not lead to the checkpoint's root.")
    expect(entries.nth(0)).to_have_attribute("data-ok", "false")
    expect(entries.nth(0).locator("[data-check]")).to_have_text("✗ does not lead to the root")
    expect(entries.nth(1)).to_have_attribute("data-ok", "true")
    accessible(page, "the round page whose proof was tampered with")
    shot(page, "tampered")
    page.unroute(ROUND_PAGE)
    assert page.js_errors == []


def test_a_voided_round_in_a_browser_without_ed25519(page, live_server, dealer_api, alice_api, supervisor, make_table,
                                                     login, shot):
    """A round settled, then voided: two leaves, the settlement and the void. A browser whose Web
    Crypto has no Ed25519 checks the proofs and says the signature was not checked; the same page
    in Japanese."""
    round_id = settled_round(dealer_api, alice_api, make_table())
    incident = incident_raise(round_id=round_id, actor=supervisor, kind="procedure")
    incident_void(incident_id=incident.pk, actor=supervisor, reason="shoe fault")
    publiclog.log_publish()
    page.add_init_script(NO_ED25519)
    login(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/rounds/{round_id}/")
    entries = page.get_by_test_id("log-entries").locator("li")
    expect(entries.locator(".what")).to_have_text(["Leaf 0: the settlement", "Leaf 1: the void"])
    expect(entries.locator(".outcome")).to_have_text(["Bahar won, 2 cards dealt", "voided after 2 cards"])
    result = page.get_by_test_id("log-result")
    expect(result).to_have_attribute("data-ok", "true")
    expect(result).to_have_attribute("data-signature", "unsupported")
    expect(result).to_contain_text("Partly checked in your browser: each of the 2 leaves' inclusion proofs leads to the root of "
                                   "the signed checkpoint (tree size 2, SHA-256); the checkpoint's signature was not checked: "
                                   "this browser cannot verify Ed25519 signatures")
    shot(page, "no-ed25519")

    page.goto(f"{live_server.url}/rounds/{round_id}/?lang=ja")
    expect(page.get_by_test_id("public-log").get_by_role("heading")).to_have_text("公開ログに記録")
    expect(entries.locator(".what")).to_have_text(["リーフ 0：精算", "リーフ 1：無効"])
    expect(result).to_contain_text("お使いのブラウザで一部確認済み")
    expect(result).to_contain_text("Ed25519署名を検証できません")
    shot(page, "no-ed25519-ja")
    assert page.js_errors == []
