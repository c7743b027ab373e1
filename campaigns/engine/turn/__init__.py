"""The guided campaign turn: the updated turn sequence (Compendium p.9), its optional steps,
and the engine rules that resolve the Compendium's own steps.

:func:`plan_turn` lists the turn's steps in order (:class:`StepSpec`), built from the
``campaign-turn-sequence`` and ``new-world-arrival-steps`` tables; :func:`applies` says
whether a step applies once it is reached; :func:`resolve` runs a step's engine rule.

Step keys are ``<phase>.<name>``: ``travel.*``, ``arrival.*`` (the New World Arrival
steps, part of the travel phase), ``world.*``, ``battle.*`` and ``post.*``.

Which steps appear (:func:`plan_turn`)
-------------------------------------
- Core steps always appear; a step whose core table the player can map has a ``slot``.
- Compendium steps appear only with their option: Loans (``world.loan_enforcement``),
  Expanded Factions (``travel.factions_fleeing``, ``arrival.factions``, ``world.faction_job``,
  ``post.faction_loyalty``, ``post.faction_activity``, ``post.faction_event``), Fringe World
  Strife (``arrival.instability``, ``post.instability``), Psionics ``crew`` or ``both``
  (``arrival.psionic_legality``, ``post.psionic_detection``). Salvage steps always appear,
  with the condition ``salvage``.
- Added by us: ``arrival.world`` (name the new world, pp.157-158), ``travel.research`` (a ship
  with the Scientific Research System, p.27), ``battle.elite`` (elite enemies not ``never``,
  or Progressive Difficulty option 2, which can switch them on; p.48), ``battle.injuries``
  (Detailed Post-Battle Injuries: Lingering injury rolls and the penalties in play, p.101),
  ``battle.brief`` and
  ``battle.record``, with Expanded Connections ``battle.connection_accept`` and
  ``post.connection`` (and the core ``battle.connections`` step runs its check,
  :mod:`campaigns.engine.connections`, pp.80-86), ``post.story_track`` (Story Track option, core p.153) and, on turn 5 of
  the Introductory Campaign, ``post.tutorial_done`` (p.109).

Introductory Campaign (p.104-109; option on, turns 1-5)
-------------------------------------------------------
The ``introductory-campaign-turns`` row of the turn keeps only the listed core step numbers
per phase (``None`` = the full sequence). The numbers are the core rulebook's: the updated
sequence without the Compendium-only steps (so "Get paid" is post-battle step 4).
Our ruling for the Compendium-only steps: each one follows the core step it hangs on (the
nearest core step before it in its phase; New World Arrival steps hang on travel step 4): it
is kept exactly when that step is kept, except the Salvage steps, which turns 1-4 drop (their
missions are set by the tutorial). The Story Track step waits for turn 6, since the book
starts the Story Track when the tutorial ends. The battle phase has no numbered list: turns 1-4
drop Connections and the elite check (the tutorial sets the enemies), keep
Deployment Conditions and Notable Sights only when the row says so. "Your First Fight" (turn 0)
is played at set-up and is not a campaign turn: :func:`plan_turn` refuses turn 0.

Conditions (:func:`applies`)
----------------------------
``condition`` is ``""`` (always) or terms joined by ``&``; a term may start with ``not_``.
Terms: ``traveled`` (facts), ``new_world`` (traveled, or the campaign has no world yet),
``krag_colony``, ``invaded`` (facts, else the world), ``salvage`` and ``opportunity`` (the
mission), ``battle_fought``, ``won``, ``held_field``, ``psionic_used`` (Psionic powers used
in the battle), ``outlawed`` (Psionics outlawed here), ``unstable`` (the world tracks
Instability), ``loan`` (the campaign has a loan), ``factions`` (Factions on this world),
``faction_job_won`` (the crew won a job for a Faction), ``injured_crew`` (an active crew member
has a lasting injury noted), ``connection_offer`` (a Connection that may still be turned down)
and ``connection`` (a Connection played this turn).

Facts (the turn's record): engine rules return them in :attr:`StepResult.facts`; the service
merges them and adds its own: ``invaded`` (from Check for invasion), ``loan_balance_before``
(debt in credits before the Upkeep payment and interest, used by loan enforcement; set however
Upkeep was resolved), ``upkeep_unpaid`` (credits of Upkeep the crew could not pay),
``battle_kills`` (enemies killed, when the battle counted them) and ``battle_source``
(``{id, title, overridden}``: the finished battle "Record the battle" took its result from).

The package holds one module per section: :mod:`.steps` (the phases, rule names,
:class:`TurnError`, :class:`StepSpec`, :class:`StepResult`), :mod:`.catalogue` (:func:`plan_turn`),
:mod:`.conditions` (:func:`applies`) and :mod:`.resolving` (:func:`resolve`); every public name
of those is re-exported here. Two more modules are imported by name: :mod:`.battle` (a finished
battle's record for "Record the battle": what it decided, in words, and the step's inputs merged
with it; a typed contradiction is refused unless ``override_battle: yes``) and
:mod:`.post_battle` (Upkeep the crew cannot pay in full, core p.76; who earns XP).

Pure Python: no Django imports.
"""

from __future__ import annotations

from campaigns.engine.turn.catalogue import ADDING_OPTIONS, VARIANT_OPTIONS, intro_turn, plan_turn
from campaigns.engine.turn.conditions import applies
from campaigns.engine.turn.resolving import resolve
from campaigns.engine.turn.steps import (
    CONDITION_TERMS,
    ENGINE_RULES,
    KRAG_VISIT,
    MISSIONS,
    PHASES,
    RESEARCH_COMPONENT,
    SERVICE_RULES,
    YES_NO,
    Input,
    StepResult,
    StepSpec,
    TurnError,
)

__all__ = [
    "ADDING_OPTIONS",
    "CONDITION_TERMS",
    "ENGINE_RULES",
    "KRAG_VISIT",
    "MISSIONS",
    "PHASES",
    "RESEARCH_COMPONENT",
    "SERVICE_RULES",
    "VARIANT_OPTIONS",
    "YES_NO",
    "Input",
    "StepResult",
    "StepSpec",
    "TurnError",
    "applies",
    "intro_turn",
    "plan_turn",
    "resolve",
]
