from django.apps import AppConfig


class BughuntConfig(AppConfig):
    name = "bughunt"
    verbose_name = "Bug Hunt"

    def ready(self) -> None:
        from bughunt import tracker_kind

        tracker_kind.register()
