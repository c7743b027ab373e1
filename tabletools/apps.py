from django.apps import AppConfig


class TabletoolsConfig(AppConfig):
    name = "tabletools"
    verbose_name = "Table tools"

    def ready(self) -> None:
        from live.registry import register_kinds
        from tabletools.kinds import KINDS

        register_kinds(KINDS)
