"""Mass combat rules (Quickstart Rules for Mass Combat, p.1), with seeded or entered dice."""

from __future__ import annotations

from typing import Any

import pytest

from live.engine.tracker import Action, Event, NotYours, Role, TrackerError, replay
from rules.engine.dice import Dice
from tabletools.engine import mass_combat as mc

State = dict[str, Any]


def act(
    state: State, type_: str, role: Role = Role.OWNER, actor: str = "1", seed: int = 1, **payload: Any
) -> tuple[State, list[Event]]:
    return mc.apply(state, Action(type_, payload, actor=actor, role=role), Dice(seed=seed))


def build(*squads: tuple[str, str, str, int], **flags: dict[str, Any]) -> State:
    """A battle in set-up with ``squads`` (side, name, type, level): ids s1, s2, ... in order.
    ``flags`` maps a squad name to extra add_squad payload (undead, large, position)."""
    state = mc.initial_state()
    for side, name, squad_type, level in squads:
        state, _ = act(state, "add_squad", side=side, name=name, squad_type=squad_type, level=str(level), **flags.get(name, {}))
    return state


def squad(state: State, name: str) -> State:
    return next(s for s in state["squads"] if s["name"] == name)


def hero(state: State, name: str) -> State:
    return next(h for h in state["heroes"] if h["name"] == name)


def to_turn(state: State, side: str = "a", step: str = "combat") -> State:
    """From set-up to ``side``'s ``step`` in round 1; every hero of side a passes its check."""
    state, _ = act(state, "advance")
    for h in mc._priority_heroes(state):
        state, _ = act(state, "priority_check", hero=h["id"], skill="Insight", result="success")
    state, _ = act(state, "choose_priority", side=side)
    if step in ("combat", "after"):
        state, _ = act(state, "advance")
    if step == "after":
        state, _ = act(state, "advance")
    return state


def rolls(events: list[Event]) -> list[dict[str, Any]]:
    return [dict(e.data["roll"]) for e in events if "roll" in e.data]


def fight(state: State, *ids: str) -> State:
    state, _ = act(state, "start_combat", squads=",".join(ids))
    return state


def roll(state: State, squad_id: str, faces: str) -> tuple[State, list[Event]]:
    return act(state, "combat_roll", squad=squad_id, faces=faces)


# -- set-up --------------------------------------------------------------------------------


def test_squad_speed_comes_from_its_type() -> None:
    state = build(("a", "Guard", "soldiers", 2), ("a", "Scouts", "skirmishers", 2), ("b", "Healers", "medics", 1))
    assert [mc.speed(s["type"]) for s in state["squads"]] == [6, 7, 5]
    _, events = act(state, "add_squad", side="a", name="Mages", squad_type="casters", level="3")
    assert "speed 6" in events[0].text
    with pytest.raises(TrackerError, match="squad_type must be one of soldiers, paladins") as err:
        act(state, "add_squad", side="a", name="X", squad_type="archers", level="1")
    assert err.value.field == "squad_type"


def test_numeric_strings_are_accepted_and_bad_levels_refused() -> None:
    state = build(("a", "Guard", "soldiers", 4))
    assert squad(state, "Guard")["level"] == 4
    with pytest.raises(TrackerError, match="level must be from 1 to 20; got 0"):
        act(state, "add_squad", side="a", name="X", squad_type="soldiers", level="0")


def test_a_hero_attaches_to_a_squad_of_its_side_one_per_squad() -> None:
    state = build(("a", "Guard", "soldiers", 2), ("b", "Orcs", "soldiers", 2))
    state, _ = act(state, "add_hero", side="a", name="Aria", at="s1", surges="3")
    assert hero(state, "Aria")["squad"] == "s1" and hero(state, "Aria")["surges"] == 3
    with pytest.raises(TrackerError, match="already has a hero unit"):
        act(state, "add_hero", side="a", name="Bren", at="s1")
    with pytest.raises(TrackerError, match="fights for Foes"):
        act(state, "add_hero", side="a", name="Bren", at="s2")


def test_set_up_is_for_the_owner() -> None:
    state = build()
    with pytest.raises(NotYours, match="Only the table's owner"):
        act(state, "add_squad", role=Role.PLAYER, actor="7", side="a", name="Guard", squad_type="soldiers", level="1")


def test_settings_are_shown_and_validated() -> None:
    with pytest.raises(TrackerError, match="save_die must be one of D6, D10, D12, D20"):
        mc.initial_state(save_die="D8")
    state, events = act(mc.initial_state(), "set_setting", save_die="d12", save_target="8")
    assert state["settings"] == {"save_die": "D12", "save_target": 8}
    assert events[0].text == "Medic saving throw: D12 + Medic level, 8 or more saves."


