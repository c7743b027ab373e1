"""Bug Hunt Contact markers and the enemies behind them (pp.192-197) against the shipped tables."""

from __future__ import annotations

import pytest

from bughunt.engine import contacts as cx
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable
from rules.fixturefiles import read_all

TABLES: dict[str, RangeTable] = {s.slug: s.engine() for s in read_all() if s.system == "bughunt"}


# -- directions ---------------------------------------------------------------------------------


def test_a_d12_reads_as_a_clock_face_and_an_edge() -> None:
    direction, record = cx.random_direction(Dice(seed=1), "test", face=5)
    assert direction == "5 o'clock" and record.entered
    assert cx.random_edge(Dice(seed=1), "test", face=12)[0] == "far edge (12 o'clock)"
    assert cx.random_edge(Dice(seed=1), "test", face=1)[0] == "far edge (12 o'clock)"
    assert cx.random_edge(Dice(seed=1), "test", face=4)[0] == "right edge (3 o'clock)"
    assert cx.random_edge(Dice(seed=1), "test", face=7)[0] == "near edge (6 o'clock)"
    assert cx.random_edge(Dice(seed=1), "test", face=8)[0] == "left edge (9 o'clock)"
    with pytest.raises(cx.ContactError) as err:
        cx.random_direction(Dice(seed=1), "test", face=13)
    assert err.value.field == "direction"


def test_a_seeded_direction_is_a_d12_roll() -> None:
    direction, record = cx.random_direction(Dice(seed=4), "test")
    assert record.notation == "D12" and direction == f"{record.total} o'clock"


# -- moving markers (p.192) ----------------------------------------------------------------------------


def test_aggression_higher_moves_toward_the_nearest_trooper() -> None:
    move = cx.move_contact(TABLES, Dice(seed=1), faces=[5, 2], label="Contact c1")
    assert (move.outcome, move.inches, move.direction) == ("advance", 5, None)
    assert move.text == "Contact c1: move 5 inches toward the nearest trooper (Aggression 5 beats Chance 2)."
    assert len(move.rolls) == 1 and move.rolls[0].faces == (5, 2)


def test_chance_higher_moves_in_a_random_clock_direction() -> None:
    move = cx.move_contact(TABLES, Dice(seed=1), faces=[1, 4], direction_face=7)
    assert (move.outcome, move.inches, move.direction) == ("random", 4, "7 o'clock")
    assert "move 4 inches toward 7 o'clock" in move.text
    assert [r.notation for r in move.rolls] == ["2D6", "D12"]


def test_equal_dice_split_the_marker() -> None:
    move = cx.move_contact(TABLES, Dice(seed=1), faces=[3, 3])
    assert (move.outcome, move.inches) == ("split", 0)
    assert "a new Contact marker appears on it" in move.text


def test_a_pack_leader_within_9_inches_rolls_aggression_only() -> None:
    move = cx.move_contact(TABLES, Dice(seed=1), leader_near=True, faces=[1])
    assert (move.outcome, move.inches, move.chance) == ("advance", 1, None)
    assert "Aggression die only" in move.text
    with pytest.raises(cx.ContactError) as err:
        cx.move_contact(TABLES, Dice(seed=1), leader_near=True, faces=[1, 2])
    assert err.value.field == "faces"


# -- detection and the Contact table (pp.192-193) ------------------------------------------------------


def test_detection_ranges_come_from_the_table() -> None:
    assert cx.detection_range(TABLES, "open") == 6
    assert cx.detection_range(TABLES, "cover") == 3
    with pytest.raises(cx.ContactError) as err:
        cx.detection_range(TABLES, "far")
    assert err.value.field == "band" and "open, cover" in str(err.value)


@pytest.mark.parametrize(
    ("face", "outcome", "result"),
    [
        (1, "remove", "Stay frosty"),
        (2, "move_and_add", "We got movement all over the place"),
        (3, "enemies", "CONTACT!"),
        (6, "enemies", "CONTACT!"),
    ],
)
def test_the_contact_table(face: int, outcome: str, result: str) -> None:
    rolled = cx.roll_contact(TABLES, Dice(seed=1), face=face)
    assert (rolled.outcome, rolled.result) == (outcome, result)
    assert rolled.record.entered


def test_stay_frosty_keeps_three_markers() -> None:
    assert cx.minimum_contacts(TABLES) == 3


# -- "Beep... Sir?" (p.193) ----------------------------------------------------------------------------


def test_beep_sir_places_one_marker_for_any_number_of_sixes() -> None:
    result = cx.beep_sir(TABLES, 3, Dice(seed=1), faces=[2, 6, 6], direction_faces=[9])
    assert (result.sixes, result.placed, result.edges) == (2, 1, ("9 o'clock",))
    assert "free bonus action" in result.text and result.bonus_fire_in == 12


def test_beep_sir_on_living_nightmare_places_one_per_six() -> None:
    result = cx.beep_sir(TABLES, 3, Dice(seed=1), living_nightmare=True, faces=[2, 6, 6], direction_faces=[9, 3])
    assert (result.placed, result.edges) == (2, ("9 o'clock", "3 o'clock"))
    assert len(result.rolls) == 3


def test_beep_sir_without_a_six_places_nothing() -> None:
    result = cx.beep_sir(TABLES, 2, Dice(seed=1), faces=[5, 1])
    assert result.placed == 0 and "no 6" in result.text
    with pytest.raises(cx.ContactError) as err:
        cx.beep_sir(TABLES, 2, Dice(seed=1), faces=[5])
    assert err.value.field == "faces"


