"""Stacking rules (Stacking, p.1), with seeded or entered dice."""

from __future__ import annotations

from typing import Any

import pytest

from live.engine.tracker import Action, Event, NotYours, Role, TrackerError, replay
from rules.engine.dice import Dice
from tabletools.engine import stacking


def act(
    state: dict[str, Any], type_: str, *, as_: Role = Role.OWNER, by: str = "1", seed: int = 1, **payload: Any
) -> tuple[dict[str, Any], list[Event]]:
    """Apply ``type_`` with ``payload`` as user ``by`` in role ``as_`` (payload keys may be ``role``)."""
    return stacking.apply(state, Action(type_, payload, actor=by, role=as_), Dice(seed=seed))


def build(state: dict[str, Any], *steps: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    for type_, payload in steps:
        state, _ = act(state, type_, **payload)
    return state


def squad(**rules: Any) -> dict[str, Any]:
    """A PC (Combat 30, Save 40, 12 Health) with three contractors (Combat 20, Loyalty 15,
    Instinct 10, two Wounds each), played by user 7, against two targets and a creature stack."""
    return build(
        stacking.initial_state(**rules),
        ("add_stack", {"name": "Team", "kind": "party", "owner": "7", "damage": "1D10"}),  # s1
        ("add_member", {"stack": "s1", "name": "Kane", "role": "pc", "combat": "30", "save": "40", "health": "12"}),  # m2
        (
            "add_member",
            {"stack": "s1", "name": "Merc", "count": "3", "combat": "20", "loyalty": "15", "instinct": "10", "max_wounds": "2"},
        ),  # m3 m4 m5
        ("add_target", {"name": "Warrior", "health": "30"}),  # t6
        ("add_target", {"name": "Drone", "health": "20"}),  # t7
        ("add_stack", {"name": "Swarm", "kind": "creatures", "damage": "2D6"}),  # s8
        ("add_member", {"stack": "s8", "name": "Crawler", "count": "2", "combat": "25", "health": "8"}),  # m9 m10
    )


@pytest.fixture
def state() -> dict[str, Any]:
    return squad()


def team(state: dict[str, Any]) -> dict[str, Any]:
    return state["stacks"][0]  # type: ignore[no-any-return]


def member(state: dict[str, Any], member_id: str) -> dict[str, Any]:
    return next(m for s in state["stacks"] for m in s["members"] if m["id"] == member_id)


def target(state: dict[str, Any], target_id: str) -> dict[str, Any]:
    return next(t for t in state["targets"] if t["id"] == target_id)


# -- the stack -------------------------------------------------------------------------------------


def test_defaults_are_d100_roll_under_with_equal_failing() -> None:
    rules = stacking.initial_state()["rules"]
    assert rules == {
        "check_die": "D100",
        "equal_succeeds": False,
        "advantage": "twice",
        "advantage_shift": 10,
        "remainder": "target",
        "zero_health": "down",
    }
    assert stacking.describe_rules(rules).startswith("D100 roll-under (equal fails)")


def test_a_stack_holds_one_pc_and_identical_members_in_one_step(state: dict[str, Any]) -> None:
    assert [m["name"] for m in team(state)["members"]] == ["Kane", "Merc 1", "Merc 2", "Merc 3"]
    assert [m["role"] for m in state["stacks"][1]["members"]] == ["creature", "creature"]
    with pytest.raises(TrackerError, match="already has a PC") as refused:
        act(state, "add_member", stack="s1", name="Other", role="pc")
    assert refused.value.field == "role"
    with pytest.raises(TrackerError, match="role must be creature"):
        act(state, "add_member", stack="s8", name="Kane", role="pc")


def test_sums_are_shown_for_each_stack(state: dict[str, Any]) -> None:
    assert team(state)["sums"] == {"loyalty": 45, "contractors": 3, "combat": 90, "save": 70, "acting": 4, "size": 4}
    assert state["stacks"][1]["sums"]["combat"] == 50


# -- Loyalty Check ---------------------------------------------------------------------------------


def test_loyalty_rolls_under_the_contractors_summed_loyalty(state: dict[str, Any]) -> None:
    passed, events = act(state, "loyalty_check", stack="s1", faces="44")
    assert team(passed)["loyalty"] == "passed"
    assert events[0].data["target"] == 45 and events[0].data["roll"]["entered"] is True
    assert "44 against 45" in events[0].text
    failed, _ = act(state, "loyalty_check", stack="s1", faces="46")
    assert team(failed)["loyalty"] == "refused"


def test_a_failed_loyalty_check_leaves_the_pc_alone_this_turn(state: dict[str, Any]) -> None:
    state, _ = act(state, "loyalty_check", stack="s1", faces="90")
    assert team(state)["sums"]["combat"] == 30 and team(state)["sums"]["acting"] == 1
    state, events = act(state, "combat_check", stack="s1", target="t6", faces="29")
    assert events[0].data["target"] == 30
    assert state["pending"]["size"] == 1  # damage is not multiplied by the refusing contractors


def test_loyalty_holds_for_the_turn_and_a_new_turn_resets_it(state: dict[str, Any]) -> None:
    state, _ = act(state, "loyalty_check", stack="s1", faces="90")
    with pytest.raises(TrackerError, match="already failed its Loyalty Check this turn"):
        act(state, "loyalty_check", stack="s1", faces="1")
    state, events = act(state, "new_turn")
    assert state["turn"] == 2 and team(state)["loyalty"] is None
    assert team(state)["sums"]["acting"] == 4
    assert events[0].type == "new_turn"


def test_creatures_skip_the_loyalty_check(state: dict[str, Any]) -> None:
    with pytest.raises(TrackerError, match="skip the Loyalty Check"):
        act(state, "loyalty_check", stack="s8", faces="1")
    _, events = act(state, "combat_check", stack="s8", target="t6", faces="10")
    assert events[0].data["success"] is True


# -- Combat Check ----------------------------------------------------------------------------------


def test_contractors_need_loyalty_before_the_combat_check(state: dict[str, Any]) -> None:
    with pytest.raises(TrackerError, match="Loyalty Check before") as refused:
        act(state, "combat_check", stack="s1", target="t6", faces="10")
    assert refused.value.field == "stack"


def test_the_combat_check_sums_every_acting_member_pc_included(state: dict[str, Any]) -> None:
    state, _ = act(state, "loyalty_check", stack="s1", faces="1")
    hit, events = act(state, "combat_check", stack="s1", target="t6", faces="89")
    assert events[0].data["target"] == 90 and events[0].data["success"] is True
    assert hit["pending"]["kind"] == "spread" and hit["pending"]["size"] == 4
    miss, events = act(state, "combat_check", stack="s1", target="t6", faces="91")
    assert events[0].data["success"] is False and miss["pending"] is None
    assert miss["last"]["headline"] == "Miss"


def test_a_roll_equal_to_the_target_fails_unless_the_setting_says_so() -> None:
    strict = build(squad(), ("loyalty_check", {"stack": "s1", "faces": "45"}))
    assert team(strict)["loyalty"] == "refused"
    kind = build(squad(equal_succeeds=True), ("loyalty_check", {"stack": "s1", "faces": "45"}))
    assert team(kind)["loyalty"] == "passed"


def test_the_check_die_is_a_setting() -> None:
    d20 = squad(check_die="D20")
    with pytest.raises(TrackerError, match="D20 shows 1 to 20") as refused:
        act(d20, "loyalty_check", stack="s1", faces="44")
    assert refused.value.field == "faces"
    _, events = act(d20, "loyalty_check", stack="s1", seed=4)
    assert events[0].data["roll"]["notation"] == "D20"
    _, events = act(squad(), "loyalty_check", stack="s1", seed=4)
    assert events[0].data["roll"]["notation"] == "D100"


def test_advantage_rolls_twice_and_keeps_the_lower(state: dict[str, Any]) -> None:
    state, _ = act(state, "loyalty_check", stack="s1", faces="1")
    _, events = act(state, "combat_check", stack="s1", target="t6", advantage="advantage", faces=["95", "12"])
    assert events[0].data["roll"]["kept"] == [12] and events[0].data["success"] is True
    _, events = act(state, "combat_check", stack="s1", target="t6", advantage="disadvantage", faces="95, 12")
    assert events[0].data["roll"]["kept"] == [95] and events[0].data["success"] is False
    with pytest.raises(TrackerError, match="needs 2 face"):
        act(state, "combat_check", stack="s1", target="t6", advantage="advantage", faces="12")


def test_advantage_can_move_the_target_instead() -> None:
    state = build(squad(advantage="shift", advantage_shift=15), ("loyalty_check", {"stack": "s1", "faces": "1"}))
    _, events = act(state, "combat_check", stack="s1", target="t6", advantage="advantage", faces="100")
    assert events[0].data["target"] == 105 and events[0].data["success"] is True
    _, events = act(state, "combat_check", stack="s1", target="t6", advantage="disadvantage", faces="80")
    assert events[0].data["target"] == 75 and events[0].data["success"] is False
    with pytest.raises(TrackerError, match="needs 1 face"):
        act(state, "combat_check", stack="s1", target="t6", advantage="advantage", faces="1, 2")


def test_each_attack_may_name_its_own_damage(state: dict[str, Any]) -> None:
    state, _ = act(state, "loyalty_check", stack="s1", faces="1")
    weapon, _ = act(state, "combat_check", stack="s1", target="t6", faces="1")
    assert weapon["pending"]["damage"] == "D10"
    flamer, _ = act(state, "combat_check", stack="s1", target="t6", faces="1", damage="2D10")
    assert flamer["pending"]["damage"] == "2D10" and flamer["pending"]["dice"] == 2
    with pytest.raises(TrackerError, match="damage: Cannot") as refused:
        act(state, "combat_check", stack="s1", target="t6", faces="1", damage="2D7")
    assert refused.value.field == "damage"


# -- damage ------------------------------------------------------------------------------------------


def hit(state: dict[str, Any], target_id: str = "t6") -> dict[str, Any]:
    state, _ = act(state, "loyalty_check", stack="s1", faces="1")
    state, _ = act(state, "combat_check", stack="s1", target=target_id, faces="1")
    return state


def test_one_damage_roll_times_the_stack_is_shared_evenly(state: dict[str, Any]) -> None:
    state, events = act(hit(state), "roll_damage", characters="t7", faces="5")
    assert target(state, "t6")["health"] == 20 and target(state, "t7")["health"] == 10  # 5 x 4 = 20, 10 each
    assert state["pending"] is None and events[0].data["roll"]["faces"] == [5]
    assert "Damage 5 times 4 = 20, shared by 2" in events[0].text


def test_the_main_target_takes_the_remainder_by_default(state: dict[str, Any]) -> None:
    state, _ = act(hit(state), "roll_damage", characters=["t7", "m9"], faces="5")  # 20 over 3: 6 each, 2 left
    assert target(state, "t6")["health"] == 30 - 8
    assert target(state, "t7")["health"] == 20 - 6 and member(state, "m9")["health"] == 8 - 6


def test_the_remainder_can_be_dropped() -> None:
    state, events = act(hit(squad(remainder="drop")), "roll_damage", characters=["t7", "m9"], faces="5")
    assert target(state, "t6")["health"] == 30 - 6
    assert "2 left over lost" in events[0].text
    assert stacking.spread(20, 3, remainder="drop") == [6, 6, 6]
    assert stacking.spread(20, 3, remainder="target") == [8, 6, 6]


def test_only_standing_targets_and_other_creatures_take_spread_damage(state: dict[str, Any]) -> None:
    state = hit(state)
    with pytest.raises(TrackerError, match="no target or creature 'm3'") as refused:
        act(state, "roll_damage", characters="m3", faces="5")
    assert refused.value.field == "characters"
    creatures = build(squad(), ("combat_check", {"stack": "s8", "target": "t6", "faces": "1"}))
    with pytest.raises(TrackerError, match="no target or creature 'm10'"):
        act(creatures, "roll_damage", characters="m10", faces="3, 3")
    with pytest.raises(TrackerError, match="'s8'"):
        act(state, "roll_damage", characters="s8", faces="5")


def test_down_entities_cannot_be_targeted(state: dict[str, Any]) -> None:
    state = build(state, ("set_stats", {"id": "t7", "health": "0"}))
    assert target(state, "t7")["down"] is True
    state, _ = act(state, "loyalty_check", stack="s1", faces="1")
    with pytest.raises(TrackerError, match="Drone is already down") as refused:
        act(state, "combat_check", stack="s1", target="t7", faces="1")
    assert refused.value.field == "target"


def test_a_hit_on_a_pc_wounds_each_adjacent_contractor_and_costs_the_pc_the_roll(state: dict[str, Any]) -> None:
    state, events = act(state, "combat_check", stack="s8", target="s1", faces="10")
    assert state["pending"]["kind"] == "party" and state["pending"]["damage"] == "2D6"
    state, events = act(state, "roll_damage", characters=["m3", "m4"], faces=["3", "4"])
    assert member(state, "m2")["health"] == 12 - 7  # not multiplied by the two crawlers
    assert [member(state, m)["wounds"] for m in ("m3", "m4", "m5")] == [1, 1, 0]
    assert events[0].data["rolled"] == 7


def test_only_contractors_of_the_party_stand_adjacent_to_the_pc(state: dict[str, Any]) -> None:
    with pytest.raises(TrackerError, match="another party stack"):
        act(state, "combat_check", stack="s8", target="s8", faces="10")
    state, _ = act(state, "combat_check", stack="s8", target="s1", faces="10")
    with pytest.raises(TrackerError, match="contractors of Team") as refused:
        act(state, "roll_damage", characters="m2", faces="3, 4")
    assert refused.value.field == "characters"


def test_the_referee_records_a_hit_from_outside(state: dict[str, Any]) -> None:
    with pytest.raises(NotYours):
        act(state, "take_hit", as_=Role.PLAYER, by="7", target="s1", damage="1D10")
    with pytest.raises(TrackerError, match="damage is required"):
        act(state, "take_hit", target="s1")
    with pytest.raises(TrackerError, match="target must be a party") as refused:
        act(state, "take_hit", target="s8", damage="1D10")
    assert refused.value.field == "target"
    state, _ = act(state, "take_hit", target="s1", damage="1D10")
    state, _ = act(state, "roll_damage", characters="m5", faces="4")
    assert member(state, "m2")["health"] == 8 and member(state, "m5")["wounds"] == 1


def test_health_stops_at_zero_and_the_entity_is_down_by_default(state: dict[str, Any]) -> None:
    state, events = act(state, "take_hit", target="s1", damage="20")
    state, events = act(state, "roll_damage")
    kane = member(state, "m2")
    assert kane["health"] == 0 and kane["wounds"] == 0 and kane["down"] is True
    assert team(state)["sums"]["size"] == 3 and "down" in events[0].text


def test_zero_health_can_cost_a_wound_and_refill_instead() -> None:
    state = build(squad(zero_health="wound"), ("take_hit", {"target": "s1", "damage": "20"}), ("roll_damage", {}))
    kane = member(state, "m2")
    assert kane["wounds"] == 1 and kane["health"] == 12 - 8 and kane["down"] is False


def test_a_contractor_with_all_wounds_leaves_the_stack(state: dict[str, Any]) -> None:
    state = build(state, ("set_stats", {"id": "m3", "wounds": "2"}))
    assert member(state, "m3")["down"] is True
    assert team(state)["sums"] == {"loyalty": 30, "contractors": 2, "combat": 70, "save": 60, "acting": 3, "size": 3}


# -- stacked save ------------------------------------------------------------------------------------


def test_a_stacked_save_sums_instinct_and_the_pcs_save(state: dict[str, Any]) -> None:
    saved, events = act(state, "stacked_save", stack="s1", damage="2D10", faces="69")
    assert events[0].data["target"] == 70 and events[0].data["success"] is True and saved["pending"] is None
    _, events = act(state, "stacked_save", stack="s1", damage="2D10", faces="69", pc_save="25")
    assert events[0].data["target"] == 55 and events[0].data["success"] is False


def test_a_failed_save_hurts_every_member(state: dict[str, Any]) -> None:
    state, _ = act(state, "stacked_save", stack="s1", damage="2D10", faces="80")
    assert state["pending"]["kind"] == "save"
    with pytest.raises(NotYours):
        act(state, "roll_damage", as_=Role.PLAYER, by="7", faces="3, 3")  # the encounter's roll
    state, events = act(state, "roll_damage", faces="3, 3")
    assert member(state, "m2")["health"] == 6
    assert [member(state, m)["wounds"] for m in ("m3", "m4", "m5")] == [1, 1, 1]
    assert events[0].data["roll"]["notation"] == "2D10"


def test_a_stacked_save_needs_the_encounters_damage_and_a_party(state: dict[str, Any]) -> None:
    with pytest.raises(TrackerError, match="damage is required") as refused:
        act(state, "stacked_save", stack="s1", faces="1")
    assert refused.value.field == "damage"
    with pytest.raises(TrackerError, match="a stacked save is for a PC and contractors"):
        act(state, "stacked_save", stack="s8", damage="1D10", faces="1")


def test_a_save_may_take_advantage(state: dict[str, Any]) -> None:
    _, events = act(state, "stacked_save", stack="s1", damage="1D10", advantage="advantage", faces="99, 5")
    assert events[0].data["success"] is True and "with advantage" in events[0].text


# -- flow, roles and refusals --------------------------------------------------------------------------


def test_damage_waits_for_its_roll_before_anything_else(state: dict[str, Any]) -> None:
    with pytest.raises(TrackerError, match="No damage to roll"):
        act(state, "roll_damage", faces="3")
    state = hit(state)
    with pytest.raises(TrackerError, match="Roll the damage for Team first"):
        act(state, "stacked_save", stack="s1", damage="1D10", faces="1")
    with pytest.raises(TrackerError, match="Roll the damage"):
        act(state, "new_turn")
    with pytest.raises(TrackerError, match="Roll the damage"):
        act(state, "remove", id="t7")


def test_players_roll_only_for_their_own_stacks(state: dict[str, Any]) -> None:
    state, _ = act(state, "loyalty_check", as_=Role.PLAYER, by="7", stack="s1", faces="1")
    state, _ = act(state, "combat_check", as_=Role.PLAYER, by="7", stack="s1", target="t6", faces="1")
    state, _ = act(state, "roll_damage", as_=Role.PLAYER, by="7", faces="2")
    assert target(state, "t6")["health"] == 22
    with pytest.raises(NotYours, match="Swarm is not your stack"):
        act(state, "combat_check", as_=Role.PLAYER, by="7", stack="s8", target="t6", faces="1")
    with pytest.raises(NotYours):
        act(state, "stacked_save", as_=Role.PLAYER, by="8", stack="s1", damage="1D10", faces="1")
    with pytest.raises(NotYours):
        act(state, "loyalty_check", as_=Role.VIEWER, by="7", stack="s1")
    with pytest.raises(NotYours, match="Only the table's owner"):
        act(state, "add_target", as_=Role.PLAYER, by="7", name="Ghost")


def test_a_refused_action_changes_nothing(state: dict[str, Any]) -> None:
    before = repr(state)
    with pytest.raises(TrackerError):
        act(state, "combat_check", stack="s1", target="t99", faces="1")
    with pytest.raises(TrackerError, match="Unknown action"):
        act(state, "fireball")
    assert repr(state) == before


def test_the_owner_changes_the_rules_and_stats(state: dict[str, Any]) -> None:
    state, events = act(state, "set_rules", check_die="d20", equal_succeeds="yes", remainder="drop")
    assert state["rules"]["check_die"] == "D20" and state["rules"]["equal_succeeds"] is True
    assert set(events[0].data["changed"]) == {"check_die", "equal_succeeds", "remainder"}
    with pytest.raises(TrackerError, match="check_die must be one of D100, D20") as refused:
        act(state, "set_rules", check_die="D7")
    assert refused.value.field == "check_die"
    with pytest.raises(TrackerError, match="Nothing to change"):
        act(state, "set_rules")
    state, _ = act(state, "set_stats", id="m2", combat="50")
    state, _ = act(state, "set_stats", id="s1", damage="3D10", owner="")
    assert member(state, "m2")["combat"] == 50 and team(state)["damage"] == "3D10" and team(state)["owner"] is None


def test_remove_takes_an_entity_off_the_table(state: dict[str, Any]) -> None:
    state, _ = act(state, "remove", id="m5")
    assert [m["id"] for m in team(state)["members"]] == ["m2", "m3", "m4"]
    state, _ = act(state, "remove", id="s8")
    assert [s["id"] for s in state["stacks"]] == ["s1"]
    with pytest.raises(TrackerError, match="No stack, member or target 'x1'"):
        act(state, "remove", id="x1")


def test_seeded_rolls_are_logged_and_replay_to_the_same_state(state: dict[str, Any]) -> None:
    log: list[tuple[Action, int]] = [
        (Action("loyalty_check", {"stack": "s1"}), 11),
        (Action("new_turn"), 12),
        (Action("loyalty_check", {"stack": "s1"}), 13),
        (Action("stacked_save", {"stack": "s1", "damage": "1D10"}), 14),
    ]
    current = state
    states = [state]
    for action, seed in log:
        current, events = stacking.apply(current, action, Dice(seed=seed))
        states.append(current)
        assert all("roll" in e.data for e in events if e.type != "new_turn")
    assert replay(state, log, stacking.apply) == current
    assert replay(state, log[:-1], stacking.apply) == states[-2]
