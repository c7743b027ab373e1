"""What the campaign engines read about a campaign, and the changes they ask for.

The service layer builds a :class:`CampaignView` from the database, an engine returns
:class:`Change` objects, and the service applies them. Engines never write.

Change kinds (``Change.kind`` and the keys of ``Change.data``):

- ``credits``: ``amount`` (credits, may be negative)
- ``story_points``: ``amount``
- ``rival_add``: ``name``, ``kind`` (enemy type), optional ``psi_hunter`` (bool), ``elite`` (bool), ``notes``,
  ``collector`` (bool: a loan collection squad, which always follows the crew, p.156)
- ``rival_remove``: ``name``
- ``patron_add``: ``name``, optional ``notes``; ``patron_remove``: ``name``
- ``rumor_add``: ``text``; ``rumor_remove``: ``count``
- ``world``: any of ``name``, ``traits`` (list), ``psionic_legality`` (``outlawed``,
  ``unusual``, ``who_cares``), ``instability`` (int), ``invaded`` (bool), ``strife`` (text),
  ``unstable`` (bool: the world tracks Instability, p.148)
- ``character``: ``id`` (crew id) plus any of ``xp`` (delta), ``status``, ``sick_bay`` (turns),
  ``injury`` (text), ``note``; ``status: gone`` takes them off the roster
- ``ship``: any of ``hull_damage`` (delta), ``component_add`` (name), ``lost`` (True: the ship
  is gone, seized for good)
- ``loan``: any of ``balance`` (delta credits), ``note``, and the state keys of
  ``world.loan_state_apply`` (``collectors``, ``warrant`` with ``owed``, ``warrant_cleared``,
  ``seizure``, ``impounded``)
- ``note``: ``text`` (only words for the log)
- ``faction_add``: ``name``, ``type``, ``influence``, ``power``, ``loyalty`` (Expanded Factions, p.110)
- ``faction``: ``name`` plus any of ``influence``, ``power``, ``loyalty`` (deltas), ``no_job_turn``,
  ``no_activity_turn``, ``attacked_turn`` (campaign turn numbers, replace the stored value)
- ``faction_remove``: ``name``
- ``quest``: ``state`` (the new Expanded Quest Progression state, :mod:`campaigns.engine.quests`,
  replacing the stored one) and optional ``end`` (True: the Quest is over; its name and its
  Quest Rumors are cleared, p.80)

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from campaigns.engine.options import CampaignOptions

CHANGE_KINDS = (
    "credits",
    "story_points",
    "rival_add",
    "rival_remove",
    "patron_add",
    "patron_remove",
    "rumor_add",
    "rumor_remove",
    "world",
    "character",
    "ship",
    "loan",
    "note",
    "faction_add",
    "faction",
    "faction_remove",
    "quest",
)


@dataclass(frozen=True)
class Change:
    """One change an engine asks the service to make; see the module docstring for kinds."""

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in CHANGE_KINDS:
            raise ValueError(f"Unknown change kind {self.kind!r}; kinds are {', '.join(CHANGE_KINDS)}.")

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "data": dict(self.data)}


@dataclass(frozen=True)
class CrewView:
    """One crew member as the turn engines see them. ``status`` is ``active``, ``sick_bay``,
    ``dead`` or ``gone``; ``species`` is a key such as ``human``, ``krag``, ``skulker``, ``bot``;
    ``injuries``: the lasting injuries noted on their sheet (p.101)."""

    id: str
    name: str
    species: str = "human"
    psionic: bool = False
    status: str = "active"
    xp: int = 0
    sick_bay: int = 0
    injuries: tuple[str, ...] = ()
    savvy: int = 0
    captain: bool = False


@dataclass(frozen=True)
class RivalView:
    name: str
    kind: str = ""
    elite: bool = False
    psi_hunter: bool = False
    collector: bool = False


@dataclass(frozen=True)
class WorldView:
    """The world the crew is on. ``psionic_legality`` is empty until rolled."""

    name: str = ""
    traits: tuple[str, ...] = ()
    psionic_legality: str = ""
    instability: int = 0
    invaded: bool = False
    unstable: bool = False
    strife: str = ""
    #: the campaign turn the crew arrived here (turns spent here count from it)
    arrived_turn: int = 0


@dataclass(frozen=True)
class FactionView:
    """A planetary Faction (Expanded Factions, p.110). ``influence`` and ``power`` are 1-5ish;
    ``loyalty`` is the crew's Loyalty to it. ``no_job_turn`` / ``no_activity_turn``: the campaign
    turn on which it offers no job / takes no activity (0: none). ``attacked_turn``: the last
    turn the crew fought against it (0: never)."""

    name: str
    type: str = ""
    influence: int = 0
    power: int = 0
    loyalty: int = 0
    no_job_turn: int = 0
    no_activity_turn: int = 0
    attacked_turn: int = 0


@dataclass(frozen=True)
class BattleView:
    """What the battle step recorded. ``mission`` is ``patron``, ``rival``, ``quest``,
    ``opportunity`` or ``salvage``; ``psionic_uses`` counts powers used by the crew."""

    mission: str = "opportunity"
    won: bool = False
    held_field: bool = False
    psionic_uses: int = 0
    elite: bool = False
    enemy: str = ""
    casualties: tuple[str, ...] = ()


@dataclass(frozen=True)
class CampaignView:
    """A campaign at one moment: ``turn`` counts campaign turns (the one being played)."""

    turn: int
    options: CampaignOptions
    crew: tuple[CrewView, ...] = ()
    credits: int = 0
    story_points: int = 0
    rivals: tuple[RivalView, ...] = ()
    patrons: tuple[str, ...] = ()
    rumors: int = 0
    quest: str = ""
    world: WorldView = field(default_factory=WorldView)
    ship_components: tuple[str, ...] = ()
    has_ship: bool = True
    loan_balance: int | None = None
    battle: BattleView | None = None
    #: the loan's terms as ``world.LoanTerms.as_dict()`` (Loans option, p.152), or None
    loan_terms: Mapping[str, Any] | None = None
    factions: tuple[FactionView, ...] = ()
    #: the Expanded Quest Progression state (pp.78-80; :mod:`campaigns.engine.quests`)
    quest_step: Mapping[str, Any] = field(default_factory=dict)
    #: earlier turns' Expanded Connections checks, oldest first: True when it had a Connection (p.80)
    connection_history: tuple[bool, ...] = ()
