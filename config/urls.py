from __future__ import annotations

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from config import api
from live import views as live_views
from rules import views as rules_views

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
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="swagger-ui"),
]

handler400 = "config.views.bad_request"
handler403 = "config.views.permission_denied"
handler404 = "config.views.page_not_found"
handler500 = "config.views.server_error"
