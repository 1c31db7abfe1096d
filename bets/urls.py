from django.urls import path

from . import api, fast

urlpatterns = [
    path("me/", api.MeView.as_view(), name="me"),
    path("me/ledger/", api.LedgerView.as_view(), name="me-ledger"),
    path("rounds/<int:pk>/bets/", fast.round_bets, name="round-bets"),  # RoundBetsView, with a fast path for bets
    path("rounds/<int:pk>/bets/repeat/", api.RoundBetsRepeatView.as_view(), name="round-bets-repeat"),
    path("bets/<int:pk>/", api.BetDetailView.as_view(), name="bet-detail"),
]
