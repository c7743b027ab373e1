from django.urls import path

from rules import views

app_name = "rules"

urlpatterns = [
    path("", views.home, name="home"),
    path("tables/", views.table_list, name="table_list"),
    path("tables/<slug:slug>/", views.table_detail, name="table_detail"),
    path("tables/<slug:slug>/roll/", views.table_roll, name="table_roll"),
    path("rolls/", views.roll_history, name="roll_history"),
    path("names/", views.name_list, name="names"),
    path("names/<slug:generator>/", views.name_generate, name="name_generate"),
]