# -- priority phase ------------------------------------------------------------------------


def priority_battle() -> State:
    state = build(("a", "Guard", "soldiers", 2), ("a", "Pikes", "soldiers", 2), ("b", "Orcs", "soldiers", 2))
    state, _ = act(state, "add_hero", side="a", name="Aria", at="s1")
    state, _ = act(state, "add_hero", side="a", name="Bren", at="s2")
    state, _ = act(state, "add_hero", side="b", name="Grukk", at="s3")
    state, _ = act(state, "advance")
    return state


def test_half_the_heroes_succeeding_lets_the_heroes_choose_priority() -> None:
    state = priority_battle()
    state, _ = act(state, "priority_check", hero="h4", skill="History", result="success")
    assert state["priority"]["chooser"] is None
    state, events = act(state, "priority_check", hero="h5", skill="bluff", result="failure")
    assert state["priority"]["chooser"] == "a"
    assert "1 of 2 checks succeeded (half or more): Heroes chooses" in events[-1].text


def test_fewer_than_half_succeeding_lets_the_other_side_choose() -> None:
    state = priority_battle()
    state, _ = act(state, "priority_check", hero="h4", skill="History", result="failure")
    state, _ = act(state, "priority_check", hero="h5", skill="Insight", result="failure")
    assert state["priority"]["chooser"] == "b"
    with pytest.raises(NotYours, match="You do not command Foes"):
        act(state, "choose_priority", role=Role.PLAYER, actor="7", side="a")


def test_only_the_heroes_sides_units_check_and_skills_are_the_four() -> None:
    state = priority_battle()
    with pytest.raises(TrackerError, match="Grukk does not make a priority check"):
        act(state, "priority_check", hero="h6", skill="History", result="success")
    with pytest.raises(TrackerError, match="skill must be one of History, Bluff, Perception, Insight"):
        act(state, "priority_check", hero="h4", skill="Stealth", result="success")


def test_removing_the_last_unchecked_hero_settles_priority() -> None:
    state = priority_battle()
    state, _ = act(state, "priority_check", hero="h4", skill="History", result="success")
    state, events = act(state, "remove", id="h5")
    assert state["priority"]["chooser"] == "a" and events[-1].type == "priority_chooser"


def test_with_no_heroes_the_other_side_chooses() -> None:
    state, events = act(build(("a", "Guard", "soldiers", 2)), "advance")
    assert state["phase"] == "priority" and state["priority"]["chooser"] == "b"
    assert "no hero unit" in events[0].text


def test_the_side_with_priority_acts_first_then_the_other_then_reposition() -> None:
    state = build(("a", "Guard", "soldiers", 2), ("b", "Orcs", "soldiers", 2))
    state, _ = act(state, "advance")
    state, events = act(state, "choose_priority", side="b")
    assert state["turn"] == {"side": "b", "step": "move", "index": 0, "trapped_due": []}
    assert "Foes acts first" in events[-1].text
    state, _ = act(state, "advance")  # b: combat
    state, _ = act(state, "advance")  # a: move
    assert state["turn"]["side"] == "a" and state["turn"]["step"] == "move"
    state, _ = act(state, "advance")
    state, _ = act(state, "advance")
    assert state["phase"] == "reposition" and state["turn"] is None
    state, _ = act(state, "advance")
    assert state["phase"] == "priority" and state["round"] == 2


# -- action phase --------------------------------------------------------------------------


def test_each_squad_has_one_move_and_its_standard_can_become_a_second_move() -> None:
    state = to_turn(build(("a", "Guard", "soldiers", 2), ("b", "Orcs", "soldiers", 2)), step="move")
    with pytest.raises(TrackerError, match="takes its move action first"):
        act(state, "second_move", squad="s1")
    state, events = act(state, "move", squad="s1", position="D5")
    assert squad(state, "Guard")["position"] == "D5" and "up to 6 squares" in events[0].text
    with pytest.raises(TrackerError, match="has used its move action"):
        act(state, "move", squad="s1")
    state, _ = act(state, "second_move", characters=["s1"], position="D11")
    assert squad(state, "Guard")["standard_used"] and squad(state, "Guard")["position"] == "D11"
    state, _ = act(state, "advance")
    with pytest.raises(TrackerError, match="has moved twice this round"):
        act(state, "start_combat", squads="s1,s2")


def test_a_squad_moves_only_in_its_sides_move_step() -> None:
    state = to_turn(build(("a", "Guard", "soldiers", 2), ("b", "Orcs", "soldiers", 2)), step="move")
    with pytest.raises(TrackerError, match="It is Heroes's turn, not Foes's"):
        act(state, "move", squad="s2")
    state, _ = act(state, "advance")
    with pytest.raises(TrackerError, match="needs the move step"):
        act(state, "move", squad="s1")


