from django.apps import AppConfig


class BattlesConfig(AppConfig):
    name = "battles"
    verbose_name = "Battles"

    def ready(self) -> None:
        from battles.kinds import KINDS
        from live.registry import register_kinds

        register_kinds(KINDS)
