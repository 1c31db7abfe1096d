from django.urls import path

from . import api

urlpatterns = [
    path("me/", api.MeView.as_view(), name="me"),
    path("me/ledger/", api.LedgerView.as_view(), name="me-ledger"),
    path("rounds/<int:pk>/bets/", api.RoundBetsView.as_view(), name="round-bets"),
    path("rounds/<int:pk>/bets/repeat/", api.RoundBetsRepeatView.as_view(), name="round-bets-repeat"),
    path("bets/<int:pk>/", api.BetDetailView.as_view(), name="bet-detail"),
]
