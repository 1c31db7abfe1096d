"""The server-rendered pages. They hold no rules: the browser talks to the same API as anyone.
Every page is sent with Cache-Control: no-store (never_cache): what it says depends on the reader,
their language (web/language.py) and, on most, their token."""
import base64
import json
from datetime import datetime
from decimal import Decimal

from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import Http404, HttpResponseForbidden, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache

from accounts.operators import launch_code_redeem
from accounts.tokens import page_token
from bets.history import my_rounds_detail
from bets.models import Bet, WalletTransaction
from bets.selectors import operators_overview, wallet_transactions
from integrity.record import record_check, round_record
from integrity.serializers import RoundRecordSerializer
from matches.services import START_CHIPS, match_join
from studio.errors import ApplicationError, NotFound, error_response
from studio.roles import DEALER, PLAYER, SUPERVISOR, has_role, roles_of
from studio.times import utc_ms
from tables.access import match_or_404, round_or_404, visible_tables, with_driver
from tables.models import Round
from tables.selectors import round_detail

from .rules import (
    BET_STATUS_NAMES, CORRECTION_NAMES, EVENT_NAMES, INCIDENT_KIND_NAMES, INCIDENT_STATUS_NAMES, settings_rules, side_name, table_spot_name,
    table_rules, times,
)

def not_found(request, exception=None):
    """The studio's own 404 (handler404, and web.middleware.studio_not_found when DEBUG would show
    Django's page): a page in the site's look and the page's language; an API path keeps its JSON 404."""
    if request.path.startswith("/api/"):
        return error_response("not_found", "No such API endpoint or object.", 404)
    response = render(request, "404.html", status=404)
    response.studio_page = True
    return response


def favicon(request):
    """/favicon.ico, which browsers ask for by themselves: the studio's icon (a static file)."""
    return redirect(static("img/favicon.svg"))


@never_cache
def home(request):
    """/: a supervisor's floor, a dealer's console; everyone else (players, visitors) the lobby."""
    roles = roles_of(request.user) if request.user.is_authenticated else set()
    if SUPERVISOR in roles:
        return redirect("supervisor")
    if DEALER in roles:
        return redirect("console")
    return lobby(request)


@never_cache
def lobby(request):
    """/play/: every table the visitor may see, live (tables/lobby.py, over ws/lobby/); anyone may
    watch the public tables, a player also sees the private tables of their matches."""
    can_bet = request.user.is_authenticated and has_role(request.user, PLAYER)
    return render(request, "lobby.html", {"can_bet": can_bet})


def _token(request) -> str:
    """The browser session's own page token (revoked when it logs out). A page that embeds it is
    sent with Cache-Control: no-store (never_cache): no cache keeps a copy of the token."""
    return page_token(request)


@never_cache
@login_required
def console(request):
    if not has_role(request.user, DEALER, SUPERVISOR):
        return HttpResponseForbidden(render(request, "forbidden.html", {"what": _("the dealer console")}).content)
    # Only the tables a person deals: the virtual dealer's and the matches' tables are not listed.
    tables = with_driver(visible_tables(request.user)).filter(virtual_dealer=False, has_match=False)
    return render(request, "console.html", {"tables": tables, "token": _token(request)})


@never_cache
@login_required
def supervisor(request):
    if not has_role(request.user, SUPERVISOR):
        return HttpResponseForbidden(render(request, "forbidden.html", {"what": _("the supervisor console")}).content)
    return render(request, "supervisor.html", {"tables": visible_tables(request.user), "token": _token(request)})


@never_cache
@login_required
def operators(request):
    """Operators and their wallet transactions, read-only, the stuck first (docs/OPERATORS.md)."""
    if not has_role(request.user, SUPERVISOR):
        return HttpResponseForbidden(render(request, "forbidden.html", {"what": _("the operators")}).content)
    code = (request.GET.get("operator") or "")[:32] or None
    status = request.GET.get("status") if request.GET.get("status") in WalletTransaction.Status.values else None
    listed = operators_overview()
    return render(request, "operators.html", {
        "operators": listed, "operator": code, "status": status, "stuck_total": sum(op["stuck"] for op in listed),
        "transactions": list(wallet_transactions(operator_code=code, status=status)[:200])})


