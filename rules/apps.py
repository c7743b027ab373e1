from typing import Any

from django.apps import AppConfig


def _tables_touched(**kwargs: Any) -> None:
    # A row written outside the services (loaddata, the shell, a test's own rows) must not be
    # hidden by this process's tables in memory; other processes learn of changes by the
    # version token that load_tables and the services bump.
    from rules.selectors import forget_cached_tables

    forget_cached_tables()


class RulesConfig(AppConfig):
    name = "rules"
    verbose_name = "Rules"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from rules.models import RuleTable, TableEntry

        for model in (RuleTable, TableEntry):
            post_save.connect(_tables_touched, sender=model, dispatch_uid=f"tables-touched-save-{model.__name__}")
            post_delete.connect(_tables_touched, sender=model, dispatch_uid=f"tables-touched-delete-{model.__name__}")
