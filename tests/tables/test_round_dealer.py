"""Who drives a round (tables.shifts.require_round_dealer): every action a dealer may take on a
round, through the API, walked as a dealer of another table (refused with 409 `dealer_on_shift`,
nothing changed: no card, no event, no incident or note, the status as it was) and as the rightful
dealer (done). The dealer on shift at the round's table acts, and so does the round's own dealer
while no one is on shift there; signing in hands a table's rounds over; supervisors act anywhere;
the clock closes betting whoever is on shift."""
from datetime import timedelta

import pytest
from django.urls import URLResolver, get_resolver
from django.utils import timezone
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from incidents import services as incidents
from tables import services
from tables.models import DealtCard, Incident, Round, RoundEvent, Table
from tables.shifts import require_round_dealer
from studio.errors import ApplicationError

from ..conftest import client_for, make_user

pytestmark = pytest.mark.django_db

REFUSED = (409, "dealer_on_shift")


@pytest.fixture
def dealer2(db):
    return make_user("dealer2", "dealer")


@pytest.fixture
def dealer2_api(dealer2):
    return client_for(dealer2)


@pytest.fixture
def tables(make_table):
    """Table 2, where `dealer` deals, and table 3, where dealer2 is on shift."""
    return make_table(name="Two"), make_table(name="Three")


def sign_in(api, table):
    response = api.post(f"/api/tables/{table.pk}/shifts/")
    assert response.status_code in (200, 201), response.content
    return response.json()


