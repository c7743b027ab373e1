"""Implants and kit (Compendium pp.17-18, p.27): implants, weapon traits and what a crew
member may carry.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from campaigns.engine.characters.values import (
    NAME_LIMIT,
    PSIONIC_WEAPON_TRAITS,
    WEAPONS_TABLE,
    Character,
    CharacterError,
    _alive,
    _key,
    _row,
    _table,
)
from rules.engine.tables import RangeTable

# -- implants and kit (pp.17-18, p.27) -------------------------------------------------------------


def implant_add(character: Character, implant: str) -> Character:
    """Give the character an implant. A Psionic loses all powers for good (p.18):
    ``psionic`` False, ``powers`` emptied, ``psionics_lost`` True even if the implant is later
    removed. Raises :class:`CharacterError` for an empty name or a dead character."""
    _alive(character)
    name = implant.strip()
    if not name or len(name) > NAME_LIMIT:
        raise CharacterError(f"implant must be 1 to {NAME_LIMIT} characters; got {implant!r}.", field="implant")
    updated = replace(character, implants=(*character.implants, name))
    if character.psionic or character.powers:
        updated = replace(updated, psionic=False, powers={}, psionics_lost=True)
    return updated


def implant_remove(character: Character, implant: str) -> Character:
    """Remove one implant; lost psionics stay lost (p.18). Raises :class:`CharacterError`."""
    if implant not in character.implants:
        listed = ", ".join(character.implants) or "none"
        raise CharacterError(f"implant must be one of {listed}; got {implant!r}.", field="implant")
    index = character.implants.index(implant)
    return replace(character, implants=character.implants[:index] + character.implants[index + 1 :])


def weapon_traits(tables: Mapping[str, RangeTable], weapon: str) -> tuple[str, ...]:
    """Traits of a Dramatic Weapons profile (pp.88-89). Raises :class:`CharacterError`."""
    return tuple(_row(_table(tables, WEAPONS_TABLE), weapon, field_name="weapon").data.get("traits", ()))


def weapon_allowed(character: Character, traits: Iterable[str], tables: Mapping[str, RangeTable] | None = None) -> bool:
    """Whether the character may use a weapon with ``traits``: a Psionic only with Pistol or
    Melee (p.18; read from psionic-limitations when ``tables`` has it); anyone else always."""
    if not character.psionic:
        return True
    allowed: Iterable[str] = PSIONIC_WEAPON_TRAITS
    if tables is not None and "psionic-limitations" in tables:
        for entry in tables["psionic-limitations"].rows():
            if "allowed_weapon_traits" in entry.data:
                allowed = entry.data["allowed_weapon_traits"]
    wanted = {_key(t) for t in allowed}
    return any(_key(t) in wanted for t in traits)


def equip(
    character: Character,
    item: str,
    traits: Sequence[str] | None = None,
    tables: Mapping[str, RangeTable] | None = None,
) -> Character:
    """Add an item to the character's kit. ``traits`` are a weapon's traits (an empty list is
    a weapon without traits); ``None`` means the item is not a weapon. A Psionic may only take
    Pistol or Melee weapons (p.18). Raises :class:`CharacterError`."""
    _alive(character)
    name = item.strip()
    if not name or len(name) > NAME_LIMIT:
        raise CharacterError(f"item must be 1 to {NAME_LIMIT} characters; got {item!r}.", field="item")
    if traits is not None and not weapon_allowed(character, traits, tables):
        raise CharacterError(
            f"A Psionic may only use weapons with the Pistol or Melee trait; {name} has {', '.join(traits) or 'no traits'}.",
            field="item",
        )
    return replace(character, equipment=(*character.equipment, name))


def unequip(character: Character, item: str) -> Character:
    """Remove one item from the kit. Raises :class:`CharacterError` if it is not carried."""
    if item not in character.equipment:
        listed = ", ".join(character.equipment) or "nothing"
        raise CharacterError(f"item must be one of {listed}; got {item!r}.", field="item")
    index = character.equipment.index(item)
    return replace(character, equipment=character.equipment[:index] + character.equipment[index + 1 :])
