"""Combat threat and action tracker rules, with seeded or entered dice."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from live.engine.tracker import Action, NotYours, Role, TrackerError, replay
from rules.engine.dice import Dice
from tabletools.engine import threat


def act(
    state: dict[str, Any], type_: str, role: Role = Role.OWNER, actor: str = "1", **payload: Any
) -> tuple[dict[str, Any], list]:  # type: ignore[type-arg]
    return threat.apply(state, Action(type_, payload, actor=actor, role=role), Dice(seed=1))


@pytest.fixture
def combat() -> dict[str, Any]:
    state = threat.initial_state(threat=3, complications=["Durability loss"], ultra_successes=["Deal Double DAMAGE"])
    state, _ = act(state, "add_character", name="Ripley", owner="7")
    state, _ = act(state, "add_character", name="Hicks", owner="8")
    state, _ = act(state, "add_character", name="Bishop")
    return state


def test_threat_sets_the_actions_per_phase() -> None:
    assert threat.initial_state(threat=1)["actions_left"] == 3
    assert threat.initial_state(threat=3)["actions_left"] == 2
    assert threat.initial_state(threat=5)["actions_left"] == 1


@pytest.mark.parametrize(
    ("faces", "modifier", "expected"),
    [
        ([3, 3], 0, "failure"),
        ([3, 4], 0, "partial"),
        ([4, 5], 0, "partial"),
        ([5, 5], 0, "success"),
        ([6, 6], -5, "ultra"),
        ([5, 4], 1, "success"),
    ],
)
def test_bands(faces: list[int], modifier: int, expected: str) -> None:
    assert threat.band(Dice.enter("2D6", faces, modifier=modifier)) == expected


def test_an_offense_failure_uses_an_extra_action_and_ends_the_phase(combat: dict[str, Any]) -> None:
    state, events = act(combat, "combat_action", characters=["c1"], faces=[1, 2])
    assert state["phase"] == "defence" and state["round"] == 1
    assert state["actions_left"] == 2  # Defence at threat 3
    assert [e.type for e in events] == ["combat_action", "phase_changed"]
    assert events[0].data["roll"]["entered"] is True


def test_an_offense_success_uses_one_action(combat: dict[str, Any]) -> None:
    state, _ = act(combat, "combat_action", characters=["c1"], faces=[5, 5])
    assert state["phase"] == "offense" and state["actions_left"] == 1


def test_a_defence_success_uses_an_extra_action(combat: dict[str, Any]) -> None:
    state, _ = act(combat, "end_phase")
    assert state["phase"] == "defence" and state["actions_left"] == 2
    state, _ = act(state, "combat_action", characters=["c1"], faces=[6, 5])
    assert state["phase"] == "offense" and state["round"] == 2


def test_a_defence_ultra_switches_to_offense_at_once(combat: dict[str, Any]) -> None:
    state = threat.initial_state(threat=5)
    state, _ = act(state, "add_character", name="Ripley")
    state, _ = act(state, "end_phase")
    assert state["actions_left"] == 3
    state, events = act(state, "combat_action", characters=["c1"], faces=[6, 6])
    assert state["phase"] == "offense" and state["round"] == 2
    assert state["offer"]["kind"] == "ultra"
    assert "a Defence ultra success" in events[-1].text


def test_each_character_acts_once_per_phase(combat: dict[str, Any]) -> None:
    state = threat.initial_state(threat=1)
    state, _ = act(state, "add_character", name="Ripley")
    state, _ = act(state, "combat_action", characters=["c1"], faces=[5, 5])
    with pytest.raises(TrackerError, match="already attacked this offense phase"):
        act(state, "combat_action", characters=["c1"], faces=[5, 5])


def test_a_tag_team_counts_once_and_uses_both(combat: dict[str, Any]) -> None:
    state, events = act(combat, "combat_action", characters=["c1", "c3"], faces=[5, 5])
    assert state["actions_left"] == 1
    assert "(tag team)" in events[0].text
    with pytest.raises(TrackerError, match="Bishop has already attacked"):
        act(state, "combat_action", characters=["c3"], faces=[5, 5])


def test_a_partial_offers_complications_that_must_be_chosen(combat: dict[str, Any]) -> None:
    state, _ = act(combat, "combat_action", characters=["c1"], faces=[4, 4])
    assert state["offer"] == {"kind": "complication", "characters": ["c1"]}
    with pytest.raises(TrackerError, match="Choose the complication"):
        act(state, "combat_action", characters=["c2"], faces=[4, 4])
    state, events = act(state, "choose", name="+1 Combat threat")
    assert state["offer"] is None and state["threat"] == 4
    assert [e.type for e in events] == ["chosen", "threat_changed"]


def test_threat_change_applies_from_the_next_phase(combat: dict[str, Any]) -> None:
    state, _ = act(combat, "set_threat", level=1)
    assert state["actions_left"] == 2
    state, _ = act(state, "end_phase")
    assert state["actions_left"] == 1  # Defence at threat 1
    with pytest.raises(TrackerError, match="level must be from 1 to 5; got 6"):
        act(state, "set_threat", level=6)


def test_the_owner_can_change_the_mapping(combat: dict[str, Any]) -> None:
    state, _ = act(combat, "set_mapping", threat=2, offense=2, defence=2)
    state, _ = act(state, "set_threat", level=2)
    state, _ = act(state, "end_phase")
    assert state["actions_left"] == 2


def test_players_act_only_with_their_own_characters(combat: dict[str, Any]) -> None:
    state, _ = act(combat, "combat_action", role=Role.PLAYER, actor="7", characters=["c1"], faces=[5, 5])
    assert state["characters"][0]["acted"]
    with pytest.raises(NotYours, match="Hicks is not one of your characters"):
        act(combat, "combat_action", role=Role.PLAYER, actor="7", characters=["c2"], faces=[5, 5])
    with pytest.raises(NotYours, match="Only the table's owner"):
        act(combat, "set_threat", role=Role.PLAYER, actor="7", level=2)
    with pytest.raises(NotYours):
        act(combat, "combat_action", role=Role.VIEWER, actor="9", characters=["c3"], faces=[5, 5])


def test_a_refused_action_changes_nothing(combat: dict[str, Any]) -> None:
    before = repr(combat)
    with pytest.raises(TrackerError):
        act(combat, "combat_action", characters=["c9"])
    assert repr(combat) == before


def test_seeded_rolls_replay_to_the_same_state(combat: dict[str, Any]) -> None:
    log: list[tuple[Action, int]] = []
    state = combat
    states = [combat]
    for seed in range(20, 32):
        if state["offer"]:
            action = Action("choose", {"name": "Durability loss"})
        else:
            ready = [c["id"] for c in state["characters"] if not c["acted"]]
            action = Action("combat_action", {"characters": ready[:1]}) if ready else Action("end_phase")
        state, _ = threat.apply(state, action, Dice(seed=seed))
        log.append((action, seed))
        states.append(state)
    assert replay(combat, log, threat.apply) == state
    # Undo is replay without the last action.
    assert replay(combat, log[:-1], threat.apply) == states[-2]


def test_a_character_may_defend_again_and_again_in_one_defence_phase() -> None:
    # Seed 003 (combat threat and action tracker, p.1): the once-per-phase limit is on attacking;
    # a character can be attacked, and so must defend, several times in one Defence phase.
    state = threat.initial_state(threat=5)  # 1 Offense action, 3 Defence actions
    state, _ = act(state, "add_character", name="Ripley")
    state, _ = act(state, "add_character", name="Hicks")
    state, _ = act(state, "combat_action", characters=["c2"], faces=[5, 5])
    assert state["phase"] == "defence" and state["actions_left"] == 3
    state, _ = act(state, "combat_action", characters=["c1"], faces=[3, 3])
    state, events = act(state, "combat_action", characters=["c1"], faces=[3, 3])
    assert state["phase"] == "defence" and state["actions_left"] == 1
    assert "Ripley, defence: Failure" in events[0].text
    state, events = act(state, "combat_action", characters=["c1"], faces=[3, 3])
    assert state["phase"] == "offense" and state["round"] == 2
    # Back in Offense, Ripley has not attacked yet this phase.
    state, _ = act(state, "combat_action", characters=["c1"], faces=[5, 5])
    assert state["phase"] == "defence"


characters_ = st.lists(st.sampled_from(["c1", "c2", "c3"]), min_size=1, max_size=2, unique=True)
steps = st.lists(
    st.one_of(
        st.tuples(st.just("combat_action"), characters_, st.tuples(st.integers(1, 6), st.integers(1, 6))),
        st.tuples(st.just("end_phase"), st.just([]), st.just((0, 0))),
        st.tuples(st.just("set_threat"), st.just([]), st.tuples(st.integers(1, 5), st.just(0))),
    ),
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(threat_level=st.integers(1, 5), plan=steps)
def test_whatever_the_attacks_a_character_attacks_at_most_once_per_phase(
    threat_level: int, plan: list[tuple[str, list[str], tuple[int, int]]]
) -> None:
    state = threat.initial_state(threat=threat_level, complications=["Durability loss"], ultra_successes=["Deal Double DAMAGE"])
    for name in ("Ripley", "Hicks", "Bishop"):
        state, _ = act(state, "add_character", name=name)
    attacks: dict[tuple[int, str], int] = {}
    for type_, chars, (a, b) in plan:
        if state["offer"]:
            state, _ = act(state, "choose", name="Durability loss")
        phase, round_ = state["phase"], state["round"]
        payload: dict[str, Any] = {}
        if type_ == "combat_action":
            payload = {"characters": chars, "faces": [a, b]}
        elif type_ == "set_threat":
            payload = {"level": a}
        try:
            state, _ = act(state, type_, **payload)
        except TrackerError:
            # Only a second attack in the same Offense phase may be refused here.
            assert type_ == "combat_action" and phase == "offense"
            continue
        if type_ == "combat_action" and phase == "offense":
            for char in chars:
                attacks[(round_, char)] = attacks.get((round_, char), 0) + 1
    assert all(count == 1 for count in attacks.values())
