from django.urls import path

import studio.converters  # noqa: F401  (registers the <id:...> converter)
from studio.routes import api_route, by_pk

from . import api as mat

urlpatterns = [
    path("matches/", api_route(mat.MatchListView), name="match-list"),
    path("matches/join/", api_route(mat.MatchJoinView), name="match-join"),
    path("matches/<id:pk>/", api_route(mat.MatchDetailView), name="match-detail"),
    path("matches/<id:pk>/start/", api_route(mat.MatchStartView, share=by_pk("match")), name="match-start"),
    path("matches/<id:pk>/bet/", api_route(mat.MatchBetView, share=by_pk("match")), name="match-bet"),
    path("matches/<id:pk>/sit-out/", api_route(mat.MatchSitOutView, share=by_pk("match")), name="match-sit-out"),
]
