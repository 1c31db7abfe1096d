from django.apps import AppConfig


class IntegrityConfig(AppConfig):
    name = "integrity"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from tables import hooks  # the apps are ready: Django's documented place to connect receivers

        from . import publiclog, services

        hooks.round_settled.connect(services.on_round_settled, dispatch_uid="integrity.on_round_settled")
        hooks.round_voided.connect(services.on_round_voided, dispatch_uid="integrity.on_round_voided")
        hooks.card_refused.connect(services.on_card_refused, dispatch_uid="integrity.on_card_refused")
        # every final state of a round into the public log's outbox (integrity/publiclog.py)
        hooks.round_settled.connect(publiclog.on_final, dispatch_uid="integrity.publiclog.settled")
        hooks.round_voided.connect(publiclog.on_final, dispatch_uid="integrity.publiclog.voided")
