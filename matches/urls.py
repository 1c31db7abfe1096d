from django.urls import path

import studio.converters  # noqa: F401  (registers the <id:...> converter)

from . import api as mat

urlpatterns = [
    path("matches/", mat.MatchListView.as_view(), name="match-list"),
    path("matches/join/", mat.MatchJoinView.as_view(), name="match-join"),
    path("matches/<id:pk>/", mat.MatchDetailView.as_view(), name="match-detail"),
    path("matches/<id:pk>/start/", mat.MatchStartView.as_view(), name="match-start"),
    path("matches/<id:pk>/bet/", mat.MatchBetView.as_view(), name="match-bet"),
    path("matches/<id:pk>/sit-out/", mat.MatchSitOutView.as_view(), name="match-sit-out"),
]
