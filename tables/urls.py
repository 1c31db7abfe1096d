from django.urls import path

import studio.converters  # noqa: F401  (registers the <id:...> converter)
from studio.routes import api_route, by_pk

from . import api

urlpatterns = [
    path("tables/", api_route(api.TableListView), name="table-list"),
    path("lobby/", api_route(api.LobbyView), name="lobby"),
    path("tables/<id:pk>/", api_route(api.TableDetailView, share=by_pk("table")), name="table-detail"),
    path("tables/<id:pk>/odds/", api_route(api.TableOddsView), name="table-odds"),
    path("tables/<id:pk>/rules/", api_route(api.TableRulesView), name="table-rules"),
    path("tables/<id:pk>/stats/", api_route(api.TableStatsView), name="table-stats"),
    path("tables/<id:pk>/rounds/", api_route(api.TableRoundsView, share=by_pk("table")), name="table-rounds"),
    path("tables/<id:pk>/current-round/", api_route(api.TableCurrentRoundView), name="table-current-round"),
    path("tables/<id:pk>/state/", api_route(api.TableStateView, share=by_pk("table")), name="table-state"),
    path("tables/<id:pk>/shifts/", api_route(api.TableShiftsView, share=by_pk("table")), name="table-shifts"),
    path("tables/<id:pk>/shoes/", api_route(api.TableShoesView, share=by_pk("table")), name="table-shoes"),
    path("tables/<id:pk>/changes/", api_route(api.TableChangesView), name="table-changes"),
    path("shifts/<id:pk>/end/", api_route(api.ShiftEndView), name="shift-end"),
    path("changes/", api_route(api.ChangesView), name="changes"),
    path("tables/<id:pk>/stream-snapshot/", api_route(api.TableStreamSnapshotView), name="table-stream-snapshot"),
    path("rounds/<id:pk>/", api_route(api.RoundDetailView), name="round-detail"),
    path("rounds/<id:pk>/close-betting/", api_route(api.RoundCloseBettingView, share=by_pk("round")), name="round-close-betting"),
    path("rounds/<id:pk>/cards/", api_route(api.RoundCardsView, share=by_pk("round")), name="round-cards"),
    path("rounds/<id:pk>/audit/", api_route(api.RoundAuditView), name="round-audit"),
]
