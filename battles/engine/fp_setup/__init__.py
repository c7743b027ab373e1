"""Five Parsecs battle set-up: everything on the table before the first round, except the enemy.

- :func:`roll_mission`: the battle type by mission source (Mission Selection, p.116) and, with
  the Expanded Missions option, the objective overview, specific objectives, time constraints,
  extraction, set-up and Patron special conditions (pp.74-77).
- :func:`roll_deployment`: Enemy Deployment Variables by AI type (pp.44-45), when the option is
  on (chosen, or switched on by progressive difficulty option 2 from turn 4, p.31).
- :func:`ai_variation`: the AI Variations activation roll (pp.42-43) that the battle tracker
  makes each time an enemy acts; :func:`ai_reminder` gives the same table as a card reminder.
- :func:`roll_terrain`: the terrain generator (pp.94-98): a notable feature over the centre,
  four quarters of regular features and scatter, for one of :data:`THEMES`.
- :func:`generate`: all of the above plus the difficulty reminders of
  :func:`campaigns.engine.difficulty.battle_brief` (toggles pp.32-34, progressive difficulty
  pp.30-31, elite enemies p.48 ...), as a :class:`BattleSetup` with a printable card.

In-play helpers for the deployment results: :func:`infiltration_placement` (end of Round 2),
:func:`reinforced_arrives` (each round end), :func:`concealed_feature` (end of Rounds 2-4) and
:func:`roll_extraction` (a deferred Extraction roll).

Every roll is made with the :class:`~rules.engine.dice.Dice` passed in and comes back as its
:class:`~rules.engine.dice.RollRecord` (one roll, one record) with a reason. ``faces`` lets a
player type physical dice instead: one value per die, in the order the rolls are made (a D100
is one value, 1-100); too few or too many raise :class:`SetupError`.

Numbers are read from the shipped tables (``mission-selection``, ``expanded-mission-*``,
``deployment-variables``, ``deployment-variable-effects``, ``deployment-infiltration-placement``,
``ai-variations``, ``ai-variation-base-conditions``, ``terrain-*``, the difficulty tables).

Where the Compendium leans on the core rulebook (its mission objective table, its deployment
rules, Seize the Initiative) we take the result as an input and say so.

Rulings:

- Mission Selection: Rival missions and Invasion battles have a single printed result, so no
  die is rolled. ``source="salvage"`` (a Salvage job offered by the p.137 rules) is a Salvage
  battle without a roll. A battle type chosen by the player (``battle_type``) skips the roll,
  since the table is optional.
- A Faction mission that comes up Conventional is played as a Patron mission (p.116), so it
  counts as a Patron job for the Patron special conditions.
- Expanded Missions, their Patron special conditions and Deployment Variables change only
  conventional battles. Stealth missions, street fights and salvage jobs keep their own set-up
  (pp.117, 123, 137), which this module does not generate.
- With two objectives, an "Extraction unknown" time result on either of them holds back the
  Extraction roll until the objectives are done (:func:`roll_extraction`).
- Random edges and directions use a D12 read as a clock face seen from above the table, 12
  o'clock at the far edge (as the Bug Hunt engine does): edges are 11-1 far, 2-4 right, 5-7
  near and 8-10 left. The crew's edge is opposite the enemy's. A random neutral edge (Half
  flank, Bolstered flank) is a D6: 1-3 left, 4-6 right, as seen from the crew's edge.
- Objectives placed a rolled distance from the centre (Rescue, Sneak) get their distance and a
  D12 direction at set-up. Core-rulebook objectives that sit on the centre get only a reminder
  to shift them 1D6" (their placement lives in the core rulebook).
- Deployment Variables are rolled after Seize the Initiative, which the tracker rolls. Given
  ``seized=None`` we roll the D100 now and mark the result conditional: it stands only if the
  crew fails to Seize the Initiative (a success means Line). ``seized=True`` gives Line with no
  roll; ``seized=False`` gives the rolled result outright.
- Guardian AI has no deployment column: it keeps the standard (Line) deployment, no roll. AI
  Variations leave Beast, Rampage and Guardian AI unchanged, so those types make no roll.
- Bolstered line needs the crew and enemy counts; without ``enemy_count`` both cases are shown.
- Industrial quarters: two or more Buildings (face 2) are noted to stand close or merge, and two
  or more areas of open ground (face 3) are noted to make one a hill (p.97).
- They are Paying us by the Hour: its time limit (higher of 2D6, plus 4) is rolled here.

Pure Python: no Django imports.
"""

