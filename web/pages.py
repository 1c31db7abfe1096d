"""The server-rendered pages. They hold no rules: the browser talks to the same API as anyone."""
from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import Http404, HttpResponseForbidden, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache

from accounts.tokens import page_token
from matches.services import START_CHIPS, match_join
from studio.errors import ApplicationError, NotFound
from studio.roles import DEALER, PLAYER, SUPERVISOR, has_role, roles_of
from tables.access import match_or_404, visible_tables

STARTED = timezone.now()  # the words of /jsi18n/ change only with a new release, hence a new process


def home(request):
    if not request.user.is_authenticated:
        return redirect("login")
    roles = roles_of(request.user)
    if SUPERVISOR in roles:
        return redirect("supervisor")
    if DEALER in roles:
        return redirect("console")
    tables = visible_tables(request.user).filter(is_private=False)
    table = tables.order_by("id").first()
    if PLAYER in roles and table is not None:
        return redirect("play", pk=table.pk)
    return render(request, "home.html", {"tables": tables})


def _token(request) -> str:
    """The browser session's own page token (revoked when it logs out). A page that embeds it is
    sent with Cache-Control: no-store (never_cache): no cache keeps a copy of the token."""
    return page_token(request)


@never_cache
@login_required
def console(request):
    if not has_role(request.user, DEALER, SUPERVISOR):
        return HttpResponseForbidden(render(request, "forbidden.html", {"what": _("the dealer console")}).content)
    return render(request, "console.html", {"tables": visible_tables(request.user), "token": _token(request)})


@never_cache
@login_required
def supervisor(request):
    if not has_role(request.user, SUPERVISOR):
        return HttpResponseForbidden(render(request, "forbidden.html", {"what": _("the supervisor console")}).content)
    return render(request, "supervisor.html", {"tables": visible_tables(request.user), "token": _token(request)})


@never_cache
def play(request, pk):
    table = get_object_or_404(visible_tables(request.user), pk=pk)
    token = _token(request) if request.user.is_authenticated and has_role(request.user, PLAYER) else ""
    return render(request, "play.html", {"table": table, "token": token})


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
