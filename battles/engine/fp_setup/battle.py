"""The whole set-up: mission, deployment, terrain and the difficulty brief in one battle card.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from battles.engine.fp_setup.ai import ai_reminder
from battles.engine.fp_setup.base import AI_TYPES, SetupError, _check_faces, _difficulty, _key, _plural
from battles.engine.fp_setup.deployment import DeploymentPlan, roll_deployment
from battles.engine.fp_setup.expanded import roll_mission
from battles.engine.fp_setup.mission import MissionPlan
from battles.engine.fp_setup.terrain import TerrainCard, roll_terrain
from campaigns.engine.difficulty import Reminder, TurnDifficulty, battle_brief
from campaigns.engine.options import CampaignOptions, OptionError
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

# -- the whole set-up -------------------------------------------------------------------


@dataclass(frozen=True)
class BattleSetup:
    """Everything for one battle except the enemy force.

    - ``campaign_turn``, ``crew_size`` (crew figures fielded).
    - ``mission``: :class:`MissionPlan`; ``deployment``: :class:`DeploymentPlan` or ``None``
      (option off, or not a conventional battle); ``terrain``: :class:`TerrainCard` or ``None``
      (no theme: the player sets up the table).
    - ``ai_type``, ``ai_variations``: the enemy AI type if known and whether AI Variations are on.
    - ``difficulty``: :class:`~campaigns.engine.difficulty.TurnDifficulty` for the turn.
    - ``brief``: reminders (difficulty toggles, progressive difficulty, elite enemies, AI
      Variations ...); ``rolls``: every roll, mission first, then deployment, then terrain.
    """

    campaign_turn: int
    crew_size: int
    mission: MissionPlan
    deployment: DeploymentPlan | None
    terrain: TerrainCard | None
    ai_type: str | None
    ai_variations: bool
    difficulty: TurnDifficulty
    brief: tuple[Reminder, ...]
    rolls: tuple[RollRecord, ...]

    def card_lines(self) -> list[str]:
        """The printable set-up card: mission and objectives, deployment, terrain by quarter,
        then the reminders."""
        out = [f"BATTLE SET-UP: campaign turn {self.campaign_turn}, {_plural(self.crew_size, 'crew figure')}"]
        out += self.mission.lines()
        if self.deployment:
            out += self.deployment.lines()
        elif self.mission.battle_type == "conventional":
            out.append("Enemy deployment: standard (core rulebook).")
        if self.terrain:
            out += self.terrain.lines
        else:
            out.append("Terrain: set up the table as you like.")
        if self.brief:
            out.append("Reminders:")
            out += [f"- {r.title} ({r.source}): {r.text}" for r in self.brief]
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "campaign_turn": self.campaign_turn,
            "crew_size": self.crew_size,
            "mission": self.mission.as_dict(),
            "deployment": self.deployment.as_dict() if self.deployment else None,
            "terrain": self.terrain.as_dict() if self.terrain else None,
            "ai_type": self.ai_type,
            "ai_variations": self.ai_variations,
            "difficulty": self.difficulty.as_dict(),
            "brief": [r.as_dict() for r in self.brief],
            "rolls": [r.as_dict() for r in self.rolls],
            "card": self.card_lines(),
        }


def generate(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    *,
    options: CampaignOptions,
    campaign_turn: int,
    crew_size: int,
    theme: str | None,
    mission_source: str,
    patron: bool = False,
    expanded_missions: bool = False,
    deployment_variables: bool = False,
    ai_variations: bool = False,
    ai_type: str | None = None,
    seized: bool | None = None,
    enemy_count: int | None = None,
    battle_type: str | None = None,
    table_ft: int = 3,
    objective: str | None = None,
    core_objectives: RangeTable | None = None,
    crashed_ship: bool = False,
    faces: Mapping[str, Sequence[int]] | None = None,
) -> BattleSetup:
    """The whole battle set-up except the enemy force.

    - Mission: :func:`roll_mission` with ``mission_source``, ``patron``, ``expanded_missions``,
      ``battle_type``, ``table_ft``, ``objective``, ``core_objectives``.
    - Deployment: :func:`roll_deployment` for conventional battles when ``deployment_variables``
      is on or progressive option 2 has switched it on; then ``ai_type`` is required. ``seized``
      and ``enemy_count`` as there.
    - Terrain: :func:`roll_terrain` for ``theme`` (``None``: no generated terrain).
    - Brief: :func:`campaigns.engine.difficulty.battle_brief` for ``campaign_turn`` and
      ``crew_size`` (crew figures fielded), plus the AI Variations table when ``ai_variations``.

    ``faces``: typed dice per part, ``{"mission": [...], "deployment": [...], "terrain": [...]}``.
    Raises :class:`SetupError` naming the field (``crew_size``, ``campaign_turn``, ``ai_type``,
    ``theme``, ``source`` ...).
    """
    if isinstance(crew_size, bool) or not isinstance(crew_size, int) or crew_size < 1:
        raise SetupError(f"crew_size must be the crew figures fielded, 1 or more; got {crew_size!r}.", field="crew_size")
    if isinstance(campaign_turn, bool) or not isinstance(campaign_turn, int) or campaign_turn < 1:
        raise SetupError(f"campaign_turn must be 1 or more; got {campaign_turn!r}.", field="campaign_turn")
    if enemy_count is not None and (isinstance(enemy_count, bool) or not isinstance(enemy_count, int) or enemy_count < 0):
        raise SetupError(f"enemy_count must be a number of figures, 0 or more; got {enemy_count!r}.", field="enemy_count")
    ai = None if ai_type is None else _key(ai_type, AI_TYPES, "ai_type")
    typed = _check_faces(faces)
    difficulty = _difficulty(options, campaign_turn, tables)
    mission = roll_mission(
        dice,
        tables,
        source=mission_source,
        options=options,
        expanded=expanded_missions,
        patron=patron,
        campaign_turn=campaign_turn,
        battle_type=battle_type,
        table_ft=table_ft,
        objective=objective,
        core_objectives=core_objectives,
        faces=typed.get("mission"),
    )
    deployment = None
    if mission.battle_type == "conventional" and (deployment_variables or difficulty.deployment_variables):
        if ai is None:
            raise SetupError(f"ai_type is needed for Deployment Variables; choose one of {', '.join(AI_TYPES)}.", field="ai_type")
        deployment = roll_deployment(
            dice,
            tables,
            ai_type=ai,
            options=options,
            enabled=True,
            campaign_turn=campaign_turn,
            seized=seized,
            crew_size=crew_size,
            enemy_count=enemy_count,
            faces=typed.get("deployment"),
        )
    elif typed.get("deployment"):
        raise SetupError("faces has deployment dice but Deployment Variables make no roll here.", field="faces")
    terrain = None
    if theme is not None:
        terrain = roll_terrain(dice, tables, theme=theme, faces=typed.get("terrain"), crashed_ship=crashed_ship)
    elif typed.get("terrain"):
        raise SetupError("faces has terrain dice but no theme was chosen.", field="faces")
    try:
        brief = list(battle_brief(options, campaign_turn, tables, crew_size))
    except OptionError as exc:
        raise SetupError(exc.message, field=exc.field) from exc
    if ai_variations:
        brief.append(ai_reminder(tables, ai))
    rolls = mission.rolls + (deployment.rolls if deployment else ()) + (terrain.rolls if terrain else ())
    return BattleSetup(
        campaign_turn=campaign_turn,
        crew_size=crew_size,
        mission=mission,
        deployment=deployment,
        terrain=terrain,
        ai_type=ai,
        ai_variations=bool(ai_variations),
        difficulty=difficulty,
        brief=tuple(brief),
        rolls=rolls,
    )
