"""The bet view's token authentication: the token, its user, their roles and the bet's context
(bets.placing.bet_context_by_token) in one statement. A bet is then that read and its guarded
write: two statements. What it accepts and refuses is accounts.auth's, word for word; the
context it read rides on the token (`request.auth.bet_context`) to the service, which checks it and
writes only if nothing changed since (bets.services)."""
from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions

from accounts.auth import TokenAuthentication, refuse_unless_valid
from accounts.models import Token

from .placing import bet_context_by_token


class BetTokenAuthentication(TokenAuthentication):
    """accounts.auth's token authentication, reading the bet's context in the same statement for a
    POST to a round's bets (for any other method exactly accounts.auth's)."""

    round_id = None

    def authenticate(self, request):
        if request.method == "POST":
            self.round_id = request.parser_context["kwargs"]["pk"]  # DRF makes one authenticator per request
        return super().authenticate(request)

    def authenticate_credentials(self, key):
        if self.round_id is None:
            return super().authenticate_credentials(key)
        found = bet_context_by_token(key=key, round_id=self.round_id)
        if found is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        user, expires_at, context = found
        refuse_unless_valid(user=user, expires_at=expires_at)
        token = Token(key=key, user=user, expires_at=expires_at)
        token.bet_context = context
        return user, token


class BetTokenScheme(OpenApiAuthenticationExtension):
    """In the OpenAPI schema the bet view's authentication is the API's one token scheme (`tokenAuth`,
    declared by drf-spectacular for accounts.auth's class): it names that scheme and declares none."""

    target_class = BetTokenAuthentication
    name: list[str] = []

    def get_security_definition(self, auto_schema):
        return []

    def get_security_requirement(self, auto_schema):
        return {"tokenAuth": []}