def test_skirmishers_may_move_again_after_combats() -> None:
    state = to_turn(build(("a", "Scouts", "skirmishers", 2), ("a", "Guard", "soldiers", 2), ("b", "Orcs", "soldiers", 2)))
    with pytest.raises(TrackerError, match="needs the after step"):
        act(state, "skirmish_move", squad="s1")
    state, _ = act(state, "advance")
    assert state["turn"]["step"] == "after"
    state, events = act(state, "skirmish_move", squad="s1", position="A1")
    assert "up to 7 squares after the fighting" in events[0].text
    with pytest.raises(TrackerError, match="Only Skirmishers move after combat"):
        act(state, "skirmish_move", squad="s2")
    with pytest.raises(TrackerError, match="has made its move after combat"):
        act(state, "skirmish_move", squad="s1")


def test_without_skirmishers_there_is_no_after_step() -> None:
    state = to_turn(build(("a", "Guard", "soldiers", 2), ("b", "Orcs", "soldiers", 2)))
    state, _ = act(state, "advance")
    assert state["turn"]["side"] == "b" and state["turn"]["step"] == "move"


def test_a_hero_uses_its_squads_minor_action_once_a_round() -> None:
    state = build(("a", "Guard", "soldiers", 2), ("b", "Orcs", "soldiers", 2))
    state, _ = act(state, "add_hero", side="a", name="Aria", at="s1", owner="7")
    state = to_turn(state, step="move")
    state, events = act(
        state, "hero_check", role=Role.PLAYER, actor="7", hero="h3", skill="Stealth", result="success", note="Hidden"
    )
    assert squad(state, "Guard")["minor_used"] and events[0].text.endswith("Hidden.")
    with pytest.raises(TrackerError, match="has used its minor action"):
        act(state, "hero_check", hero="h3", skill="Heal", result="success")
    with pytest.raises(NotYours, match="Aria is not your hero unit"):
        act(state, "hero_check", role=Role.PLAYER, actor="8", hero="h3", skill="Heal", result="success")


# -- combat --------------------------------------------------------------------------------


def duel(level_a: int = 2, level_b: int = 2, type_a: str = "soldiers", type_b: str = "soldiers") -> State:
    return to_turn(build(("a", "Guard", type_a, level_a), ("b", "Orcs", type_b, level_b)))


def test_each_squad_rolls_its_level_in_d6_and_a_six_hits() -> None:
    state = fight(duel(3, 2, "paladins", "medics"), "s1", "s2")
    assert state["combat"]["to_roll"] == ["s1", "s2"]
    state, events = roll(state, "s1", "6,1,2")
    assert events[0].data["roll"]["notation"] == "3D6" and events[0].data["roll"]["entered"] is True
    assert "rolls 3D6: 6, 1, 2: a hit." in events[0].text
    state, events = roll(state, "s2", "5,5")
    assert squad(state, "Orcs")["destroyed"] and not squad(state, "Guard")["destroyed"]
    assert state["combat"] is None and "Heroes wins the combat." in events[-1].text


def test_a_squad_scores_one_hit_at_most() -> None:
    state = build(("a", "Guard", "paladins", 3), ("b", "Orcs", "medics", 1), ("b", "Wolves", "medics", 1))
    state = fight(to_turn(state), "s1", "s2", "s3")
    state, _ = roll(state, "s1", "6,6,6")
    state, _ = roll(state, "s2", "1")
    state, _ = roll(state, "s3", "1")
    assert [squad(state, n)["destroyed"] for n in ("Orcs", "Wolves")] == [True, False]


def test_the_defending_side_loses_its_lowest_level_squad_by_default() -> None:
    state = build(("a", "Guard", "paladins", 3), ("b", "Veterans", "medics", 3), ("b", "Levy", "medics", 2))
    state = fight(to_turn(state), "s1", "s2", "s3")
    state, _ = roll(state, "s1", "6,1,1")
    state, _ = roll(state, "s2", "1,1,1")
    state, _ = roll(state, "s3", "1,1")
    assert squad(state, "Levy")["destroyed"] and not squad(state, "Veterans")["destroyed"]


