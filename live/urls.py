from django.urls import path

from live import views

app_name = "live"

urlpatterns = [
    path("", views.room_list, name="rooms"),
    path("join/", views.join, name="join"),
    path("<int:room_id>/", views.room_detail, name="room"),
    path("<int:room_id>/tracker/", views.room_tracker, name="tracker"),
    path("<int:room_id>/log/", views.room_log, name="log"),
    path("<int:room_id>/act/", views.room_act, name="act"),
    path("<int:room_id>/undo/", views.room_undo, name="undo"),
    path("<int:room_id>/members/<int:user_id>/role/", views.member_role, name="member_role"),
    path("<int:room_id>/members/<int:user_id>/remove/", views.member_remove, name="member_remove"),
    path("<int:room_id>/qr.svg", views.room_qr, name="qr"),
    path("<int:room_id>/code/rotate/", views.room_code_rotate, name="code_rotate"),
    path("<int:room_id>/code/revoke/", views.room_code_revoke, name="code_revoke"),
]
