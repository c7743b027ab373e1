"""Stress-dice skill check rules ("Stress dice skill checks", p.1), with seeded or entered dice."""

from __future__ import annotations

from typing import Any

import pytest

from live.engine.tracker import Action, Event, NotYours, Role, TrackerError, replay
from rules.engine.dice import Dice
from tabletools.engine import stress

State = dict[str, Any]


def act(
    state: State, type_: str, role: Role = Role.OWNER, actor: str = "1", seed: int = 1, **payload: Any
) -> tuple[State, list[Event]]:
    return stress.apply(state, Action(type_, payload, actor=actor, role=role), Dice(seed=seed))


def char(state: State, char_id: str) -> dict[str, Any]:
    return next(c for c in state["characters"] if c["id"] == char_id)


def rolls(events: list[Event]) -> list[dict[str, Any]]:
    return [e.data["roll"] for e in events if "roll" in e.data]


@pytest.fixture
def table() -> State:
    state = stress.initial_state()
    # Ripley: Agility 4, Ranged Combat 2; Hicks: Empathy 3, Command 1; Bishop: an android.
    state, _ = act(
        state, "add_character", name="Ripley", owner="7", strength="3", agility="4", wits="3", empathy="2", ranged_combat="2"
    )
    state, _ = act(state, "add_character", name="Hicks", owner="8", strength=4, agility=3, wits=2, empathy=3, command=1)
    state, _ = act(state, "add_character", name="Bishop", strength=2, agility=5, wits=4, empathy=2, android="on")
    return state


def with_stress(state: State, char_id: str, level: int) -> State:
    state, _ = act(state, "edit_character", id=char_id, stress=level)
    return state


# -- characters ------------------------------------------------------------------------------


def test_twelve_skills_three_under_each_attribute() -> None:
    by_attribute: dict[str, list[str]] = {}
    for name, attribute in stress.SKILLS.values():
        by_attribute.setdefault(attribute, []).append(name)
    assert by_attribute == {
        "strength": ["Heavy Machinery", "Close Combat", "Stamina"],
        "agility": ["Ranged Combat", "Mobility", "Piloting"],
        "wits": ["Observation", "Survival", "Comtech"],
        "empathy": ["Command", "Manipulation", "Medical Aid"],
    }


def test_a_character_sheet_holds_attributes_skills_stress_and_owner(table: State) -> None:
    ripley = char(table, "c1")
    assert ripley["attributes"] == {"strength": 3, "agility": 4, "wits": 3, "empathy": 2}
    assert next(s for s in ripley["skills"] if s["key"] == "ranged_combat")["level"] == 2
    assert ripley["stress"] == 0 and ripley["owner"] == "7" and ripley["android"] is False
    assert char(table, "c3")["android"] is True
    with pytest.raises(TrackerError, match="strength is required") as refused:
        act(table, "add_character", name="Vasquez", agility=4, wits=2, empathy=2)
    assert refused.value.field == "strength"


# -- the roll builder ------------------------------------------------------------------------


def test_base_dice_are_attribute_plus_skill(table: State) -> None:
    _, events = act(table, "check", id="c1", skill="Ranged Combat", action="free")
    assert len(rolls(events)) == 1
    assert len(rolls(events)[0]["faces"]) == 6  # Agility 4 + Ranged Combat 2
    assert "Agility 4 + Ranged Combat 2" in events[0].text


def test_an_untrained_skill_rolls_the_attribute_alone(table: State) -> None:
    _, events = act(table, "check", id="c1", skill="mobility", action="free")
    assert len(rolls(events)[0]["faces"]) == 4
    assert "Mobility untrained" in events[0].text


def test_stress_dice_equal_the_stress_level(table: State) -> None:
    state = with_stress(table, "c1", 2)
    _, events = act(state, "check", id="c1", skill="ranged_combat", action="free")
    base, stress_dice = rolls(events)
    assert len(base["faces"]) == 6 and len(stress_dice["faces"]) == 2
    assert "stress dice" in stress_dice["reason"]


def test_gear_and_conditions_add_or_remove_base_dice(table: State) -> None:
    state, _ = act(table, "add_condition", id="c1", name="Exhausted", modifier="-1")
    _, events = act(state, "check", id="c1", skill="ranged_combat", action="free", gear="+2")
    assert len(rolls(events)[0]["faces"]) == 6 + 2 - 1
    assert "gear 2" in events[0].text and "Exhausted 1" in events[0].text