from __future__ import annotations

from battles.engine.fp_setup.ai import AIActivation, ai_reminder, ai_variation
from battles.engine.fp_setup.base import (
    AI_BASE_TABLE,
    AI_TABLE,
    AI_TYPES,
    BATTLE_TYPES,
    CENTRE_SHIFT,
    DEPLOYMENT_EFFECTS_TABLE,
    DEPLOYMENT_TABLE,
    EDGES,
    EXPANDED_SETUP_TABLE,
    EXTRACTION_TABLE,
    FACE_PARTS,
    INDUSTRIAL_BUILDING_FACE,
    INDUSTRIAL_OPEN_GROUND_FACE,
    INFILTRATION_TABLE,
    MISSION_TABLE,
    NEUTRAL_LEFT_MAX,
    OBJECTIVE_TABLE,
    OPPOSITE,
    OVERVIEW_TABLE,
    PATRON_TABLE,
    SOURCES,
    TABLE_SIZES,
    TERRAIN_STEPS_TABLE,
    THEMES,
    TIME_TABLE,
    SetupError,
)
from battles.engine.fp_setup.battle import BattleSetup, generate
from battles.engine.fp_setup.deployment import (
    DeploymentPlan,
    Placement,
    concealed_feature,
    infiltration_placement,
    reinforced_arrives,
    roll_deployment,
)
from battles.engine.fp_setup.expanded import roll_mission
from battles.engine.fp_setup.mission import (
    CORE_OBJECTIVE_REASON,
    CoreRoll,
    Extraction,
    MissionPlan,
    Objective,
    PatronCondition,
    roll_core_table,
    roll_extraction,
)
from battles.engine.fp_setup.terrain import TerrainCard, TerrainFeature, TerrainQuarter, roll_terrain

__all__ = [
    "AI_BASE_TABLE",
    "AI_TABLE",
    "AI_TYPES",
    "BATTLE_TYPES",
    "CENTRE_SHIFT",
    "CORE_OBJECTIVE_REASON",
    "DEPLOYMENT_EFFECTS_TABLE",
    "DEPLOYMENT_TABLE",
    "EDGES",
    "EXPANDED_SETUP_TABLE",
    "EXTRACTION_TABLE",
    "FACE_PARTS",
    "INDUSTRIAL_BUILDING_FACE",
    "INDUSTRIAL_OPEN_GROUND_FACE",
    "INFILTRATION_TABLE",
    "MISSION_TABLE",
    "NEUTRAL_LEFT_MAX",
    "OBJECTIVE_TABLE",
    "OPPOSITE",
    "OVERVIEW_TABLE",
    "PATRON_TABLE",
    "SOURCES",
    "TABLE_SIZES",
    "TERRAIN_STEPS_TABLE",
    "THEMES",
    "TIME_TABLE",
    "AIActivation",
    "BattleSetup",
    "CoreRoll",
    "DeploymentPlan",
    "Extraction",
    "MissionPlan",
    "Objective",
    "PatronCondition",
    "Placement",
    "SetupError",
    "TerrainCard",
    "TerrainFeature",
    "TerrainQuarter",
    "ai_reminder",
    "ai_variation",
    "concealed_feature",
    "generate",
    "infiltration_placement",
    "reinforced_arrives",
    "roll_core_table",
    "roll_deployment",
    "roll_extraction",
    "roll_mission",
    "roll_terrain",
]
