from __future__ import annotations

from typing import Any

import pytest

from campaigns.engine.difficulty import (
    TOGGLE_DEFAULTS,
    DifficultyError,
    Reminder,
    TurnDifficulty,
    battle_brief,
    crew_action_cost,
    elite_check,
    free_hull_repair,
    injury_exemption,
    starting_crew_count,
    starting_kit,
    starts_with_ship,
    turn_difficulty,
    upkeep,
)
from campaigns.engine.options import CampaignOptions, OptionError, parse_options
from rules.engine.dice import Dice
from rules.fixturefiles import read_all

TABLES = {s.slug: s.engine() for s in read_all() if s.system == "fiveparsecs"}
PLAIN = CampaignOptions()


def opts(**kwargs: Any) -> CampaignOptions:
    return parse_options(kwargs)


def keys(reminders: list[Reminder]) -> list[str]:
    return [r.key for r in reminders]


# -- turn_difficulty --------------------------------------------------------------------


def test_no_progressive_means_only_chosen_toggles() -> None:
    diff = turn_difficulty(opts(toggles=["veteran"]), 30, TABLES)
    assert diff.toggles == {"veteran"}
    assert diff.respawns == 0 and diff.extra_basic == 0
    assert not diff.deployment_variables and not diff.escalating_battles
    assert diff.elite_mode == "never" and diff.elite_target is None
    assert diff.applied == ()


@pytest.mark.parametrize(
    ("turn", "respawns", "strength", "basic", "specialists", "lieutenants"),
    [
        (3, 0, 0, 0, 0, 0),
        (4, 1, 0, 0, 0, 0),
        (5, 1, 1, 1, 0, 0),
        (9, 2, 1, 1, 0, 0),
        (10, 2, 2, 2, 0, 0),
        (15, 3, 3, 2, 0, 1),
        (19, 4, 3, 2, 0, 1),
        (20, 5, 4, 2, 1, 1),
        (40, 5, 4, 2, 1, 1),
    ],
)
def test_option_1_highest_rows_reached(
    turn: int, respawns: int, strength: int, basic: int, specialists: int, lieutenants: int
) -> None:
    diff = turn_difficulty(opts(progressive=[1]), turn, TABLES)
    assert diff.respawns == respawns
    assert diff.respawn_level == respawns
    assert diff.strength_level == strength
    assert (diff.extra_basic, diff.extra_specialists, diff.extra_lieutenants) == (basic, specialists, lieutenants)


def test_option_1_turn_10_is_respawn_2_and_strength_2() -> None:
    assert turn_difficulty(opts(progressive=[1]), 10, TABLES).applied == ("Respawn 2", "Strength 2")


def test_option_2_switches_toggles_on_by_turn() -> None:
    options = opts(progressive=[2])
    assert turn_difficulty(options, 2, TABLES).toggles == frozenset()
    t3 = turn_difficulty(options, 3, TABLES)
    assert t3.toggles == {"strength_adjusted_enemies"}
    assert t3.progressive_toggles == {"strength_adjusted_enemies"}
    assert not t3.deployment_variables
    t4 = turn_difficulty(options, 4, TABLES)
    assert t4.deployment_variables and not t4.escalating_battles
    assert turn_difficulty(options, 5, TABLES).has("better_leadership")
    assert turn_difficulty(options, 6, TABLES).escalating_battles
    assert not turn_difficulty(options, 7, TABLES).has("veteran")
    t8 = turn_difficulty(options, 8, TABLES)
    assert t8.toggles == {
        "strength_adjusted_enemies",
        "actually_specialized",
        "better_leadership",
        "armored_leaders",
        "veteran",
    }


def test_option_2_keeps_chosen_toggles_and_marks_only_new_ones() -> None:
    diff = turn_difficulty(opts(progressive=[2], toggles=["veteran", "money_is_tight"]), 8, TABLES)
    assert {"veteran", "money_is_tight", "armored_leaders"} <= diff.toggles
    assert "veteran" not in diff.progressive_toggles
    assert "armored_leaders" in diff.progressive_toggles