def test_no_dice_at_all_is_refused(table: State) -> None:
    with pytest.raises(TrackerError, match="No dice to roll") as refused:
        act(table, "check", id="c1", skill="ranged_combat", action="free", modifier=-6)
    assert refused.value.field == "modifier"


def test_with_no_base_dice_only_the_stress_dice_roll(table: State) -> None:
    state = with_stress(table, "c1", 2)
    _, events = act(state, "check", id="c1", skill="ranged_combat", action="free", modifier=-6)
    assert [len(r["faces"]) for r in rolls(events)] == [2]


@pytest.mark.parametrize(
    ("distance", "defenceless", "dice"),
    [("engaged", False, 3), ("engaged", True, 9), ("short", False, 6), ("medium", False, 5), ("long", False, 4)],
)
def test_range_categories_change_the_base_dice(table: State, distance: str, defenceless: bool, dice: int) -> None:
    _, events = act(table, "check", id="c1", skill="ranged_combat", action="free", range=distance, defenceless=defenceless)
    assert len(rolls(events)[0]["faces"]) == dice


def test_extreme_range_follows_the_owner_setting(table: State) -> None:
    _, events = act(table, "check", id="c1", skill="ranged_combat", action="free", range="extreme")
    assert len(rolls(events)[0]["faces"]) == 6 - 3
    state, _ = act(table, "set_setting", name="extreme_modifier", value="-1")
    _, events = act(state, "check", id="c1", skill="ranged_combat", action="free", range="extreme")
    assert len(rolls(events)[0]["faces"]) == 6 - 1
    with pytest.raises(TrackerError, match="from -6 to 0"):
        act(table, "set_setting", name="extreme_modifier", value="2")
    assert stress.initial_state(extreme_modifier=-5)["settings"]["extreme_modifier"] == -5


def test_range_is_only_for_ranged_combat_and_defenceless_only_engaged(table: State) -> None:
    with pytest.raises(TrackerError, match="only to Ranged Combat") as refused:
        act(table, "check", id="c1", skill="mobility", action="free", range="long")
    assert refused.value.field == "range"
    with pytest.raises(TrackerError, match="only at Engaged") as refused:
        act(table, "check", id="c1", skill="ranged_combat", action="free", range="short", defenceless="on")
    assert refused.value.field == "defenceless"


def test_aim_adds_two_and_needs_the_fast_action(table: State) -> None:
    state, _ = act(table, "aim", id="c1")
    assert char(state, "c1")["fast_used"] and char(state, "c1")["aimed"]
    state, events = act(state, "check", id="c1", skill="ranged_combat", action="slow")
    assert len(rolls(events)[0]["faces"]) == 8 and "aim 2" in events[0].text
    assert not char(state, "c1")["aimed"]
    with pytest.raises(TrackerError, match="already used their fast action"):
        act(state, "aim", id="c1")


def test_doing_anything_else_or_being_hurt_loses_the_aim(table: State) -> None:
    aimed, _ = act(table, "aim", id="c1")
    state, _ = act(aimed, "take_action", id="c1", action="slow", name="Reload")
    assert not char(state, "c1")["aimed"]
    state, events = act(aimed, "stress_up", id="c1", reason="damage")
    assert not char(state, "c1")["aimed"] and "aim is lost" in events[0].text
    state, _ = act(aimed, "stress_up", id="c1", reason="scary")
    assert char(state, "c1")["aimed"]


def test_helpers_add_one_each_and_spend_an_action_of_the_same_kind(table: State) -> None:
    state, _ = act(table, "help", id="c2", target="c1", action="slow")
    state, _ = act(state, "help", id="c3", target="c1", action="slow")
    assert char(state, "c2")["slow_used"] and char(state, "c3")["slow_used"]
    state, events = act(state, "check", id="c1", skill="ranged_combat", action="slow")
    assert len(rolls(events)[0]["faces"]) == 8
    assert char(state, "c1")["helpers"] == []


def test_help_must_match_the_kind_of_action(table: State) -> None:
    state, _ = act(table, "help", id="c2", target="c1", action="fast")
    with pytest.raises(TrackerError, match="Hicks helped with a fast action; this check is slow") as refused:
        act(state, "check", id="c1", skill="ranged_combat", action="slow")
    assert refused.value.field == "action"
    state, _ = act(state, "withdraw_help", id="c2")
    assert not char(state, "c2")["fast_used"]


