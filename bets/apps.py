from django.apps import AppConfig


class BetsConfig(AppConfig):
    name = "bets"
    default_auto_field = "django.db.models.BigAutoField"