def test_the_defending_side_can_name_the_squads_it_gives_up_first() -> None:
    state = build(("a", "Guard", "paladins", 3), ("b", "Veterans", "medics", 3), ("b", "Levy", "medics", 2))
    state, _ = act(state, "set_side", side="b", owner="8")
    state, events = act(state, "set_loss_order", role=Role.PLAYER, actor="8", side="b", order="s2")
    assert "Veterans" in events[0].text
    with pytest.raises(NotYours):
        act(state, "set_loss_order", role=Role.PLAYER, actor="7", side="b", order="s3")
    state = fight(to_turn(state), "s1", "s2", "s3")
    state, _ = roll(state, "s1", "6,1,1")
    state, _ = roll(state, "s2", "1,1,1")
    state, _ = roll(state, "s3", "1,1")
    assert squad(state, "Veterans")["destroyed"] and not squad(state, "Levy")["destroyed"]


def test_a_squad_of_half_the_level_needs_two_hits() -> None:
    state = fight(duel(2, 4, "paladins", "medics"), "s1", "s2")
    state, _ = roll(state, "s1", "6,1")
    state, events = roll(state, "s2", "1,1,1,1")
    assert not squad(state, "Orcs")["destroyed"] and state["combat"]["wounds"] == {"s2": 1}
    assert "needs a second hit" in " ".join(e.text for e in events)
    assert state["combat"]["stage"] == "decide"
    state, _ = act(state, "press")
    state, _ = roll(state, "s1", "6,2")
    state, _ = roll(state, "s2", "1,1,1,1")
    assert squad(state, "Orcs")["destroyed"]


def test_a_squad_above_half_the_level_needs_one_hit() -> None:
    state = fight(duel(3, 5, "paladins", "medics"), "s1", "s2")
    state, _ = roll(state, "s1", "6,1,1")
    state, _ = roll(state, "s2", "1,1,1,1,1")
    assert squad(state, "Orcs")["destroyed"]


def test_when_both_sides_stand_the_attacker_presses_or_retreats() -> None:
    state = fight(duel(), "s1", "s2")
    state, _ = roll(state, "s1", "1,2")
    state, events = roll(state, "s2", "3,4")
    assert state["combat"]["stage"] == "decide" and "presses the attack or retreats" in events[-1].text
    with pytest.raises(TrackerError, match="No combat dice to roll now"):
        roll(state, "s1", "1,1")
    state, _ = act(state, "set_side", side="b", owner="8")
    with pytest.raises(NotYours):
        act(state, "press", role=Role.PLAYER, actor="8")
    pressed, _ = act(state, "press")
    assert pressed["combat"]["exchange"] == 2 and pressed["combat"]["to_roll"] == ["s1", "s2"]
    retreated, events = act(state, "retreat", position="B2")
    assert retreated["combat"] is None and squad(retreated, "Guard")["position"] == "B2"
    assert "pull back one square" in events[0].text


def test_soldiers_that_score_ignore_one_enemy_hit() -> None:
    state = fight(duel(2, 2, "soldiers", "paladins"), "s1", "s2")
    state, _ = roll(state, "s1", "6,1")
    state, events = roll(state, "s2", "6,1")
    assert squad(state, "Orcs")["destroyed"] and not squad(state, "Guard")["destroyed"]
    assert any(e.type == "hit_ignored" and "(Soldiers)" in e.text for e in events)


def test_soldiers_that_miss_ignore_nothing() -> None:
    state = fight(duel(2, 2, "soldiers", "paladins"), "s1", "s2")
    state, _ = roll(state, "s1", "5,1")
    state, events = roll(state, "s2", "6,1")
    assert squad(state, "Guard")["destroyed"] and not squad(state, "Orcs")["destroyed"]
    assert not any(e.type == "hit_ignored" for e in events)


def test_without_soldiers_both_hits_land() -> None:
    state = fight(duel(2, 2, "paladins", "paladins"), "s1", "s2")
    state, _ = roll(state, "s1", "6,1")
    state, _ = roll(state, "s2", "6,1")
    assert squad(state, "Orcs")["destroyed"] and squad(state, "Guard")["destroyed"]


def test_paladins_hit_with_every_six_against_undead() -> None:
    undead = build(
        ("a", "Order", "paladins", 3),
        ("b", "Ghouls", "medics", 1),
        ("b", "Wights", "medics", 1),
        Ghouls={"undead": "on"},
        Wights={"undead": "on"},
    )
    state = fight(to_turn(undead), "s1", "s2", "s3")
    state, events = roll(state, "s1", "6,6,2")
    assert "2 hits (every 6 counts against undead)" in events[0].text
    state, _ = roll(state, "s2", "1")
    state, _ = roll(state, "s3", "1")
    assert squad(state, "Ghouls")["destroyed"] and squad(state, "Wights")["destroyed"]


