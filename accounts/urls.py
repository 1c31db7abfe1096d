from django.urls import path

from . import api

urlpatterns = [
    path("auth/token/", api.TokenObtainView.as_view(), name="auth-token"),
    path("auth/logout/", api.LogoutView.as_view(), name="auth-logout"),
    path("lockouts/", api.LockoutListView.as_view(), name="lockout-list"),
    path("lockouts/clear/", api.LockoutClearView.as_view(), name="lockout-clear"),
]
