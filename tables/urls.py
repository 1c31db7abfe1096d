from django.urls import path

import studio.converters  # noqa: F401  (registers the <id:...> converter)

from . import api, incidents_api as inc, matches_api as mat

urlpatterns = [
    path("tables/", api.TableListView.as_view(), name="table-list"),
    path("tables/<id:pk>/", api.TableDetailView.as_view(), name="table-detail"),
    path("tables/<id:pk>/odds/", api.TableOddsView.as_view(), name="table-odds"),
    path("tables/<id:pk>/rounds/", api.TableRoundsView.as_view(), name="table-rounds"),
    path("tables/<id:pk>/current-round/", api.TableCurrentRoundView.as_view(), name="table-current-round"),
    path("tables/<id:pk>/stream-snapshot/", api.TableStreamSnapshotView.as_view(), name="table-stream-snapshot"),
    path("rounds/<id:pk>/", api.RoundDetailView.as_view(), name="round-detail"),
    path("rounds/<id:pk>/close-betting/", api.RoundCloseBettingView.as_view(), name="round-close-betting"),
    path("rounds/<id:pk>/cards/", api.RoundCardsView.as_view(), name="round-cards"),
    path("rounds/<id:pk>/audit/", api.RoundAuditView.as_view(), name="round-audit"),
    path("rounds/<id:pk>/incidents/", inc.RoundIncidentsView.as_view(), name="round-incidents"),
    path("rounds/<id:pk>/corrections/replace/", inc.CardReplaceView.as_view(), name="round-card-replace"),
    path("rounds/<id:pk>/corrections/remove-last/", inc.CardRemoveLastView.as_view(), name="round-card-remove-last"),
    path("rounds/", inc.RoundHistoryView.as_view(), name="round-history"),
    path("rounds/export.csv", inc.RoundExportView.as_view(), name="round-export"),
    path("matches/", mat.MatchListView.as_view(), name="match-list"),
    path("matches/join/", mat.MatchJoinView.as_view(), name="match-join"),
    path("matches/<id:pk>/", mat.MatchDetailView.as_view(), name="match-detail"),
    path("matches/<id:pk>/start/", mat.MatchStartView.as_view(), name="match-start"),
    path("matches/<id:pk>/bet/", mat.MatchBetView.as_view(), name="match-bet"),
    path("matches/<id:pk>/sit-out/", mat.MatchSitOutView.as_view(), name="match-sit-out"),
    path("incidents/", inc.IncidentListView.as_view(), name="incident-list"),
    path("incidents/<id:pk>/", inc.IncidentDetailView.as_view(), name="incident-detail"),
    path("incidents/<id:pk>/notes/", inc.IncidentNoteView.as_view(), name="incident-notes"),
    path("incidents/<id:pk>/resume/", inc.IncidentResumeView.as_view(), name="incident-resume"),
    path("incidents/<id:pk>/void/", inc.IncidentVoidView.as_view(), name="incident-void"),
]