def test_casters_strike_before_the_enemy_rolls() -> None:
    state = fight(duel(2, 2, "casters", "paladins"), "s1", "s2")
    assert state["combat"]["stage"] == "first_strike" and state["combat"]["to_roll"] == ["s1"]
    with pytest.raises(TrackerError, match="Orcs has no combat dice to roll in this stage"):
        roll(state, "s2", "6,6")
    state, events = roll(state, "s1", "6,3")
    assert squad(state, "Orcs")["destroyed"] and state["combat"] is None
    assert len(rolls(events)) == 1  # the Paladins never rolled


def test_a_caster_that_misses_lets_the_enemy_roll() -> None:
    state = fight(duel(2, 2, "casters", "paladins"), "s1", "s2")
    state, _ = roll(state, "s1", "1,3")
    assert state["combat"]["stage"] == "main" and state["combat"]["to_roll"] == ["s2"]
    state, _ = roll(state, "s2", "6,1")
    assert squad(state, "Guard")["destroyed"]


def test_casters_join_a_combat_from_a_distance_before_the_first_roll() -> None:
    state = build(
        ("a", "Guard", "soldiers", 2),
        ("b", "Orcs", "soldiers", 2),
        ("b", "Witches", "casters", 2),
        ("b", "Brutes", "soldiers", 2),
    )
    state = fight(to_turn(state), "s1", "s2")
    with pytest.raises(TrackerError, match="Only Casters join from a distance"):
        act(state, "assist", squad="s4")
    state, events = act(state, "assist", squad="s3")
    assert state["combat"]["defenders"] == ["s2", "s3"] and state["combat"]["stage"] == "first_strike"
    assert "from up to 5 squares away" in events[0].text
    state, _ = roll(state, "s3", "1,1")
    with pytest.raises(TrackerError, match="before its exchange's first roll"):
        act(state, "assist", squad="s3")


def test_a_squad_on_a_magic_circle_is_hit_on_five_or_six() -> None:
    state = build(("a", "Guard", "paladins", 2), ("b", "Orcs", "medics", 2))
    state, _ = act(state, "add_defence", side="a", kind="circle", name="Rune ring")
    state, _ = act(state, "place", squad="s2", circle="d3")
    state = fight(to_turn(state), "s1", "s2")
    state, events = roll(state, "s1", "5,1")
    assert "magic circle" in events[0].text
    state, _ = roll(state, "s2", "1,1")
    assert squad(state, "Orcs")["destroyed"]


def test_off_a_magic_circle_a_five_misses() -> None:
    state = fight(duel(2, 2, "paladins", "medics"), "s1", "s2")
    state, _ = roll(state, "s1", "5,5")
    state, _ = roll(state, "s2", "1,1")
    assert not squad(state, "Orcs")["destroyed"]


def test_a_squad_can_stand_only_on_an_enemy_circle() -> None:
    state = build(("a", "Guard", "paladins", 2))
    state, _ = act(state, "add_defence", side="a", kind="circle", name="Rune ring")
    with pytest.raises(TrackerError, match="circle must be a standing magic circle of the other side"):
        act(state, "place", squad="s1", circle="d2")


def medic_battle(save_die: str = "D20", save_target: int = 10) -> State:
    state = mc.initial_state(save_die=save_die, save_target=save_target)
    for side, name, squad_type, level in (
        ("a", "Guard", "paladins", 2),
        ("b", "Orcs", "paladins", 1),
        ("b", "Healers", "medics", 3),
    ):
        state, _ = act(state, "add_squad", side=side, name=name, squad_type=squad_type, level=str(level))
    state, _ = act(state, "place", squad="s2", medic="s3")
    state = fight(to_turn(state), "s1", "s2")
    state, _ = roll(state, "s1", "6,1")
    state, events = roll(state, "s2", "1")
    assert state["pending"]["kind"] == "medic_save" and f"needing {save_target}" in events[-1].text
    return state


def test_a_medic_saving_throw_plus_level_saves_an_adjacent_squad() -> None:
    state, events = act(medic_battle(), "medic_save", faces="7")
    assert not squad(state, "Orcs")["destroyed"] and events[0].data["saved"] is True
    assert "D20 7 + level 3 = 10 against 10: Orcs is saved." in events[0].text
    assert events[0].data["roll"]["modifier"] == 3 and state["combat"]["stage"] == "decide"


def test_a_failed_medic_save_loses_the_squad() -> None:
    state, _ = act(medic_battle(), "medic_save", faces="6")
    assert squad(state, "Orcs")["destroyed"] and state["combat"] is None


def test_the_save_target_setting_changes_the_outcome() -> None:
    state, _ = act(medic_battle(save_target=11), "medic_save", faces="7")
    assert squad(state, "Orcs")["destroyed"]


