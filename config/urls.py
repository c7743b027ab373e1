from __future__ import annotations

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from config import api
from live import views as live_views
from rules import views as rules_views

handler404 = "config.api.not_found"

urlpatterns = [
    path("", include("rules.urls")),
    path("rooms/", include("live.urls")),
    path("bughunt/", include("bughunt.urls")),
    path("campaigns/", include("campaigns.urls")),
    path("battles/", include("battles.urls")),
    path("events/rooms/<int:room_id>/", live_views.room_events, name="room-events"),
    path("accounts/signup/", rules_views.signup, name="signup"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("api/v1/", include(api.urlpatterns())),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
]