# -- enemies (pp.194-197) -----------------------------------------------------------------------------


def test_enemy_type_from_d100_and_by_name() -> None:
    kind, record = cx.roll_enemy_type(TABLES, Dice(seed=1), face=45)
    assert kind.name == "Razor lizards" and record.total == 45
    assert (kind.numbers, kind.speed, kind.combat_skill, kind.toughness, kind.damage) == ("1D6+1", 6, 1, 3, 2)
    assert cx.enemy_type(TABLES, "berserk robots").saving_throw == 5
    with pytest.raises(cx.ContactError) as err:
        cx.enemy_type(TABLES, "Xenomorphs")
    assert err.value.field == "enemy" and "Vent-crawlers" in str(err.value)


def test_numbers_take_the_encounter_modifier_but_never_below_one() -> None:
    blobs = cx.enemy_type(TABLES, "Acid blobs")
    assert cx.roll_numbers(blobs, Dice(seed=1), encounter=-1, faces=[1])[0] == 1
    assert cx.roll_numbers(blobs, Dice(seed=1), encounter=1, faces=[4])[0] == 5
    lizards = cx.enemy_type(TABLES, "Razor lizards")
    count, record = cx.roll_numbers(lizards, Dice(seed=1), faces=[3])
    assert count == 4 and record.total == 4


def test_pack_leader_pool_needs_a_die_at_or_under_the_revealed_count() -> None:
    none = cx.check_pack_leader(TABLES, 3, 4, Dice(seed=1), faces=[5, 7, 9])
    assert not none.present and none.pool_after == 3 and len(none.rolls) == 1
    some = cx.check_pack_leader(TABLES, 3, 4, Dice(seed=1), faces=[4, 7, 9], leader_face=1)
    assert some.present and some.pool_after == 2 and some.leader is not None and some.leader.key == "leader"
    empty = cx.check_pack_leader(TABLES, 0, 6, Dice(seed=1))
    assert not empty.present and empty.rolls == ()
    with pytest.raises(cx.ContactError):
        cx.check_pack_leader(TABLES, 2, 4, Dice(seed=1), faces=[4, 7, 9])


def _reveal(**kwargs: object) -> cx.Reveal:
    base: dict[str, object] = {
        "enemy": None,
        "variant_name": None,
        "variant_checked": False,
        "enemies_met": (),
        "mission_number": 1,
        "encounter": 0,
        "leader_pool": 3,
    }
    base.update(kwargs)
    return cx.reveal(TABLES, Dice(seed=1), **base)  # type: ignore[arg-type]


def test_first_reveal_rolls_the_type_and_numbers_only_early_in_a_campaign() -> None:
    got = _reveal(enemy_face=45, numbers_faces=[3])
    assert got.type_rolled and got.enemy.name == "Razor lizards" and got.count == 4
    assert got.variant is None and got.leader is None and got.leader_pool == 3
    assert [r.notation for r in got.rolls] == ["D100", "D6+1"]
    assert "4 Razor lizards placed within 1 inch" in got.text


def test_a_known_type_is_not_rolled_again() -> None:
    got = _reveal(enemy="Razor lizards", numbers_faces=[1])
    assert not got.type_rolled and got.count == 2 and [r.notation for r in got.rolls] == ["D6+1"]


def test_a_type_met_before_rolls_a_variant_once_and_swarmers_add_one() -> None:
    got = _reveal(enemy="Razor lizards", enemies_met=["Razor lizards"], variant_face=4, numbers_faces=[3])
    assert got.variant_rolled and got.variant is not None and got.variant.key == "swarmers"
    assert got.count == 5 and "+1 Swarmers" in got.text
    again = _reveal(
        enemy="Razor lizards", enemies_met=["Razor lizards"], variant_name="Swarmers", variant_checked=True, numbers_faces=[3]
    )
    assert not again.variant_rolled and again.count == 5


def test_an_unmet_type_gets_no_variant() -> None:
    got = _reveal(enemy="Razor lizards", enemies_met=["Acid blobs"], numbers_faces=[3])
    assert got.variant is None and not got.variant_rolled


def test_pack_leaders_are_checked_from_the_third_mission() -> None:
    got = _reveal(enemy="Razor lizards", mission_number=3, numbers_faces=[3], leader_faces=[12, 2, 11], leader_face=2)
    assert got.leader is not None and got.leader.name == "Lancer" and got.leader_pool == 2
    second = _reveal(enemy="Razor lizards", mission_number=2, numbers_faces=[3])
    assert second.leader is None and len(second.rolls) == 1


def test_infiltrators_and_ambushers_get_placement_notes() -> None:
    infiltrators = _reveal(enemy="Converted infiltration team", numbers_faces=[2])
    assert any("closest Objective" in n for n in infiltrators.notes)
    ambush = _reveal(enemy="Razor lizards", enemies_met=["Razor lizards"], variant_face=2, numbers_faces=[2])
    assert any("within 4 inches" in n for n in ambush.notes)


def test_a_seeded_reveal_returns_every_roll() -> None:
    got = _reveal(mission_number=5, enemies_met=[e.result for e in TABLES["bh-enemies"].entries])
    assert got.type_rolled and got.variant_rolled
    assert [r.notation for r in got.rolls][:2] == ["D100", "D6"]
    assert got.count >= 1