def test_at_most_three_helpers(table: State) -> None:
    state = table
    for name in ("Vasquez", "Drake", "Apone"):
        state, _ = act(state, "add_character", name=name, strength=3, agility=3, wits=3, empathy=3)
    for helper in ("c2", "c4", "c5"):
        state, _ = act(state, "help", id=helper, target="c1", action="slow")
    with pytest.raises(TrackerError, match="At most 3"):
        act(state, "help", id="c6", target="c1", action="slow")
    _, events = act(state, "check", id="c1", skill="ranged_combat", action="slow")
    assert len(rolls(events)[0]["faces"]) == 9


def test_a_helper_needs_the_action_unused(table: State) -> None:
    state, _ = act(table, "take_action", id="c2", action="slow", name="Crawl")
    with pytest.raises(TrackerError, match="Hicks has already used their slow action"):
        act(state, "help", id="c2", target="c1", action="slow")


# -- sixes, stress dice and pushing --------------------------------------------------------------


def test_sixes_on_base_and_stress_dice_count(table: State) -> None:
    state = with_stress(table, "c1", 2)
    state, events = act(
        state, "check", id="c1", skill="ranged_combat", action="free", faces="6,2,3,4,5,6", stress_faces=["6", "3"]
    )
    last = state["last"]
    assert last["base_sixes"] == 2 and last["stress_sixes"] == 1 and last["sixes"] == 3 and last["success"]
    assert all(r["entered"] for r in rolls(events))
    assert "Success with 3 sixes: 2 extra" in events[-1].text


def test_no_six_is_a_failure_and_does_not_raise_stress(table: State) -> None:
    state, events = act(table, "check", id="c1", skill="ranged_combat", action="free", faces="1,2,3,4,5,5")
    assert not state["last"]["success"] and "Failure" in events[-1].text
    assert char(state, "c1")["stress"] == 0


def test_typed_faces_must_match_the_pool(table: State) -> None:
    with pytest.raises(TrackerError, match="faces needs 6 D6 face") as refused:
        act(table, "check", id="c1", skill="ranged_combat", action="free", faces="6,6")
    assert refused.value.field == "faces"
    state = with_stress(table, "c1", 1)
    with pytest.raises(TrackerError, match="Type all the dice") as refused:
        act(state, "check", id="c1", skill="ranged_combat", action="free", faces="1,2,3,4,5,5")
    assert refused.value.field == "stress_faces"
    with pytest.raises(TrackerError, match="from 1 to 6"):
        act(table, "check", id="c1", skill="ranged_combat", action="free", faces="7,1,1,1,1,1")


def test_a_one_on_a_stress_die_forces_panic_and_forbids_the_push(table: State) -> None:
    state = with_stress(table, "c1", 1)
    state, events = act(state, "check", id="c1", skill="ranged_combat", action="free", faces="1,2,3,4,5,5", stress_faces="1")
    assert char(state, "c1")["pending_panic"] == {"trigger": "stress_die", "from_check": True}
    assert "roll for panic" in events[-1].text
    with pytest.raises(TrackerError, match="cannot be pushed"):
        act(state, "push", id="c1")
    with pytest.raises(TrackerError, match="must roll for panic first"):
        act(state, "check", id="c1", skill="mobility", action="free")


def test_a_one_on_a_base_die_does_not_trigger_panic(table: State) -> None:
    state = with_stress(table, "c1", 1)
    state, _ = act(state, "check", id="c1", skill="ranged_combat", action="free", faces="1,1,1,1,1,1", stress_faces="2")
    assert char(state, "c1")["pending_panic"] is None


def test_a_push_rerolls_every_die_that_did_not_succeed_and_adds_stress(table: State) -> None:
    state = with_stress(table, "c1", 1)
    state, _ = act(state, "check", id="c1", skill="ranged_combat", action="free", faces="6,2,3,4,5,5", stress_faces="3")
    state, events = act(state, "push", id="c1", faces="6,2,2,2,2", stress_faces="4,6")
    ripley = char(state, "c1")
    assert ripley["stress"] == 2
    assert ripley["check"]["base"] == [6, 6, 2, 2, 2, 2]
    assert ripley["check"]["stress"] == [4, 6]  # the rerolled die, then the new stress die
    assert state["last"]["sixes"] == 3 and state["last"]["kind"] == "push"
    assert [len(r["faces"]) for r in rolls(events)] == [5, 2]
    assert "stress 1 → 2" in events[0].text


def test_a_seeded_push_keeps_the_sixes(table: State) -> None:
    state = with_stress(table, "c1", 1)
    state, _ = act(state, "check", id="c1", skill="ranged_combat", action="free", faces="6,6,3,4,5,5", stress_faces="2")
    state, events = act(state, "push", id="c1", seed=99)
    assert char(state, "c1")["check"]["base"][:2] == [6, 6]
    assert [len(r["faces"]) for r in rolls(events)] == [4, 2]
    assert not rolls(events)[0]["entered"]


