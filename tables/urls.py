from django.urls import path

from . import api, incidents_api as inc

urlpatterns = [
    path("auth/token/", api.TokenObtainView.as_view(), name="auth-token"),
    path("tables/", api.TableListView.as_view(), name="table-list"),
    path("tables/<int:pk>/", api.TableDetailView.as_view(), name="table-detail"),
    path("tables/<int:pk>/odds/", api.TableOddsView.as_view(), name="table-odds"),
    path("tables/<int:pk>/rounds/", api.TableRoundsView.as_view(), name="table-rounds"),
    path("tables/<int:pk>/current-round/", api.TableCurrentRoundView.as_view(), name="table-current-round"),
    path("tables/<int:pk>/stream-snapshot/", api.TableStreamSnapshotView.as_view(), name="table-stream-snapshot"),
    path("rounds/<int:pk>/", api.RoundDetailView.as_view(), name="round-detail"),
    path("rounds/<int:pk>/close-betting/", api.RoundCloseBettingView.as_view(), name="round-close-betting"),
    path("rounds/<int:pk>/cards/", api.RoundCardsView.as_view(), name="round-cards"),
    path("rounds/<int:pk>/audit/", api.RoundAuditView.as_view(), name="round-audit"),
    path("rounds/<int:pk>/incidents/", inc.RoundIncidentsView.as_view(), name="round-incidents"),
    path("rounds/<int:pk>/corrections/replace/", inc.CardReplaceView.as_view(), name="round-card-replace"),
    path("rounds/<int:pk>/corrections/remove-last/", inc.CardRemoveLastView.as_view(), name="round-card-remove-last"),
    path("rounds/", inc.RoundHistoryView.as_view(), name="round-history"),
    path("rounds/export.csv", inc.RoundExportView.as_view(), name="round-export"),
    path("incidents/", inc.IncidentListView.as_view(), name="incident-list"),
    path("incidents/<int:pk>/", inc.IncidentDetailView.as_view(), name="incident-detail"),
    path("incidents/<int:pk>/notes/", inc.IncidentNoteView.as_view(), name="incident-notes"),
    path("incidents/<int:pk>/resume/", inc.IncidentResumeView.as_view(), name="incident-resume"),
    path("incidents/<int:pk>/void/", inc.IncidentVoidView.as_view(), name="incident-void"),
]
