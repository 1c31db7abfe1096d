from django.urls import path

import studio.converters  # noqa: F401  (registers the <id:...> converter)
from studio.routes import api_route

from . import api

urlpatterns = [
    path("integrity/", api_route(api.IntegrityView), name="integrity"),
    path("alerts/", api_route(api.AlertListView), name="alert-list"),
    path("alerts/<id:pk>/acknowledge/", api_route(api.AlertAcknowledgeView), name="alert-acknowledge"),
    path("rounds/<id:pk>/record/", api_route(api.RoundRecordView), name="round-record"),
    path("log/checkpoint/", api_route(api.LogCheckpointView), name="log-checkpoint"),
    path("log/key/", api_route(api.LogKeyView), name="log-key"),
    path("log/entries/<id:index>/", api_route(api.LogEntryView), name="log-entry"),
    path("log/proof/inclusion/", api_route(api.InclusionProofView), name="log-inclusion"),
    path("log/proof/consistency/", api_route(api.ConsistencyProofView), name="log-consistency"),
    path("log/cosignatures/", api_route(api.CosignatureView), name="log-cosignatures"),
]