def test_a_check_is_pushed_only_once(table: State) -> None:
    state, _ = act(table, "check", id="c1", skill="ranged_combat", action="free", faces="1,2,3,4,5,5")
    state, _ = act(state, "push", id="c1", faces="2,3,4,5,5,2", stress_faces="2")
    with pytest.raises(TrackerError, match="only once"):
        act(state, "push", id="c1")


def test_a_push_that_rolls_a_stress_one_calls_for_panic(table: State) -> None:
    state, _ = act(table, "check", id="c1", skill="ranged_combat", action="free", faces="1,2,3,4,5,5")
    state, events = act(state, "push", id="c1", faces="2,3,4,5,5,2", stress_faces="1")
    assert char(state, "c1")["pending_panic"] is not None and "roll for panic" in events[-1].text


def test_androids_cannot_push(table: State) -> None:
    state, events = act(table, "check", id="c3", skill="mobility", action="free", faces="1,2,3,4,5")
    assert "Androids cannot push" in events[-1].text
    with pytest.raises(TrackerError, match="Androids cannot push"):
        act(state, "push", id="c3")


def test_doing_something_else_closes_the_check(table: State) -> None:
    state, _ = act(table, "check", id="c1", skill="ranged_combat", action="slow", faces="1,2,3,4,5,5")
    state, _ = act(state, "take_action", id="c1", action="fast", name="Run")
    with pytest.raises(TrackerError, match="no check to push"):
        act(state, "push", id="c1")


# -- panic ---------------------------------------------------------------------------------------


def panicked_from_check(table: State, *, stress_level: int) -> State:
    """Ripley succeeds on Ranged Combat (one 6) with a 1 on her first stress die."""
    state = with_stress(table, "c1", stress_level)
    stress_faces = ",".join(["1"] + ["2"] * (stress_level - 1))
    state, _ = act(state, "check", id="c1", skill="ranged_combat", action="free", faces="6,2,3,4,5,5", stress_faces=stress_faces)
    return state


def test_panic_is_one_d6_plus_stress(table: State) -> None:
    state = panicked_from_check(table, stress_level=2)
    state, events = act(state, "panic_roll", id="c1", faces="3")
    assert events[0].data["roll"]["total"] == 5 and events[0].data["roll"]["modifier"] == 2
    assert char(state, "c1")["pending_panic"] is None and char(state, "c1")["panic"] is None
    assert "keep it together" in events[0].text


def test_a_panic_of_ten_or_more_cancels_the_action_even_after_success(table: State) -> None:
    state = panicked_from_check(table, stress_level=4)
    assert state["last"]["success"]
    state, events = act(state, "panic_roll", id="c1", faces="6")
    assert char(state, "c1")["check"]["cancelled"] and state["last"]["cancelled"]
    assert "cancels the Ranged Combat action" in events[0].text
    below, events = act(panicked_from_check(table, stress_level=4), "panic_roll", id="c1", faces="5")
    assert not char(below, "c1")["check"]["cancelled"] and "cancels" not in events[0].text


def test_seven_or_more_leaves_a_lasting_panic_effect(table: State) -> None:
    state = with_stress(table, "c2", 3)
    state, events = act(state, "panic_roll", id="c2", trigger="pinned", faces="4")
    assert char(state, "c2")["panic"]["value"] == 7 and char(state, "c2")["panic"]["lasts"] == "until_aid"
    assert [e.type for e in events] == ["panic_roll", "panic_witnessed"]
    calm, _ = act(with_stress(table, "c2", 3), "panic_roll", id="c2", trigger="pinned", faces="3")
    assert char(calm, "c2")["panic"] is None


@pytest.mark.parametrize("trigger", ["witness", "pinned", "critical_injury", "unknown_alien", "horror"])
def test_every_listed_trigger_calls_a_panic_roll(table: State, trigger: str) -> None:
    _, events = act(table, "panic_roll", id="c1", trigger=trigger, faces="2")
    assert events[0].data["roll"]["total"] == 2 and stress.PANIC_TRIGGERS[trigger] in events[0].text


def test_a_stress_die_panic_needs_a_stress_die_one(table: State) -> None:
    with pytest.raises(TrackerError, match="trigger must be one of witness") as refused:
        act(table, "panic_roll", id="c1", trigger="stress_die", faces="2")
    assert refused.value.field == "trigger"


