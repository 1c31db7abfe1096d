from django.apps import AppConfig


class TablesConfig(AppConfig):
    name = "tables"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from accounts import hooks as accounts_hooks  # the apps are ready: Django's documented place to connect receivers

        from . import hooks, stream, tasks

        hooks.betting_opened.connect(tasks.schedule_close_betting, dispatch_uid="tables.schedule_close_betting")
        accounts_hooks.credentials_revoked.connect(stream.credentials_revoked, dispatch_uid="tables.close_revoked_sockets")
