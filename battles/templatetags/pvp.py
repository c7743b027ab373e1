"""Template filters of the PvP battle tracker (templates/battles/pvp_battle.html)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template

from battles.engine.fp_pvp import SIDES

register = template.Library()


@register.filter
def pvp_seated(state: Mapping[str, Any], me: str) -> list[str]:
    """The sides (``host``, ``guest``) the viewer ``me`` (a user id as text) plays in a PvP
    tracker state; empty for a reader or a guest."""
    sides = state.get("sides") or {}
    return [side for side in SIDES if me and me in (sides.get(side) or {}).get("players", ())]


@register.filter
def get_side(names: Mapping[str, str], side: str) -> str:
    """The crew name of ``side`` (``host`` or ``guest``) in ``names``."""
    return str(names.get(side, side))


@register.filter
def pvp_third_runners(state: Mapping[str, Any]) -> list[str]:
    """Who runs the three-way battle's third party (p.37), as user ids as text: the referee when
    one is seated, else every player of either crew."""
    if state.get("referee"):
        return [str(state["referee"])]
    sides = state.get("sides") or {}
    return [str(p) for side in SIDES for p in (sides.get(side) or {}).get("players", ())]


@register.filter
def pvp_coop(state: Mapping[str, Any]) -> bool:
    """Whether the tracker state is an expanded co-op battle (pp.39-41) rather than a PvP one."""
    return state.get("mode") == "coop"


#: A co-op wave's arrival edge (the tracker's ``third_party["edges"]``) in words.
EDGE_WORDS = {"left": "left", "right": "right", "enemy": "enemy's", "crews": "crews' own"}


@register.filter
def wave_edge(third: Mapping[str, Any], wave: Any) -> str:
    """The edge co-op wave ``wave`` came from, in words ("" while it has not come)."""
    edge = (third.get("edges") or {}).get(str(wave))
    return f"came from the {EDGE_WORDS.get(edge, edge)} edge" if edge else ""
