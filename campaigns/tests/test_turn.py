"""The guided campaign turn (p.9): planning, conditions and the engine's step rules."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from campaigns.engine import turn
from campaigns.engine.options import CampaignOptions
from campaigns.engine.slots import SLOT_KEYS
from campaigns.engine.view import BattleView, CampaignView, CrewView, FactionView, RivalView, WorldView
from campaigns.engine.world import LoanTerms
from rules.engine.dice import Dice
from rules.fixturefiles import read_all

TABLES = {s.slug: s.engine() for s in read_all() if s.system == "fiveparsecs"}
ALL_ON = CampaignOptions(
    loans=True,
    expanded_factions=True,
    fringe_world_strife=True,
    psionics="crew",
    elite_enemies="roll",
    story_track=True,
)
OPTIONAL_KEYS = {
    "travel.factions_fleeing",
    "arrival.factions",
    "arrival.instability",
    "arrival.psionic_legality",
    "world.loan_enforcement",
    "world.faction_job",
    "battle.elite",
    "post.psionic_detection",
    "post.faction_loyalty",
    "post.faction_activity",
    "post.instability",
    "post.faction_event",
    "post.story_track",
}


def view(turn_number: int = 7, options: CampaignOptions | None = None, **over: Any) -> CampaignView:
    return CampaignView(turn=turn_number, options=options or CampaignOptions(), **over)


def keys(campaign: CampaignView) -> list[str]:
    return [s.key for s in turn.plan_turn(campaign, TABLES)]


def step(key: str, campaign: CampaignView | None = None) -> turn.StepSpec:
    for spec in turn.plan_turn(campaign or view(options=ALL_ON), TABLES):
        if spec.key == key:
            return spec
    raise AssertionError(f"no step {key}")


# -- planning --------------------------------------------------------------------------------


def test_options_off_has_no_optional_steps_and_on_has_them_all() -> None:
    off = keys(view())
    on = keys(view(options=ALL_ON))
    assert not OPTIONAL_KEYS & set(off)
    assert set(on) >= OPTIONAL_KEYS
    assert set(off) < set(on)


def test_each_option_brings_only_its_own_steps() -> None:
    base = set(keys(view()))
    assert set(keys(view(options=CampaignOptions(loans=True)))) - base == {"world.loan_enforcement"}
    assert set(keys(view(options=CampaignOptions(fringe_world_strife=True)))) - base == {
        "arrival.instability",
        "post.instability",
    }
    assert set(keys(view(options=CampaignOptions(story_track=True)))) - base == {"post.story_track"}
    assert set(keys(view(options=CampaignOptions(expanded_factions=True)))) - base == {
        "travel.factions_fleeing",
        "arrival.factions",
        "world.faction_job",
        "post.faction_loyalty",
        "post.faction_activity",
        "post.faction_event",
    }


def test_psionic_steps_need_crew_psionics() -> None:
    psionic = {"arrival.psionic_legality", "post.psionic_detection"}
    assert psionic <= set(keys(view(options=CampaignOptions(psionics="both"))))
    assert not psionic & set(keys(view(options=CampaignOptions(psionics="enemies"))))


def test_elite_step_unless_never() -> None:
    assert "battle.elite" not in keys(view())
    assert "battle.elite" in keys(view(options=CampaignOptions(elite_enemies="always")))
    assert "battle.elite" in keys(view(options=CampaignOptions(progressive=frozenset({2}))))


def test_research_step_only_with_the_component() -> None:
    assert "travel.research" not in keys(view())
    with_lab = keys(view(ship_components=("Scientific Research System",)))
    assert with_lab.index("travel.research") == with_lab.index("travel.decide") + 1


def test_order_and_core_numbers() -> None:
    plan = turn.plan_turn(view(options=ALL_ON), TABLES)
    phases = [s.phase for s in plan]
    assert phases == sorted(phases, key=turn.PHASES.index)
    by_key = {s.key: s for s in plan}
    assert by_key["travel.decide"].core_step == 2
    assert by_key["arrival.rivals"].core_step == 4
    assert by_key["post.paid"].core_step == 4
    assert by_key["post.invasion"].core_step == 6
    assert by_key["post.galactic_war"].core_step == 14
    assert by_key["post.psionic_detection"].core_step is None and by_key["post.psionic_detection"].source == "p.21"
    assert by_key["post.story_track"].source == "core p.153"
    assert by_key["world.loan_enforcement"].option == "loans"
    k = list(by_key)
    assert k.index("post.rivals") < k.index("post.psionic_detection") < k.index("post.patrons")
    assert k.index("post.invasion") < k.index("post.instability") < k.index("post.loot")
    assert k.index("battle.record") == k.index("battle.brief") + 1
    assert k[-1] == "post.story_track"


def test_every_slot_and_rule_is_known() -> None:
    for spec in turn.plan_turn(view(options=ALL_ON, ship_components=("Scientific Research System",)), TABLES):
        assert spec.slot == "" or spec.slot in SLOT_KEYS
        assert spec.rule == "" or spec.rule in turn.ENGINE_RULES + turn.SERVICE_RULES
        assert spec.table == "" or spec.table in TABLES
        assert spec.phase in turn.PHASES
    json.dumps([s.as_dict() for s in turn.plan_turn(view(options=ALL_ON), TABLES)])


def test_service_rules_are_named() -> None:
    rules = {s.key: s.rule for s in turn.plan_turn(view(options=ALL_ON), TABLES)}
    assert rules["world.upkeep"] == "upkeep"
    assert rules["battle.elite"] == "elite_check" and rules["battle.brief"] == "battle_brief"
    assert (rules["post.injuries"], rules["post.xp"], rules["post.training"], rules["post.purchase"]) == (
        "injuries",
        "xp",
        "training",
        "purchase",
    )


def test_salvage_steps_stay_with_their_condition() -> None:
    by_key = {s.key: s for s in turn.plan_turn(view(), TABLES)}
    for key in ("battle.salvage_poi", "post.trade_salvage", "post.salvage_poi"):
        assert by_key[key].condition == "salvage"
    assert by_key["battle.deployment"].condition == "not_salvage&not_pvp"  # nor in a PvP battle (p.36)
    # The meeting rolls the enemy of a PvP battle and of a co-op battle (pp.35, 40).
    assert by_key["battle.enemy"].condition == "not_pvp&not_coop" and by_key["post.rivals"].condition == "not_pvp"


# -- introductory campaign ---------------------------------------------------------------------


INTRO = CampaignOptions(introductory_campaign=True, loans=True, psionics="crew", fringe_world_strife=True, story_track=True)


def test_intro_turn_one_is_only_a_battle_and_a_short_aftermath() -> None:
    plan = keys(view(1, INTRO))
    assert plan == [
        "battle.type",
        "battle.objective",
        "battle.enemy",
        "battle.setup",
        "battle.brief",
        "battle.record",
        "post.paid",
        "post.finds",
        "post.loot",
        "post.pvp_loot",  # skipped unless a PvP battle earned the bonus Loot roll (p.37)
        "post.injuries",
        "post.xp",
    ]
    enemy = step("battle.enemy", view(1, INTRO))
    assert enemy.table == "introductory-campaign-enemies"
    assert "Fight Off" in step("battle.objective", view(1, INTRO)).note


def test_intro_turn_five_is_the_full_turn_plus_the_tutorial_reward() -> None:
    plan = keys(view(5, INTRO))
    full = keys(view(5, replace(INTRO, introductory_campaign=False)))
    assert [k for k in plan if k != "post.tutorial_done"] == [k for k in full if k != "post.story_track"]
    assert plan[-1] == "post.tutorial_done"
    assert "post.story_track" in keys(view(6, INTRO))
    assert "post.tutorial_done" not in keys(view(6, INTRO))


def test_intro_compendium_steps_follow_their_core_step() -> None:
    turn2 = keys(view(2, INTRO))
    assert "world.loan_enforcement" in turn2  # hangs on Upkeep (world 1)
    assert "arrival.psionic_legality" not in turn2  # no travel yet
    turn3 = keys(view(3, INTRO))
    assert {"travel.decide", "arrival.psionic_legality", "arrival.instability"} <= set(turn3)
    assert "post.instability" not in turn3  # Check for invasion is not done yet
    assert "post.instability" in keys(view(4, INTRO))
    assert "post.psionic_detection" not in keys(view(4, INTRO))


def test_intro_turn_notes_show_the_limits() -> None:
    tasks = step("world.crew_tasks", view(2, INTRO))
    assert "Train" in tasks.note and "Find a Patron" not in tasks.note
    assert "Find a Patron" in step("world.crew_tasks", view(4, INTRO)).note
    assert "Medical" in step("world.upkeep", view(2, INTRO)).note
    assert "-1" in step("battle.setup", view(3, INTRO)).note


def test_turn_zero_is_not_a_campaign_turn() -> None:
    with pytest.raises(turn.TurnError) as err:
        turn.plan_turn(view(0, INTRO), TABLES)
    assert err.value.field == "turn"


# -- conditions ------------------------------------------------------------------------------


def test_conditions_read_the_facts() -> None:
    campaign = view(world=WorldView(name="Gough III"))
    event = step("travel.event", campaign)
    assert not turn.applies(event, campaign, {})
    assert turn.applies(event, campaign, {"traveled": True})
    poi = step("battle.salvage_poi", campaign)
    deploy = step("battle.deployment", campaign)
    assert turn.applies(poi, campaign, {"mission": "salvage"}) and not turn.applies(deploy, campaign, {"mission": "salvage"})
    assert not turn.applies(poi, campaign, {"mission": "patron"}) and turn.applies(deploy, campaign, {"mission": "patron"})
    finds = step("post.finds", campaign)
    assert turn.applies(finds, campaign, {"battle": {"held_field": True}})
    assert not turn.applies(finds, campaign, {"battle": {"held_field": False}})


def test_invaded_comes_from_facts_or_the_world() -> None:
    campaign = view(options=ALL_ON, world=WorldView(name="X", invaded=True), factions=(FactionView("A", influence=2, power=2),))
    flee = step("travel.factions_fleeing", campaign)
    assert turn.applies(flee, campaign, {})
    activity = step("post.faction_activity", campaign)
    assert not turn.applies(activity, campaign, {})
    assert turn.applies(activity, campaign, {"invaded": False})


def test_first_world_gets_arrival_rolls_without_traveling() -> None:
    fresh = view(1, ALL_ON)
    legality = step("arrival.psionic_legality", fresh)
    assert turn.applies(legality, fresh, {"traveled": False})
    settled = view(2, ALL_ON, world=WorldView(name="Gough III"))
    assert not turn.applies(legality, settled, {"traveled": False})
    assert turn.applies(legality, settled, {"new_world": True})
    assert not turn.applies(step("arrival.world_traits", settled), settled, {"traveled": True, "krag_colony": True})


def test_detection_needs_powers_used_on_an_outlawed_world() -> None:
    campaign = view(options=ALL_ON, world=WorldView(name="X", psionic_legality="outlawed"))
    detect = step("post.psionic_detection", campaign)
    assert turn.applies(detect, campaign, {"battle": {"psionic_uses": 2}})
    assert not turn.applies(detect, campaign, {"battle": {"psionic_uses": 0}})
    assert not turn.applies(detect, campaign, {"battle": {"psionic_uses": 2}, "psionic_legality": "unusual"})
    with_battle = replace(campaign, battle=BattleView(psionic_uses=1))
    assert turn.applies(detect, with_battle, {})


def test_unknown_condition_is_refused() -> None:
    odd = turn.StepSpec("x.y", "world", "Odd", condition="sunny")
    with pytest.raises(turn.TurnError) as err:
        turn.applies(odd, view(), {})
    assert err.value.field == "condition" and "traveled" in str(err.value)


# -- resolving -------------------------------------------------------------------------------


def run(key: str, campaign: CampaignView, *, seed: int = 1, **kwargs: Any) -> turn.StepResult:
    return turn.resolve(step(key, campaign), campaign, TABLES, Dice(seed=seed), **kwargs)


def test_travel_decide_asks_then_records() -> None:
    campaign = view(options=ALL_ON, world=WorldView(name="X"))
    asked = run("travel.decide", campaign)
    assert asked.needs == ("travel",) and asked.rolls == () and asked.changes == ()
    went = run("travel.decide", campaign, inputs={"travel": "yes"})
    assert went.facts["traveled"] is True and went.facts["new_world"] is True and went.facts["krag_colony"] is False
    stayed = run("travel.decide", campaign, inputs={"travel": "no"})
    assert stayed.facts["traveled"] is False and stayed.facts["new_world"] is False
    with pytest.raises(turn.TurnError) as err:
        run("travel.decide", campaign, inputs={"travel": "maybe"})
    assert err.value.field == "travel" and "yes, no" in str(err.value)


def test_krag_colony_visit_costs_a_story_point_to_learn() -> None:
    poor = view(options=ALL_ON, world=WorldView(name="X"), story_points=0)
    with pytest.raises(turn.TurnError) as err:
        run("travel.decide", poor, inputs={"travel": "yes", "krag_colony": "new"})
    assert err.value.field == "krag_colony"
    known = run("travel.decide", poor, inputs={"travel": "yes", "krag_colony": "known"})
    assert known.changes == () and known.facts["krag_colony"] is True
    rich = replace(poor, story_points=2)
    paid = run("travel.decide", rich, inputs={"travel": "yes", "krag_colony": "new"})
    assert paid.changes[0].kind == "story_points" and paid.changes[0].data["amount"] == -1
    with pytest.raises(turn.TurnError):
        run("travel.decide", rich, inputs={"travel": "no", "krag_colony": "known"})


def test_new_world_step_uses_krag_traits() -> None:
    campaign = view(options=ALL_ON)
    out = run("arrival.world", campaign, facts={"krag_colony": True}, inputs={"name": "Grakk"})
    assert out.changes[0].data["traits"] == ["Busy Markets", "Vendetta System"]
    assert out.facts["world_name"] == "Grakk"


@pytest.mark.parametrize(("value", "kind", "amount"), [(2, None, 0), (3, "credits", 2), (5, "rumor_add", 1)])
def test_research_roll(value: int, kind: str | None, amount: int) -> None:
    campaign = view(ship_components=("Scientific Research System",))
    out = run("travel.research", campaign, value=value)
    assert [c.kind for c in out.changes] == ([kind] if kind else [])
    if kind == "credits":
        assert out.changes[0].data["amount"] == amount


def test_elite_rivals_follow_on_four_plus() -> None:
    rivals = (RivalView("Red Claw", elite=True), RivalView("Vex", elite=True), RivalView("Local punks"))
    campaign = view(options=ALL_ON, rivals=rivals)
    out = run("arrival.rivals", campaign, value=3, inputs={"faces": [4]})
    assert [c.data["name"] for c in out.changes if c.kind == "rival_remove"] == ["Red Claw"]
    assert len(out.rolls) == 2 and all(r.entered for r in out.rolls)
    assert "core rules" in out.text and "Local punks" in out.text


def test_psionic_legality_step_changes_the_world() -> None:
    out = run("arrival.psionic_legality", view(options=ALL_ON), value=60)
    assert out.changes[0].data == {"psionic_legality": "who_cares"}
    assert out.facts["psionic_legality"] == "who_cares"
    with pytest.raises(turn.TurnError) as err:
        run("arrival.psionic_legality", view(options=ALL_ON), value=0)
    assert err.value.field == "value"


def psionic_view(uses: int, legality: str = "outlawed") -> CampaignView:
    return view(
        options=ALL_ON,
        crew=(CrewView("c1", "Mira", psionic=True),),
        world=WorldView(name="X", psionic_legality=legality),
        battle=BattleView(psionic_uses=uses),
    )


@pytest.mark.parametrize(("uses", "face", "detected"), [(1, 1, True), (1, 2, False), (3, 2, True), (3, 3, False)])
def test_psionic_detection_thresholds(uses: int, face: int, detected: bool) -> None:
    out = run("post.psionic_detection", psionic_view(uses), value=face, inputs={"faces": [4]})
    assert out.facts["psionic_detected"] is detected
    if detected:
        rival = out.changes[0]
        assert rival.kind == "rival_add" and rival.data["psi_hunter"] is True and rival.data["kind"] == "Enforcers"
    else:
        assert out.changes == ()


def test_psionic_detection_skips_legal_worlds() -> None:
    out = run("post.psionic_detection", psionic_view(2, "unusual"), value=1)
    assert out.rolls == () and out.changes == ()


def test_battle_record_builds_the_battle_facts() -> None:
    campaign = view(options=ALL_ON, crew=(CrewView("c1", "Mira", psionic=True), CrewView("c2", "Bo")))
    out = run(
        "battle.record",
        campaign,
        facts={"mission": "patron"},
        inputs={"won": "yes", "held_field": True, "psionic_uses": 2, "casualties": ["c2"], "roving_threat": "yes"},
    )
    battle = out.facts["battle"]
    assert battle["mission"] == "patron" and battle["won"] and battle["held_field"]
    assert battle["psionic_uses"] == 2 and battle["casualties"] == ["c2"]
    assert out.facts["roving_threat"] is True
    json.dumps(out.as_dict())
    with pytest.raises(turn.TurnError) as err:
        run("battle.record", campaign, inputs={"won": "yes", "held_field": "no", "casualties": ["c9"]})
    assert err.value.field == "casualties"
    no_psionic = view(options=ALL_ON, crew=(CrewView("c2", "Bo"),))
    with pytest.raises(turn.TurnError) as err:
        run("battle.record", no_psionic, inputs={"won": "yes", "held_field": "no", "psionic_uses": 1})
    assert err.value.field == "psionic_uses"


def test_battle_record_inputs_follow_the_options() -> None:
    plain = {name for name, _k, _c in step("battle.record", view()).inputs}
    assert "psionic_uses" not in plain and "faction_job" not in plain and "roving_threat" not in plain
    rich = {name for name, _k, _c in step("battle.record").inputs}
    assert {"psionic_uses", "faction_job", "roving_threat"} <= rich


def test_battle_type_validates_the_mission() -> None:
    assert run("battle.type", view(), inputs={"mission": "Salvage"}).facts == {"mission": "salvage"}
    with pytest.raises(turn.TurnError) as err:
        run("battle.type", view(), inputs={"mission": "heist"})
    assert err.value.field == "mission" and "opportunity" in str(err.value)


def loan_view(balance: int) -> CampaignView:
    loan = LoanTerms(
        origin="Corporate",
        enforcement_column="Corporate",
        collection_squad="Corporate security",
        extra_credits=0,
        interest="Average",
        low_interest=1,
        high_interest=3,
        low_interest_max_owed=30,
        aggressiveness="Moderate",
        threshold_1=60,
        threshold_2=75,
        extra_roll_step=5,
    )
    return view(options=ALL_ON, loan_balance=balance, loan_terms=loan.as_dict())


def test_loan_enforcement_step() -> None:
    campaign = loan_view(62)
    asked = run("world.loan_enforcement", campaign)
    assert asked.needs == ("balance_before",)
    out = run("world.loan_enforcement", campaign, value=90, facts={"loan_balance_before": 58})
    assert out.facts["loan_enforcement"] == ["Permanent seizure"]
    assert "seizure" in out.changes[0].data["note"]
    quiet = run("world.loan_enforcement", campaign, inputs={"balance_before": 61})
    assert quiet.rolls == ()
    with pytest.raises(turn.TurnError) as err:
        run("world.loan_enforcement", view(options=ALL_ON, loan_balance=10))
    assert err.value.field == "loan_terms"


def test_arrival_instability_and_post_battle_check() -> None:
    arrival = run("arrival.instability", view(options=ALL_ON), value=4)
    assert arrival.facts == {"unstable": True, "instability": 1}
    calm = run("arrival.instability", view(options=ALL_ON), value=4, inputs={"calm": "yes"})
    assert calm.facts["unstable"] is False
    campaign = view(options=ALL_ON, world=WorldView(name="X", unstable=True, instability=4), rivals=(RivalView("Gang"),))
    facts = {"mission": "patron", "battle": {"won": True, "held_field": True}, "roving_threat": True}
    out = run("post.instability", campaign, facts=facts, inputs={"faces": [3]})
    assert out.facts["instability"] == 4 + 3 + 1 - 1 - 1


def test_factions_through_the_turn() -> None:
    factions = (FactionView("Cartel", influence=3, power=2, loyalty=1), FactionView("Cult", influence=2, power=5))
    campaign = view(options=ALL_ON, world=WorldView(name="X"), factions=factions)
    job = run("world.faction_job", campaign, value=3, inputs={"faction": "cartel"})
    assert job.facts["faction_job_offer"] == "Cartel"
    assert run("world.faction_job", campaign).rolls == ()
    with pytest.raises(turn.TurnError) as err:
        run("world.faction_job", campaign, inputs={"faction": "Guild"})
    assert err.value.field == "faction" and "Cartel" in str(err.value)
    loyalty = run("post.faction_loyalty", campaign, value=4, facts={"faction_job": "Cartel", "battle": {"won": True}})
    assert loyalty.changes[0].data == {"name": "Cartel", "loyalty": 1}
    arrival = run(
        "arrival.factions",
        campaign,
        value=1,
        inputs={"faces": [5, 1, 1, 20, 2, 2]},
        facts={"traveled": True, "factions_fled": ["Cult"]},
    )
    removed = [c.data["name"] for c in arrival.changes if c.kind == "faction_remove"]
    assert removed == ["Cartel"] and arrival.facts["factions_count"] == 3


def test_tutorial_reward_and_story_track_clock() -> None:
    out = run("post.tutorial_done", view(5, INTRO))
    assert out.changes[0].data == {"amount": 2} and "5 Ticks" in out.text


def test_resolve_refuses_service_steps_and_unknown_inputs() -> None:
    with pytest.raises(turn.TurnError) as err:
        run("world.upkeep", view())
    assert err.value.field == "rule"
    with pytest.raises(turn.TurnError) as err:
        run("battle.type", view(), inputs={"mission": "patron", "colour": "red"})
    assert err.value.field == "colour" and "mission" in str(err.value)
    with pytest.raises(turn.TurnError) as err:
        turn.resolve(turn.StepSpec("a.b", "world", "Manual"), view(), TABLES, Dice(seed=1))
    assert err.value.field == "rule"
