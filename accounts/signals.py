"""Receivers of Django's auth signals, connected in AccountsConfig.ready()."""
from django.contrib.auth.signals import user_logged_out
from django.dispatch import receiver

from .tokens import session_revoke


@receiver(user_logged_out, dispatch_uid="accounts.session_revoke")
def _revoke_session(sender, request, user, **kwargs):
    """Django sends this before it flushes the session: the session's page token dies with it, and
    the sockets opened with either close."""
    if request is not None:
        session_revoke(request=request, user=user)
