from django.urls import path

from rules import views

app_name = "rules"

urlpatterns = [
    path("", views.home, name="home"),
    path("tables/", views.table_list, name="table_list"),
    path("tables/<slug:slug>/", views.table_detail, name="table_detail"),
    path("tables/<slug:slug>/roll/", views.table_roll, name="table_roll"),
    path("my-tables/", views.my_tables, name="my_tables"),
    path("my-tables/new/", views.my_table_new, name="my_table_new"),
    path("my-tables/import/", views.my_tables_import, name="my_tables_import"),
    path("my-tables/<slug:slug>/edit/", views.my_table_edit, name="my_table_edit"),
    path("my-tables/<slug:slug>/delete/", views.my_table_delete, name="my_table_delete"),
    path("my-tables/<slug:slug>/export/", views.my_table_export, name="my_table_export"),
    path("rolls/", views.roll_history, name="roll_history"),
    path("names/", views.name_list, name="names"),
    path("names/<slug:generator>/", views.name_generate, name="name_generate"),
]
