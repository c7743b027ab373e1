"""The squad version a write is made against, read as a form or an API client would: the one
stored now (Bug Hunt writes without a version are refused)."""

from __future__ import annotations

from bughunt.models import Squad


def squad_version(squad_id: int) -> int:
    """The stored version of squad ``squad_id``."""
    return int(Squad.objects.values_list("version", flat=True).get(pk=squad_id))


def mission_version(mission_id: int) -> int:
    """The stored version of the squad playing mission ``mission_id``."""
    return int(Squad.objects.values_list("version", flat=True).get(missions__pk=mission_id))
