"""How a route that answers programs (not a page) is declared: `api_route(View)` in an app's urls.py.

Such an answer is JSON (or CSV, or Prometheus text), never a document a browser runs, so it carries
the strict policy recommended for APIs, `settings.API_CONTENT_SECURITY_POLICY` (nothing may load,
nothing may frame it), through django-csp's own `csp` decorator, instead of the pages' policy (and
django-csp, which builds the policy afresh for each answer, builds two directives, not thirty).

A route that writes to a round or a table (a bet, a card, a transition) names what it writes to,
`share=`: its writes then take a place in that round's share of the process's request threads
(studio.bulkhead.round_share). `by_pk("round")` names the round whose id is the URL's `pk`; an
app's own function names it from another object (a bet's round, an incident's).
"""
from __future__ import annotations

from csp.decorators import csp
from django.conf import settings

from .bulkhead import round_share


def by_pk(kind: str):
    """The key of a round's share (studio.bulkhead) for a route whose `pk` is the round's (or table's) id."""
    return lambda request, pk, **kwargs: (kind, pk)


def api_route(view, *, share=None, **initkwargs):
    """The view for a URL pattern: a class-based view (DRF's APIView) with its `initkwargs`, or a
    view function; `share`: what its writes wait on (the module's docstring)."""
    if isinstance(view, type):
        view = view.as_view(**initkwargs)
    if share is not None:
        view = round_share(view, share)
    return csp(settings.API_CONTENT_SECURITY_POLICY)(view)