def test_a_critical_injury_panic_spoils_the_aim(table: State) -> None:
    state, _ = act(table, "aim", id="c1")
    state, _ = act(state, "panic_roll", id="c1", trigger="critical_injury", faces="2")
    assert not char(state, "c1")["aimed"]


def test_a_new_panic_replaces_the_old_one_step_worse_when_lower(table: State) -> None:
    state = with_stress(table, "c2", 4)
    state, _ = act(state, "panic_roll", id="c2", trigger="horror", faces="5")  # 9
    lower, events = act(state, "panic_roll", id="c2", trigger="pinned", faces="4")  # 8 < 9
    assert char(lower, "c2")["panic"]["value"] == 10 and "one step worse: 10" in events[0].text
    higher, _ = act(state, "panic_roll", id="c2", trigger="pinned", faces="6")  # 10 >= 9
    assert char(higher, "c2")["panic"]["value"] == 10 and char(higher, "c2")["panic"]["trigger"] == "pinned"


PANIC_TABLE = [
    {"low": 1, "high": 6, "result": "Steady", "effect": "Nothing happens."},
    {"low": 7, "high": 7, "result": "Jumpy", "effect": "Stress +1.", "lasts": "round"},
    {"low": 8, "high": 8, "result": "Frozen", "effect": "Lose your next slow action."},
    {"low": 9, "high": 15, "result": "Scream", "effect": "Everyone nearby hears."},
]


def test_the_panic_table_names_the_effect_and_the_next_row_is_one_step_worse() -> None:
    state = stress.initial_state(panic_table=PANIC_TABLE, panic_table_slug="our-panic")
    state, _ = act(state, "add_character", name="Ripley", strength=3, agility=4, wits=3, empathy=2, stress=2)
    state, events = act(state, "panic_roll", id="c1", trigger="horror", faces="6")  # 8: Frozen
    assert "Frozen" in events[0].text and state["last"]["effect"] == "Lose your next slow action."
    state, events = act(state, "panic_roll", id="c1", trigger="horror", faces="3")  # 5 < 8: next row
    assert char(state, "c1")["panic"]["result"] == "Scream" and char(state, "c1")["panic"]["value"] == 9
    without = stress.initial_state()
    assert stress.one_step_worse(without["panic_table"], 8) == 9
    assert stress.one_step_worse(stress.clean_panic_table(PANIC_TABLE), 7) == 8
    assert stress.one_step_worse(stress.clean_panic_table(PANIC_TABLE), 6) == 7


def panic_after(table: list[dict[str, Any]], *faces: str) -> tuple[State, list[list[Event]]]:
    """Ripley (stress 2) rolls for panic once per face in ``faces``, with ``table`` as the group's
    panic table (``[]`` for none); returns the state and each roll's events."""
    state = stress.initial_state(panic_table=table, panic_table_slug="our-panic" if table else "")
    state, _ = act(state, "add_character", name="Ripley", strength=3, agility=4, wits=3, empathy=2, stress=2)
    all_events = []
    for face in faces:
        state, events = act(state, "panic_roll", id="c1", trigger="horror", faces=face)
        all_events.append(events)
    return state, all_events


def test_the_same_panic_roll_with_and_without_the_groups_table() -> None:
    # D6 5 + stress 2 = 7 both times: the table names the row and says how long it lasts.
    with_table, [events] = panic_after(PANIC_TABLE, "5")
    panic = char(with_table, "c1")["panic"]
    assert (panic["value"], panic["result"], panic["effect"], panic["lasts"]) == (7, "Jumpy", "Stress +1.", "round")
    assert "= 7 — Jumpy, lasts this round." in events[0].text
    assert with_table["last"]["result"] == "Jumpy" and with_table["last"]["lasts"] == "round"
    ended, _ = act(with_table, "new_round")
    assert char(ended, "c1")["panic"] is None  # the row's duration: one round

    # Without a table: the bare value, and the document's rule for 7+ (lasts until aid).
    bare, [events] = panic_after([], "5")
    panic = char(bare, "c1")["panic"]
    assert (panic["value"], panic["result"], panic["effect"], panic["lasts"]) == (7, "", "", "until_aid")
    assert "= 7 — a panic effect" in events[0].text and "Jumpy" not in events[0].text
    assert "until someone calms them with Command, they are Broken, or a Turn passes" in events[0].text
    roll = events[0].data["roll"]
    assert (roll["faces"], roll["modifier"], roll["total"], roll["entered"]) == ([5], 2, 7, True)
    kept, _ = act(bare, "new_round")
    assert char(kept, "c1")["panic"] is not None  # not a round-long effect without the table


