"""The live PvP battle (Compendium pp.35-37): seats (each player only their side), alternating
deployment two at a time, Reactions in turn, Quick/Slow phases alternating one or two figures,
initiative points (Fire, Remove Stun, a brawl draw), the end-of-round 2D6, the First Player token,
ending by agreement and with a third party; properties over random play."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from battles.engine import fp_pvp
from campaigns.selectors import fiveparsecs_tables
from live.engine.tracker import Action, NotYours, Role, TrackerError
from rules.engine.dice import Dice

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]

GUN = {"name": "Hand gun", "range": 12, "shots": 1, "damage": 0, "traits": ["Pistol"]}
HOST, GUEST = "1", "2"


def fig(name: str, reactions: int = 2, toughness: int = 3) -> dict[str, Any]:
    return {"name": name, "reactions": reactions, "speed": 4, "combat_skill": 0, "toughness": toughness, "weapons": [GUN]}


def setup(third: bool = False, host_n: int = 3, guest_n: int = 2) -> dict[str, Any]:
    figures = {"host": [fig(f"H{i}") for i in range(host_n)], "guest": [fig(f"G{i}") for i in range(guest_n)]}
    card = fp_pvp.generate(
        Dice(seed=1),
        fiveparsecs_tables(),
        figures=figures,
        reason="same_prize",
        first_player_face=1,
        first_deploy_face=1,
        third_party=third,
        third_party_face=10,
    )
    card["figures"] = figures
    return {
        "card": card,
        "names": {"host": "Drift", "guest": "Vex"},
        "players": {"host": [HOST], "guest": [GUEST]},
        "dramatic_combat": True,
    }


def act(
    state: dict[str, Any], kind: str, actor: str = HOST, role: Role = Role.PLAYER, seed: int = 7, **payload: Any
) -> dict[str, Any]:
    new, _ = fp_pvp.apply(state, Action(kind, payload, actor=actor, role=role), Dice(seed=seed), fiveparsecs_tables())
    return new


def start(third: bool = False) -> dict[str, Any]:
    """Deployed and both sides' Reactions rolled and assigned: h1, g1 Quick; the rest Slow."""
    state = fp_pvp.initial_state(setup(third), fiveparsecs_tables())
    assert state["turn"] == "guest"  # the lower Power Rating deploys first (2 < 3)
    state = act(state, "deploy", GUEST, figures="g1 g2")
    state = act(state, "deploy", HOST, figures="h1 h2")
    state = act(state, "deploy", HOST, figures="h3")  # the guest has none left: the host places its last
    assert (state["round"], state["phase"], state["turn"]) == (1, "reactions", "host")
    state = act(state, "roll_reactions", HOST, faces="1, 5, 6")
    state = act(state, "roll_reactions", GUEST, faces="2, 4")
    for actor, figure, die in ((HOST, "h1", 1), (HOST, "h2", 2), (HOST, "h3", 3), (GUEST, "g1", 1), (GUEST, "g2", 2)):
        state = act(state, "assign_reaction", actor, figure=figure, die=die)
    return act(state, "next_phase", HOST)


def test_p36_deployment_alternates_two_at_a_time_lower_rating_first() -> None:
    state = fp_pvp.initial_state(setup(), fiveparsecs_tables())
    with pytest.raises(NotYours):
        act(state, "deploy", HOST, figures="h1 h2")  # not the host's turn
    with pytest.raises(TrackerError) as one:
        act(state, "deploy", GUEST, figures="g1")
    assert one.value.field == "figures"  # two at a time while two are left
    with pytest.raises(TrackerError):
        act(state, "deploy", GUEST, figures="g1 h1")
    state = act(state, "deploy", GUEST, figures="g1 g2")
    assert state["turn"] == "host"
    assert state["sides"]["host"]["points"] == 0 and state["sides"]["guest"]["points"] == 1  # outgunned by 1: 1 point (p.36)


def test_p36_reactions_first_player_first_then_quick_phase_alternates() -> None:
    state = fp_pvp.initial_state(setup(), fiveparsecs_tables())
    for actor, figures in ((GUEST, "g1 g2"), (HOST, "h1 h2"), (HOST, "h3")):
        state = act(state, "deploy", actor, figures=figures)
    assert state["sides"]["host"]["points"] == 1 and state["sides"]["guest"]["points"] == 2  # +1 each at round start
    with pytest.raises(NotYours):
        act(state, "roll_reactions", GUEST)  # the First Player rolls first
    state = start()
    assert state["phase"] == "quick" and state["turn"] == "host"
    assert [f["slot"] for f in state["figures"]] == ["quick", "slow", "slow", "quick", "slow"]
    with pytest.raises(TrackerError) as slow:
        act(state, "activate", HOST, figures="h2")
    assert slow.value.field == "figures"  # h2 acts in the Slow Action phase
    state = act(state, "activate", HOST, figures="h1")
    assert state["turn"] == "guest"
    with pytest.raises(NotYours):
        act(state, "activate", HOST, figures="h1")
    with pytest.raises(TrackerError):
        act(state, "next_phase", HOST)  # g1 still to act
    state = act(state, "activate", GUEST, figures="g1")
    assert state["turn"] is None
    state = act(state, "next_phase", GUEST)
    assert state["phase"] == "slow" and state["turn"] == "host"  # no third party: no Enemy Actions phase
    state = act(state, "activate", HOST, figures="h2 h3")  # one or two at a time
    assert state["turn"] == "guest"


