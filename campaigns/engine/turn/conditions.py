"""Step conditions: :func:`applies` says whether a step applies once it is reached (the terms
are listed in :data:`~campaigns.engine.turn.steps.CONDITION_TERMS`).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from campaigns.engine import connections
from campaigns.engine.turn.steps import CONDITION_TERMS, StepSpec, TurnError
from campaigns.engine.view import CampaignView

# -- conditions ----------------------------------------------------------------------------


def _battle(view: CampaignView, facts: Mapping[str, Any]) -> Mapping[str, Any] | None:
    found = facts.get("battle")
    if isinstance(found, Mapping):
        return found
    if view.battle is not None:
        return asdict(view.battle)
    return None


def _term(term: str, view: CampaignView, facts: Mapping[str, Any]) -> bool:
    battle = _battle(view, facts)
    mission = str(facts.get("mission") or (battle or {}).get("mission") or "")
    if term == "traveled":
        return bool(facts.get("traveled"))
    if term == "new_world":
        if "new_world" in facts:
            return bool(facts["new_world"])
        return bool(facts.get("traveled")) or not view.world.name
    if term == "krag_colony":
        return bool(facts.get("krag_colony"))
    if term == "invaded":
        return bool(facts.get("invaded", view.world.invaded))
    if term == "salvage":  # the turn's Salvage mission, or a battle played as a Salvage job (p.116)
        return mission == term or isinstance(facts.get("salvage"), Mapping)
    if term == "opportunity":
        return mission == term
    if term == "battle_fought":
        return battle is not None
    if term in ("won", "held_field"):
        return bool((battle or {}).get(term))
    if term == "psionic_used":
        return int((battle or {}).get("psionic_uses") or 0) > 0
    if term == "outlawed":
        return str(facts.get("psionic_legality", view.world.psionic_legality)) == "outlawed"
    if term == "unstable":
        return bool(facts.get("unstable", view.world.unstable))
    if term == "loan":
        return view.loan_balance is not None
    if term == "factions":
        return int(facts.get("factions_count", len(view.factions))) > 0
    if term == "injured_crew":
        return any(c.injuries for c in view.crew if c.status == "active")
    if term in connections.CONDITIONS:
        return connections.condition(term, facts)
    if term == "pvp":  # planned at the battle type step, or recorded from a PvP battle (pp.35-37)
        return mission == "pvp" or bool(facts.get("pvp"))
    if term == "coop":  # planned at the battle type step, or recorded from a co-op battle (pp.39-41)
        return mission == "coop" or bool(facts.get("coop"))
    if term == "pvp_bonus_loot":  # a PvP bonus Loot roll (p.37) or a co-op battle's shared one (p.41)
        return bool(facts.get("pvp") or facts.get("coop")) and int(facts.get("bonus_loot") or 0) > 0
    if term == "faction_job_won":
        return bool(facts.get("faction_job")) and bool((battle or {}).get("won"))
    raise TurnError(
        f"Unknown condition {term!r}; conditions are {', '.join(CONDITION_TERMS)} (or not_<term>).", field="condition"
    )


def applies(step: StepSpec, view: CampaignView, facts: Mapping[str, Any]) -> bool:
    """Whether ``step`` applies now, given the ``facts`` recorded by this turn's earlier steps.

    Raises :class:`TurnError` (field ``condition``) for a condition term not in
    :data:`CONDITION_TERMS`.
    """
    if not step.condition:
        return True
    for raw in step.condition.split("&"):
        term = raw.strip()
        negate = term.startswith("not_")
        result = _term(term[4:] if negate else term, view, facts)
        if result == negate:
            return False
    return True
