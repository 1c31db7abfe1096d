from django.urls import path

import studio.converters  # noqa: F401  (registers the <id:...> converter)

from . import api

urlpatterns = [
    path("tables/", api.TableListView.as_view(), name="table-list"),
    path("tables/<id:pk>/", api.TableDetailView.as_view(), name="table-detail"),
    path("tables/<id:pk>/odds/", api.TableOddsView.as_view(), name="table-odds"),
    path("tables/<id:pk>/rules/", api.TableRulesView.as_view(), name="table-rules"),
    path("tables/<id:pk>/stats/", api.TableStatsView.as_view(), name="table-stats"),
    path("tables/<id:pk>/rounds/", api.TableRoundsView.as_view(), name="table-rounds"),
    path("tables/<id:pk>/current-round/", api.TableCurrentRoundView.as_view(), name="table-current-round"),
    path("tables/<id:pk>/state/", api.TableStateView.as_view(), name="table-state"),
    path("tables/<id:pk>/shifts/", api.TableShiftsView.as_view(), name="table-shifts"),
    path("tables/<id:pk>/changes/", api.TableChangesView.as_view(), name="table-changes"),
    path("shifts/<id:pk>/end/", api.ShiftEndView.as_view(), name="shift-end"),
    path("changes/", api.ChangesView.as_view(), name="changes"),
    path("tables/<id:pk>/stream-snapshot/", api.TableStreamSnapshotView.as_view(), name="table-stream-snapshot"),
    path("rounds/<id:pk>/", api.RoundDetailView.as_view(), name="round-detail"),
    path("rounds/<id:pk>/close-betting/", api.RoundCloseBettingView.as_view(), name="round-close-betting"),
    path("rounds/<id:pk>/cards/", api.RoundCardsView.as_view(), name="round-cards"),
    path("rounds/<id:pk>/audit/", api.RoundAuditView.as_view(), name="round-audit"),
]
