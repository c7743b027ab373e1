"""Implants and kit (Compendium pp.17-18, pp.26-27): implants, weapon traits, what a crew
member may carry, worn armour and screens, and the Saving Throw a crew member takes to battle.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from campaigns.engine.characters.values import (
    BOT_UPGRADES_TABLE,
    NAME_LIMIT,
    PSIONIC_WEAPON_TRAITS,
    WEAPONS_TABLE,
    Character,
    CharacterError,
    Protection,
    _alive,
    _key,
    _row,
    _table,
)
from rules.engine.tables import Entry, RangeTable

#: The Bot upgrades (p.26) that change a Bot in battle.
IMPROVED_ARMOR_CASING = "Improved armor casing"
DEFLECTION_MODULE = "Deflection module"
MULTI_WAVE_SCANNER = "Multi-wave scanner"

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


def known_weapon(tables: Mapping[str, RangeTable] | None, name: str) -> Entry | None:
    """The Dramatic Weapons row (pp.88-89) called ``name`` (case, spaces and punctuation
    ignored, as the battle set-up reads kit), or ``None`` when the table or the name is not
    known."""
    if tables is None or WEAPONS_TABLE not in tables:
        return None
    wanted = _key(name)
    return next((e for e in tables[WEAPONS_TABLE].rows() if _key(e.result) == wanted), None)


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
    a weapon without traits); ``None`` means the item is not a weapon unless the Dramatic
    Weapons table in ``tables`` names it (pp.88-89). A name that table knows always takes the
    table's traits, as a battle reads it. A Psionic may only take Pistol or Melee weapons
    (p.18). Raises :class:`CharacterError` (field ``item``)."""
    _alive(character)
    name = item.strip()
    if not name or len(name) > NAME_LIMIT:
        raise CharacterError(f"item must be 1 to {NAME_LIMIT} characters; got {item!r}.", field="item")
    row = known_weapon(tables, name)
    if row is not None:
        traits = [str(t) for t in row.data.get("traits", ())]
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


# -- worn protection and the battle Saving Throw (p.26) ----------------------------------------


def wear(character: Character, name: str, kind: str, save: int) -> Character:
    """Put on protective gear typed by the player: ``kind`` ``armor`` or ``screen``, ``save`` its
    Saving Throw as a D6 target (2-6). Raises :class:`CharacterError` naming ``name``, ``kind``
    or ``save``, and ``name`` when the character already wears something of that name."""
    _alive(character)
    piece = Protection(name=name, kind=str(kind or "").strip().lower(), save=save)
    if any(p.name.lower() == piece.name.lower() for p in character.protection):
        raise CharacterError(f"name: {character.name} already wears {piece.name}; take it off first.", field="name")
    return replace(character, protection=(*character.protection, piece))


def take_off(character: Character, name: str) -> Character:
    """Take off the protective gear called ``name``. Raises :class:`CharacterError` (field
    ``name``) naming what is worn."""
    kept = tuple(p for p in character.protection if p.name.lower() != str(name).strip().lower())
    if len(kept) == len(character.protection):
        worn = ", ".join(p.name for p in character.protection) or "nothing"
        raise CharacterError(f"name must be one of {worn}; got {name!r}.", field="name")
    return replace(character, protection=kept)


def set_bot_save(character: Character, save: int | None) -> Character:
    """Set a Bot's built-in Armor Saving Throw (a core-rulebook number, typed by the player;
    2-6, ``None`` for none). Raises :class:`CharacterError`: ``kind`` when the character is not a
    Bot, ``bot_save`` for a number outside 2-6."""
    _alive(character)
    if character.kind != "bot":
        raise CharacterError(f"kind must be bot for a built-in Saving Throw; {character.name} is {character.kind}.", field="kind")
    if save is not None and (isinstance(save, bool) or not 2 <= int(save) <= 6):
        raise CharacterError(f"bot_save must be a D6 target from 2 to 6 (5 = 5+), or empty; got {save!r}.", field="bot_save")
    return replace(character, bot_save=None if save is None else int(save))


