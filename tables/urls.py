from django.urls import path

from . import api, incidents_api as inc, matches_api as mat

urlpatterns = [
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
    path("matches/", mat.MatchListView.as_view(), name="match-list"),
    path("matches/join/", mat.MatchJoinView.as_view(), name="match-join"),
    path("matches/<int:pk>/", mat.MatchDetailView.as_view(), name="match-detail"),
    path("matches/<int:pk>/start/", mat.MatchStartView.as_view(), name="match-start"),
    path("matches/<int:pk>/bet/", mat.MatchBetView.as_view(), name="match-bet"),
    path("matches/<int:pk>/sit-out/", mat.MatchSitOutView.as_view(), name="match-sit-out"),
    path("incidents/", inc.IncidentListView.as_view(), name="incident-list"),
    path("incidents/<int:pk>/", inc.IncidentDetailView.as_view(), name="incident-detail"),
    path("incidents/<int:pk>/notes/", inc.IncidentNoteView.as_view(), name="incident-notes"),
    path("incidents/<int:pk>/resume/", inc.IncidentResumeView.as_view(), name="incident-resume"),
    path("incidents/<int:pk>/void/", inc.IncidentVoidView.as_view(), name="incident-void"),
]