@never_cache
def play(request, pk):
    table = get_object_or_404(visible_tables(request.user), pk=pk)
    token = _token(request) if request.user.is_authenticated and has_role(request.user, PLAYER) else ""
    return render(request, "play.html", {"table": table, "token": token})


@never_cache
def operator_launch(request, code):
    """An operator's launch URL (bets.seamless.operator_launch): its one-time code logs the player in
    (once, for LAUNCH_CODE_TTL) and opens the table's page in the launch's language."""
    launch = launch_code_redeem(code=code)
    if launch is None or not launch.user.is_active:  # a player blocked since the launch is not logged in
        raise Http404("This link was used already or has expired.")
    login(request, launch.user, backend="django.contrib.auth.backends.ModelBackend")
    return redirect(f"{reverse('play', kwargs={'pk': launch.table_id})}?lang={launch.language}")


@never_cache
def rules(request, pk):
    """The table's rules as configured, each bet's payout and exact return, RULES.md's worked examples."""
    table = get_object_or_404(visible_tables(request.user), pk=pk)
    return render(request, "rules.html", {"table": table, **table_rules(table)})


def _chain_rows(chain: dict) -> list[dict]:
    """The record's chain as the page lists it, in seq order: the round's events (named, with their
    form); the other records' bare links, a run of several as one line (`last`, `count`: the page
    stays light when a round was voided long after its deal; the check reads every link); and a
    line for each gap the record does not list."""
    rows = [{**e, "own": True, "name": EVENT_NAMES.get(e["action"], e["action"])} for e in chain["events"]]
    rows += [{"seq": gap["after"] + 0.5, "gap": True, "count": gap["before"] - gap["after"] - 1} for gap in chain["gaps"]]
    rows.sort(key=lambda row: row["seq"])
    links = sorted(chain["links"], key=lambda link: link["seq"])
    runs: list[list[dict]] = []
    for link in links:
        if runs and runs[-1][-1]["seq"] + 1 == link["seq"]:
            runs[-1].append(link)
        else:
            runs.append([link])
    rows += [{**run[0], "own": False, "last": run[-1]["seq"], "count": len(run)} for run in runs]
    return sorted(rows, key=lambda row: row["seq"])


def _log_rows(record: dict) -> dict | None:
    """The round's leaves in the public log as the page lists them: each leaf's index, what it
    records (the settlement, a re-settlement, a void) and its outcome in words, from the leaf's own
    JSON; the checkpoint's tree size; and whether the round's latest settlement or void is still to
    come into the log. None for a round not final yet. The browser checks the proofs itself
    (static/js/publiclog.js)."""
    final = record["settlement"] or record["void"]
    if not final:
        return None
    log = record["log"]
    rows, settled = [], 0
    for entry in log["entries"]:
        try:
            leaf = json.loads(base64.b64decode(entry["leaf"], validate=True))
        except ValueError:  # not base64 JSON: the browser's check says which leaf
            leaf = {}
        voided = leaf.get("status") == "voided"
        settled += not voided
        rows.append({"index": entry["index"], "leaf": entry["leaf"], "voided": voided, "resettled": not voided and settled > 1,
                     "version": leaf.get("version"), "winner_name": side_name(leaf.get("winner")), "cards": len(leaf.get("cards") or [])})
    lines = (log["checkpoint"] or "").split("\n")
    size = int(lines[1]) if len(lines) > 1 and lines[1].isdigit() else None
    behind = bool(rows) and (rows[-1]["version"] or 0) < final["version"]
    return {"entries": rows, "size": size, "checkpoint": log["checkpoint"], "behind": behind}


