from django.urls import path

from . import api

urlpatterns = [
    path("auth/token/", api.TokenObtainView.as_view(), name="auth-token"),
    path("tables/", api.TableListView.as_view(), name="table-list"),
    path("tables/<int:pk>/", api.TableDetailView.as_view(), name="table-detail"),
    path("tables/<int:pk>/odds/", api.TableOddsView.as_view(), name="table-odds"),
    path("tables/<int:pk>/rounds/", api.TableRoundsView.as_view(), name="table-rounds"),
    path("tables/<int:pk>/current-round/", api.TableCurrentRoundView.as_view(), name="table-current-round"),
    path("rounds/<int:pk>/", api.RoundDetailView.as_view(), name="round-detail"),
    path("rounds/<int:pk>/close-betting/", api.RoundCloseBettingView.as_view(), name="round-close-betting"),
    path("rounds/<int:pk>/cards/", api.RoundCardsView.as_view(), name="round-cards"),
    path("rounds/<int:pk>/audit/", api.RoundAuditView.as_view(), name="round-audit"),
]
