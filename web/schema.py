"""The OpenAPI schema's view: drf-spectacular's, generating one schema at a time in a process.

drf-spectacular loads its extensions' target classes on the first generation in a process, and two
generations racing through that first load fail with a 500 (tfranzel/drf-spectacular#1122, open):
the HTTP bridge serves requests on threads, and several clients fetching the schema of a fresh
server hit it. Schema requests are few and cached by their clients, so one at a time costs nothing."""
from __future__ import annotations

import threading

from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView

_GENERATING = threading.Lock()


class SchemaView(SpectacularAPIView):
    @extend_schema(exclude=True)  # as drf-spectacular's own view with SERVE_INCLUDE_SCHEMA off (settings)
    def get(self, request, *args, **kwargs):
        with _GENERATING:
            return super().get(request, *args, **kwargs)
