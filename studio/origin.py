"""The WebSocket Origin check: a present Origin must name one of ALLOWED_HOSTS (as Channels'
AllowedHostsOriginValidator checks it); an absent one is accepted.

Browsers always send Origin on a WebSocket handshake, so the check is what stops another site's
page from opening the stream with a visitor's cookies. A client without one is not a browser (a
native app, an operator's server, the `websockets` library): refusing it protects nobody, and it
authenticates with its token like any API client. Channels' `OriginValidator.valid_origin` is the
documented place for this decision; everything else is Channels' own."""
from channels.security.websocket import OriginValidator
from django.conf import settings


class PresentOriginValidator(OriginValidator):
    def valid_origin(self, parsed_origin):
        return parsed_origin is None or super().valid_origin(parsed_origin)


def allowed_hosts_origin_validator(application):
    """AllowedHostsOriginValidator's hosts, with an absent Origin accepted."""
    allowed_hosts = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed_hosts:
        allowed_hosts = ["localhost", "127.0.0.1", "[::1]"]
    return PresentOriginValidator(application, allowed_hosts)