def test_seats_the_owner_cannot_play_the_other_side_and_readers_watch() -> None:
    state = act(start(), "activate", HOST, figures="h1")
    assert state["turn"] == "guest"
    with pytest.raises(NotYours):
        act(state, "activate", HOST, role=Role.OWNER, figures="g1")
    with pytest.raises(NotYours):
        act(state, "next_phase", "99", role=Role.VIEWER)
    both = setup()
    both["players"] = {"host": [HOST], "guest": [HOST]}  # one device at the table plays both sides
    hot = fp_pvp.initial_state(both, fiveparsecs_tables())
    hot = act(hot, "deploy", HOST, figures="g1 g2")
    assert hot["turn"] == "host"


def test_p35_fire_point_adds_a_shot_and_rerolls_ones_then_is_spent() -> None:
    state = act(start(), "activate", HOST, figures="h1")
    before = state["sides"]["host"]["points"]
    state = act(state, "spend_point", HOST, use="fire", figure="h1")
    assert state["sides"]["host"]["points"] == before - 1
    with pytest.raises(TrackerError):
        act(state, "spend_point", HOST, use="fire", figure="h1")  # one waiting already
    new, events = fp_pvp.apply(
        state,
        Action("resolve", {"attacker": "h1", "target": "g1", "range": 6, "faces": "1, 2, 6, 1"}, actor=HOST, role=Role.PLAYER),
        Dice(seed=3),
        fiveparsecs_tables(),
    )
    text = events[0].text
    assert "1 more Shot, 2 in all" in text and "rerolls 1 natural 1" in text
    assert new["activation"]["fire"] == []  # spent with the shot


def test_p35_remove_stun_only_for_a_figure_selected_to_act() -> None:
    state = start()
    state["figures"][0]["stun"] = 2
    state["figures"][3]["stun"] = 1
    with pytest.raises(TrackerError) as idle:
        act(state, "spend_point", HOST, use="remove_stun", figure="h1")
    assert idle.value.field == "figure"
    state = act(state, "activate", HOST, figures="h1")  # activating removes one
    assert state["figures"][0]["stun"] == 1
    state = act(state, "spend_point", HOST, use="remove_stun", figure="h1")
    assert state["figures"][0]["stun"] == 0


def test_p35_a_lost_brawl_counts_as_a_draw_only_when_lost() -> None:
    state = act(start(), "activate", HOST, figures="h1")
    points = state["sides"]["host"]["points"]
    # h1 rolls 1, g1 rolls 6: h1 lost; with the point both take a hit (saves none, Damage dice 1, 1).
    new, events = fp_pvp.apply(
        state,
        Action(
            "resolve",
            {"attacker": "h1", "target": "g1", "mode": "brawl", "draw_if_lost": "on", "faces": "1, 6, 1, 1"},
            actor=HOST,
            role=Role.PLAYER,
        ),
        Dice(seed=3),
        fiveparsecs_tables(),
    )
    assert "counts as a draw" in events[0].text and new["sides"]["host"]["points"] == points - 1
    won, events = fp_pvp.apply(
        state,
        Action(
            "resolve",
            {"attacker": "h1", "target": "g1", "mode": "brawl", "draw_if_lost": "on", "faces": "6, 1, 1"},
            actor=HOST,
            role=Role.PLAYER,
        ),
        Dice(seed=3),
        fiveparsecs_tables(),
    )
    assert won["sides"]["host"]["points"] == points  # h1 won: nothing spent


def test_attacks_only_by_an_active_figure_at_the_other_crew() -> None:
    state = act(start(), "activate", HOST, figures="h1")
    with pytest.raises(TrackerError) as idle:
        act(state, "resolve", HOST, attacker="h2", target="g1")
    assert idle.value.field == "attacker"
    with pytest.raises(TrackerError) as friend:
        act(state, "resolve", HOST, attacker="h1", target="h2")
    assert friend.value.field == "target"


def finish_round(state: dict[str, Any], end_faces: str) -> dict[str, Any]:
    for phase in ("quick", "slow"):
        while state["phase"] == phase and state["turn"]:
            side = state["turn"]
            able = [
                f["id"]
                for f in state["figures"]
                if f["side"] == side and f["status"] == "active" and f["slot"] == phase and not f["acted"]
            ]
            state = act(state, "activate", HOST if side == "host" else GUEST, figures=able[0])
        state = act(state, "next_phase", HOST, end_faces=end_faces) if phase == "slow" else act(state, "next_phase", HOST)
        if state["phase"] == "enemy":
            state = act(state, "next_phase", GUEST)  # the players ran the third party
    assert state["phase"] == "end"
    return state


