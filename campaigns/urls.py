from django.urls import path

from campaigns import views

app_name = "campaigns"

urlpatterns = [
    path("", views.campaign_list, name="list"),
    path("new/", views.campaign_create, name="create"),
    path("import/", views.import_view, name="import"),
    path("jobs/<int:job_id>/", views.job_detail, name="job"),
    path("jobs/<int:job_id>/download/", views.job_download, name="job_download"),
    path("<int:campaign_id>/", views.campaign_detail, name="detail"),
    path("<int:campaign_id>/turn/", views.turn_detail, name="turn"),
    path("<int:campaign_id>/settings/", views.settings_view, name="settings"),
    path("<int:campaign_id>/log/", views.log_view, name="log"),
    path("<int:campaign_id>/log/<int:entry_id>/", views.log_entry, name="log_entry"),
    path("<int:campaign_id>/sheet/", views.crew_sheet, name="sheet"),
    path("<int:campaign_id>/export/", views.export_start, name="export"),
    path("<int:campaign_id>/crew/<int:character_id>/", views.character_detail, name="character"),
    path("<int:campaign_id>/act/<slug:action>/", views.act, name="act"),
]