@pytest.mark.parametrize(
    ("turn", "mode", "target"),
    [(13, "never", None), (14, "roll", 4), (15, "roll", 4), (16, "roll", 3), (19, "roll", 3), (20, "always", None)],
)
def test_option_2_elite_thresholds(turn: int, mode: str, target: int | None) -> None:
    diff = turn_difficulty(opts(progressive=[2]), turn, TABLES)
    assert (diff.elite_mode, diff.elite_target) == (mode, target)


def test_campaign_elite_option_keeps_the_stronger_mode() -> None:
    assert turn_difficulty(opts(elite_enemies="roll"), 1, TABLES).elite_target == 4
    assert turn_difficulty(opts(elite_enemies="always", progressive=[2]), 16, TABLES).elite_mode == "always"
    upgraded = turn_difficulty(opts(elite_enemies="roll", progressive=[2]), 16, TABLES)
    assert (upgraded.elite_mode, upgraded.elite_target) == ("roll", 3)
    assert turn_difficulty(opts(elite_enemies="roll", progressive=[2]), 13, TABLES).elite_target == 4


def test_both_options_together() -> None:
    diff = turn_difficulty(opts(progressive=[1, 2]), 20, TABLES)
    assert diff.respawns == 5 and diff.extra_specialists == 1
    assert diff.elite_mode == "always" and diff.has("veteran")


def test_turn_must_be_positive() -> None:
    with pytest.raises(DifficultyError, match="turn must be") as err:
        turn_difficulty(PLAIN, 0, TABLES)
    assert err.value.field == "turn"


def test_missing_table_is_named() -> None:
    with pytest.raises(DifficultyError, match="progressive-difficulty-option-1") as err:
        turn_difficulty(opts(progressive=[1]), 5, {})
    assert err.value.field == "tables"


def test_unknown_toggle_is_refused() -> None:
    with pytest.raises(DifficultyError, match="toggle must be one of"):
        TurnDifficulty(turn=1).has("laser_sharks")


def test_as_dict_is_json_ready() -> None:
    data = turn_difficulty(opts(progressive=[2]), 5, TABLES).as_dict()
    assert data["toggles"] == ["actually_specialized", "better_leadership", "strength_adjusted_enemies"]
    assert data["deployment_variables"] is True


# -- elite_check ------------------------------------------------------------------------


def test_elite_never_and_always_do_not_roll() -> None:
    never = turn_difficulty(PLAIN, 1, TABLES)
    always = turn_difficulty(opts(elite_enemies="always"), 1, TABLES)
    assert elite_check(never, TABLES, Dice(seed=1)) == (False, None)
    assert elite_check(always, TABLES, Dice(seed=1)) == (True, None)


def test_elite_roll_4_plus_with_entered_faces() -> None:
    diff = turn_difficulty(opts(progressive=[2]), 14, TABLES)
    elite, roll = elite_check(diff, TABLES, Dice(seed=1), value=3)
    assert not elite and roll is not None and roll.record.entered
    elite, roll = elite_check(diff, TABLES, Dice(seed=1), value=4)
    assert elite and roll is not None and roll.record.reason == "Elite-level enemies on 4+"


def test_elite_roll_3_plus_from_turn_16() -> None:
    diff = turn_difficulty(opts(progressive=[2]), 16, TABLES)
    assert elite_check(diff, TABLES, Dice(seed=1), value=3)[0] is True
    assert elite_check(diff, TABLES, Dice(seed=1), value=2)[0] is False
    elite, roll = elite_check(diff, TABLES, Dice(seed=1), value=6)
    assert elite and roll is not None and roll.record.modifier == 1


def test_seeded_elite_rolls_match_their_faces() -> None:
    diff = turn_difficulty(opts(elite_enemies="roll"), 1, TABLES)
    dice = Dice(seed=7)
    results = [elite_check(diff, TABLES, dice) for _ in range(30)]
    faces = [roll.record.faces[0] for _, roll in results if roll is not None]
    assert len(faces) == 30
    assert [elite for elite, _ in results] == [face >= 4 for face in faces]
    assert any(elite for elite, _ in results) and not all(elite for elite, _ in results)
    _, again = elite_check(diff, TABLES, Dice(seed=7))
    assert again is not None and again.record.faces[0] == faces[0]


