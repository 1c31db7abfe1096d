"""Failed logins are throttled per account AND address, on the login page and the token endpoint:
after LOGIN_FAILURE_LIMIT wrong passwords the right one is refused (429, Retry-After) from that
address only; a supervisor sees and clears lockouts; a successful login forgets the failures."""
import pytest
from django.conf import settings as dj_settings
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import AccessChange

pytestmark = pytest.mark.django_db

HERE, ELSEWHERE = "10.0.0.7", "10.0.0.99"


def api_login(password, address=HERE, username="dealer"):
    return APIClient(REMOTE_ADDR=address).post("/api/auth/token/", {"username": username, "password": password}, format="json")


def page_login(password, address=HERE, username="dealer"):
    return Client(REMOTE_ADDR=address).post("/login/", {"username": username, "password": password})


def limit() -> int:
    return dj_settings.AXES_FAILURE_LIMIT


def test_the_api_refuses_the_right_password_after_the_limit_with_429_and_retry_after(dealer):
    answers = [api_login("wrong").status_code for _ in range(limit() - 1)]
    assert answers == [400] * (limit() - 1)
    assert api_login("wrong").status_code == 429  # the limit-th failure locks the pair
    locked = api_login("pw-dealer")
    assert locked.status_code == 429
    assert int(locked["Retry-After"]) == int(dj_settings.AXES_COOLOFF_TIME.total_seconds())
    assert locked.json()["code"] == "too_many_attempts" and "token" not in locked.json()
    assert api_login("pw-dealer", address=ELSEWHERE).status_code == 200  # nobody locks a dealer out from elsewhere


def test_the_login_page_refuses_the_right_password_after_the_limit_and_says_why(dealer):
    for _ in range(limit()):
        page_login("wrong")
    locked = page_login("pw-dealer")
    assert locked.status_code == 429 and int(locked["Retry-After"]) > 0
    assert b"Too many failed logins" in locked.content and "_auth_user_id" not in locked.wsgi_request.session
    assert page_login("pw-dealer", address=ELSEWHERE).status_code == 302


def test_the_page_and_the_api_count_the_same_failures(dealer):
    for _ in range(limit() - 1):
        page_login("wrong")
    assert api_login("wrong").status_code == 429
    assert page_login("pw-dealer").status_code == 429


def test_a_successful_login_does_not_count_and_forgets_earlier_failures(dealer):
    for _ in range(3):
        for _ in range(limit() - 1):
            assert api_login("wrong").status_code == 400
        assert api_login("pw-dealer").status_code == 200
        assert page_login("pw-dealer").status_code == 302


def test_a_supervisor_sees_and_clears_a_lockout_and_the_right_password_works_again(dealer, supervisor, supervisor_api):
    for _ in range(limit()):
        api_login("wrong")
    api_login("wrong", address=ELSEWHERE)
    listing = supervisor_api.get("/api/lockouts/")
    assert listing.status_code == 200
    rows = {(r["username"], r["ip_address"]): r for r in listing.json()}
    assert rows[("dealer", HERE)]["locked"] and rows[("dealer", HERE)]["failures"] == limit()
    assert rows[("dealer", HERE)]["retry_after"] > 0
    assert not rows[("dealer", ELSEWHERE)]["locked"]

    cleared = supervisor_api.post("/api/lockouts/clear/", {"username": "dealer"}, format="json")
    assert cleared.status_code == 200 and cleared.json()["cleared"] == 2
    assert api_login("pw-dealer").status_code == 200
    record = AccessChange.objects.get(field="lockout")
    assert (record.actor, record.user, record.new) == (supervisor, dealer, "cleared")
    assert supervisor_api.get("/api/lockouts/").json() == []


def test_clearing_one_address_keeps_the_others(dealer, supervisor_api):
    for address in (HERE, ELSEWHERE):
        for _ in range(limit()):
            api_login("wrong", address=address)
    assert supervisor_api.post("/api/lockouts/clear/", {"username": "dealer", "ip_address": HERE}, format="json").json() == {"cleared": 1}
    assert api_login("pw-dealer").status_code == 200
    assert api_login("pw-dealer", address=ELSEWHERE).status_code == 429


@pytest.mark.parametrize("who, status", [("dealer_api", 403), ("alice_api", 403), ("anon_api", 401)])
def test_only_supervisors_see_or_clear_lockouts(who, status, request):
    api = request.getfixturevalue(who)
    assert api.get("/api/lockouts/").status_code == status
    assert api.post("/api/lockouts/clear/", {"username": "dealer"}, format="json").status_code == status


def test_clearing_needs_a_username(supervisor_api):
    response = supervisor_api.post("/api/lockouts/clear/", {}, format="json")
    assert response.status_code == 400 and "username" in response.json()["fields"]


def test_the_limit_and_the_cool_off_come_from_the_settings(dealer, settings):
    settings.AXES_FAILURE_LIMIT = 2
    assert api_login("wrong").status_code == 400
    assert api_login("wrong").status_code == 429
    assert api_login("pw-dealer").status_code == 429


def test_the_environment_sets_the_limits_and_the_token_lifetime(monkeypatch):
    from datetime import timedelta

    from django.core.exceptions import ImproperlyConfigured

    from tests.conftest import import_settings_fresh

    module = import_settings_fresh(monkeypatch, LOGIN_FAILURE_LIMIT="7", LOGIN_COOLOFF="120", TOKEN_TTL="3600")
    assert (module.AXES_FAILURE_LIMIT, module.AXES_COOLOFF_TIME, module.TOKEN_TTL) == (7, timedelta(seconds=120), 3600)
    assert module.AXES_LOCKOUT_PARAMETERS == [["username", "ip_address"]]
    for name in ("LOGIN_FAILURE_LIMIT", "TOKEN_TTL"):
        with pytest.raises(ImproperlyConfigured, match=name):
            import_settings_fresh(monkeypatch, **{name: "0"})


def test_the_admin_login_is_throttled_too(supervisor):
    def admin_login(password):
        return Client(REMOTE_ADDR=HERE).post("/admin/login/?next=/admin/", {"username": "supervisor", "password": password})

    for _ in range(limit()):
        admin_login("wrong")
    locked = admin_login("pw-supervisor")
    assert locked.status_code == 429 and "Retry-After" in locked
    assert "_auth_user_id" not in locked.wsgi_request.session


def test_behind_a_proxy_the_lockout_keys_on_the_address_the_proxy_saw(dealer, settings):
    settings.TRUSTED_PROXY_COUNT = 1

    def via_proxy(password, forwarded):
        return APIClient(REMOTE_ADDR="192.0.2.1", HTTP_X_FORWARDED_FOR=forwarded).post(
            "/api/auth/token/", {"username": "dealer", "password": password}, format="json")

    for n in range(limit()):
        via_proxy("wrong", f"198.51.100.{n}, {HERE}")  # what the client writes itself does not count
    assert via_proxy("pw-dealer", HERE).status_code == 429
    assert via_proxy("pw-dealer", ELSEWHERE).status_code == 200  # the dealer's own address, through the same proxy
    assert via_proxy("pw-dealer", "not-an-address").status_code == 200  # the proxy's own address, not a 500


def test_an_oversized_login_is_a_field_error_and_no_hashing_work(anon_api, dealer):
    for body, field in (({"username": "dealer", "password": "x" * 5000}, "password"), ({"username": "d" * 200, "password": "pw"}, "username")):
        response = anon_api.post("/api/auth/token/", body, format="json")
        assert response.status_code == 400 and field in response.json()["fields"], response.content
