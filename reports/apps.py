from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "reports"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from tables import hooks  # the apps are ready: Django's documented place to connect receivers

        from . import rollup

        hooks.round_settled.connect(rollup.on_round_settled, dispatch_uid="reports.on_round_settled")
        hooks.round_unsettling.connect(rollup.on_round_unsettling, dispatch_uid="reports.on_round_unsettling")
        hooks.round_voided.connect(rollup.on_round_voided, dispatch_uid="reports.on_round_voided")
        hooks.incident_raised.connect(rollup.on_incident_raised, dispatch_uid="reports.on_incident_raised")
