"""HTML routes of the Five Parsecs battles (namespace ``battles``); the lead includes them."""

from django.urls import path

from battles import pvp_views, views

app_name = "battles"

urlpatterns = [
    path("fp/", views.battle_list, name="list"),
    path("fp/new/", views.battle_create, name="create"),
    path("fp/jobs/<int:job_id>/", views.job_detail, name="job"),
    path("fp/<int:battle_id>/", views.battle_detail, name="detail"),
    path("fp/<int:battle_id>/nominis/", views.nominis_view, name="nominis"),
    path("fp/<int:battle_id>/act/<slug:action>/", views.act, name="act"),
    path("pvp/", pvp_views.meeting_list, name="pvp_list"),
    path("pvp/start/", pvp_views.meeting_start, name="pvp_start"),
    path("pvp/<int:meeting_id>/", pvp_views.meeting_detail, name="pvp"),
    path("pvp/<int:meeting_id>/<slug:action>/", pvp_views.meeting_act, name="pvp_act"),
]