def opened(api, table, joker="KS") -> int:
    response = api.post(f"/api/tables/{table.pk}/rounds/", {"joker": joker}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def state(round_id: int, table_id: int) -> dict:
    """Everything an action on the round could change."""
    return {
        "round": Round.objects.filter(pk=round_id).values(
            "status", "closed_at", "closes_at", "cards_dealt", "winner", "resume_status", "betting_left_ms").get(),
        "rounds": Round.objects.filter(table_id=table_id).count(),
        "cards": list(DealtCard.objects.filter(round_id=round_id).order_by("position").values_list("position", "card")),
        "events": RoundEvent.objects.filter(round_id=round_id).count(),
        "incidents": list(Incident.objects.filter(round_id=round_id).order_by("id").values_list("id", "status", "notes")),
        "seq": Table.objects.values_list("stream_seq", flat=True).get(pk=table_id),
    }


# Every action a dealer may call on a round, in the order a round goes through them: (name, how
# to call it on the round, the status the rightful dealer's call answers).
def _open(api, ctx):
    return api.post(f"/api/tables/{ctx['table']}/rounds/", {"joker": "QS"}, format="json")


def _close(api, ctx):
    return api.post(f"/api/rounds/{ctx['round']}/close-betting/")


def _deal(api, ctx):
    return api.post(f"/api/rounds/{ctx['round']}/cards/", {"card": "2C"}, format="json")


def _raise(api, ctx):
    return api.post(f"/api/rounds/{ctx['round']}/incidents/", {"kind": "misread", "notes": "bent card"}, format="json")


def _note(api, ctx):
    return api.post(f"/api/incidents/{ctx['incident']}/notes/", {"text": "camera 2 shows it"}, format="json")


DEALER_ACTIONS = [("close betting", _close, 200), ("deal a card", _deal, 201), ("raise an incident", _raise, 201),
                  ("add a note to the incident", _note, 200)]
# The writes a dealer may call as a dealer (a logged-in user without the role may not) that act on
# a round or its incident: DEALER_ACTIONS and opening (route name, method).
WALKED = {("table-rounds", "post"), ("round-close-betting", "post"), ("round-cards", "post"), ("round-incidents", "post"),
          ("incident-notes", "post")}
# The dealer's other writes act on no round: signing in to a table and out of a shift, and a new shoe at the
# table (the same rule: the dealer on shift there; tests/tables/test_shoes.py).
NOT_ON_A_ROUND = {("table-shifts", "post"), ("shift-end", "post"), ("table-shoes", "post")}


def test_a_dealer_of_another_table_is_refused_every_action_and_the_rightful_dealer_does_each(
        dealer, outsider, dealer_api, dealer2_api, tables):
    # Every write that needs the dealer's role and acts on a round is walked (a new one fails here
    # until the walk takes it; the writes any logged-in user may call, a match's or a bet's, are not the dealer's).
    assert _writes(dealer) - _writes(outsider) - NOT_ON_A_ROUND == WALKED
    two, three = tables
    sign_in(dealer2_api, three)
    sign_in(dealer_api, two)
    refused = _open(dealer2_api, {"table": two.pk})  # opening: the same rule, the new round as the opener's own
    assert (refused.status_code, refused.json()["code"], refused.json()["dealer"]) == (*REFUSED, "dealer")
    assert refused.json()["round_dealer"] is None  # no round yet
    assert not Round.objects.exists() and not RoundEvent.objects.exists()
    ctx = {"table": two.pk, "round": opened(dealer_api, two)}
    for name, action, done in DEALER_ACTIONS:
        before = state(ctx["round"], two.pk)
        refused = action(dealer2_api, ctx)
        assert (refused.status_code, refused.json()["code"]) == REFUSED, (name, refused.content)
        assert refused.json()["dealer"] == "dealer" and refused.json()["round_dealer"] == "dealer", name
        assert "dealer is on shift" in refused.json()["message"], name
        assert state(ctx["round"], two.pk) == before, name  # nothing changed: no card, no event, the same status
        response = action(dealer_api, ctx)
        assert response.status_code == done, (name, response.content)
        assert state(ctx["round"], two.pk) != before, name
        if name == "raise an incident":
            ctx["incident"] = response.json()["id"]
    assert Round.objects.get(pk=ctx["round"]).status == "paused" and DealtCard.objects.filter(round_id=ctx["round"]).count() == 1
    assert Round.objects.filter(table=two).count() == 1


def test_corrections_resumes_and_voids_are_a_supervisors_in_the_api_and_in_the_services(
        dealer, dealer2, dealer_api, dealer2_api, supervisor_api, tables):
    """Correcting, resuming and voiding are supervisors' (403 for any dealer), in the API and in the
    services themselves, so a dealer reaching them another way (the admin, a shell) is refused too."""
    two, three = tables
    sign_in(dealer2_api, three)
    ctx = {"table": two.pk, "round": opened(dealer_api, two)}
    assert _close(dealer_api, ctx).status_code == 200 and _deal(dealer_api, ctx).status_code == 201
    assert _raise(dealer_api, ctx).status_code == 201
    before = state(ctx["round"], two.pk)
    for api in (dealer2_api, dealer_api):
        assert api.post(f"/api/rounds/{ctx['round']}/corrections/replace/", {"position": 1, "card": "3C"},
                        format="json").status_code == 403
        assert api.post(f"/api/rounds/{ctx['round']}/corrections/remove-last/").status_code == 403
    incident = Incident.objects.get(round_id=ctx["round"])
    for actor in (dealer2, dealer):
        for act in (lambda: incidents.card_replace(round_id=ctx["round"], position=1, card="3C", actor=actor),
                    lambda: incidents.card_remove_last(round_id=ctx["round"], actor=actor),
                    lambda: incidents.incident_resume(incident_id=incident.pk, actor=actor),
                    lambda: incidents.incident_void(incident_id=incident.pk, actor=actor, reason="a dealer's void")):
            with pytest.raises(ApplicationError) as exc:
                act()
            assert (exc.value.status, exc.value.code) == (403, "forbidden")
    assert state(ctx["round"], two.pk) == before
    replaced = supervisor_api.post(f"/api/rounds/{ctx['round']}/corrections/replace/", {"position": 1, "card": "3C"}, format="json")
    assert replaced.status_code == 200, replaced.content


def test_with_no_one_on_shift_the_rounds_own_dealer_finishes_it_and_no_other_dealer_may(
        dealer_api, dealer2_api, tables, make_table):
    two, three = tables
    ctx = {"table": two.pk, "round": opened(dealer_api, two)}
    opened(dealer_api, make_table())  # the dealer moves on: no one is on shift at table 2 now
    refused = _close(dealer2_api, ctx)
    assert (refused.status_code, refused.json()["code"]) == REFUSED
    assert (refused.json()["dealer"], refused.json()["round_dealer"]) == (None, "dealer")
    assert "No one is on shift" in refused.json()["message"]
    assert Round.objects.get(pk=ctx["round"]).status == "betting"
    assert _close(dealer_api, ctx).status_code == 200 and _deal(dealer_api, ctx).status_code == 201


def test_signing_in_takes_the_tables_round_over_and_the_clock_closes_betting_whoever_is_on_shift(
        dealer_api, dealer2_api, tables):
    two, _ = tables
    ctx = {"table": two.pk, "round": opened(dealer_api, two)}
    sign_in(dealer2_api, two)  # the next dealer takes the table, and the round running there
    refused = _close(dealer_api, ctx)
    assert (refused.status_code, refused.json()["code"], refused.json()["dealer"]) == (*REFUSED, "dealer2")
    Round.objects.filter(pk=ctx["round"]).update(closes_at=timezone.now() - timedelta(seconds=1))
    assert services.close_expired_betting() == 1  # the sweep
    assert Round.objects.get(pk=ctx["round"]).status == "dealing"
    refused = _deal(dealer_api, ctx)
    assert (refused.status_code, refused.json()["code"], refused.json()["dealer"]) == (*REFUSED, "dealer2")
    assert not DealtCard.objects.filter(round_id=ctx["round"]).exists()
    assert _deal(dealer2_api, ctx).status_code == 201


def test_a_supervisor_drives_a_round_where_another_dealer_may_not(dealer_api, dealer2_api, supervisor_api, tables):
    two, three = tables
    sign_in(dealer2_api, three)
    ctx = {"table": two.pk, "round": opened(dealer_api, two)}
    assert (_close(dealer2_api, ctx).status_code, Round.objects.get(pk=ctx["round"]).status) == (409, "betting")
    for name, action, done in DEALER_ACTIONS:
        response = action(supervisor_api, ctx)
        assert response.status_code == done, (name, response.content)
        if name == "raise an incident":
            ctx["incident"] = response.json()["id"]


def test_a_person_acting_on_a_round_is_named(dealer, table):
    rnd = services.round_open(table_id=table.pk, joker="KS", dealer=dealer)
    with pytest.raises(ApplicationError) as exc:
        services.round_close_betting(round_id=rnd.pk, actor=None)
    assert (exc.value.status, Round.objects.get(pk=rnd.pk).status) == (403, "betting")
    with pytest.raises(ApplicationError):
        require_round_dealer(rnd=rnd, actor=None, doing="deal")


def _views(patterns=None):
    """(name, view) of every URL pattern."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            yield from _views(entry.url_patterns)
        else:
            yield entry.name, entry.callback


def _writes(user) -> set[tuple[str, str]]:
    """Every API route and write method whose view's permissions `user` passes."""
    factory, found = APIRequestFactory(), set()
    for name, callback in _views():
        cls = getattr(callback, "cls", None)
        if cls is None or not issubclass(cls, APIView):
            continue
        for method in ("post", "put", "patch", "delete"):
            if not hasattr(cls, method) or method not in cls.http_method_names:
                continue
            request = Request(factory.generic(method.upper(), "/"))
            request.user = user
            view = cls()
            view.request, view.args, view.kwargs, view.format_kwarg = request, (), {}, None
            if all(permission.has_permission(request, view) for permission in view.get_permissions()):
                found.add((name, method))
    return found