def test_the_save_die_setting_changes_the_roll() -> None:
    state = medic_battle(save_die="D6", save_target=6)
    with pytest.raises(TrackerError, match="faces must be 1 face"):
        act(state, "medic_save", faces="7")
    state, events = act(state, "medic_save", faces="3")
    assert events[0].data["roll"]["notation"] == "D6" and not squad(state, "Orcs")["destroyed"]


def test_a_medic_without_the_adjacency_saves_nobody() -> None:
    state = build(("a", "Guard", "paladins", 2), ("b", "Orcs", "paladins", 1), ("b", "Healers", "medics", 3))
    state = fight(to_turn(state), "s1", "s2")
    state, _ = roll(state, "s1", "6,1")
    state, _ = roll(state, "s2", "1")
    assert state["pending"] is None and squad(state, "Orcs")["destroyed"]


# -- siege engines, barriers ---------------------------------------------------------------


def siege_battle() -> State:
    state = build(
        ("a", "Crew", "paladins", 3), ("b", "Orcs", "paladins", 2), ("b", "Troll", "paladins", 4), Troll={"large": "on"}
    )
    state, _ = act(state, "add_engine", side="a", name="Ballista", level="2")  # e4
    state, _ = act(state, "add_engine", side="a", name="Onager", level="1")  # e5
    state, _ = act(state, "add_engine", side="b", name="Catapult", level="1")  # e6
    state, _ = act(state, "add_defence", side="b", kind="barrier", name="Palisade", level="2")  # d7
    state, _ = act(state, "add_defence", side="b", kind="barrier", name="Stakes", level="0")  # d8
    return to_turn(state)


def test_firing_siege_engines_costs_the_squad_a_combat_die_each() -> None:
    state = siege_battle()
    state, _ = act(state, "fire_engine", engine="e4", squad="s1", target="e6", faces="1,2")
    state, _ = act(state, "fire_engine", engine="e5", squad="s1", target="e6", faces="1")
    assert mc.combat_dice(squad(state, "Crew")) == 1
    state = fight(state, "s1", "s2")
    state, events = roll(state, "s1", "6")
    assert events[0].data["roll"]["notation"] == "D6" and "2 fewer for siege engines fired" in events[0].text
    with pytest.raises(TrackerError, match="faces must be 3 face"):
        roll(fight(siege_battle(), "s1", "s2"), "s1", "6")


def test_a_siege_engine_hits_on_any_six_and_one_hit_destroys_an_engine() -> None:
    state = siege_battle()
    state, events = act(state, "fire_engine", engine="e4", squad="s1", target="e6", faces="2,6")
    assert state["engines"][2]["destroyed"] and events[0].data["hit"] is True
    with pytest.raises(TrackerError, match="Ballista has fired this round"):
        act(state, "fire_engine", engine="e4", squad="s1", target="d7")


def test_siege_engines_target_only_engines_barriers_and_large_targets() -> None:
    state = siege_battle()
    with pytest.raises(TrackerError, match="siege engines shoot at nothing else") as err:
        act(state, "fire_engine", engine="e4", squad="s1", target="s2")
    assert err.value.field == "target"
    state, events = act(state, "fire_engine", engine="e4", squad="s1", target="s3", faces="6,6")
    assert squad(state, "Troll")["destroyed"] and any(e.type == "squad_destroyed" for e in events)


def test_a_squad_fires_engines_before_its_own_combat() -> None:
    state = fight(siege_battle(), "s1", "s2")
    state, _ = roll(state, "s1", "1,1,1")
    state, _ = roll(state, "s2", "1,1")
    state, _ = act(state, "retreat")
    with pytest.raises(TrackerError, match="fire engines before its combat"):
        act(state, "fire_engine", engine="e4", squad="s1", target="e6")


def test_a_hit_barrier_holds_one_level_lower_on_any_five_or_six() -> None:
    state, events = act(siege_battle(), "fire_engine", engine="e4", squad="s1", target="d7", faces="6,1")
    assert state["pending"] == {"kind": "barrier_save", "defence": "d7", "engine": "e4"}
    with pytest.raises(TrackerError, match="Roll the waiting barrier roll first"):
        act(state, "start_combat", squads="s1,s2")
    held, events = act(state, "barrier_save", faces="5,1")
    assert held["defences"][0]["level"] == 1 and not held["defences"][0]["destroyed"] and events[0].data["holds"]
    fell, events = act(state, "barrier_save", faces="4,1")
    assert fell["defences"][0]["destroyed"] and "no 5 or 6" in events[0].text


def test_a_level_zero_barrier_falls_to_any_hit() -> None:
    state, events = act(siege_battle(), "fire_engine", engine="e4", squad="s1", target="d8", faces="6,1")
    assert state["defences"][1]["destroyed"] and state["pending"] is None
    assert "at level 0, falls" in events[-1].text


