from django.urls import path

from studio.routes import api_route

from . import api

urlpatterns = [
    path("auth/token/", api_route(api.TokenObtainView), name="auth-token"),
    path("auth/logout/", api_route(api.LogoutView), name="auth-logout"),
    path("lockouts/", api_route(api.LockoutListView), name="lockout-list"),
    path("lockouts/clear/", api_route(api.LockoutClearView), name="lockout-clear"),
]
