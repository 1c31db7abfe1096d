from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "matches"

    def ready(self):
        from tables import hooks  # the apps are ready: Django's documented place to connect receivers

        from . import services

        hooks.round_settled.connect(services.on_round_settled, dispatch_uid="matches.on_round_settled")
        hooks.round_voided.connect(services.on_round_voided, dispatch_uid="matches.on_round_voided")
