"""How a route that answers programs (not a page) is declared: `api_route(View)` in an app's urls.py.

Such an answer is JSON (or CSV, or Prometheus text), never a document a browser runs, so it carries
the strict policy recommended for APIs, `settings.API_CONTENT_SECURITY_POLICY` (nothing may load,
nothing may frame it), through django-csp's own `csp` decorator, instead of the pages' policy (and
django-csp, which builds the policy afresh for each answer, builds two directives, not thirty).
"""
from __future__ import annotations

from csp.decorators import csp
from django.conf import settings


def api_route(view, **initkwargs):
    """The view for a URL pattern: a class-based view (DRF's APIView) with its `initkwargs`, or a view function."""
    if isinstance(view, type):
        view = view.as_view(**initkwargs)
    return csp(settings.API_CONTENT_SECURITY_POLICY)(view)
