"""New worlds (traits, Krag colonies) and psionic legality on arrival (Compendium p.20).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from campaigns.engine.view import Change
from campaigns.engine.world.common import Roller, WorldError, table
from rules.engine import names
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable, TableRoll

# -- new worlds ----------------------------------------------------------------------------


@dataclass(frozen=True)
class NewWorld:
    """A freshly reached world: ``name``, fixed ``traits`` (a Krag colony's) and the name rolls."""

    name: str
    traits: tuple[str, ...]
    krag_colony: bool
    rolls: tuple[RollRecord, ...] = ()

    def change(self) -> Change:
        """The ``world`` change that replaces the old world's record with this one."""
        return Change(
            "world",
            {
                "name": self.name,
                "traits": list(self.traits),
                "psionic_legality": "",
                "instability": 0,
                "invaded": False,
                "unstable": False,
                "strife": "",
            },
        )


def krag_colony(tables: Mapping[str, RangeTable]) -> Mapping[str, Any]:
    """The Krag colony rule's data (p.12): ``world_traits`` (list) and ``story_points`` (cost to
    add one to the known worlds). Raises :class:`WorldError` when the krag-profile table lacks it."""
    for entry in table(tables, "krag-profile").entries:
        if entry.data.get("kind") == "colony":
            return entry.data
    raise WorldError("Table 'krag-profile' has no colony row.", field="tables")


def new_world(tables: Mapping[str, RangeTable], dice: Dice, *, name: str = "", is_krag_colony: bool = False) -> NewWorld:
    """A new world on arrival. Without ``name`` one is rolled on the name tables (pp.157-158:
    world names, or colony names for a Krag colony). A Krag colony (p.12) always has the traits
    listed in the krag-profile data; other worlds get their traits from the World traits step."""
    rolls: tuple[RollRecord, ...] = ()
    chosen = name.strip()
    if len(chosen) > 80:
        raise WorldError(f"name is limited to 80 characters; got {len(chosen)}.", field="name")
    if not chosen:
        try:
            generated = names.generate(names.recipe("colony" if is_krag_colony else "world"), tables, dice)
        except KeyError as exc:
            raise WorldError(f"The name tables are not loaded ({exc}).", field="tables") from exc
        chosen, rolls = generated.name, generated.records
    traits = tuple(krag_colony(tables).get("world_traits", ())) if is_krag_colony else ()
    return NewWorld(name=chosen, traits=traits, krag_colony=is_krag_colony, rolls=rolls)


# -- psionic legality (p.20) -----------------------------------------------------------------

#: psionic-legality ``status`` data -> the world's ``psionic_legality`` value in the view.
LEGALITY_STATUS = {"outlawed": "outlawed", "unusual": "unusual", "common": "who_cares"}


def psionic_legality(tables: Mapping[str, RangeTable], dice: Dice, *, value: int | None = None) -> tuple[str, TableRoll]:
    """D100 on psionic-legality (p.20) -> (``outlawed`` / ``unusual`` / ``who_cares``, roll).
    ``value`` is a typed D100 (1-100); raises :class:`WorldError` (field ``value``) outside it."""
    roll = Roller(dice).table(tables, "psionic-legality", value=value, reason="Psionic legality")
    status = str(roll.entry.data.get("status", ""))
    if status not in LEGALITY_STATUS:
        raise WorldError(f"psionic-legality row {roll.entry.result!r} has unknown status {status!r}.", field="tables")
    return LEGALITY_STATUS[status], roll
