"""The supervisors' operators page in a real Chromium, on a studio monitor and on a phone: the
operators with their pending and stuck counts, the alert, the transactions with the stuck first, the
filters by link and by keyboard, the wide tables scrolled inside their own region on a phone (the
page itself never scrolls sideways), and axe on each.

Screenshots land in test-artifacts/<test name>/."""
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from accounts.operators import operator_player, operator_set
from bets.models import WalletTransaction
from tables.services import round_open

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MONITOR = {"width": 1920, "height": 1080}


def expect(locator):
    from playwright.sync_api import expect as pw_expect

    return pw_expect(locator)


@pytest.fixture
def transactions(settings, make_table, dealer):
    """Two operators; acme has a rollback its wallet keeps refusing (stuck), a credit in retry and an
    acknowledged credit; the internal one has none."""
    settings.SEAMLESS_ALERT_AFTER = 60
    acme = operator_set(code="acme", name="Acme Gaming", wallet="seamless", wallet_url="http://127.0.0.1:9/wallet",
                        secret="s3cret-s3cret-s3cret", currency="INR")[0]
    operator_set(code="house", name="Studio lobby", wallet="internal", currency="INR")
    player = operator_player(operator=acme, player_id="p-1001", display_name="Priya")
    rnd = round_open(table_id=make_table(name="Salon 3", currency="INR").pk, joker="KS", dealer=dealer)
    common = {"operator": acme, "player": player, "currency": "INR", "round": rnd, "body": {"player_id": "p-1001"}}
    WalletTransaction.objects.create(transaction_id="credit-1-ok", kind="credit", status="ok", amount=Decimal("190"), attempts=1, **common)
    WalletTransaction.objects.create(transaction_id="credit-2-retry", kind="credit", status="pending", amount=Decimal("95"), attempts=2, settlement_version=1,
                                     last_error="HTTP 503 from the wallet", **common)
    stuck = WalletTransaction.objects.create(transaction_id="rollback-3-stuck", kind="rollback", status="pending", amount=Decimal("100"),
                                             attempts=9, last_error="insufficient_funds: the player spent it", **common)
    WalletTransaction.objects.filter(pk=stuck.pk).update(created_at=timezone.now() - timedelta(minutes=10))
    return rnd


def test_the_operators_page_on_a_monitor_and_a_phone(page, phone_page, live_server, login, shot, accessible, supervisor, transactions):
    page.set_viewport_size(MONITOR)
    login(page, live_server.url, "supervisor")
    page.goto(live_server.url + "/supervisor/operators/")
    expect(page.get_by_role("heading", name="Operators")).to_be_visible()
    expect(page.get_by_test_id("wallet-alert")).to_contain_text("1 wallet transaction is unacknowledged for too long.")
    operators = page.get_by_test_id("operators").locator("tbody tr")
    expect(operators).to_have_count(2)
    expect(operators.filter(has_text="acme")).to_contain_text("Acme Gaming")
    rows = page.get_by_test_id("wallet-transactions").locator("tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.first).to_contain_text("rollback-3-stuck")  # the stuck first, then the pending, then the newest
    expect(rows.first).to_contain_text("stuck")
    expect(rows.nth(1)).to_contain_text("credit-2-retry")
    expect(rows.nth(2)).to_contain_text("credit-1-ok")
    accessible(page, "the operators page on a monitor")
    shot(page, "operators-1920x1080")

    only = page.get_by_role("link", name="Only the unacknowledged")
    only.focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(f"{live_server.url}/supervisor/operators/?status=pending")
    expect(rows).to_have_count(2)
    page.get_by_role("link", name="acme").click()
    expect(page.get_by_role("heading", name="Wallet transactions · acme")).to_be_visible()
    expect(rows).to_have_count(3)
    assert page.js_errors == [] and page.csp_violations == []

    login(phone_page, live_server.url, "supervisor")
    phone_page.goto(live_server.url + "/supervisor/operators/")
    expect(phone_page.get_by_test_id("wallet-alert")).to_be_visible()
    assert phone_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")  # only the tables' regions scroll
    region = phone_page.get_by_role("region", name="Wallet transactions")
    assert region.evaluate("el => el.scrollWidth > el.clientWidth")  # nine columns: the region scrolls, not the page
    region.focus()
    phone_page.keyboard.press("ArrowRight")  # a scrolled region is reachable and scrolls by keyboard
    expect(region).to_be_focused()
    accessible(phone_page, "the operators page on a phone")
    shot(phone_page, "operators-phone")
    phone_page.get_by_test_id("wallet-transactions").scroll_into_view_if_needed()
    shot(phone_page, "operators-phone-transactions", full_page=False)
    assert phone_page.js_errors == [] and phone_page.csp_violations == []
