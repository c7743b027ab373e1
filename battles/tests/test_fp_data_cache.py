"""The Quest step "Cache in a bad place" (Expanded Quest Progression 54-65, Compendium p.79) on
the live tracker: nobody begins on the table, four basic enemies arrive each Enemy Action phase
(one per edge), each round's D6 (+1 with an Engineer) adds to a score, and reaching 28 lets the
crew leave with the Quest Rumor."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from battles import result_services, tracker_services
from battles import services as battle_services
from battles.engine import fp_tracker as t
from battles.tests.test_fp_tracker_engine import TABLES, end_round, play, setup, to_quick
from campaigns import services
from campaigns.models import Campaign, Character
from live.engine.tracker import TrackerError
from rules.engine.dice import Dice

CACHE = {"target": 28, "bonus": 0}


def cache_battle(**cache: Any) -> dict[str, Any]:
    return t.initial_state(setup(data_cache={**CACHE, **cache}), TABLES)


def test_nobody_begins_on_the_table_and_four_arrive_each_enemy_phase() -> None:
    state = cache_battle()
    assert state["enemies"] == [] and state["data_cache"] == {**CACHE, "score": 0, "reached": False, "rolls": 0}
    state = to_quick(play(state, "seize", faces="3, 3")[0])
    state, events = play(state, "next_phase")  # to the Enemy Action phase
    assert state["phase"] == "enemy" and len(state["enemies"]) == 4
    assert all(f["rank"] == "basic" for f in state["enemies"])
    assert [f["notes"][0].split(" edge")[0][-5:].strip() for f in state["enemies"]] == ["north", "east", "south", "west"]
    assert "one at the center of each edge" in events[-1].text


def test_an_empty_table_does_not_end_it_and_the_round_score_adds_up() -> None:
    state = to_quick(play(cache_battle(), "seize", faces="3, 3")[0])
    state, _ = play(state, "next_phase")
    for fig in list(state["enemies"]):
        state = play(state, "adjust", enemy=fig["id"], status="casualty")[0]
    state, events = end_round(state, cache_face=5, morale_faces="1, 1, 1, 1")
    assert state["phase"] == "end" and state["held_field"] is None  # more keep coming
    assert state["data_cache"]["score"] == 5 and "score 5 of 28" in " ".join(e.text for e in events)
    engineer = to_quick(play(cache_battle(bonus=1), "seize", faces="3, 3")[0])
    engineer, _ = end_round(engineer, cache_face=5)
    assert engineer["data_cache"]["score"] == 6


def test_ending_before_the_target_loses_and_after_it_wins() -> None:
    state = to_quick(play(cache_battle(target=6), "seize", faces="3, 3")[0])
    early, _ = play(state, "end_battle")
    assert early["held_field"] is False and t.outcome(early)["won"] is False
    state, events = end_round(state, cache_face=6)
    assert state["data_cache"]["reached"] and "end the mission to claim" in events[-1].text
    done, _ = play(state, "end_battle")
    made = t.outcome(done)
    assert done["phase"] == "over" and made["won"] is True and made["data_cache"]["score"] == 6


def test_a_bad_data_cache_is_refused_naming_the_field() -> None:
    with pytest.raises(TrackerError) as refused:
        cache_battle(target=0)
    assert refused.value.field == "data_cache.target"
    assert "data_cache" not in t.initial_state(setup(), TABLES)  # other battles keep their shape


@settings(max_examples=30, deadline=None)
@given(faces=st.lists(st.integers(1, 6), min_size=1, max_size=8), bonus=st.integers(0, 1))
def test_the_score_is_the_sum_of_the_rounds_and_four_arrive_each_round(faces: list[int], bonus: int) -> None:
    state = play(cache_battle(bonus=bonus), "seize", faces="3, 3")[0]
    arrived = 0
    for n, face in enumerate(faces):
        state = to_quick(state)
        before = state
        state, _ = end_round(state, cache_face=face)
        arrived += 4
        assert len(state["enemies"]) == arrived and state["data_cache"]["rolls"] == n + 1
        assert state["data_cache"]["score"] == sum(faces[: n + 1]) + bonus * (n + 1)
        assert state["data_cache"]["reached"] == (state["data_cache"]["score"] >= 28)
        assert before["data_cache"]["rolls"] == n  # the state before is left as it was
        if state["phase"] == "over":
            break


# -- through the campaign's Quest ----------------------------------------------------------------


@pytest.mark.django_db
def test_the_quest_step_sets_up_a_data_cache_battle_and_its_score_wins_it(fiveparsecs_tables: None, player: Any) -> None:
    campaign = services.campaign_create(user=player, name="Relay", options={"dramatic_combat": True})
    Character.objects.create(campaign=campaign, name="Ria", is_captain=True)
    Character.objects.create(campaign=campaign, name="Gear", species="Engineer")
    step = {"kind": "battle", "result": "Cache in a bad place", "effect": "...", "ignores_massing": True}
    step |= {"score_target": 28, "engineer_bonus": 1}
    Campaign.objects.filter(pk=campaign.pk).update(quest="Relay", quest_step={"pending": step})
    enemy = {"name": "Swarm", "numbers": 0, "panic": "1", "speed": 5, "combat_skill": 0, "toughness": 3}
    enemy |= {"weapons": "Hand gun", "base_numbers": 2}
    battle = battle_services.battle_create(
        user=player, campaign_id=campaign.pk, enemy=enemy, mission_source="quest", dice=Dice(seed=4)
    )
    assert battle.setup["data_cache"] == {"target": 28, "bonus": 1}  # Gear is an Engineer
    room = tracker_services.battle_track(user=player, battle_id=battle.pk, version=battle.version)
    assert room.state["enemies"] == [] and room.state["data_cache"]["bonus"] == 1
    plain = battle_services.battle_create(
        user=player, campaign_id=campaign.pk, enemy=enemy, mission_source="opportunity", dice=Dice(seed=4)
    )
    assert "data_cache" not in plain.setup
    room.state["data_cache"]["reached"] = True  # as if 28 was scored
    room.state["phase"], room.state["round"] = "over", 7
    room.state["held_field"] = True
    room.save(update_fields=["state"])
    battle.refresh_from_db()
    finished = result_services.battle_finish(user=player, battle_id=battle.pk, version=battle.version)
    result = finished.result or {}
    assert result["won"] is True and result["data_cache"]["reached"] is True
