"""The three-way battle (Compendium p.37) and its referee seat (issue #21 items 3 and 5): the
third party's force (+1 basic, +1 specialist, a Unique Individual unless Roving Threats), its
D100 deployment, the Enemy Actions phase in which it attacks either crew as one force, crews
attacking it, it being wiped out, and the referee who alone runs it and never a crew."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from battles.engine import fp_pvp
from battles.engine.fp_pvp import third as fp_third
from battles.engine.fp_pvp.tracker import THIRD
from battles.tests.test_fp_pvp_tracker import GUEST, HOST, act, fig
from campaigns.selectors import fiveparsecs_tables
from live.engine.tracker import Action, NotYours, Role, TrackerError
from rules.engine.dice import Dice
from rules.engine.errors import RuleError

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]

REF = "9"


def three_way(face: int = 10, category: str = "Hired Muscle", referee: str | None = REF, seed: int = 3) -> dict[str, Any]:
    tables = fiveparsecs_tables()
    figures = {"host": [fig(f"H{i}") for i in range(3)], "guest": [fig(f"G{i}") for i in range(2)]}
    card = fp_pvp.generate(
        Dice(seed=1),
        tables,
        figures=figures,
        reason="same_prize",
        first_player_face=1,
        first_deploy_face=1,
        third_party=True,
        third_party_face=face,
        third_party_round_face=2,
    )
    force = fp_third.third_party_force(
        Dice(seed=seed), tables, card["third_party"], category=category, base_numbers=3, crew_size=5
    )
    card["third_party"] = {**card["third_party"], **force}
    card["figures"] = figures
    return {
        "card": card,
        "names": {"host": "Drift", "guest": "Vex"},
        "players": {"host": [HOST], "guest": [GUEST]},
        "dramatic_combat": True,
        "referee": referee,
    }


def deployed(state: dict[str, Any], host_reactions: str = "1, 5, 6") -> dict[str, Any]:
    state = act(state, "deploy", GUEST, figures="g1 g2")
    state = act(state, "deploy", HOST, figures="h1 h2")
    state = act(state, "deploy", HOST, figures="h3")
    state = act(state, "roll_reactions", HOST, faces=host_reactions)
    state = act(state, "roll_reactions", GUEST, faces="2, 4")
    for actor, figure, die in ((HOST, "h1", 1), (HOST, "h2", 2), (HOST, "h3", 3), (GUEST, "g1", 1), (GUEST, "g2", 2)):
        state = act(state, "assign_reaction", actor, figure=figure, die=die)
    return act(state, "next_phase", HOST)


def thirds(state: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in state["figures"] if f["side"] == THIRD]


def test_p37_force_has_one_more_basic_and_specialist_and_a_unique_individual() -> None:
    tables = fiveparsecs_tables()
    card = {"basic_enemies": 1, "specialists": 1, "lieutenants": 0, "unique_individuals": 1}
    plain = fp_pvp.third.fp_enemies.roll_elite_enemy(
        Dice(seed=3),
        tables,
        crew_size=5,
        options=fp_third.CampaignOptions(),
        category="Criminal Elements",
        base_numbers=3,
    )
    force = fp_third.third_party_force(Dice(seed=3), tables, card, category="Criminal Elements", base_numbers=3, crew_size=5)
    ranks = [f["rank"] for f in force["figures"]]
    assert ranks.count("basic") == sum(1 for f in plain.figures if f.rank == "basic") + 1
    assert ranks.count("specialist") == sum(1 for f in plain.figures if f.rank == "specialist") + 1
    assert ranks.count("unique") == 1 and ranks[-1] == "unique"


def test_p37_roving_threats_come_without_a_unique_individual_and_41_60_adds_a_lieutenant() -> None:
    tables = fiveparsecs_tables()
    card = {"basic_enemies": 1, "specialists": 2, "lieutenants": 1, "unique_individuals": 1}
    for seed in range(5):
        force = fp_third.third_party_force(Dice(seed=seed), tables, card, category="Roving Threats", base_numbers=3, crew_size=5)
        assert "unique" not in [f["rank"] for f in force["figures"]]
    lieutenants = [f for f in force["figures"] if f["rank"] == "lieutenant"]
    assert any("(p.37)" in f["name"] for f in lieutenants)


def test_bad_category_or_numbers_are_refused_by_field() -> None:
    tables = fiveparsecs_tables()
    with pytest.raises(RuleError) as bad:
        fp_third.third_party_force(Dice(seed=1), tables, {}, category="Pirates", base_numbers=3, crew_size=4)
    assert bad.value.field == "third_party_category"
    with pytest.raises(RuleError) as bad:
        fp_third.third_party_force(Dice(seed=1), tables, {}, category="Hired Muscle", base_numbers=0, crew_size=4)
    assert bad.value.field == "third_party_numbers"


def test_p37_deployed_on_an_edge_from_the_start_and_acts_in_the_enemy_phase() -> None:
    state = fp_pvp.initial_state(three_way(face=10), fiveparsecs_tables())
    assert thirds(state) and all(f["status"] == "active" and f["id"].startswith("t") for f in thirds(state))
    assert state["referee"] == REF
    state = deployed(state)
    state = act(state, "activate", HOST, figures="h1")
    state = act(state, "activate", GUEST, figures="g1")
    state = act(state, "next_phase", HOST)
    assert state["phase"] == "enemy"
    with pytest.raises(NotYours):
        act(state, "activate", HOST, figures="t1")  # with a referee seated, only they run it
    with pytest.raises(NotYours):
        act(state, "next_phase", GUEST)
    state = act(state, "activate", REF, figures="t1 t2")
    with pytest.raises(TrackerError) as own:
        act(state, "resolve", REF, attacker="t1", target="t2")
    assert own.value.field == "target"
    # both crews are one force: the same figure may go for the host's or the guest's
    at_host = act(state, "resolve", REF, attacker="t1", target="h1", mode="brawl", seed=5)
    at_guest = act(state, "resolve", REF, attacker="t2", target="g2", mode="brawl", seed=5)
    assert at_host["last"]["type"] in ("resolve", "over") and at_guest["last"]["type"] in ("resolve", "over")
    state = act(state, "next_phase", REF)
    assert state["phase"] == "slow"


def test_referee_cannot_act_for_either_crew() -> None:
    state = deployed(fp_pvp.initial_state(three_way(face=10), fiveparsecs_tables()))
    for kind, payload in (
        ("activate", {"figures": "h1"}),
        ("retreat", {"figure": "g1"}),
        ("adjust", {"figure": "h2", "stun": 1}),
        ("next_phase", {}),
    ):
        with pytest.raises(TrackerError) as refused:
            act(state, kind, REF, **payload)
        assert refused.value.field in ("figure", None) if kind == "next_phase" else refused.value.field == "figure"


def test_without_a_referee_either_player_runs_the_third_party_and_crews_attack_it() -> None:
    state = deployed(fp_pvp.initial_state(three_way(face=10, referee=None), fiveparsecs_tables()))
    state = act(state, "activate", HOST, figures="h1")
    state = act(state, "resolve", HOST, attacker="h1", target="t1", mode="shot", range=6, seed=1)
    assert state["last"]["type"] in ("resolve", "third_party")
    state = act(state, "activate", GUEST, figures="g1")
    state = act(state, "next_phase", GUEST)
    assert state["phase"] == "enemy"
    state = act(state, "activate", GUEST, figures="t2")
    with pytest.raises(NotYours):
        act(state, "seat_referee", HOST)  # a crew's player cannot referee
    seated = act(state, "seat_referee", REF)
    assert seated["referee"] == REF
    with pytest.raises(NotYours):
        act(seated, "activate", GUEST, figures="t3")


def test_p37_wiping_it_out_marks_it_gone_and_allows_an_agreed_end() -> None:
    state = deployed(fp_pvp.initial_state(three_way(face=10), fiveparsecs_tables()))
    assert state["third_party"]["gone"] is False
    for f in thirds(state):
        state = act(state, "retreat", REF, figure=f["id"])
    assert state["third_party"]["gone"] is True and state["last"]["type"] == "third_party"
    assert state["phase"] == "quick"  # the crews fight on


def test_p37_arriving_in_round_3_waits_off_the_table() -> None:
    state = fp_pvp.initial_state(three_way(face=75), fiveparsecs_tables())
    assert all(f["status"] == "undeployed" for f in thirds(state)) and state["third_party"]["round"] == 3
    state = deployed(state)
    for actor, fid in ((HOST, "h1"), (GUEST, "g1")):
        state = act(state, "activate", actor, figures=fid)
    state = act(state, "next_phase", HOST)
    assert state["phase"] == "slow"  # no Enemy Actions while it is off the table
    state["round"], state["phase"] = 2, "end"
    state = act(state, "next_phase", HOST)
    assert state["round"] == 3 and all(f["status"] == "active" for f in thirds(state))


def test_p37_91_100_reinforcements_in_round_3_with_a_specialist_on_5_or_6() -> None:
    state = fp_pvp.initial_state(three_way(face=95), fiveparsecs_tables())
    before = len(thirds(state))
    state["round"], state["phase"] = 2, "end"
    state = act(state, "next_phase", HOST, reinforcement_faces="5")
    added = thirds(state)[before:]
    assert len(added) == 5 and added[0]["name"].startswith("Specialist") and all(f["status"] == "active" for f in added)
    assert len({f["id"] for f in thirds(state)}) == len(thirds(state))


STEPS = st.sampled_from(
    [
        "activate",
        "resolve",
        "next_phase",
        "retreat",
        "adjust",
        "third_party_gone",
        "agree_end",
        "assign_reaction",
        "roll_reactions",
    ]
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    face=st.integers(1, 100),
    referee=st.booleans(),
    steps=st.lists(st.tuples(STEPS, st.sampled_from([HOST, GUEST, REF]), st.integers(0, 20), st.integers(0, 9999)), max_size=50),
)
def test_three_way_invariants_whatever_anyone_does(face: int, referee: bool, steps: list[tuple[str, str, int, int]]) -> None:
    tables = fiveparsecs_tables()
    state = deployed(fp_pvp.initial_state(three_way(face=face, referee=REF if referee else None), tables))
    for kind, actor, pick, seed in steps:
        ids = [f["id"] for f in state["figures"]]
        payload: dict[str, Any] = {
            "figures": ids[pick % len(ids)],
            "figure": ids[pick % len(ids)],
            "attacker": ids[pick % len(ids)],
            "target": ids[(pick * 7 + 3) % len(ids)],
            "mode": "shot" if pick % 2 else "brawl",
            "die": 1 + pick % 3,
            "stun": pick % 3,
        }
        before = state
        try:
            state, _ = fp_pvp.apply(state, Action(kind, payload, actor=actor, role=Role.PLAYER), Dice(seed=seed), tables)
        except TrackerError:
            continue
        if actor == REF and referee:
            # the referee changed no crew figure and no crew's points
            for old, new in zip(before["figures"], state["figures"], strict=False):
                if old["side"] != THIRD and kind != "resolve":
                    assert old == new
            assert [before["sides"][s]["points"] for s in fp_pvp.SIDES] == [state["sides"][s]["points"] for s in fp_pvp.SIDES]
        if state["third_party"]["gone"] is False and state["phase"] == "over" and state["held_field"] == "none":
            pytest.fail("an agreed end while the third party is on the table")
        if state["phase"] == "enemy":
            assert state["turn"] is None
        for f in state["figures"]:
            assert f["status"] in ("undeployed", "active", "casualty", "retreated")
            if f["side"] == THIRD:
                assert f["slot"] in (None, "enemy") and f["id"].startswith("t")
        assert len({f["id"] for f in state["figures"]}) == len(state["figures"])


def test_p37_morale_dice_only_for_the_third_party_basic_figures_flee_first() -> None:
    state = deployed(fp_pvp.initial_state(three_way(face=10), fiveparsecs_tables()))
    state["third_party"]["panic"] = "1-2"
    down = thirds(state)[0]
    down.update(status="casualty", down_round=1)
    state["phase"] = "slow"
    for f in state["figures"]:
        f["acted"] = True
    ended = act(state, "next_phase", HOST, end_faces="6, 6", morale_faces="2")
    fled = [f for f in thirds(ended) if f["status"] == "retreated"]
    assert len(fled) == 1 and fled[0]["rank"] == "basic"
    morale = [f for f in thirds(act(state, "next_phase", HOST, end_faces="6, 6", morale_faces="3")) if f["status"] == "retreated"]
    assert morale == []  # 3 is outside Panic 1-2
    state["third_party"]["panic"] = "0"
    assert not [f for f in thirds(act(state, "next_phase", HOST, end_faces="6, 6")) if f["status"] == "retreated"]
    with pytest.raises(TrackerError) as bad:
        act({**state, "third_party": {**state["third_party"], "panic": "1-2"}}, "next_phase", HOST, morale_faces="7")
    assert bad.value.field == "morale_faces"


def test_p37_the_referee_seat_is_freed_by_the_referee_or_a_host_player_and_the_players_run_it_again() -> None:
    state = deployed(fp_pvp.initial_state(three_way(face=10), fiveparsecs_tables()))
    state = act(state, "activate", HOST, figures="h1")
    state = act(state, "activate", GUEST, figures="g1")
    state = act(state, "next_phase", HOST)
    assert state["phase"] == "enemy"
    with pytest.raises(NotYours):
        act(state, "activate", GUEST, figures="t3")  # the referee runs it
    with pytest.raises(NotYours):
        act(state, "unseat_referee", GUEST)  # the host's players free the seat, not the guest's
    with pytest.raises(NotYours):
        act(state, "unseat_referee", HOST, role=Role.VIEWER)  # a reader cannot
    for who in (REF, HOST):
        freed = act(state, "unseat_referee", who)
        assert freed["referee"] is None and freed["last"]["type"] == "referee"
        ran = act(freed, "activate", GUEST, figures="t3")  # either player runs the third party again
        assert "t3" in ran["activation"]["figures"]
        with pytest.raises(TrackerError) as twice:
            act(freed, "unseat_referee", HOST)
        assert twice.value.field == "type"