def test_elite_bad_face_is_refused() -> None:
    diff = turn_difficulty(opts(elite_enemies="roll"), 1, TABLES)
    with pytest.raises(ValueError, match="1 to 6"):
        elite_check(diff, TABLES, Dice(seed=1), value=7)


# -- battle_brief -----------------------------------------------------------------------


def test_plain_campaign_has_an_empty_brief() -> None:
    assert battle_brief(PLAIN, 12, TABLES, 5) == []


def test_strength_adjusted_enemies_uses_crew_fielded() -> None:
    brief = battle_brief(opts(toggles=["strength_adjusted_enemies"]), 1, TABLES, 5)
    assert keys(brief) == ["strength_adjusted_enemies"]
    assert "5 (crew fielded)" in brief[0].text
    assert brief[0].source == "p.32"
    assert "3 (crew fielded)" in battle_brief(opts(toggles=["strength_adjusted_enemies"]), 1, TABLES, 3)[0].text


def test_each_battle_toggle_adds_its_reminder() -> None:
    for toggle, page in (
        ("veteran", "p.33"),
        ("actually_specialized", "p.33"),
        ("armored_leaders", "p.33"),
        ("better_leadership", "p.33"),
        ("paying_by_the_hour", "p.34"),
        ("movement_all_over", "p.34"),
        ("fickle_scans", "p.34"),
    ):
        brief = battle_brief(opts(toggles=[toggle]), 1, TABLES, 4)
        assert keys(brief) == [toggle]
        assert brief[0].source == page
        assert brief[0].text


def test_toggle_texts_carry_table_numbers() -> None:
    text = {
        r.key: r.text
        for r in battle_brief(opts(toggles=["better_leadership", "fickle_scans", "movement_all_over"]), 1, TABLES, 4)
    }
    assert "7+ instead of 9+" in text["better_leadership"]
    assert "round 3" in text["fickle_scans"]
    assert "1-2 left" in text["movement_all_over"]


def test_non_battle_toggles_stay_out_of_the_brief() -> None:
    assert battle_brief(opts(toggles=["money_is_tight", "reduced_lethality", "slower_progression"]), 1, TABLES, 4) == []


def test_progressive_option_1_reminders_by_turn() -> None:
    assert battle_brief(opts(progressive=[1]), 3, TABLES, 4) == []
    assert keys(battle_brief(opts(progressive=[1]), 4, TABLES, 4)) == ["progressive_respawn"]
    brief = battle_brief(opts(progressive=[1]), 15, TABLES, 4)
    assert keys(brief) == ["progressive_strength", "progressive_respawn"]
    assert brief[0].text == "Add 2 basic enemies and 1 Lieutenant to the encounter."
    assert "first 3 basic enemies" in brief[1].text
    assert "first 1 basic enemy slain at" in battle_brief(opts(progressive=[1]), 4, TABLES, 4)[0].text


def test_progressive_option_2_reminders_by_turn() -> None:
    assert "deployment_variables" not in keys(battle_brief(opts(progressive=[2]), 3, TABLES, 4))
    brief = battle_brief(opts(progressive=[2]), 6, TABLES, 4)
    assert {"strength_adjusted_enemies", "deployment_variables", "escalating_battles", "better_leadership"} <= set(keys(brief))
    assert "progressive" in next(r for r in brief if r.key == "better_leadership").text
    assert "elite_enemies" not in keys(battle_brief(opts(progressive=[2]), 13, TABLES, 4))
    elite = next(r for r in battle_brief(opts(progressive=[2]), 14, TABLES, 4) if r.key == "elite_enemies")
    assert "4+" in elite.text


def test_battle_option_reminders() -> None:
    assert keys(battle_brief(opts(dramatic_combat=True), 1, TABLES, 4)) == ["dramatic_combat"]
    assert keys(battle_brief(opts(casualty_tables=True), 1, TABLES, 4)) == ["casualty_tables"]
    psi = battle_brief(opts(psionics="enemies"), 1, TABLES, 4)
    assert keys(psi) == ["enemy_psionics"]
    assert "Rogue Psionic" in psi[0].text
    assert battle_brief(opts(psionics="crew"), 1, TABLES, 4) == []
    assert keys(battle_brief(opts(elite_enemies="always"), 1, TABLES, 4)) == ["elite_enemies"]