@dataclass(frozen=True)
class SavingThrow:
    """The Saving Throw a crew member takes to battle. ``save``: the best D6 target (``None``:
    none); ``kind``: ``armor``, ``screen`` or ``both``; ``second_save``: the best save of the
    other kind when it is worse (rolled when a hit negates the first), else ``None``;
    ``sources``: what gives them, in words for the set-up card."""

    save: int | None
    kind: str
    second_save: int | None
    sources: tuple[str, ...]


def _upgrade_row(tables: Mapping[str, RangeTable] | None, name: str) -> Entry | None:
    if tables is None or BOT_UPGRADES_TABLE not in tables:
        return None
    return next((e for e in tables[BOT_UPGRADES_TABLE].rows() if _key(e.result) == _key(name)), None)


def has_bot_upgrade(character: Character, name: str) -> bool:
    """Whether a Bot has the upgrade ``name`` installed (p.26); never for other kinds."""
    return character.kind == "bot" and any(_key(u) == _key(name) for u in character.bot_upgrades)


def saving_throw(character: Character, tables: Mapping[str, RangeTable] | None = None) -> SavingThrow:
    """The Saving Throw the character takes to battle (p.26; one die per hit, Bug Hunt p.178).

    - Worn gear (:class:`Protection`): the best Armor and the best Screen count.
    - A Bot's built-in save is Armor: ``bot_save`` as typed (a Bot with none typed has none);
      Improved armor casing makes it 5+ (``armor_save`` of the bot-upgrades row), never worse
      than it was; with the Deflection module it counts as both Armor and Screen.
    - Armour and a screen worn together: each hit still gets one Saving Throw (Bug Hunt p.178
      rolls one die), the best one the hit leaves standing. Piercing negates only Armor (p.89)
      and a hit that ignores Screens only Screens (p.141), the way p.26 lets a save that is both
      be made unless the attack negates both forms. So the figure gets the better save as
      ``save`` and, when the other kind is worse, that one as ``second_save``; equal numbers of
      both kinds make one save of ``both`` kinds.
    """
    armor: list[tuple[int, str]] = [(p.save, f"{p.name} (Armor {p.save}+)") for p in character.protection if p.kind == "armor"]
    screen: list[tuple[int, str]] = [(p.save, f"{p.name} (Screen {p.save}+)") for p in character.protection if p.kind == "screen"]
    if character.kind == "bot":
        built_in = character.bot_save
        words = f"built-in Armor {built_in}+" if built_in is not None else ""
        if has_bot_upgrade(character, IMPROVED_ARMOR_CASING):
            row = _upgrade_row(tables, IMPROVED_ARMOR_CASING)
            casing = int(row.data.get("armor_save", 5)) if row is not None else 5
            if built_in is None or casing < built_in:
                built_in = casing
                words = f"{IMPROVED_ARMOR_CASING} (built-in Armor {casing}+, p.26)"
        if built_in is not None:
            if has_bot_upgrade(character, DEFLECTION_MODULE):
                words += f", {DEFLECTION_MODULE}: counts as Screen too (p.26)"
                screen.append((built_in, words))
            armor.append((built_in, words))
    best_armor = min(armor, default=None)
    best_screen = min(screen, default=None)
    if best_armor is None and best_screen is None:
        return SavingThrow(None, "armor", None, ())
    if best_screen is None:
        assert best_armor is not None
        return SavingThrow(best_armor[0], "armor", None, (best_armor[1],))
    if best_armor is None:
        return SavingThrow(best_screen[0], "screen", None, (best_screen[1],))
    sources = tuple(dict.fromkeys((best_armor[1], best_screen[1])))
    if best_armor[0] == best_screen[0]:
        return SavingThrow(best_armor[0], "both", None, sources)
    if best_armor[0] < best_screen[0]:
        return SavingThrow(best_armor[0], "armor", best_screen[0], sources)
    return SavingThrow(best_screen[0], "screen", best_armor[0], sources)


def seize_initiative_bonus(character: Character, tables: Mapping[str, RangeTable] | None = None) -> int:
    """What the character adds to Seize the Initiative: a Bot's Multi-wave scanner gives
    ``seize_initiative_mod`` of its bot-upgrades row (+1, p.26); anyone else 0."""
    if not has_bot_upgrade(character, MULTI_WAVE_SCANNER):
        return 0
    row = _upgrade_row(tables, MULTI_WAVE_SCANNER)
    return int(row.data.get("seize_initiative_mod", 1)) if row is not None else 1
