from django.apps import AppConfig


class BughuntConfig(AppConfig):
    name = "bughunt"
    verbose_name = "Bug Hunt"

    def ready(self) -> None:
        from bughunt.kinds import KINDS
        from live.registry import register_kinds

        register_kinds(KINDS)
