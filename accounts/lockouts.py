"""Failed logins, throttled by django-axes per account AND address (the username with the client's
IP): a wrong password from elsewhere cannot lock a dealer out. After LOGIN_FAILURE_LIMIT failures
within LOGIN_COOLOFF seconds, that pair is refused (even with the right password) with 429 and
Retry-After until the cool-off has passed since its latest failure, or a supervisor clears it.

The login page's lockout answer is axes' AXES_LOCKOUT_CALLABLE (`lockout_response`); the API's token
view raises `TooManyAttempts` itself (axes flags the request it was given, DRF's)."""
from __future__ import annotations

import ipaddress
import math

from axes.models import AccessAttempt
from axes.utils import reset
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm
from django.db import transaction
from django.db.models import Max, Sum
from django.http import JsonResponse
from django.shortcuts import render
from django.utils import timezone
from rest_framework import exceptions

from .services import change_record

MESSAGE = "Too many failed logins for this account from this address."


def client_ip(request) -> str | None:
    """AXES_CLIENT_IP_CALLABLE: the client's address. Behind TRUSTED_PROXY_COUNT reverse proxies
    that each append to X-Forwarded-For, the entry the nearest of them wrote (what a client writes
    itself comes before and is ignored); without proxies, or with a header short of them, REMOTE_ADDR."""
    remote = request.META.get("REMOTE_ADDR")
    count = settings.TRUSTED_PROXY_COUNT
    hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
    if count <= 0 or len(hops) < count:
        return remote
    try:
        return str(ipaddress.ip_address(hops[-count]))
    except ValueError:
        return remote


def retry_after() -> int:
    """Seconds until a pair locked out now may try again: the whole cool-off (each failure during a
    lockout starts it again)."""
    return max(1, math.ceil(settings.AXES_COOLOFF_TIME.total_seconds()))


class TooManyAttempts(exceptions.Throttled):
    default_code = "too_many_attempts"

    def __init__(self):
        super().__init__(wait=retry_after(), detail=f"{MESSAGE} Try again later.")


def lockout_response(request, original_response=None, credentials=None):
    """AXES_LOCKOUT_CALLABLE: the login page again with the reason, or JSON for the API; 429 with Retry-After."""
    wait = retry_after()
    if request.path.startswith("/api/"):
        response = JsonResponse({"code": TooManyAttempts.default_code, "message": f"{MESSAGE} Try again later.",
                                 "fields": {}, "retry_after": wait}, status=429)
    else:
        username = (credentials or {}).get("username") or request.POST.get("username", "")
        form = AuthenticationForm(request, initial={"username": username})
        response = render(request, "login.html", {"form": form, "locked_out": MESSAGE, "retry_after": wait,
                                                  "next": request.POST.get("next", "")}, status=429)
    response["Retry-After"] = str(wait)
    return response


def lockouts_current() -> list[dict]:
    """Each (username, address) with failures inside the cool-off window, the locked ones first."""
    now = timezone.now()
    cool_off = settings.AXES_COOLOFF_TIME
    rows = (AccessAttempt.objects.filter(attempt_time__gte=now - cool_off)
            .values("username", "ip_address").annotate(failures=Sum("failures_since_start"), last=Max("attempt_time"))
            .order_by("-failures", "username", "ip_address"))
    limit = settings.AXES_FAILURE_LIMIT
    result = []
    for row in rows:
        locked = row["failures"] >= limit
        wait = max(0, math.ceil((row["last"] + cool_off - now).total_seconds())) if locked else 0
        result.append({"username": row["username"], "ip_address": row["ip_address"], "failures": row["failures"],
                       "locked": locked, "last_failure": row["last"], "retry_after": wait})
    result.sort(key=lambda r: not r["locked"])
    return result


@transaction.atomic
def lockout_clear(*, actor, username: str, ip_address: str | None = None) -> int:
    """Forget the failures of `username` (from every address, or from one): recorded like any access change."""
    cleared = reset(username=username, ip=ip_address or None)
    if cleared:
        user = get_user_model().objects.filter(username=username).first()
        change_record(actor=actor, source="api", user=user, username=username, field="lockout",
                      old=f"{cleared} failure records" + (f" from {ip_address}" if ip_address else ""), new="cleared")
    return cleared