def test_one_step_worse_follows_the_table_rows_or_adds_one_without_it() -> None:
    # 6 + 2 = 8, then 3 + 2 = 5 (lower): one step more severe than 8.
    with_table, _ = panic_after(PANIC_TABLE, "6", "3")
    assert char(with_table, "c1")["panic"]["value"] == 9 and char(with_table, "c1")["panic"]["result"] == "Scream"
    bare, events = panic_after([], "6", "3")
    assert char(bare, "c1")["panic"]["value"] == 9 and char(bare, "c1")["panic"]["result"] == ""
    assert "lower than the current 8, so one step worse: 9" in events[1][0].text
    # A table whose rows span several values steps to the next row, not to value + 1.
    wide = [
        {"low": 1, "high": 6, "result": "Steady"},
        {"low": 7, "high": 9, "result": "Shaken"},
        {"low": 10, "high": 12, "result": "Flee"},
    ]
    stepped, _ = panic_after(wide, "6", "3")
    assert char(stepped, "c1")["panic"]["value"] == 10 and char(stepped, "c1")["panic"]["result"] == "Flee"


def test_a_round_long_panic_ends_with_the_round() -> None:
    state = stress.initial_state(panic_table=PANIC_TABLE)
    state, _ = act(state, "add_character", name="Ripley", strength=3, agility=4, wits=3, empathy=2, stress=2)
    state, _ = act(state, "add_character", name="Hicks", strength=3, agility=4, wits=3, empathy=2, stress=3)
    state, _ = act(state, "panic_roll", id="c1", trigger="horror", faces="5")  # 7: Jumpy, a round
    state, _ = act(state, "panic_roll", id="c2", trigger="horror", faces="5")  # 8: Frozen, until aid
    assert char(state, "c1")["panic"]["lasts"] == "round"
    state, events = act(state, "new_round")
    assert char(state, "c1")["panic"] is None and char(state, "c2")["panic"] is not None
    assert "Round-long panic ends for Ripley" in events[0].text


def test_a_command_check_by_another_character_calms_a_panic(table: State) -> None:
    state = with_stress(table, "c1", 4)
    state, _ = act(state, "panic_roll", id="c1", trigger="horror", faces="5")
    failed, _ = act(state, "check", id="c2", calm="c1", action="slow", faces="1,2,3,4")
    assert char(failed, "c1")["panic"] is not None and char(failed, "c2")["slow_used"]
    state, events = act(state, "check", id="c2", calm="c1", action="slow", faces="6,2,3,4")
    assert char(state, "c1")["panic"] is None and "Hicks calms Ripley" in events[-1].text


def test_calming_is_a_slow_command_check_by_someone_else(table: State) -> None:
    state = with_stress(table, "c1", 4)
    state, _ = act(state, "panic_roll", id="c1", trigger="horror", faces="5")
    with pytest.raises(TrackerError, match="slow action") as refused:
        act(state, "check", id="c2", calm="c1", action="fast")
    assert refused.value.field == "action"
    with pytest.raises(TrackerError, match="takes a Command check"):
        act(state, "check", id="c2", calm="c1", skill="observation")
    with pytest.raises(TrackerError, match="Another character"):
        act(state, "check", id="c1", calm="c1")
    with pytest.raises(TrackerError, match="no panic effect"):
        act(state, "check", id="c1", calm="c2")


def test_a_calm_waits_for_the_calmers_own_panic_and_a_ten_cancels_it(table: State) -> None:
    state = with_stress(table, "c1", 4)
    state, _ = act(state, "panic_roll", id="c1", trigger="horror", faces="5")
    state = with_stress(state, "c2", 5)
    state, _ = act(state, "check", id="c2", calm="c1", faces="6,2,3,4", stress_faces="1,2,2,2,2")
    assert char(state, "c1")["panic"] is not None  # not yet: Hicks must roll for panic
    cancelled, _ = act(state, "panic_roll", id="c2", faces="5")  # 10: cancelled
    assert char(cancelled, "c1")["panic"] is not None
    done, events = act(state, "panic_roll", id="c2", faces="1")  # 6: the calm stands
    assert char(done, "c1")["panic"] is None and "Hicks calms Ripley" in events[-1].text


