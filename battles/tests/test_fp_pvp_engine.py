"""PvP set-up engine (Compendium pp.35-37): Power Rating factors, the outgunned side's initiative
points, Seize the Initiative as a point, deployment order, the First Player token, the three-way
battle's third party; seeded or typed dice, every roll kept with its reason."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from battles.engine import fp_pvp
from campaigns.selectors import fiveparsecs_tables
from rules.engine.dice import Dice
from rules.engine.errors import RuleError

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]


def fig(name: str, cs: int = 0, weapons: tuple[str, ...] = (), save: int | None = None) -> dict[str, Any]:
    return {"name": name, "combat_skill": cs, "weapons": [{"name": w} for w in weapons], "save": save}


def test_p35_each_factor_adds_one_and_they_stack() -> None:
    tables = fiveparsecs_tables()
    rating = fp_pvp.power_rating(
        [
            fig("Ace", cs=2, weapons=("Rattle gun",)),
            fig("Bo"),
            fig("Cy", save=5),
            fig("Di", save=6),
            fig("Ed", weapons=("hyper blaster",)),
        ],
        tables,
    )
    assert [line["points"] for line in rating.lines] == [3, 1, 2, 1, 2]  # p.35's own example: +2 CS and a Rattle Gun = 3
    assert rating.total == 9
    assert rating.lines[0]["factors"] == [
        "Per figure fielded",
        "Per figure with +2 Combat Skill or above",
        "Per figure with Rattle Gun or Hyper Blaster",
    ]


@pytest.mark.parametrize(
    ("difference", "points"), [(0, 0), (1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (6, 3), (7, 4), (8, 4), (9, 5), (30, 5)]
)
def test_p36_outgunned_side_gets_points_by_the_difference(difference: int, points: int) -> None:
    assert fp_pvp.initiative_for_difference(difference, fiveparsecs_tables()) == points


def test_p35_crew_count_is_the_smaller_crew_size_unless_agreed() -> None:
    assert fp_pvp.crew_count(4, 6) == 4
    assert fp_pvp.crew_count(4, 6, agreed=6) == 6
    with pytest.raises(RuleError) as refused:
        fp_pvp.crew_count(4, 6, agreed=9)
    assert refused.value.field == "agreed_crew"


def test_pp35_36_set_up_card_with_typed_dice() -> None:
    tables = fiveparsecs_tables()
    card = fp_pvp.generate(
        Dice(seed=1),
        tables,
        figures={"host": [fig("A", cs=2), fig("B")], "guest": [fig("C")]},
        reason_face=60,
        seize={"host": fp_pvp.Seize("2D6", 10, faces=[5, 5]), "guest": fp_pvp.Seize("2D6", 10, modifier=1, faces=[4, 4])},
        first_player_face=5,
    )
    assert card["reason"]["reason"] == "personal_rivalry"  # 51-75
    assert (card["power_rating"]["host"]["total"], card["power_rating"]["guest"]["total"]) == (3, 1)
    assert card["outgunned"] == "guest"
    # Guest: 1 for a difference of 2, no seize (4+4+1 = 9 < 10). Host: seized, 1 point.
    assert card["initiative_points"] == {"host": 1, "guest": 1}
    assert card["seize"]["host"]["seized"] and not card["seize"]["guest"]["seized"]
    assert card["deploys_first"] == "guest"  # the lower rating deploys first
    assert card["first_player"] == "guest"  # D6 5: 4-6 guest
    assert card["no_deployment_conditions"] and card["figures_per_deployment"] == 2 and card["per_round_points"] == 1
    assert [r["reason"] for r in card["rolls"]] == [
        "PvP battle reason (p.35)",
        "Seize the Initiative, host (p.36)",
        "Seize the Initiative, guest (p.36)",
        "PvP: First Player token in round 1 (1-3 host, 4-6 guest)",
    ]
    assert all(r["entered"] for r in card["rolls"])


def test_p36_cinematic_gives_both_sides_three_and_no_outgunned_bonus() -> None:
    card = fp_pvp.generate(
        Dice(seed=2),
        fiveparsecs_tables(),
        figures={"host": [fig("A", cs=3)] * 3, "guest": [fig("C")]},
        reason="same_prize",
        cinematic=True,
    )
    assert card["initiative_points"] == {"host": 3, "guest": 3}
    assert card["reason"] == {"reason": "same_prize", "result": "Same prize", "effect": card["reason"]["effect"], "picked": True}


def test_p36_equal_ratings_roll_who_deploys_first() -> None:
    tables = fiveparsecs_tables()
    figures = {"host": [fig("A")], "guest": [fig("B")]}
    first = fp_pvp.generate(Dice(seed=3), tables, figures=figures, reason="same_prize", first_deploy_face=2)
    second = fp_pvp.generate(Dice(seed=3), tables, figures=figures, reason="same_prize", first_deploy_face=6)
    assert (first["deploys_first"], second["deploys_first"]) == ("host", "guest")
    assert first["initiative_points"] == {"host": 0, "guest": 0}


@pytest.mark.parametrize(
    ("face", "round_face", "expect"),
    [
        (10, None, {"arrival": "neutral_edge", "specialists": 1, "lieutenants": 0, "round": None}),
        (50, None, {"arrival": "neutral_edge", "specialists": 2, "lieutenants": 1, "round": None}),
        (75, None, {"arrival": "neutral_edge_delayed", "round": 3}),
        (85, 4, {"arrival": "neutral_edge_delayed", "round": 4}),
        (95, None, {"arrival": "neutral_edge", "reinforcement_round": 3, "reinforcements": "1D6", "specialist_if_at_least": 5}),
    ],
)
def test_p37_third_party_arrival_and_numbers(face: int, round_face: int | None, expect: dict[str, Any]) -> None:
    card = fp_pvp.generate(
        Dice(seed=4),
        fiveparsecs_tables(),
        figures={"host": [fig("A")], "guest": [fig("B")]},
        reason="same_prize",
        third_party=True,
        third_party_face=face,
        third_party_round_face=round_face,
    )
    third = card["third_party"]
    assert {key: third[key] for key in expect} == expect
    assert (third["basic_enemies"], third["unique_individuals"], third["unique_unless"], third["min_distance_in"]) == (
        1,
        1,
        "Roving Threats",
        12,
    )


def test_bad_input_names_the_field() -> None:
    tables = fiveparsecs_tables()
    with pytest.raises(RuleError) as empty:
        fp_pvp.generate(Dice(seed=5), tables, figures={"host": [fig("A")], "guest": []})
    assert empty.value.field == "figures.guest"
    with pytest.raises(RuleError) as reason:
        fp_pvp.generate(Dice(seed=5), tables, figures={"host": [fig("A")], "guest": [fig("B")]}, reason="grudge")
    assert reason.value.field == "reason"
    with pytest.raises(RuleError) as faces:
        fp_pvp.generate(
            Dice(seed=5),
            tables,
            figures={"host": [fig("A")], "guest": [fig("B")]},
            seize={"host": fp_pvp.Seize("2D6", 10, faces=[7, 1])},
        )
    assert faces.value.field == "host.seize.faces"


@settings(max_examples=60, deadline=None)
@given(
    host=st.lists(st.tuples(st.integers(-1, 4), st.booleans(), st.sampled_from([None, 4, 5, 6])), min_size=1, max_size=8),
    guest=st.lists(st.tuples(st.integers(-1, 4), st.booleans(), st.sampled_from([None, 4, 5, 6])), min_size=1, max_size=8),
    seed=st.integers(0, 10_000),
)
def test_bounds_hold_for_any_crews(host: list[Any], guest: list[Any], seed: int) -> None:
    tables = fiveparsecs_tables()

    def side(rows: list[Any]) -> list[dict[str, Any]]:
        return [fig(f"f{i}", cs, ("Rattle gun",) if gun else (), save) for i, (cs, gun, save) in enumerate(rows)]

    card = fp_pvp.generate(Dice(seed=seed), tables, figures={"host": side(host), "guest": side(guest)}, third_party=True)
    for name, rows in (("host", host), ("guest", guest)):
        total = card["power_rating"][name]["total"]
        assert len(rows) <= total <= 4 * len(rows)  # 1 per figure, at most 3 more each
    points = card["initiative_points"]
    assert min(points.values()) == 0 and 0 <= max(points.values()) <= 5  # only the outgunned side gets a bonus
    if card["outgunned"]:
        assert card["deploys_first"] == card["outgunned"]
        assert (
            card["power_rating"][card["outgunned"]]["total"]
            < card["power_rating"][{"host": "guest", "guest": "host"}[card["outgunned"]]]["total"]
        )
    assert 1 <= (card["third_party"]["round"] or 1) <= 6
