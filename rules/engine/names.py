"""Name generators (Compendium pp.157-160): whole names from the name tables in one go.

A :class:`NameRecipe` says which D100 tables give the parts and how they join; the world
generator's second part is the D6 planet number in Roman numerals ("Gough III").

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .dice import Dice, RollRecord
from .tables import RangeTable, TableRoll


@dataclass(frozen=True)
class NameRecipe:
    """How to build one kind of name: ``prefix`` + the parts' results joined by ``joiner``."""

    slug: str
    title: str
    parts: tuple[str, ...]
    source: str
    prefix: str = ""
    joiner: str = " "


@dataclass(frozen=True)
class GeneratedName:
    """A whole name, with every table roll that made it."""

    name: str
    rolls: tuple[TableRoll, ...]

    @property
    def records(self) -> tuple[RollRecord, ...]:
        return tuple(r.record for r in self.rolls)


RECIPES: tuple[NameRecipe, ...] = (
    NameRecipe("world", "World name", ("names-world-1", "names-world-2"), "p.157"),
    NameRecipe("colony", "Colony name", ("names-colony-1", "names-colony-2"), "p.158"),
    NameRecipe("ship", "Ship name", ("names-ship-1", "names-ship-2"), "p.159", prefix="The "),
    NameRecipe("ship-naval", "Naval ship name", ("names-ship-1",), "p.159", prefix="The "),
    NameRecipe("corporate-patron", "Corporate Patron name", ("names-corporate-1", "names-corporate-2"), "p.160"),
)


def recipe(slug: str) -> NameRecipe:
    """The recipe called ``slug``. Raises ``KeyError`` naming the known ones."""
    for candidate in RECIPES:
        if candidate.slug == slug:
            return candidate
    raise KeyError(f"No name generator {slug!r}; choose one of {', '.join(r.slug for r in RECIPES)}.")


def generate(chosen: NameRecipe, tables: Mapping[str, RangeTable], dice: Dice) -> GeneratedName:
    """Roll each part's table and join the results. ``tables`` maps slug to table."""
    rolls = tuple(tables[slug].roll(dice, reason=chosen.title) for slug in chosen.parts)
    return GeneratedName(name=chosen.prefix + chosen.joiner.join(r.entry.result for r in rolls), rolls=rolls)
