"""Receivers of Django's auth signals, connected in AccountsConfig.ready()."""
from django.contrib.auth.signals import user_logged_out
from django.dispatch import receiver

from .tokens import page_token_revoke


@receiver(user_logged_out, dispatch_uid="accounts.page_token_revoke")
def _revoke_page_token(sender, request, user, **kwargs):
    """Django sends this before it flushes the session: the session's page token dies with it."""
    if request is not None:
        page_token_revoke(request)
