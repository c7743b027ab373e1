"""The crew's ship: hull points, components, the Compendium's new parts and the Miniaturized
components mod (p.27), and hull repair under Money is Tight (p.32).

Component prices, the quest bonus and the miniaturizing costs come from the
``compendium-ship-components`` table. Core-rulebook components are allowed but the player
enters their price (we do not have the core rules).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from campaigns.engine.difficulty import free_hull_repair
from campaigns.engine.options import CampaignOptions, OptionError
from rules.engine.tables import Entry, RangeTable

COMPONENT_TABLE = "compendium-ship-components"

#: Hull points the ship repairs for free each turn under the core rules (the Compendium
#: names the 1 point when Money is Tight takes it away, p.32).
FREE_REPAIR_POINTS = 1


class ShipError(OptionError):
    """A ship action the rules do not allow; ``field`` names the input at fault."""


@dataclass(frozen=True)
class Component:
    """A ship component; ``miniaturized`` when the p.27 mod is on it (it stays on)."""

    name: str
    miniaturized: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "miniaturized": self.miniaturized}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | str) -> Component:
        """From :meth:`as_dict` output, or a bare name (not miniaturized)."""
        if isinstance(data, str):
            return cls(name=_clean(data))
        return cls(name=_clean(str(data.get("name", ""))), miniaturized=bool(data.get("miniaturized", False)))


@dataclass(frozen=True)
class Ship:
    """The crew's ship.

    - ``hull``: current Hull Points, 0 to ``max_hull``.
    - ``components``: fitted components, no two with the same name.
    - ``debt``: credits still owed on the ship.

    Raises :class:`ShipError` when built with values outside those limits.
    """

    name: str
    hull: int
    max_hull: int
    components: tuple[Component, ...] = ()
    debt: int = 0

    def __post_init__(self) -> None:
        if self.max_hull < 0:
            raise ShipError(f"max_hull must be 0 or more; got {self.max_hull}.", field="max_hull")
        if not 0 <= self.hull <= self.max_hull:
            raise ShipError(f"hull must be from 0 to {self.max_hull}; got {self.hull}.", field="hull")
        if self.debt < 0:
            raise ShipError(f"debt must be 0 or more credits; got {self.debt}.", field="debt")
        names = [_key(c.name) for c in self.components]
        if len(names) != len(set(names)):
            raise ShipError("components must not repeat a name.", field="components")

    def component(self, name: str) -> Component | None:
        """The fitted component called ``name`` (case and spacing ignored), or ``None``."""
        key = _key(name)
        return next((c for c in self.components if _key(c.name) == key), None)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready, matching the ``Ship`` model's fields."""
        return {
            "name": self.name,
            "hull": self.hull,
            "max_hull": self.max_hull,
            "components": [c.as_dict() for c in self.components],
            "debt": self.debt,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ship:
        """Inverse of :meth:`as_dict`; components may also be bare names. Raises :class:`ShipError`."""
        try:
            hull, max_hull, debt = int(data.get("hull", 0)), int(data.get("max_hull", 0)), int(data.get("debt", 0))
        except (TypeError, ValueError):
            raise ShipError("hull, max_hull and debt must be whole numbers.", field="hull") from None
        return cls(
            name=str(data.get("name", "")),
            hull=hull,
            max_hull=max_hull,
            components=tuple(Component.from_dict(c) for c in data.get("components", ()) or ()),
            debt=debt,
        )


def _clean(name: str) -> str:
    return " ".join(name.split())


def _key(name: str) -> str:
    return _clean(name).casefold()


def _table(tables: Mapping[str, RangeTable]) -> RangeTable:
    try:
        return tables[COMPONENT_TABLE]
    except KeyError:
        raise ShipError(f"tables must include {COMPONENT_TABLE!r}.", field="tables") from None


def _row(tables: Mapping[str, RangeTable], name: str) -> Entry | None:
    key = _key(name)
    return next((e for e in _table(tables).rows() if _key(e.result) == key), None)


def _mod(tables: Mapping[str, RangeTable]) -> Entry:
    for entry in _table(tables).rows():
        if entry.data.get("kind") == "mod":
            return entry
    raise ShipError(f"Table {COMPONENT_TABLE!r} has no mod row.", field="tables")


def _points(points: Any, name: str = "points") -> int:
    if isinstance(points, bool) or not isinstance(points, int) or points < 0:
        raise ShipError(f"{name} must be a whole number of Hull Points, 0 or more; got {points!r}.", field=name)
    return points


def component_names(tables: Mapping[str, RangeTable]) -> tuple[str, ...]:
    """The Compendium components on sale (p.27): Expanded Database, Scientific Research System."""
    return tuple(e.result for e in _table(tables).rows() if e.data.get("kind") == "component")


def component_buy(
    ship: Ship,
    name: str,
    tables: Mapping[str, RangeTable],
    *,
    core_cost: int | None = None,
    miniaturized: bool = False,
) -> tuple[Ship, int]:
    """Fit a new component; returns the ship with it and its price in credits (p.27).

    Compendium components take their price from the table and refuse ``core_cost``; any other
    (core rulebook) component needs ``core_cost``, the price the player reads in the core
    rules. ``miniaturized`` adds the mod's price (+5 credits). Paying is the caller's job.

    Raises :class:`ShipError` for an empty name (field ``name``), the mod itself or a component
    already fitted (``name``), a missing or extra ``core_cost`` (``core_cost``).
    """
    clean = _clean(str(name))
    if not clean:
        raise ShipError("name must name a ship component; got an empty name.", field="name")
    row = _row(tables, clean)
    if row is not None and row.data.get("kind") == "mod":
        raise ShipError(f"name {row.result!r} is a mod, not a component: use miniaturized=True or miniaturize().", field="name")
    if ship.component(clean) is not None:
        raise ShipError(
            f"name {clean!r} is already fitted to {ship.name or 'the ship'}; components can't be doubled.", field="name"
        )
    if row is not None:
        if core_cost is not None:
            raise ShipError(
                f"core_cost must be left empty for {row.result}: its price is in the Compendium table.", field="core_cost"
            )
        cost = int(row.data["credits"])
        clean = row.result
    else:
        if isinstance(core_cost, bool) or not isinstance(core_cost, int) or core_cost < 0:
            names = ", ".join(component_names(tables))
            raise ShipError(
                f"core_cost must be the core rulebook price in credits (0 or more) for {clean!r}; got {core_cost!r}. "
                f"Only {names} are priced by the Compendium.",
                field="core_cost",
            )
        cost = core_cost
    if miniaturized:
        cost += int(_mod(tables).data["credits"])
    fitted = Component(name=clean, miniaturized=bool(miniaturized))
    return replace(ship, components=(*ship.components, fitted)), cost


def miniaturize(ship: Ship, name: str, tables: Mapping[str, RangeTable]) -> tuple[Ship, int]:
    """Retrofit the Miniaturized mod to a fitted component; returns the ship and the price (8
    credits, p.27). The mod is permanent.

    Raises :class:`ShipError` (field ``name``) when the component is not fitted or already
    miniaturized.
    """
    current = ship.component(str(name))
    if current is None:
        fitted = ", ".join(c.name for c in ship.components) or "none"
        raise ShipError(f"name must be a fitted component ({fitted}); got {name!r}.", field="name")
    if current.miniaturized:
        raise ShipError(f"name {current.name!r} is already miniaturized; the mod can't be applied twice.", field="name")
    cost = int(_mod(tables).data["retrofit_credits"])
    components = tuple(replace(c, miniaturized=True) if c is current else c for c in ship.components)
    return replace(ship, components=components), cost


def fuel_relevant_components(ship: Ship) -> int:
    """Components that count towards fuel costs (core rules p.61); miniaturized ones don't (p.27)."""
    return sum(1 for c in ship.components if not c.miniaturized)


def quest_roll_bonus(components: Iterable[str], tables: Mapping[str, RangeTable]) -> int:
    """Bonus to the Quest progress roll (post-battle step 3) from the fitted components (their
    names): +1 with an Expanded Database (p.27)."""
    total = 0
    for name in components:
        row = _row(tables, name)
        if row is not None:
            total += int(row.data.get("quest_roll_bonus", 0))
    return total


def hull_damage(ship: Ship, points: int) -> Ship:
    """The ship after losing ``points`` Hull Points (never below 0; what 0 means is core rules).

    Raises :class:`ShipError` for negative points.
    """
    return replace(ship, hull=max(0, ship.hull - _points(points)))


def free_repair_points(options: CampaignOptions) -> int:
    """Free Hull Points repaired each turn: 1, or 0 with Money is Tight (p.32)."""
    return FREE_REPAIR_POINTS if free_hull_repair(options) else 0


def hull_repair(ship: Ship, points: int, options: CampaignOptions, *, free_used: bool = False) -> tuple[Ship, int]:
    """Repair up to ``points`` Hull Points (never above ``max_hull``).

    Returns ``(ship, paid_points)``: the first :func:`free_repair_points` of the repair are free
    unless ``free_used`` (this turn's free point is spent); ``paid_points`` must be paid for at
    the core rulebook's price. With Money is Tight every point is paid (p.32).

    Raises :class:`ShipError` for negative points.
    """
    wanted = _points(points)
    repaired = min(wanted, ship.max_hull - ship.hull)
    free = 0 if free_used else min(repaired, free_repair_points(options))
    return replace(ship, hull=ship.hull + repaired), repaired - free