@never_cache
@login_required
def round_page(request, pk):
    """One round: its deal and result, its record (integrity.record: the settings it opened with, its
    dealer and shift, each card with its time, its incidents and corrections, its audit chain with
    the "verified" mark the offline script gives it) and the reader's own bets in it. A player sees
    only the rounds they bet on (404 otherwise, as for a round that does not exist); a supervisor
    sees every round, with the bets of all players added up per spot and the round's totals."""
    try:
        rnd = round_or_404(round_id=pk, user=request.user)
    except NotFound as exc:
        raise Http404(exc.message) from None
    supervisor = has_role(request.user, SUPERVISOR)
    bet_on = Bet.objects.filter(round=rnd, player=request.user).exists()
    if not (bet_on or supervisor):
        raise Http404("No such round.")
    rnd = Round.objects.select_related("table", "dealer").get(pk=rnd.pk)
    detail = round_detail(rnd)
    # The record as GET /api/rounds/{id}/record/ answers it, checked by the offline script's own code.
    record = json.loads(json.dumps(RoundRecordSerializer(round_record(rnd)).data))
    problems = record_check(record)
    void_reason = (record["void"] or {}).get("reason", "")
    mine = my_rounds_detail(request.user, [rnd])[0] if bet_on else None
    context = {
        "round": detail, "table": rnd.table, "void_reason": void_reason, "settled_at": rnd.settled_at,
        "record": record, "verified": not problems, "problems": problems, "chain": _chain_rows(record["chain"]),
        "rules": settings_rules(record["settings"]),
        "timed_cards": [{**c, "side_name": side_name(c["side"])} for c in record["cards"]],
        "incidents": [{**i, "kind_name": INCIDENT_KIND_NAMES.get(i["kind"], i["kind"]),
                       "status_name": INCIDENT_STATUS_NAMES.get(i["status"], i["status"]),
                       "notes": [{**n, "at": utc_ms(datetime.fromisoformat(n["at"]))} for n in i["notes"]]}
                      for i in record["incidents"]],
        "corrections": [{**c, "name": CORRECTION_NAMES.get(c["action"], c["action"])} for c in record["corrections"]],
        "winner_name": side_name(detail["winner"]), "first_side_name": side_name(detail["first_side"]),
        "cards": [{**c, "side_name": side_name(c["side"]), "match": detail["winner"] and c["position"] == detail["cards_dealt"]}
                  for c in detail["cards"]],
        "winning_spots": [table_spot_name(s) for s in detail["winning_spots"]],
        "mine": mine and {**mine, "bets": [{**b, "name": table_spot_name(b["spot"]), "status": BET_STATUS_NAMES.get(b["status"], b["status"]),
                                            "times": times(b["multiplier"]) if b.get("multiplier") else ""}
                                           for b in mine["bets"]]},
        "supervisor": supervisor,
        "log": _log_rows(record),
    }
    fairness = detail.get("fairness")
    if fairness and fairness["salt"]:
        context["proof"] = {"commitment": fairness["commitment"], "salt": fairness["salt"], "pack": fairness["pack"],
                            "joker": detail["joker"], "cards": [c["card"] for c in detail["cards"]]}
    if detail.get("multipliers_commit"):
        context["multipliers"] = [{"spot": m["spot"], "name": table_spot_name(m["spot"]), "times": times(m["multiplier"])}
                                  for m in detail.get("multipliers") or []]
        if detail.get("multipliers_seed"):
            context["seed_proof"] = {"commit": detail["multipliers_commit"], "seed": detail["multipliers_seed"]}
    if supervisor:
        context["spot_totals"] = [{**row, "staked": Decimal(row["staked"]), "paid": Decimal(row["paid"]), "name": table_spot_name(row["spot"])}
                                  for row in record["spots"]]
    return render(request, "round.html", context)


@never_cache
@login_required
def matches(request):
    """Play with friends: create a match, or join one by its code."""
    return render(request, "matches.html", {"token": _token(request), "start_chips": START_CHIPS})


@never_cache
@login_required
def match_join_link(request, code):
    """The link a player shares: joins (if possible) and opens the match."""
    try:
        match = match_join(code=code, user=request.user)
    except ApplicationError as exc:
        return render(request, "matches.html", {"token": _token(request), "start_chips": START_CHIPS, "error": exc.message, "code": code}, status=exc.status)
    return redirect("match", pk=match.pk)


@never_cache
@login_required
def match(request, pk):
    """The match table (bet, sit out, standings) and, once it ends, its results with the chart."""
    try:
        match = match_or_404(match_id=pk, user=request.user)
    except NotFound as exc:
        raise Http404(exc.message) from None
    return render(request, "match.html", {"match": match, "token": _token(request)})


def healthz(request):
    with connection.cursor() as cur:
        cur.execute("SELECT 1")
    return JsonResponse({"ok": True})
