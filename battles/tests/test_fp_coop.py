"""The expanded co-op battle (Compendium pp.39-41; issue #21 item 4): the waves (+2 numbers, the
larger force first, one more Unique Individual in Wave 2, Wave 3 from Hired Muscle with one more
specialist and a Unique Individual), separate Reaction pools, players alternating one figure at
a time starting with the one with fewer to act, Wave 2 at the start of round 3 by D6 edge, the
Wave 3 check from round 3, Make it Quick from round 6, Tough Fight Morale per wave, and the
aftermath per crew. Seeded or typed dice throughout."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from battles.engine import fp_pvp
from battles.engine.fp_pvp import coop
from battles.engine.fp_pvp.tracker import COOP, THIRD
from battles.tests.test_fp_pvp_tracker import GUEST, HOST, fig
from campaigns.selectors import fiveparsecs_tables
from live.engine.tracker import Action, NotYours, Role, TrackerError
from rules.engine.dice import Dice
from rules.engine.errors import RuleError

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]

FORCES: dict[str, dict[str, Any]] = {
    "host": {"category": "Criminal Elements", "numbers": 3},
    "guest": {"category": "Hired Muscle", "numbers": 5},
}


def waves(seed: int = 4, **kwargs: Any) -> dict[str, Any]:
    options = {"forces": FORCES, "wave3_numbers": 2, "crew_size": 5, **kwargs}
    return coop.coop_waves(Dice(seed=seed), fiveparsecs_tables(), **options)


def setup(host_n: int = 3, guest_n: int = 2, invasion: tuple[int, ...] = (), referee: str | None = None) -> dict[str, Any]:
    made = waves(invasion=invasion)
    figures = {
        "host": [fig(f"H{i}", reactions=6) for i in range(host_n)],
        "guest": [fig(f"G{i}", reactions=6) for i in range(guest_n)],
    }
    card = {"mode": COOP, "figures": figures, "third_party": {"panic": coop.TOUGH_PANIC, **made}}
    return {
        "card": card,
        "names": {"host": "Drift", "guest": "Vex"},
        "players": {"host": [HOST], "guest": [GUEST]},
        "dramatic_combat": True,
        "referee": referee,
    }


def act(state: dict[str, Any], kind: str, actor: str = HOST, seed: Any = 7, **payload: Any) -> dict[str, Any]:
    new, _ = fp_pvp.apply(state, Action(kind, payload, actor=actor, role=Role.PLAYER), Dice(seed=seed), fiveparsecs_tables())
    return new


def events(
    state: dict[str, Any], kind: str, actor: str = HOST, seed: int = 7, **payload: Any
) -> tuple[dict[str, Any], list[Any]]:
    return fp_pvp.apply(state, Action(kind, payload, actor=actor, role=Role.PLAYER), Dice(seed=seed), fiveparsecs_tables())


def enemies(state: dict[str, Any], wave: int | None = None, status: str | None = None) -> list[dict[str, Any]]:
    return [
        f
        for f in state["figures"]
        if f["side"] == THIRD and (wave is None or f["wave"] == wave) and (status is None or f["status"] == status)
    ]


def reactions(state: dict[str, Any]) -> dict[str, Any]:
    """Both crews roll (all 1s: every figure Quick) and assign their dice in order."""
    for side, actor in (("guest", GUEST), ("host", HOST)):
        if state["sides"][side]["reaction_dice"] is None:
            mine = [f for f in state["figures"] if f["side"] == side and f["status"] == "active"]
            state = act(state, "roll_reactions", actor, faces=", ".join("1" for _ in mine))
            for n, f in enumerate(mine, start=1):
                state = act(state, "assign_reaction", actor, figure=f["id"], die=n)
    return state


def play_round(state: dict[str, Any], wave2: str = "3", **end: Any) -> dict[str, Any]:
    """One round with nobody attacking: Reactions, every crew figure activated in turn, the
    Enemy Actions phase passed, and the round ended with ``end`` (typed end-of-round dice)."""
    state = act(reactions(state), "next_phase")
    while state["turn"] is not None:
        side = state["turn"]
        able = [
            f
            for f in state["figures"]
            if f["side"] == side and f["status"] == "active" and f["slot"] == "quick" and not f["acted"]
        ]
        state = act(state, "activate", HOST if side == "host" else GUEST, figures=able[0]["id"])
    state = act(state, "next_phase")
    if state["phase"] == "enemy":
        state = act(state, "next_phase")
    state = act(state, "next_phase", **end)  # the end of the round
    if state["phase"] != "over":
        state = act(state, "next_phase", **({"wave_faces": wave2} if state["round"] == 2 else {}))
    return state


def clear(state: dict[str, Any]) -> dict[str, Any]:
    for f in enemies(state, status="active"):
        state = act(state, "adjust", HOST, figure=f["id"], status="retreated")
    return state


# -- the waves (p.40) ---------------------------------------------------------------------------


def test_p40_each_force_gets_two_more_the_larger_is_wave_1_and_wave_2_one_more_unique_individual() -> None:
    tables = fiveparsecs_tables()
    same = Dice(seed=4)  # the two forces as coop_waves rolls them, before p.40's changes
    plain = {
        side: fp_pvp.third.fp_enemies.roll_elite_enemy(
            same, tables, crew_size=5, options=coop.CampaignOptions(), category=raw["category"], base_numbers=raw["numbers"]
        )
        for side, raw in FORCES.items()
    }
    made = waves()
    one, two, three = made["waves"]
    assert [w["wave"] for w in made["waves"]] == [1, 2, 3]
    assert one["count"] >= two["count"] - 1  # Wave 2 holds the extra Unique Individual
    by_wave = {n: [f for f in made["figures"] if f["wave"] == n] for n in (1, 2, 3)}
    assert {one["from"], two["from"]} == {"host", "guest"}
    for wave in (one, two):
        force = plain[wave["from"]]
        mine = [f for f in by_wave[wave["wave"]] if f["rank"] != "unique"]
        assert len(mine) == len([f for f in force.figures if f.rank != "unique"]) + coop.MORE_NUMBERS
    assert len([f for f in by_wave[2] if f["rank"] == "unique"]) == 1 + (plain[two["from"]].unique_individual is not None)
    assert three["category"] == coop.WAVE3_CATEGORY
    assert len([f for f in by_wave[3] if f["rank"] == "unique"]) == 1
    assert all(w["panic"] == "1" for w in made["waves"])
    assert not any(f["ai"] in ("C", "D") for f in made["figures"])  # Tough Fight: Cautious and Defensive play Tactical
    assert made["rolls"] and all({"reason", "faces"} <= set(r) for r in made["rolls"])


def test_p40_wave_3_has_one_more_specialist_than_its_force() -> None:
    without = coop.coop_waves(Dice(seed=4), fiveparsecs_tables(), forces=FORCES, wave3_numbers=2, crew_size=5)
    specialists = [f for f in without["figures"] if f["wave"] == 3 and f["rank"] == "specialist"]
    assert len(specialists) >= 1


def test_p41_increased_challenge_adds_a_lieutenant_to_waves_1_and_2_and_two_basics_to_wave_3() -> None:
    plain, hard = waves(), waves(increased_challenge=True)
    for n in (1, 2):
        assert len([f for f in hard["figures"] if f["wave"] == n and f["rank"] == "lieutenant"]) == 1 + len(
            [f for f in plain["figures"] if f["wave"] == n and f["rank"] == "lieutenant"]
        )
    assert hard["waves"][2]["count"] == plain["waves"][2]["count"] + 2


def test_p40_equal_forces_are_ordered_by_a_d6() -> None:
    same = {"host": {"category": "Hired Muscle", "numbers": 3}, "guest": {"category": "Hired Muscle", "numbers": 3}}
    low = coop.coop_waves(Dice(seed=4), fiveparsecs_tables(), forces=same, wave3_numbers=2, crew_size=5, order_face=2)
    high = coop.coop_waves(Dice(seed=4), fiveparsecs_tables(), forces=same, wave3_numbers=2, crew_size=5, order_face=5)
    if low["waves"][0]["count"] == low["waves"][1]["count"] - 1:  # equal forces before Wave 2's extra figure
        assert low["waves"][0]["from"] == "host" and high["waves"][0]["from"] == "guest"
    assert any("Wave 1" in r["reason"] for r in low["rolls"]) or low["waves"][0]["count"] != low["waves"][1]["count"] - 1


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"forces": {"host": {"category": "Pirates", "numbers": 3}, "guest": FORCES["guest"]}}, "forces.host"),
        ({"forces": {"host": FORCES["host"]}}, "forces.guest"),
        ({"wave3_numbers": 0}, "wave3_numbers"),
        ({"invasion": (4,)}, "invasion"),
    ],
)
def test_a_wrong_force_is_refused_naming_the_field(kwargs: dict[str, Any], field: str) -> None:
    options = {"forces": FORCES, "wave3_numbers": 2, "crew_size": 5, **kwargs}
    with pytest.raises(RuleError) as caught:
        coop.coop_waves(Dice(seed=4), fiveparsecs_tables(), **options)
    assert caught.value.field == field


# -- the battle ---------------------------------------------------------------------------------


def test_the_battle_opens_at_round_1_with_wave_1_and_both_crews_and_no_initiative_points() -> None:
    state = fp_pvp.initial_state(setup(), fiveparsecs_tables())
    assert (state["mode"], state["round"], state["phase"]) == (COOP, 1, "reactions")
    assert enemies(state, 1) and all(f["status"] == "active" for f in enemies(state, 1))
    assert all(f["status"] == "undeployed" for f in enemies(state, 2) + enemies(state, 3))
    assert all(f["status"] == "active" for f in state["figures"] if f["side"] != THIRD)
    assert state["sides"]["host"]["points"] == state["sides"]["guest"]["points"] == 0


def test_p40_each_player_rolls_their_own_reaction_pool_in_any_order() -> None:
    state = fp_pvp.initial_state(setup(), fiveparsecs_tables())
    state = act(state, "roll_reactions", GUEST, faces="2, 5")
    assert state["sides"]["guest"]["reaction_dice"] == [2, 5] and state["sides"]["host"]["reaction_dice"] is None
    with pytest.raises(TrackerError):
        act(state, "roll_reactions", GUEST, faces="2, 5")
    with pytest.raises(NotYours):
        act(state, "roll_reactions", "99", faces="1, 1, 1")
    state = act(state, "roll_reactions", HOST, faces="1, 1, 1")
    with pytest.raises(NotYours):  # a player assigns only their own crew's dice
        act(state, "assign_reaction", HOST, figure="g1", die=1)


def test_p40_players_alternate_one_figure_at_a_time_the_one_with_fewer_first() -> None:
    state = act(reactions(fp_pvp.initial_state(setup(host_n=3, guest_n=2), fiveparsecs_tables())), "next_phase")
    assert state["phase"] == "quick" and state["turn"] == "guest"  # 2 figures to act against 3
    with pytest.raises(TrackerError):
        act(state, "activate", GUEST, figures="g1 g2")  # one at a time in co-op
    order = []
    while state["turn"] is not None:
        order.append(state["turn"])
        side = state["turn"]
        able = [f for f in state["figures"] if f["side"] == side and f["slot"] == "quick" and not f["acted"]]
        state = act(state, "activate", HOST if side == "host" else GUEST, figures=able[0]["id"])
    assert order == ["guest", "host", "guest", "host", "host"]


def test_p40_the_crews_are_one_force_and_have_no_initiative_points() -> None:
    state = act(reactions(fp_pvp.initial_state(setup(), fiveparsecs_tables())), "next_phase")
    state = act(state, "activate", GUEST, figures="g1")
    with pytest.raises(TrackerError) as caught:
        act(state, "resolve", GUEST, attacker="g1", target="h1", faces="6, 6")
    assert caught.value.field == "target"
    with pytest.raises(TrackerError) as caught:
        act(state, "spend_point", GUEST, use="fire", figure="g1")
    assert caught.value.field == "use"
    target = enemies(state, 1)[0]["id"]
    after = act(state, "resolve", GUEST, attacker="g1", target=target, seed=2)
    assert after["last"]["type"] in ("resolve", "over")


def test_p40_wave_2_arrives_at_the_start_of_round_3_on_the_edge_its_d6_gives() -> None:
    state = fp_pvp.initial_state(setup(), fiveparsecs_tables())
    state = play_round(state)
    assert state["round"] == 2 and all(f["status"] == "undeployed" for f in enemies(state, 2))
    state = play_round(state)  # round 2 ends; round 3 starts with wave_faces 3
    assert state["round"] == 3
    assert all(f["status"] == "active" for f in enemies(state, 2))
    assert state["third_party"]["edges"] == {"2": "enemy"}
    assert "Wave 2 arrives" in state["last"]["text"]


def test_p40_wave_3_check_from_round_3_and_it_avoids_wave_2s_edge() -> None:
    state = play_round(play_round(fp_pvp.initial_state(setup(), fiveparsecs_tables())), wave2="1")
    assert state["third_party"]["edges"] == {"2": "left"}
    with pytest.raises(TrackerError) as caught:  # the 2D6 check takes two typed faces
        play_round(state, end_faces="1")
    assert caught.value.field == "end_faces"
    stays = play_round(state, end_faces="2, 1")  # 3 is not under round 3
    assert all(f["status"] == "undeployed" for f in enemies(stays, 3)) and stays["third_party"]["wave3_checks"] == 1
    comes = play_round(state, end_faces="1, 1", wave_faces="2")  # left again: Wave 3 takes the right edge
    assert all(f["status"] == "active" for f in enemies(comes, 3))
    assert comes["third_party"]["edges"] == {"2": "left", "3": "right"}
    behind = play_round(state, end_faces="1, 1", wave_faces="4")
    assert behind["third_party"]["edges"]["3"] == "crews"
    later = play_round(behind, end_faces="1, 1")  # Wave 3 came: no more checks
    assert later["third_party"]["wave3_checks"] == 1


def test_p40_a_cleared_table_ends_the_battle_only_once_nothing_more_is_to_come_or_from_round_6() -> None:
    state = clear(fp_pvp.initial_state(setup(), fiveparsecs_tables()))
    state = play_round(state)
    assert state["phase"] != "over"  # Wave 2 still to come
    state = clear(play_round(state))  # round 3: Wave 2 arrived, now gone
    for _ in range(3):  # rounds 3 to 5: Wave 3 checks that never come, the battle goes on
        state = play_round(state, end_faces="6, 6")
        assert state["phase"] != "over"
    assert state["round"] == 6
    over = play_round(state, end_faces="6, 6")
    assert over["phase"] == "over" and over["held_field"] == "both"


def test_p41_tough_fight_morale_is_per_wave_with_panic_1() -> None:
    state = act(reactions(fp_pvp.initial_state(setup(), fiveparsecs_tables())), "next_phase")
    first, *_rest = [f["id"] for f in enemies(state, 1) if f["rank"] == "basic"]
    state = act(state, "adjust", HOST, figure=first, status="casualty")
    while state["turn"] is not None:
        side = state["turn"]
        able = [f for f in state["figures"] if f["side"] == side and f["slot"] == "quick" and not f["acted"]]
        state = act(state, "activate", HOST if side == "host" else GUEST, figures=able[0]["id"])
    state = act(act(state, "next_phase"), "next_phase")
    steady = act(state, "next_phase", morale_faces="2")
    assert len(enemies(steady, 1, "retreated")) == 0
    fled, said = events(state, "next_phase", morale_faces="1")
    assert len(enemies(fled, 1, "retreated")) == 1
    assert any("Wave 1 Morale" in e.text and "Panic 1" in e.text for e in said)


def test_both_crews_gone_loses_the_battle_for_both() -> None:
    state = act(reactions(fp_pvp.initial_state(setup(host_n=1, guest_n=1), fiveparsecs_tables())), "next_phase")
    state = act(state, "retreat", HOST, figure="h1")
    assert state["phase"] != "over"
    state = act(state, "retreat", GUEST, figure="g1")
    assert state["phase"] == "over" and state["held_field"] == "none"
    result = fp_pvp.outcome(state)
    assert not result["host"]["won"] and not result["guest"]["won"] and result["host"]["loot_rolls"] == 0


def test_p41_aftermath_pay_finds_shared_loot_and_invasion_plus_one_per_wave() -> None:
    state = clear(fp_pvp.initial_state(setup(invasion=(1, 3)), fiveparsecs_tables()))
    state = clear(play_round(play_round(state)))
    state = play_round(state, end_faces="1, 1", wave_faces="1")  # Wave 3 arrives at the end of round 3
    state = play_round(clear(state), end_faces="6, 6")
    assert state["phase"] == "over" and state["held_field"] == "both"
    result = fp_pvp.outcome(state)
    for side in ("host", "guest"):
        mine = result[side]
        assert mine["won"] and mine["held_field"] and mine["battlefield_finds"]
        assert (mine["pay_bonus"], mine["loot_rolls"], mine["shared_loot"]) == (1, 1, 1)
        assert mine["invasion"] == {"check": True, "modifier": 2}
        assert mine["waves_faced"] == [1, 2, 3]


def test_a_co_op_battle_cannot_end_by_agreement() -> None:
    state = fp_pvp.initial_state(setup(), fiveparsecs_tables())
    state = act(reactions(state), "next_phase")
    while state["turn"] is not None:
        side = state["turn"]
        able = [f for f in state["figures"] if f["side"] == side and f["slot"] == "quick" and not f["acted"]]
        state = act(state, "activate", HOST if side == "host" else GUEST, figures=able[0]["id"])
    state = act(act(act(state, "next_phase"), "next_phase"), "next_phase")
    assert state["phase"] == "end"
    with pytest.raises(TrackerError):
        act(state, "agree_end", HOST)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    ends=st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), min_size=8, max_size=8),
    edges=st.lists(st.integers(1, 6), min_size=2, max_size=2),
)
def test_any_dice_keep_the_waves_bounds(ends: list[tuple[int, int]], edges: list[int]) -> None:
    """Whatever the end-of-round dice: no initiative point ever; Wave 2 is on the table from
    round 3 and not before; Wave 3 comes at most once, never before round 3's end and never on
    Wave 2's edge; the battle with a cleared table ends at the latest at round 6's end."""
    state = fp_pvp.initial_state(setup(), fiveparsecs_tables())
    for n in range(8):
        if state["phase"] == "over":
            break
        before = state["round"]
        state = clear(state)
        state = play_round(
            state,
            **({"end_faces": f"{ends[n][0]}, {ends[n][1]}"} if before >= 3 else {}),
            **({"wave_faces": str(edges[1])} if before >= 3 else {}),
        )
        third = state["third_party"]
        assert state["sides"]["host"]["points"] == 0 == state["sides"]["guest"]["points"]
        assert (2 in third["arrived"]) == (state["round"] >= 3 or before >= 3)
        assert third["arrived"].count(3) <= 1
        if 3 in third["arrived"]:
            assert third["edges"]["3"] != third["edges"]["2"]
    assert state["phase"] == "over" and state["round"] <= coop.QUICK_FROM


def test_p41_separate_enemy_teams_puts_the_hosts_force_first_with_each_campaigns_own_difficulty() -> None:
    small_host = {"host": {"category": "Hired Muscle", "numbers": 1}, "guest": {"category": "Hired Muscle", "numbers": 9}}
    plain = coop.coop_waves(Dice(seed=4), fiveparsecs_tables(), forces=small_host, wave3_numbers=2, crew_size=5)
    assert plain["waves"][0]["from"] == "guest"  # the larger force is Wave 1 by default
    own = {"host": (coop.CampaignOptions(), 2), "guest": (coop.CampaignOptions(), 3)}
    apart = coop.coop_waves(
        Dice(seed=4), fiveparsecs_tables(), forces=small_host, wave3_numbers=2, crew_size=5, separate_teams=own
    )
    assert [w["from"] for w in apart["waves"][:2]] == ["host", "guest"]


def test_p39_a_rival_coalition_names_each_crews_rival_on_its_wave() -> None:
    made = waves(rivals={"host": "The Syndicate", "guest": "Old Debts"})
    by_side = {w["from"]: w["rival"] for w in made["waves"] if w["from"]}
    assert by_side == {"host": "The Syndicate", "guest": "Old Debts"}
    assert made["waves"][2]["rival"] == ""


def test_a_shot_beyond_the_weapons_range_is_refused_naming_the_payloads_range() -> None:
    state = act(reactions(fp_pvp.initial_state(setup(), fiveparsecs_tables())), "next_phase")
    state = act(state, "activate", GUEST, figures="g1")
    target = enemies(state, 1)[0]["id"]
    with pytest.raises(TrackerError) as caught:
        act(state, "resolve", GUEST, attacker="g1", target=target, range=40)
    assert caught.value.field == "range" and caught.value.message.startswith("range must be")


@pytest.mark.parametrize("seed", range(6))
def test_p40_wave_3_brings_its_unique_individual_without_a_roll(seed: int) -> None:
    force = fp_pvp.third.fp_enemies.roll_elite_enemy(
        Dice(seed=seed),
        fiveparsecs_tables(),
        crew_size=1,
        options=coop.CampaignOptions(),
        category=coop.WAVE3_CATEGORY,
        base_numbers=2,
        unique_always=True,
    )
    assert force.unique_individual is not None
    assert not any(r.reason.startswith("Unique Individual on") for r in force.rolls)
    made = waves(seed=seed)
    assert len([f for f in made["figures"] if f["wave"] == 3 and f["rank"] == "unique"]) == 1


def _candidates(state: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """Actions a table might try now, (type, actor, payload): mostly what the round asks for,
    with a few the rules may refuse."""
    owner = {"host": HOST, "guest": GUEST}
    on = [f for f in state["figures"] if f["status"] == "active"]
    crew = [f for f in on if f["side"] != THIRD]
    foes = [f for f in on if f["side"] == THIRD]
    out: list[tuple[str, str, dict[str, Any]]] = [
        ("next_phase", HOST, {}),
        ("spend_point", GUEST, {"use": "fire", "figure": "g1"}),
    ]
    phase = state["phase"]
    if phase == "reactions":
        for side, own in state["sides"].items():
            if own["reaction_dice"] is None:
                out.append(("roll_reactions", owner[side], {}))
            elif own["pick"] and own["pick"]["first_free"]:
                for f in crew:
                    if f["side"] == side and f["die"] is None:
                        out.append(("assign_reaction", owner[side], {"figure": f["id"], "die": own["pick"]["first_free"]}))
    elif phase in ("quick", "slow") and state["turn"]:
        side = state["turn"]
        for f in crew:
            if f["side"] == side and f["slot"] == phase and not f["acted"]:
                out.append(("activate", owner[side], {"figures": f["id"]}))
    if phase in ("quick", "slow") and state["activation"]:
        for fid in state["activation"]["figures"]:
            side = "host" if fid.startswith("h") else "guest"
            for t in foes[:3]:
                out.append(("resolve", owner[side], {"attacker": fid, "target": t["id"], "range": 6}))
            if phase == "slow" and state["round"] >= 3:
                out.append(("retreat", owner[side], {"figure": fid}))
    if phase == "enemy":
        able = [f for f in foes if not f["acted"]]
        if able:
            out.append(("activate", HOST, {"figures": able[0]["id"]}))
        if state["activation"]:
            for fid in state["activation"]["figures"]:
                for t in crew:
                    out.append(("resolve", GUEST, {"attacker": fid, "target": t["id"], "range": 6}))
    for t in foes[:2]:
        out.append(("adjust", HOST, {"figure": t["id"], "status": "casualty"}))
    out.append(("agree_end", HOST, {}))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_coop_invariants_hold_whatever_the_players_do(data: st.DataObject) -> None:
    """Random co-op play, mostly what each round asks for, with random dice: no initiative point
    ever; every figure in exactly one state; a wave's figures are on the table only once it has
    arrived, each wave arriving once and Wave 3 never on Wave 2's edge; the player to move has a
    figure to move; a won battle has no enemy on the table; replaying the same actions with the
    same dice gives the same state."""
    tables = fiveparsecs_tables()
    start = fp_pvp.initial_state(setup(host_n=2, guest_n=1), tables)
    state = start
    done: list[tuple[Action, int]] = []
    for _ in range(data.draw(st.integers(20, 160))):
        if state["phase"] == "over":
            break
        kind, actor, payload = data.draw(st.sampled_from(_candidates(state)))
        seed = data.draw(st.integers(0, 10_000))
        action = Action(kind, payload, actor=actor, role=Role.PLAYER)
        try:
            state, _ = fp_pvp.apply(state, action, Dice(seed=seed), tables)
        except TrackerError:
            continue
        done.append((action, seed))
        third = state["third_party"]
        assert state["sides"]["host"]["points"] == 0 == state["sides"]["guest"]["points"]
        assert state["phase"] in fp_pvp.tracker.PHASES and state["phase"] != "deploy"
        assert sorted(set(third["arrived"])) == sorted(third["arrived"]) and set(third["arrived"]) <= {1, 2, 3}
        assert (2 in third["arrived"]) == (state["round"] >= 3)
        if 3 in third["arrived"]:
            assert third["edges"]["3"] != third["edges"]["2"]
        for f in state["figures"]:
            assert f["status"] in ("undeployed", "active", "casualty", "retreated") and 0 <= f["stun"] <= 9
            if f["side"] == THIRD and f["wave"] not in third["arrived"]:
                assert f["status"] == "undeployed"
            assert f["status"] != "undeployed" or f["side"] == THIRD
        if state["turn"] is not None and state["phase"] in ("quick", "slow"):
            assert any(
                f["slot"] == state["phase"] and not f["acted"] and f["status"] == "active"
                for f in state["figures"]
                if f["side"] == state["turn"]
            )
        if state["phase"] == "over" and state["held_field"] == "both":
            assert not any(f["side"] == THIRD and f["status"] == "active" for f in state["figures"])
        assert state["held_field"] in (None, "both", "none")
    event(f"round {state['round']} {state['phase']}")  # how far play went (--hypothesis-show-statistics)
    again = start
    for action, seed in done:
        again, _ = fp_pvp.apply(again, action, Dice(seed=seed), tables)
    assert again == state
