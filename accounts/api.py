"""Logging in and out of the API, and the supervisors' view of login lockouts."""
from django.contrib.auth import authenticate, logout
from django.contrib.auth.signals import user_logged_in
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from studio.errors import InvalidInput
from studio.fields import IdentifierField, TextField
from studio.roles import IsSupervisor

from .lockouts import TooManyAttempts, lockout_clear, lockouts_current
from .models import Token
from .tokens import token_issue, token_revoke



class TokenObtainView(APIView):
    """A new token for each successful login, valid TOKEN_TTL seconds. Failed logins are throttled
    per username and address (accounts.lockouts): 429 `too_many_attempts` with Retry-After."""

    permission_classes = [AllowAny]
    authentication_classes = []

    class Input(serializers.Serializer):
        username = IdentifierField(max_length=150)  # the username field's own limit
        password = TextField(max_length=4096, style={"input_type": "password"}, trim_whitespace=False)  # a longer one is no password, only hashing work

        class Meta:
            ref_name = "Login"

    @extend_schema(request=Input, auth=[], responses={
        200: inline_serializer("Token", {"token": serializers.CharField(), "expires_at": serializers.DateTimeField()})})
    def post(self, request):
        data = self.Input(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(request, username=data.validated_data["username"], password=data.validated_data["password"])
        if user is None:
            if getattr(request, "axes_locked_out", False):  # set by django-axes on the request it was given
                raise TooManyAttempts()
            raise InvalidInput("Wrong username or password.", code="bad_credentials",
                                   fields={"password": ["Wrong username or password."]})
        user_logged_in.send(sender=type(user), request=request, user=user)  # as a session login does: axes resets the failures
        token = token_issue(user=user)
        return Response({"token": token.key, "expires_at": token.expires_at})


class LogoutView(APIView):
    """Revoke the token this request came with (a session: log it out, and its page token with it)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={204: None})
    def post(self, request):
        if isinstance(request.auth, Token):
            token_revoke(key=request.auth.key)
        else:
            logout(request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class LockoutSerializer(serializers.Serializer):
    username = serializers.CharField(allow_null=True)
    ip_address = serializers.IPAddressField(allow_null=True)
    failures = serializers.IntegerField()
    locked = serializers.BooleanField()
    last_failure = serializers.DateTimeField()
    retry_after = serializers.IntegerField(help_text="seconds until the pair may try again (0 if not locked)")


class LockoutListView(APIView):
    """Usernames and addresses with recent failed logins (supervisors)."""

    permission_classes = [IsSupervisor]

    @extend_schema(responses={200: LockoutSerializer(many=True)})
    def get(self, request):
        return Response(LockoutSerializer(lockouts_current(), many=True).data)


class LockoutClearView(APIView):
    """Forget a username's failed logins (from every address, or from `ip_address`): it may log in at once."""

    permission_classes = [IsSupervisor]

    class Input(serializers.Serializer):
        username = IdentifierField(max_length=255)
        ip_address = serializers.IPAddressField(required=False)

        class Meta:
            ref_name = "LockoutClear"

    @extend_schema(request=Input, responses={200: inline_serializer("LockoutCleared", {"cleared": serializers.IntegerField()})})
    def post(self, request):
        data = self.Input(data=request.data)
        data.is_valid(raise_exception=True)
        cleared = lockout_clear(actor=request.user, username=data.validated_data["username"],
                                ip_address=data.validated_data.get("ip_address"))
        return Response({"cleared": cleared})
