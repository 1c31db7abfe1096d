from django.apps import AppConfig


class TablesConfig(AppConfig):
    name = "tables"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from . import hooks, tasks  # the apps are ready: Django's documented place to connect receivers

        hooks.betting_opened.connect(tasks.schedule_close_betting, dispatch_uid="tables.schedule_close_betting")
