"""The studio's URLs and /boom/, a view that fails as an unexpected bug would."""
from django.urls import include, path


def boom(request):
    raise RuntimeError("an unexpected failure inside a view")


urlpatterns = [path("boom/", boom), path("", include("web.urls"))]
