from django.urls import path

import studio.converters  # noqa: F401  (registers the <id:...> converter)

from . import api

urlpatterns = [
    path("me/", api.MeView.as_view(), name="me"),
    path("me/ledger/", api.LedgerView.as_view(), name="me-ledger"),
    path("me/rounds/", api.MyRoundsView.as_view(), name="me-rounds"),
    path("rounds/<id:pk>/bets/", api.RoundBetsView.as_view(), name="round-bets"),
    path("rounds/<id:pk>/bets/repeat/", api.RoundBetsRepeatView.as_view(), name="round-bets-repeat"),
    path("bets/<id:pk>/", api.BetDetailView.as_view(), name="bet-detail"),
    path("operator/sessions/", api.OperatorSessionView.as_view(), name="operator-sessions"),
    path("operator/transactions/", api.WalletTransactionListView.as_view(), name="operator-transactions"),
    path("operators/", api.OperatorListView.as_view(), name="operators"),
]
