from django.urls import path

import studio.converters  # noqa: F401  (registers the <id:...> converter)

from . import api as inc

urlpatterns = [
    path("rounds/<id:pk>/incidents/", inc.RoundIncidentsView.as_view(), name="round-incidents"),
    path("rounds/<id:pk>/corrections/replace/", inc.CardReplaceView.as_view(), name="round-card-replace"),
    path("rounds/<id:pk>/corrections/remove-last/", inc.CardRemoveLastView.as_view(), name="round-card-remove-last"),
    path("rounds/", inc.RoundHistoryView.as_view(), name="round-history"),
    path("rounds/export.csv", inc.RoundExportView.as_view(), name="round-export"),
    path("floor/", inc.FloorView.as_view(), name="floor"),
    path("incidents/", inc.IncidentListView.as_view(), name="incident-list"),
    path("incidents/<id:pk>/", inc.IncidentDetailView.as_view(), name="incident-detail"),
    path("incidents/<id:pk>/notes/", inc.IncidentNoteView.as_view(), name="incident-notes"),
    path("incidents/<id:pk>/resume/", inc.IncidentResumeView.as_view(), name="incident-resume"),
    path("incidents/<id:pk>/void/", inc.IncidentVoidView.as_view(), name="incident-void"),
]
