"""The access log: one line per HTTP request and per WebSocket connect and close, on the logger
"studio.access" (stdout, settings.LOGGING).

A line names the method (or WS), the path WITHOUT its query string, the status (or close code), the
duration and the user id when one is known. Query strings never reach a log: a WebSocket URL carries
the caller's API token (`?token=`). uvicorn's own access log is off, and DropQueryStrings removes the
query from uvicorn's messages ("WebSocket /ws/tables/1/?token=..." [accepted]).

Every request writes a line, so a line costs little: its message is formatted once, here, and the
record made with Logger.makeRecord and passed to Logger.handle, the logging calls that Logger.info
makes after looking up which source line called it (a stack walk no field of the line uses). The
handlers, filters, formatter and levels of settings.LOGGING apply as to any record.
"""
from __future__ import annotations

import logging
import re
import time

from django.utils.functional import SimpleLazyObject

log = logging.getLogger("studio.access")
_QUERY = re.compile(r"\?[^\s\"']*")


def _printable(path: str) -> str:
    """The path as one line: a decoded %0A must not forge a second log line."""
    return path if path.isprintable() else path.encode("unicode_escape").decode("ascii")


class DropQueryStrings(logging.Filter):
    """A logging filter that cuts every query string (`?...` up to a space or quote) from a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "?" in message:
            record.msg, record.args = _QUERY.sub("", message), None
        return True


def _write(message: str) -> None:
    """One INFO line on studio.access, if that level is on."""
    if log.isEnabledFor(logging.INFO):
        log.handle(log.makeRecord(log.name, logging.INFO, __file__, 0, message, None, None))


def _user_id(request):
    """The id of the user the request was authenticated as, without authenticating anyone: DRF sets
    request.user to the user; the session's user is read only if the request already read the
    session (so a request that never looked costs no query here)."""
    user = request.__dict__.get("user")
    if user is None:
        return None
    session = getattr(request, "session", None)
    if type(user) is SimpleLazyObject and not (session is not None and session.accessed):
        return None
    return user.pk if user.is_authenticated else None


class AccessLogMiddleware:
    """First in settings.MIDDLEWARE: the line is written when the response leaves Django."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not log.isEnabledFor(logging.INFO):
            return self.get_response(request)
        start = time.perf_counter()
        response = self.get_response(request)
        _write(f"{request.method} {_printable(request.path)} {response.status_code} "
               f"{(time.perf_counter() - start) * 1000:.1f}ms user={_user_id(request) or '-'}")
        return response


def refused_before_django(scope, status: int) -> None:
    """A request the server answered without Django (a body over the limit, studio/http.py)."""
    _write(f"{scope['method']} {_printable(scope['path'])} {status} - user=-")


def ws_connected(scope, user_id) -> None:
    _write(f"WS connect {_printable(scope['path'])} user={user_id or '-'}")


def ws_closed(scope, user_id, code, started: float) -> None:
    _write(f"WS close {_printable(scope['path'])} {code if code is not None else '-'} "
           f"{time.monotonic() - started:.1f}s user={user_id or '-'}")
