"""Special mission types (Compendium p.116): which tracker kind plays a battle of each type and
which generator sets it up. Mission Selection (``fp_setup``) or the player picks the type (its
:data:`battles.engine.fp_setup.BATTLE_TYPES` key); a type listed here is then set up by its
generator, shown as such on the set-up card, tracked by its kind and finished by its outcome.
A type not listed in :data:`MISSION_TRACKERS` is played as a conventional battle. Salvage jobs
(pp.137-147) are set up from a battle like Stealth missions (their rooms may also be opened from
the rooms page). A Street fight (pp.123-136) is set up from a battle too: its card is rolled for
the crew size's slots and the battle's crew takes them when the tracker opens
(``street_kind.battle_card``); it can also be opened as a room of its own
(``POST /api/v1/fp-street-fights/``).

Each type's kind module (``battles.<type>_kind``) provides:

- ``KIND`` (the tracker kind id) and ``initial_state`` / ``reducer`` / ``release`` (registered
  in :mod:`battles.kinds`);
- ``outcome(state) -> dict``: the result in a standard battle's shape (``fp_tracker.outcome``'s
  keys) plus ``won``;
- ``mission_setup(dice, tables, *, crew_size, ai_type) -> dict``: the type's set-up, JSON-ready,
  with ``card`` (lines for the set-up card), ``no_minis`` (whether and why the no-minis rules
  apply), optional ``enemy_counts`` ({"basic", "specialist", "lieutenant"}: the force is
  reshaped to these numbers), ``enemy_swaps`` ({category: category played instead}) and
  ``enemy_fought: false`` when the rolled enemy is not fought (a Salvage job's Hostiles come in
  play, p.139); the tracker set-up gets it under the type's id. Raises ``rules.engine.errors.RuleError`` naming
  the field.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from battles import salvage_kind, stealth_kind, street_kind

#: Mission type id (``fp_setup.BATTLE_TYPES`` key) -> tracker kind id.
MISSION_TRACKERS: dict[str, str] = {
    "stealth": "fiveparsecs-stealth",
    "salvage": salvage_kind.KIND,
    "street_fight": street_kind.KIND,
}

#: Tracker kind id -> its kind module (``mission_setup``, ``outcome``, ``KIND``).
MISSION_KINDS: dict[str, ModuleType] = {
    stealth_kind.KIND: stealth_kind,
    salvage_kind.KIND: salvage_kind,
    street_kind.KIND: street_kind,
}


def kind_of(mission_type: str | None) -> str | None:
    """The tracker kind id that plays ``mission_type``, or ``None`` for a conventional battle."""
    return MISSION_TRACKERS.get(str(mission_type or ""))


def generator(mission_type: str | None) -> Callable[..., Mapping[str, Any]] | None:
    """The set-up generator of ``mission_type``'s kind (``mission_setup``), or ``None``."""
    kind = kind_of(mission_type)
    module = MISSION_KINDS.get(kind or "")
    return None if module is None else module.mission_setup  # type: ignore[no-any-return]


def outcome_for(kind: str) -> Callable[[Mapping[str, Any]], dict[str, Any]] | None:
    """The ``outcome`` of a special mission's tracker kind, or ``None`` for the standard battle."""
    module = MISSION_KINDS.get(kind)
    return None if module is None else module.outcome  # type: ignore[no-any-return]