def test_being_broken_or_a_turn_passing_ends_a_panic(table: State) -> None:
    state = with_stress(table, "c1", 4)
    state, _ = act(state, "panic_roll", id="c1", trigger="horror", faces="5")
    broken, events = act(state, "set_broken", id="c1", broken="on")
    assert char(broken, "c1")["panic"] is None and char(broken, "c1")["broken"] and "panic effect ends" in events[0].text
    later, _ = act(state, "turn_passes")
    assert char(later, "c1")["panic"] is None
    next_round, _ = act(state, "new_round")
    assert char(next_round, "c1")["panic"] is not None  # lasts until aid, not one round


def test_the_owner_can_time_a_panic_effect(table: State) -> None:
    state = with_stress(table, "c1", 4)
    state, _ = act(state, "panic_roll", id="c1", trigger="horror", faces="5")
    state, _ = act(state, "set_panic_lasts", id="c1", lasts="round")
    state, _ = act(state, "new_round")
    assert char(state, "c1")["panic"] is None


# -- stress ----------------------------------------------------------------------------------


@pytest.mark.parametrize("reason", ["scary", "full_auto", "panic_nearby", "damage", "deprivation", "other"])
def test_stress_goes_up_for_each_listed_reason(table: State, reason: str) -> None:
    state, events = act(table, "stress_up", id="c1", reason=reason)
    assert char(state, "c1")["stress"] == 1 and stress.STRESS_UP[reason] in events[0].text


def test_rest_lowers_stress_by_one_but_not_below_zero(table: State) -> None:
    state = with_stress(table, "c1", 2)
    state, _ = act(state, "stress_down", id="c1", reason="rest")
    assert char(state, "c1")["stress"] == 1
    with pytest.raises(TrackerError, match="already 0"):
        act(with_stress(table, "c1", 0), "stress_down", id="c1", reason="rest")


def test_the_signature_item_eases_stress_once_per_act(table: State) -> None:
    state = with_stress(table, "c1", 3)
    state, _ = act(state, "stress_down", id="c1", reason="signature")
    with pytest.raises(TrackerError, match="once per act"):
        act(state, "stress_down", id="c1", reason="signature")
    state, _ = act(state, "new_act")
    state, _ = act(state, "stress_down", id="c1", reason="signature")
    assert char(state, "c1")["stress"] == 1


def test_some_conditions_block_stress_relief(table: State) -> None:
    state = with_stress(table, "c1", 3)
    state, _ = act(state, "add_condition", id="c1", name="Starving", blocks_relief="on")
    with pytest.raises(TrackerError, match="Starving keeps Ripley's stress from easing"):
        act(state, "stress_down", id="c1", reason="rest")
    state, _ = act(state, "remove_condition", id="c1", name="starving")
    state, _ = act(state, "stress_down", id="c1", reason="rest")
    assert char(state, "c1")["stress"] == 2


def test_other_relief_is_the_owners_call(table: State) -> None:
    state = with_stress(table, "c1", 3)
    with pytest.raises(NotYours):
        act(state, "stress_down", role=Role.PLAYER, actor="7", id="c1", reason="other")
    state, _ = act(state, "stress_down", role=Role.PLAYER, actor="7", id="c1", reason="rest")
    assert char(state, "c1")["stress"] == 2


# -- actions in the round ------------------------------------------------------------------------


def test_one_slow_and_one_fast_action_per_round(table: State) -> None:
    state, _ = act(table, "check", id="c1", skill="ranged_combat", action="slow")
    with pytest.raises(TrackerError, match="already used their slow action") as refused:
        act(state, "check", id="c1", skill="ranged_combat", action="slow")
    assert refused.value.field == "action"
    state, _ = act(state, "take_action", id="c1", action="fast", name="Run")
    state, events = act(state, "new_round")
    assert not char(state, "c1")["slow_used"] and not char(state, "c1")["fast_used"] and state["round"] == 2
    assert "Round 2" in events[0].text


def test_a_free_check_uses_no_action(table: State) -> None:
    state, _ = act(table, "check", id="c1", skill="observation", action="free")
    assert not char(state, "c1")["slow_used"] and not char(state, "c1")["fast_used"]


def test_a_block_uses_the_fast_action_then_the_slow_then_is_refused(table: State) -> None:
    state, events = act(table, "check", id="c2", action="block", faces="6,1,1,1")
    assert char(state, "c2")["fast_used"] and not char(state, "c2")["slow_used"]
    assert "Close Combat" in events[0].text and "counterattack" in events[-1].text
    state, _ = act(state, "check", id="c2", action="block")
    assert char(state, "c2")["slow_used"]
    with pytest.raises(TrackerError, match="used both actions this round and cannot block"):
        act(state, "check", id="c2", action="block")
    with pytest.raises(TrackerError, match="Blocking takes a Close Combat check"):
        act(table, "check", id="c2", action="block", skill="mobility")


