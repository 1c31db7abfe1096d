from django.apps import AppConfig


class BetsConfig(AppConfig):
    name = "bets"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from tables import hooks  # the apps are ready: Django's documented place to connect receivers

        from . import tasks

        hooks.round_finished.connect(tasks.settle_when_finished, dispatch_uid="bets.settle_when_finished")
        hooks.wallet_due.connect(tasks.send_when_due, dispatch_uid="bets.send_when_due")