# -- hero units ----------------------------------------------------------------------------


def hero_battle(extra_free_squad: bool = True) -> State:
    squads = [("a", "Guard", "paladins", 1), ("b", "Orcs", "paladins", 3)]
    if extra_free_squad:
        squads.append(("a", "Reserve", "paladins", 2))
    state = build(*squads)
    state, _ = act(state, "add_hero", side="a", name="Aria", at="s1", owner="7", surges="1")
    state = fight(to_turn(state), "s1", "s2")
    state, _ = roll(state, "s1", "1")
    state, _ = roll(state, "s2", "6,1,1")
    return state


def test_a_hero_whose_squad_falls_retreats_to_a_named_squad_and_loses_its_minor_action() -> None:
    state = hero_battle()
    aria = hero(state, "Aria")
    assert aria["status"] == "retreating" and aria["minor_lost"]
    with pytest.raises(TrackerError, match="Name the squad each falling-back hero unit reaches"):
        act(state, "advance")
    state, events = act(state, "hero_retreat", role=Role.PLAYER, actor="7", hero=aria["id"], squad="s3")
    assert hero(state, "Aria")["squad"] == "s3" and events[0].text == "Aria falls back to Reserve."
    with pytest.raises(TrackerError, match="lost its minor action this round"):
        act(state, "hero_check", hero=aria["id"], skill="Heal", result="success")


def test_a_hero_with_no_way_out_is_trapped() -> None:
    state = hero_battle()
    state, _ = act(state, "hero_retreat", hero="h4", squad="")
    assert hero(state, "Aria")["status"] == "trapped"
    alone = hero_battle(extra_free_squad=False)
    assert hero(alone, "Aria")["status"] == "trapped"


def test_a_trapped_hero_moves_at_the_start_of_its_sides_turn_if_it_can() -> None:
    state, _ = act(hero_battle(), "hero_retreat", hero="h4", squad="")
    state, _ = act(state, "advance")  # a's turn over -> b
    state, _ = act(state, "advance")
    state, _ = act(state, "advance")  # reposition
    with pytest.raises(TrackerError, match="is trapped and cannot reposition"):
        act(state, "reposition", hero="h4", to="s3")
    state, _ = act(state, "advance")  # round 2 priority
    state, _ = act(state, "priority_check", hero="h4", skill="Insight", result="success")
    state, events = act(state, "choose_priority", side="a")
    assert state["turn"]["trapped_due"] == ["h4"] and events[-1].type == "trapped_due"
    with pytest.raises(TrackerError, match="First say whether the trapped hero units can move"):
        act(state, "move", squad="s3")
    escaped, events = act(state, "trapped_hero", hero="h4", squad="s3")
    assert hero(escaped, "Aria")["status"] == "attached" and "breaks out" in events[0].text
    stuck, events = act(state, "trapped_hero", hero="h4")
    assert hero(stuck, "Aria")["surges"] == 0 and hero(stuck, "Aria")["status"] == "trapped"
    assert "loses a healing surge: 0 left" in events[0].text


def test_a_trapped_hero_without_surges_leaves_the_fight_until_revived() -> None:
    state, _ = act(hero_battle(), "hero_retreat", hero="h4", squad="")
    state, _ = act(state, "set_surges", hero="h4", surges="0")
    for _ in range(3):
        state, _ = act(state, "advance")
    state, _ = act(state, "advance")
    state, _ = act(state, "priority_check", hero="h4", skill="Insight", result="success")
    state, _ = act(state, "choose_priority", side="a")
    state, events = act(state, "trapped_hero", hero="h4")
    assert hero(state, "Aria")["status"] == "removed" and "until rescued and revived" in events[0].text
    state, _ = act(state, "revive_hero", hero="h4", at="s3", surges="2")
    assert hero(state, "Aria")["status"] == "attached" and hero(state, "Aria")["surges"] == 2


def test_heroes_reposition_once_to_a_squad_without_a_hero_or_the_watchtower() -> None:
    state = build(("a", "Guard", "paladins", 2), ("a", "Pikes", "paladins", 2), ("a", "Bows", "paladins", 2))
    state, _ = act(state, "add_hero", side="a", name="Aria", at="s1", owner="7")
    state, _ = act(state, "add_hero", side="a", name="Bren", at="s2")
    state = to_turn(state, step="move")
    with pytest.raises(TrackerError, match="in the reposition phase"):
        act(state, "reposition", hero="h4", to="s3")
    for _ in range(4):
        state, _ = act(state, "advance")
    assert state["phase"] == "reposition"
    with pytest.raises(TrackerError, match="already has a hero unit"):
        act(state, "reposition", hero="h4", to="s2")
    state, events = act(state, "reposition", role=Role.PLAYER, actor="7", hero="h4", to="watchtower")
    assert hero(state, "Aria")["status"] == "watchtower" and "in the watchtower" in events[0].text
    with pytest.raises(TrackerError, match="has repositioned this round"):
        act(state, "reposition", hero="h4", to="s3")
    with pytest.raises(TrackerError, match="Aria already holds Heroes's watchtower"):
        act(state, "reposition", hero="h5", to="watchtower")