# -- encumbrance -----------------------------------------------------------------------------


def test_capacity_is_twice_strength_and_sizes_count_differently(table: State) -> None:
    state, _ = act(table, "add_item", id="c1", name="Flamethrower", weight="heavy")
    state, _ = act(state, "add_item", id="c1", name="Motion tracker", weight="regular")
    state, _ = act(state, "add_item", id="c1", name="Flare", weight="light")
    state, _ = act(state, "add_item", id="c1", name="Lighter", weight="tiny")
    ripley = char(state, "c1")
    assert ripley["load"] == 3.5 and ripley["capacity"] == 6 and not ripley["over_encumbered"]
    state, events = act(state, "add_item", id="c1", name="Smart gun", weight="heavy", slots="3")
    assert char(state, "c1")["load"] == 6.5 and char(state, "c1")["over_encumbered"]
    assert "over-encumbered" in events[0].text
    state, _ = act(state, "remove_item", id="c1", item="i5")
    assert not char(state, "c1")["over_encumbered"]
    state, _ = act(state, "edit_character", id="c1", strength="1")
    assert char(state, "c1")["capacity"] == 2 and char(state, "c1")["over_encumbered"]


def test_item_sizes_are_checked(table: State) -> None:
    with pytest.raises(TrackerError, match=r"slots for a light item must be one of 0\.5, 0\.25") as refused:
        act(table, "add_item", id="c1", name="Flare", weight="light", slots="1")
    assert refused.value.field == "slots"
    state, _ = act(table, "add_item", id="c1", name="Ration", weight="light", slots="0.25")
    assert char(state, "c1")["load"] == 0.25
    with pytest.raises(TrackerError, match="weight must be one of regular, heavy, light, tiny"):
        act(table, "add_item", id="c1", name="Crate", weight="huge")


# -- who may do what -----------------------------------------------------------------------------


def test_players_act_only_for_their_own_characters(table: State) -> None:
    state, _ = act(table, "check", role=Role.PLAYER, actor="7", id="c1", skill="ranged_combat", action="slow")
    assert char(state, "c1")["slow_used"]
    with pytest.raises(NotYours, match="Hicks is not one of your characters"):
        act(table, "stress_up", role=Role.PLAYER, actor="7", id="c2", reason="scary")
    with pytest.raises(NotYours, match="Hicks is not one of your characters"):
        act(table, "help", role=Role.PLAYER, actor="7", id="c2", target="c1")
    with pytest.raises(NotYours, match="Only the table's owner"):
        act(table, "new_round", role=Role.PLAYER, actor="7")
    with pytest.raises(NotYours, match="Only the table's owner"):
        act(table, "edit_character", role=Role.PLAYER, actor="7", id="c1", stress="0")
    with pytest.raises(NotYours):
        act(table, "aim", role=Role.VIEWER, actor="9", id="c3")


def test_a_player_may_help_another_players_character_with_their_own(table: State) -> None:
    state, _ = act(table, "help", role=Role.PLAYER, actor="8", id="c2", target="c1", action="slow")
    assert char(state, "c1")["helpers"] == [{"id": "c2", "action": "slow"}]


def test_a_refused_action_changes_nothing(table: State) -> None:
    before = repr(table)
    with pytest.raises(TrackerError):
        act(table, "check", id="c1", skill="ranged_combat", action="slow", faces="9")
    with pytest.raises(TrackerError, match="Unknown action"):
        act(table, "fly", id="c1")
    assert repr(table) == before


def test_seeded_rolls_replay_to_the_same_state(table: State) -> None:
    state = with_stress(table, "c1", 3)
    start = state
    log: list[tuple[Action, int]] = []
    states = [state]
    for seed in range(40, 52):
        ripley = char(state, "c1")
        if ripley["pending_panic"]:
            action = Action("panic_roll", {"id": "c1"})
        elif ripley["check"] and not ripley["check"]["pushed"] and not ripley["check"]["panic"]:
            action = Action("push", {"id": "c1"})
        else:
            action = Action("check", {"id": "c1", "skill": "ranged_combat", "action": "free"})
        state, _ = stress.apply(state, action, Dice(seed=seed))
        log.append((action, seed))
        states.append(state)
    assert replay(start, log, stress.apply) == state
    assert replay(start, log[:-1], stress.apply) == states[-2]
