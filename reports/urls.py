from django.urls import path

from studio.routes import api_route

from . import api

urlpatterns = [
    path("reports/", api_route(api.ReportView), name="reports"),
]
