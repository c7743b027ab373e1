from django.urls import path

from bughunt import views

app_name = "bughunt"

urlpatterns = [
    path("", views.squad_list, name="squads"),
    path("new/", views.squad_create, name="squad_create"),
    path("import/", views.squad_import, name="import"),
    path("jobs/<int:job_id>/", views.squad_job, name="job"),
    path("jobs/<int:job_id>/download/", views.squad_job_download, name="job_download"),
    path("<int:squad_id>/", views.squad_detail, name="squad"),
    path("<int:squad_id>/settings/", views.squad_settings, name="squad_settings"),
    path("<int:squad_id>/log/", views.squad_log, name="squad_log"),
    path("<int:squad_id>/undo/", views.squad_undo, name="undo"),
    path("<int:squad_id>/export/", views.squad_export, name="export"),
    path("<int:squad_id>/members/", views.member_invite, name="member_invite"),
    path("<int:squad_id>/members/<int:member_id>/remove/", views.member_remove, name="member_remove"),
    path("<int:squad_id>/marines/", views.marine, name="marine"),
    path("<int:squad_id>/assignment/", views.special_assignment, name="assignment"),
    path("<int:squad_id>/advance/", views.advance, name="advance"),
    path("<int:squad_id>/offer/", views.offer, name="offer"),
    path("<int:squad_id>/missions/new/", views.mission_create, name="mission_create"),
    path("missions/<int:mission_id>/", views.mission_detail, name="mission"),
    path("missions/<int:mission_id>/support/", views.mission_support, name="mission_support"),
    path("missions/<int:mission_id>/loadout/", views.mission_loadout, name="mission_loadout"),
    path("missions/<int:mission_id>/casualties/", views.mission_casualties, name="mission_casualties"),
    path("missions/<int:mission_id>/start/", views.mission_start, name="mission_start"),
    path("missions/<int:mission_id>/finish/", views.mission_finish, name="mission_finish"),
]
