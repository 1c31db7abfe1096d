from django.urls import path

from . import api

urlpatterns = [
    path("reports/", api.ReportView.as_view(), name="reports"),
]