def test_p36_end_roll_under_the_round_ends_after_the_next_and_the_token_passes() -> None:
    state = finish_round(start(), "1, 1")  # 2 is not under round 1
    assert state["phase"] == "end" and state["ending"]["last_round"] is None and state["first_player"] == "guest"
    state = act(state, "next_phase", GUEST)
    assert state["round"] == 2 and state["turn"] == "guest"  # the new First Player rolls first
    for actor in (GUEST, HOST):
        state = act(state, "roll_reactions", actor)
    for f in state["figures"]:
        state = act(state, "assign_reaction", HOST if f["side"] == "host" else GUEST, figure=f["id"], die=int(f["id"][1:]))
    state = act(state, "next_phase", HOST)
    state = finish_round(state, "1, 1")  # 2 is not under 2
    assert state["ending"]["last_round"] is None


def test_p36_agreed_end_needs_both_players_and_no_third_party() -> None:
    state = finish_round(start(), "6, 6")
    state = act(state, "agree_end", HOST)
    assert state["phase"] == "end"
    state = act(state, "agree_end", GUEST)
    assert state["phase"] == "over" and state["held_field"] == "none"
    third = finish_round(start(third=True), "6, 6")
    with pytest.raises(TrackerError):
        act(third, "agree_end", HOST)
    third = act(third, "third_party_gone", GUEST)
    assert act(act(third, "agree_end", HOST), "agree_end", GUEST)["phase"] == "over"


def test_a_third_party_brings_the_enemy_actions_phase() -> None:
    state = start(third=True)
    state = act(state, "activate", HOST, figures="h1")
    state = act(state, "activate", GUEST, figures="g1")
    assert act(state, "next_phase", HOST)["phase"] == "enemy"


def test_p37_a_crew_with_no_figure_left_loses_and_the_outcome_goes_to_each_side() -> None:
    state = start()
    state = act(state, "retreat", GUEST, figure="g1")
    state = act(state, "adjust", GUEST, figure="g2", status="casualty")
    assert state["phase"] == "over" and state["held_field"] == "host"
    result = fp_pvp.outcome(state)
    assert result["host"]["won"] and not result["guest"]["won"]
    assert result["guest"]["casualties"] == [{"name": "G1", "ref": ""}] and result["guest"]["retreated"] == [
        {"name": "G0", "ref": ""}
    ]
    assert result["host"]["loot_rolls"] == 1 and result["guest"]["loot_rolls"] == 1  # opponents' ratings 2 and 3, under 5
    assert result["host"]["rivals"] == 0 and not result["host"]["battlefield_finds"]


ACTIONS = st.sampled_from(
    ["deploy", "roll_reactions", "assign_reaction", "activate", "spend_point", "resolve", "next_phase", "agree_end", "retreat"]
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(st.tuples(ACTIONS, st.sampled_from([HOST, GUEST]), st.integers(0, 9), st.integers(0, 10_000)), max_size=60))
def test_invariants_hold_whatever_the_players_do(steps: list[tuple[str, str, int, int]]) -> None:
    tables = fiveparsecs_tables()
    state = fp_pvp.initial_state(setup(), tables)
    ids = [f["id"] for f in state["figures"]]
    for kind, actor, pick, seed in steps:
        payload: dict[str, Any] = {
            "figures": " ".join(ids[pick % len(ids) : pick % len(ids) + 2]),
            "figure": ids[pick % len(ids)],
            "die": 1 + pick % 3,
            "use": ["fire", "double_speed", "remove_stun"][pick % 3],
            "attacker": ids[pick % len(ids)],
            "target": ids[(pick + 3) % len(ids)],
            "mode": "shot" if pick % 2 else "brawl",
        }
        try:
            state, _ = fp_pvp.apply(state, Action(kind, payload, actor=actor, role=Role.PLAYER), Dice(seed=seed), tables)
        except TrackerError:
            continue
        for side in fp_pvp.SIDES:
            assert state["sides"][side]["points"] >= 0
        assert state["phase"] in fp_pvp.tracker.PHASES
        for f in state["figures"]:
            assert f["status"] in ("undeployed", "active", "casualty", "retreated") and 0 <= f["stun"] <= 9
            if f["slot"] is not None:
                assert f["slot"] == ("quick" if f["face"] <= f["reactions"] else "slow")
        held = [f["die"] for f in state["figures"] if f["die"] is not None]
        assert len(held) == len({(f["side"], f["die"]) for f in state["figures"] if f["die"] is not None})
        if state["turn"] is not None and state["phase"] in ("quick", "slow"):
            assert any(
                f["slot"] == state["phase"] and not f["acted"] and f["status"] == "active"
                for f in state["figures"]
                if f["side"] == state["turn"]
            )
