from django.urls import path

import studio.converters  # noqa: F401  (registers the <id:...> converter)
from studio.routes import api_route, by_pk

from . import api as inc

urlpatterns = [
    path("rounds/<id:pk>/incidents/", api_route(inc.RoundIncidentsView, share=by_pk("round")), name="round-incidents"),
    path("rounds/<id:pk>/corrections/replace/", api_route(inc.CardReplaceView, share=by_pk("round")), name="round-card-replace"),
    path("rounds/<id:pk>/corrections/remove-last/", api_route(inc.CardRemoveLastView, share=by_pk("round")), name="round-card-remove-last"),
    path("rounds/", api_route(inc.RoundHistoryView), name="round-history"),
    path("rounds/export.csv", api_route(inc.RoundExportView), name="round-export"),
    path("floor/", api_route(inc.FloorView), name="floor"),
    path("incidents/", api_route(inc.IncidentListView), name="incident-list"),
    path("incidents/<id:pk>/", api_route(inc.IncidentDetailView), name="incident-detail"),
    path("incidents/<id:pk>/notes/", api_route(inc.IncidentNoteView, share=inc.incident_round), name="incident-notes"),
    path("incidents/<id:pk>/resume/", api_route(inc.IncidentResumeView, share=inc.incident_round), name="incident-resume"),
    path("incidents/<id:pk>/void/", api_route(inc.IncidentVoidView, share=inc.incident_round), name="incident-void"),
]
