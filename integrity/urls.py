from django.urls import path

import studio.converters  # noqa: F401  (registers the <id:...> converter)
from studio.routes import api_route

from . import api

urlpatterns = [
    path("integrity/", api_route(api.IntegrityView), name="integrity"),
    path("alerts/", api_route(api.AlertListView), name="alert-list"),
    path("alerts/<id:pk>/acknowledge/", api_route(api.AlertAcknowledgeView), name="alert-acknowledge"),
    path("rounds/<id:pk>/record/", api_route(api.RoundRecordView), name="round-record"),
]
