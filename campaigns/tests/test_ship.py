from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from campaigns.engine.options import parse_options
from campaigns.engine.ship import (
    Component,
    Ship,
    ShipError,
    component_buy,
    component_names,
    free_repair_points,
    fuel_relevant_components,
    hull_damage,
    hull_repair,
    miniaturize,
    quest_roll_bonus,
)
from rules.fixturefiles import read_all

TABLES = {s.slug: s.engine() for s in read_all() if s.system == "fiveparsecs"}
PLAIN = parse_options({})
TIGHT = parse_options({"toggles": ["money_is_tight"]})


def ship(hull: int = 20, max_hull: int = 30, *components: Component) -> Ship:
    return Ship(name="Lucky Break", hull=hull, max_hull=max_hull, components=components)


def test_compendium_components_are_listed() -> None:
    assert component_names(TABLES) == ("Expanded Database", "Scientific Research System")


@pytest.mark.parametrize(("mini", "cost"), [(False, 10), (True, 15)])
def test_compendium_component_cost(mini: bool, cost: int) -> None:
    fitted, credits = component_buy(ship(), "expanded  database", TABLES, miniaturized=mini)
    assert credits == cost
    assert fitted.components == (Component("Expanded Database", miniaturized=mini),)


@pytest.mark.parametrize(("mini", "cost"), [(False, 12), (True, 17)])
def test_core_component_needs_the_players_price(mini: bool, cost: int) -> None:
    fitted, credits = component_buy(ship(), "Medical Bay", TABLES, core_cost=12, miniaturized=mini)
    assert credits == cost
    assert fitted.component("medical bay") == Component("Medical Bay", miniaturized=mini)


def test_core_component_without_price_is_refused() -> None:
    with pytest.raises(ShipError, match="core_cost must be") as err:
        component_buy(ship(), "Medical Bay", TABLES)
    assert err.value.field == "core_cost"


def test_compendium_component_refuses_a_core_price() -> None:
    with pytest.raises(ShipError) as err:
        component_buy(ship(), "Expanded Database", TABLES, core_cost=3)
    assert err.value.field == "core_cost"


def test_no_duplicates_and_no_mod_as_component() -> None:
    fitted, _ = component_buy(ship(), "Scientific Research System", TABLES)
    with pytest.raises(ShipError, match="already fitted") as err:
        component_buy(fitted, "scientific research system", TABLES)
    assert err.value.field == "name"
    with pytest.raises(ShipError, match="is a mod"):
        component_buy(fitted, "Miniaturized components", TABLES)
    with pytest.raises(ShipError, match="empty"):
        component_buy(fitted, "  ", TABLES)


def test_miniaturize_retrofit_costs_8_once() -> None:
    fitted, _ = component_buy(ship(), "Medical Bay", TABLES, core_cost=12)
    modded, credits = miniaturize(fitted, "Medical Bay", TABLES)
    assert credits == 8
    assert modded.components == (Component("Medical Bay", miniaturized=True),)
    assert fitted.components == (Component("Medical Bay"),)
    with pytest.raises(ShipError, match="already miniaturized"):
        miniaturize(modded, "medical bay", TABLES)
    with pytest.raises(ShipError, match="fitted component") as err:
        miniaturize(modded, "Expanded Database", TABLES)
    assert err.value.field == "name"


def test_fuel_counts_only_full_size_components() -> None:
    base = ship(20, 30, Component("Medical Bay"), Component("Expanded Database"), Component("Drop Pods", miniaturized=True))
    assert fuel_relevant_components(base) == 2
    modded, _ = miniaturize(base, "Medical Bay", TABLES)
    assert fuel_relevant_components(modded) == 1
    bought, _ = component_buy(modded, "Scientific Research System", TABLES, miniaturized=True)
    assert fuel_relevant_components(bought) == 1


def test_quest_bonus_from_expanded_database() -> None:
    assert quest_roll_bonus((c.name for c in ship().components), TABLES) == 0
    assert quest_roll_bonus(["Scientific Research System"], TABLES) == 0
    assert quest_roll_bonus(["Expanded Database"], TABLES) == 1


def test_hull_damage_stops_at_zero() -> None:
    assert hull_damage(ship(20), 6).hull == 14
    assert hull_damage(ship(4), 6).hull == 0
    with pytest.raises(ShipError) as err:
        hull_damage(ship(), -1)
    assert err.value.field == "points"


def test_free_repair_point_goes_with_money_is_tight() -> None:
    assert free_repair_points(PLAIN) == 1
    assert free_repair_points(TIGHT) == 0
    repaired, paid = hull_repair(ship(20), 3, PLAIN)
    assert (repaired.hull, paid) == (23, 2)
    repaired, paid = hull_repair(ship(20), 3, TIGHT)
    assert (repaired.hull, paid) == (23, 3)
    repaired, paid = hull_repair(ship(20), 1, PLAIN, free_used=True)
    assert (repaired.hull, paid) == (21, 1)


def test_repair_stops_at_max_hull() -> None:
    repaired, paid = hull_repair(ship(29, 30), 5, PLAIN)
    assert (repaired.hull, paid) == (30, 0)
    repaired, paid = hull_repair(ship(30, 30), 2, TIGHT)
    assert (repaired.hull, paid) == (30, 0)


def test_ship_round_trips_and_validates() -> None:
    original = ship(12, 30, Component("Expanded Database", miniaturized=True), Component("Medical Bay"))
    original = Ship(original.name, original.hull, original.max_hull, original.components, debt=7)
    assert Ship.from_dict(original.as_dict()) == original
    from_names = Ship.from_dict({"name": "Tub", "hull": 5, "max_hull": 10, "components": ["Medical Bay"]})
    assert from_names.components == (Component("Medical Bay"),)
    with pytest.raises(ShipError) as err:
        Ship("Tub", 11, 10)
    assert err.value.field == "hull"
    with pytest.raises(ShipError) as err:
        Ship("Tub", 5, 10, debt=-1)
    assert err.value.field == "debt"
    with pytest.raises(ShipError) as err:
        Ship("Tub", 5, 10, (Component("A"), Component("a")))
    assert err.value.field == "components"


@given(
    max_hull=st.integers(0, 40),
    steps=st.lists(
        st.tuples(st.sampled_from(("damage", "repair")), st.integers(0, 50), st.booleans(), st.booleans()), max_size=30
    ),
)
def test_the_hull_stays_within_0_and_max_hull_and_only_the_free_point_is_unpaid(
    max_hull: int, steps: list[tuple[str, int, bool, bool]]
) -> None:
    current = ship(max_hull, max_hull)
    for kind, points, tight, free_used in steps:
        before = current.hull
        if kind == "damage":
            current = hull_damage(current, points)
            assert current.hull == max(0, before - points)
        else:
            current, paid = hull_repair(current, points, TIGHT if tight else PLAIN, free_used=free_used)
            repaired = current.hull - before
            assert repaired == min(points, max_hull - before)
            assert paid == (repaired if tight or free_used else max(0, repaired - 1))  # one free point (p.32)
        assert 0 <= current.hull <= current.max_hull == max_hull