def test_brief_refuses_no_crew() -> None:
    with pytest.raises(DifficultyError, match="crew_fielded") as err:
        battle_brief(PLAIN, 1, TABLES, 0)
    assert err.value.field == "crew_fielded"


# -- Money is Tight ---------------------------------------------------------------------

TIGHT = opts(toggles=["money_is_tight"])


@pytest.mark.parametrize(("crew", "cost"), [(1, 0), (2, 1), (4, 1), (5, 2), (6, 3), (8, 5)])
def test_money_is_tight_upkeep(crew: int, cost: int) -> None:
    assert upkeep(TIGHT, crew) == cost
    assert upkeep(TIGHT, crew, tables=TABLES) == cost


def test_upkeep_without_toggle_is_the_core_figure() -> None:
    assert upkeep(PLAIN, 6) is None
    assert upkeep(PLAIN, 6, 7) == 7
    assert upkeep(TIGHT, 6, 7) == 3


def test_upkeep_errors() -> None:
    with pytest.raises(DifficultyError) as err:
        upkeep(PLAIN, 0)
    assert err.value.field == "crew_count"
    with pytest.raises(DifficultyError) as err:
        upkeep(PLAIN, 3, -1)
    assert err.value.field == "core_upkeep"


def test_free_hull_repair_and_action_costs() -> None:
    assert free_hull_repair(PLAIN) and not free_hull_repair(TIGHT)
    assert crew_action_cost(PLAIN, "find_a_patron") == 0
    assert crew_action_cost(TIGHT, "Find a Patron") == 1
    assert crew_action_cost(TIGHT, "repair your kit", tables=TABLES) == 1
    assert crew_action_cost(TIGHT, "train") == 0
    with pytest.raises(DifficultyError, match="action must be one of") as err:
        crew_action_cost(TIGHT, "sunbathe")
    assert err.value.field == "action"


# -- Starting in the Gutter and Reduced Lethality ---------------------------------------


def test_short_handed_crew() -> None:
    assert starting_crew_count(opts(crew_size=6)) == 6
    assert starting_crew_count(opts(crew_size=6, toggles=["gutter_small_crew"])) == 3
    assert starting_crew_count(opts(crew_size=6, toggles=["gutter_small_crew"]), tables=TABLES) == 3
    assert starting_crew_count(opts(crew_size=5, toggles=["gutter_small_crew"])) == 5
    assert starting_crew_count(opts(crew_size=4)) == 4


def test_no_ship() -> None:
    assert starts_with_ship(PLAIN)
    assert not starts_with_ship(opts(toggles=["gutter_no_ship"]))
    assert not starts_with_ship(opts(toggles=["gutter_no_ship"]), tables=TABLES)


def test_meager_starting_kit() -> None:
    assert starting_kit(PLAIN) is None
    kit = starting_kit(opts(toggles=["gutter_starting_kit"]), tables=TABLES)
    assert kit == {
        "low_tech_weapon_rolls": 3,
        "gear_or_gadget_rolls": 1,
        "military_hi_tech_rolls": 0,
        "starting_credits_per_crew": 0,
    }
    assert starting_kit(opts(toggles=["gutter_starting_kit"])) == kit


def test_reduced_lethality() -> None:
    on = opts(toggles=["reduced_lethality"])
    assert injury_exemption(on, ["a", "b"]) == 1
    assert injury_exemption(on, ["a", "b", "c"], tables=TABLES) == 1
    assert injury_exemption(on, ["a"]) == 0
    assert injury_exemption(on, ["a", "a"]) == 0
    assert injury_exemption(PLAIN, ["a", "b"]) == 0


def test_defaults_match_the_toggle_table() -> None:
    rows = {e.data["toggle"]: e.data for e in TABLES["difficulty-toggles"].rows()}
    for toggle, data in TOGGLE_DEFAULTS.items():
        for key, value in data.items():
            assert rows[toggle][key] == value, (toggle, key)


def test_unknown_toggle_key_in_options_is_an_option_error() -> None:
    with pytest.raises(OptionError):
        PLAIN.has("nope")
