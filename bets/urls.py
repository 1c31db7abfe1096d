from django.urls import path

import studio.converters  # noqa: F401  (registers the <id:...> converter)
from studio.routes import api_route, by_pk

from . import api

urlpatterns = [
    path("me/", api_route(api.MeView), name="me"),
    path("me/ledger/", api_route(api.LedgerView), name="me-ledger"),
    path("me/rounds/", api_route(api.MyRoundsView), name="me-rounds"),
    path("rounds/<id:pk>/bets/", api_route(api.RoundBetsView, share=by_pk("round")), name="round-bets"),
    path("rounds/<id:pk>/bets/repeat/", api_route(api.RoundBetsRepeatView, share=by_pk("round")), name="round-bets-repeat"),
    path("bets/<id:pk>/", api_route(api.BetDetailView, share=api.bet_round), name="bet-detail"),
    path("operator/sessions/", api_route(api.OperatorSessionView), name="operator-sessions"),
    path("operator/transactions/", api_route(api.WalletTransactionListView), name="operator-transactions"),
    path("operators/", api_route(api.OperatorListView), name="operators"),
]