def test_a_hero_in_the_watchtower_gives_orders_and_is_safe_from_squad_losses() -> None:
    state = build(("a", "Guard", "paladins", 1), ("b", "Orcs", "paladins", 3))
    state, _ = act(state, "add_hero", side="a", name="Aria", at="watchtower")
    state = to_turn(state)
    state, events = act(state, "hero_check", hero="h3", skill="Perception", result="success")
    assert "from the watchtower, for the whole field" in events[0].text
    state = fight(state, "s1", "s2")
    state, _ = roll(state, "s1", "1")
    state, _ = roll(state, "s2", "6,1,1")
    assert squad(state, "Guard")["destroyed"] and hero(state, "Aria")["status"] == "watchtower"


def test_a_successful_heal_check_turns_aside_one_hit() -> None:
    state = build(("a", "Guard", "paladins", 2), ("b", "Orcs", "paladins", 2))
    state, _ = act(state, "add_hero", side="a", name="Aria", at="s1")
    state = to_turn(state)
    healed, events = act(state, "hero_check", hero="h3", skill="Heal", result="success")
    assert "ignores one hit" in events[0].text
    for start, guard_falls in ((healed, False), (state, True)):
        s = fight(start, "s1", "s2")
        s, _ = roll(s, "s1", "1,1")
        s, _ = roll(s, "s2", "6,1")
        assert squad(s, "Guard")["destroyed"] is guard_falls


# -- the log, permissions, replay ----------------------------------------------------------


def test_every_roll_is_its_own_event_with_a_record_and_a_sentence() -> None:
    state = fight(duel(2, 3), "s1", "s2")
    state, events = act(state, "combat_roll", seed=4)
    records = rolls(events)
    assert [r["notation"] for r in records] == ["2D6", "3D6"] and all(not r["entered"] for r in records)
    rolling = [e for e in events if "roll" in e.data]
    assert all(e.text.endswith(".") and " rolls " in e.text for e in rolling)
    assert [entry["text"] for entry in state["last"]] == [e.text for e in rolling]


def test_players_roll_only_for_the_side_they_command() -> None:
    state = build(("a", "Guard", "soldiers", 2), ("b", "Orcs", "soldiers", 2))
    state, _ = act(state, "set_side", side="a", owner="7")
    state = fight(to_turn(state), "s1", "s2")
    with pytest.raises(NotYours, match="You do not command Foes"):
        act(state, "combat_roll", role=Role.PLAYER, actor="7", squad="s2")
    state, events = act(state, "combat_roll", role=Role.PLAYER, actor="7")
    assert [e.data["squad"] for e in events if e.type == "combat_roll"] == ["s1"]
    with pytest.raises(NotYours):
        act(state, "combat_roll", role=Role.VIEWER, actor="9", squad="s2")


def test_a_refused_action_changes_nothing() -> None:
    state = fight(duel(), "s1", "s2")
    before = repr(state)
    with pytest.raises(TrackerError):
        act(state, "combat_roll", squad="s1", faces="6,9")
    with pytest.raises(TrackerError, match="Unknown action"):
        act(state, "charge")
    assert repr(state) == before


def test_seeded_rolls_replay_to_the_same_state() -> None:
    start = build(
        ("a", "Guard", "soldiers", 3),
        ("a", "Mages", "casters", 2),
        ("b", "Orcs", "paladins", 3),
        ("b", "Wolves", "skirmishers", 2),
    )
    log: list[tuple[Action, int]] = [
        (Action("advance"), 1),
        (Action("choose_priority", {"side": "a"}), 2),
        (Action("advance"), 3),
        (Action("start_combat", {"squads": "s1,s2,s3,s4"}), 4),
    ]
    state = replay(start, log, mc.apply)
    seed = 10
    while state["combat"] is not None and seed < 40:
        action = Action("combat_roll") if state["combat"]["stage"] != "decide" else Action("press")
        if state["pending"]:
            action = Action("medic_save")
        log.append((action, seed))
        state, _ = mc.apply(state, action, Dice(seed=seed))
        seed += 1
    assert replay(start, log, mc.apply) == state
