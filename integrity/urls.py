from django.urls import path

import studio.converters  # noqa: F401  (registers the <id:...> converter)

from . import api

urlpatterns = [
    path("integrity/", api.IntegrityView.as_view(), name="integrity"),
    path("alerts/", api.AlertListView.as_view(), name="alert-list"),
    path("alerts/<id:pk>/acknowledge/", api.AlertAcknowledgeView.as_view(), name="alert-acknowledge"),
    path("rounds/<id:pk>/record/", api.RoundRecordView.as_view(), name="round-record"),
]
