"""Five Parsecs battle set-up engine: mission (p.116, pp.74-77), deployment (pp.44-45), AI
Variations (pp.42-43), terrain (pp.94-98) and the difficulty options that change a battle."""

from __future__ import annotations

import json
from typing import Any

import pytest

from battles.engine import fp_setup as fs
from campaigns.engine.difficulty import BATTLE_TOGGLES
from campaigns.engine.options import CampaignOptions
from rules.engine.dice import Dice
from rules.engine.tables import Entry, RangeTable
from rules.fixturefiles import read_all

TABLES = {s.slug: s.engine() for s in read_all() if s.system == "fiveparsecs"}
PLAIN = CampaignOptions()


def setup(seed: int = 7, **kwargs: Any) -> fs.BattleSetup:
    args: dict[str, Any] = {
        "options": PLAIN,
        "campaign_turn": 1,
        "crew_size": 5,
        "theme": "industrial",
        "mission_source": "opportunity",
        "battle_type": "conventional",
    }
    args.update(kwargs)
    return fs.generate(Dice(seed=seed), TABLES, **args)


# -- terrain ----------------------------------------------------------------------------


@pytest.mark.parametrize("theme", fs.THEMES)
def test_terrain_has_a_centre_four_quarters_of_four_features_and_scatter(theme):
    card = fs.roll_terrain(Dice(seed=3), TABLES, theme=theme)
    assert card.theme == theme
    assert card.sectors == 4
    assert len(card.quarters) == 4
    assert all(len(q.features) == 4 for q in card.quarters)
    assert all(1 <= n <= 6 for n in card.scatter)
    notable = TABLES[f"terrain-{theme}-notable"]
    assert card.notable.result == notable.lookup(card.notable.face or 0).result
    # one notable D6, then per quarter one 4D6 record and one scatter D6
    assert len(card.rolls) == 1 + 4 * 2
    assert [len(r.faces) for r in card.rolls] == [1] + [4, 1] * 4
    assert all(r.reason for r in card.rolls)


def test_terrain_uses_typed_faces_in_order():
    faces = [5, *[1, 2, 4, 5, 3], *[6, 6, 6, 6, 1], *[3, 3, 3, 3, 2], *[4, 4, 4, 4, 6]]
    card = fs.roll_terrain(Dice(seed=1), TABLES, theme="industrial", faces=faces)
    assert card.notable.result.startswith("Cargo area")
    assert [f.face for f in card.quarters[0].features] == [1, 2, 4, 5]
    assert card.quarters[0].features[1].result == "Building"
    assert card.scatter == (3, 1, 2, 6)
    assert all(r.entered for r in card.rolls)


def test_industrial_quarter_notes_for_buildings_and_open_ground():
    faces = [1, *[2, 2, 1, 1, 1], *[3, 3, 1, 1, 1], *[1, 2, 3, 4, 1], *[1, 1, 1, 1, 1]]
    card = fs.roll_terrain(Dice(seed=1), TABLES, theme="industrial", faces=faces)
    assert any("buildings" in n for n in card.quarters[0].notes)
    assert any("hill" in n for n in card.quarters[1].notes)
    assert card.quarters[2].notes == ()
    wild = fs.roll_terrain(Dice(seed=1), TABLES, theme="wilderness", faces=faces)
    assert all(q.notes == () for q in wild.quarters)


def test_crashed_ship_model_skips_the_notable_roll():
    with_model = fs.roll_terrain(Dice(seed=2), TABLES, theme="crash-site", crashed_ship=True)
    without = fs.roll_terrain(Dice(seed=2), TABLES, theme="crash_site")
    assert with_model.notable.face is None
    assert len(with_model.rolls) == len(without.rolls) - 1
    assert without.notable.face is not None


def test_terrain_lines_list_the_centre_and_every_quarter():
    lines = fs.roll_terrain(Dice(seed=4), TABLES, theme="Alien Ruin").lines
    assert lines[0].startswith("Terrain: Alien Ruin")
    assert sum(1 for line in lines if line.startswith("Quarter ")) == 4


def test_terrain_errors_name_the_field():
    with pytest.raises(fs.SetupError) as bad_theme:
        fs.roll_terrain(Dice(seed=1), TABLES, theme="jungle")
    assert bad_theme.value.field == "theme"
    assert "industrial" in str(bad_theme.value)
    with pytest.raises(fs.SetupError) as short:
        fs.roll_terrain(Dice(seed=1), TABLES, theme="industrial", faces=[1, 2])
    assert short.value.field == "faces"
    with pytest.raises(fs.SetupError) as extra:
        fs.roll_terrain(Dice(seed=1), TABLES, theme="industrial", faces=[1] * 22)
    assert extra.value.field == "faces"
    with pytest.raises(fs.SetupError) as bad_face:
        fs.roll_terrain(Dice(seed=1), TABLES, theme="industrial", faces=[7] + [1] * 20)
    assert bad_face.value.field == "faces"
    with pytest.raises(fs.SetupError) as missing:
        fs.roll_terrain(Dice(seed=1), {}, theme="industrial")
    assert missing.value.field == "tables"


# -- mission selection ------------------------------------------------------------------


def test_rival_and_invasion_are_conventional_without_a_roll():
    for source in ("rival", "invasion"):
        plan = fs.roll_mission(Dice(seed=1), TABLES, source=source, options=PLAIN, expanded=False)
        assert plan.battle_type == "conventional"
        assert plan.rolls == ()


@pytest.mark.parametrize(
    ("source", "face", "kind"),
    [
        ("opportunity", 4, "conventional"),
        ("opportunity", 5, "stealth"),
        ("opportunity", 6, "street_fight"),
        ("patron", 3, "stealth"),
        ("faction", 5, "street_fight"),
        ("quest", 6, "salvage"),
    ],
)
def test_mission_selection_by_source(source, face, kind):
    plan = fs.roll_mission(Dice(seed=1), TABLES, source=source, options=PLAIN, expanded=False, faces=[face])
    assert plan.battle_type == kind
    assert plan.rolls[0].reason.startswith("Mission Selection")
    assert not plan.chosen


def test_faction_conventional_is_a_patron_job():
    plan = fs.roll_mission(Dice(seed=1), TABLES, source="faction", options=PLAIN, expanded=False, faces=[1])
    assert plan.patron
    assert any("Patron mission" in n for n in plan.notes)
    stealth = fs.roll_mission(Dice(seed=1), TABLES, source="faction", options=PLAIN, expanded=False, faces=[2])
    assert not stealth.patron


def test_salvage_source_and_chosen_type_make_no_roll():
    salvage = fs.roll_mission(Dice(seed=1), TABLES, source="salvage", options=PLAIN, expanded=True)
    assert salvage.battle_type == "salvage"
    assert salvage.rolls == ()
    chosen = fs.roll_mission(Dice(seed=1), TABLES, source="Quest mission", options=PLAIN, expanded=False, battle_type="stealth")
    assert chosen.chosen
    assert chosen.battle_type == "stealth"
    assert chosen.rolls == ()


def test_mission_errors_name_the_field():
    with pytest.raises(fs.SetupError) as source:
        fs.roll_mission(Dice(seed=1), TABLES, source="bounty", options=PLAIN, expanded=False)
    assert source.value.field == "source"
    with pytest.raises(fs.SetupError) as kind:
        fs.roll_mission(Dice(seed=1), TABLES, source="patron", options=PLAIN, expanded=False, battle_type="siege")
    assert kind.value.field == "battle_type"
    with pytest.raises(fs.SetupError) as size:
        fs.roll_mission(Dice(seed=1), TABLES, source="patron", options=PLAIN, expanded=True, table_ft=4)
    assert size.value.field == "table_ft"


# -- expanded missions ------------------------------------------------------------------


def test_expanded_missions_on_vs_off():
    off = fs.roll_mission(Dice(seed=5), TABLES, source="rival", options=PLAIN, expanded=False)
    on = fs.roll_mission(Dice(seed=5), TABLES, source="rival", options=PLAIN, expanded=True)
    assert not off.expanded and off.objectives == () and off.overview == ""
    assert any("core rulebook" in n for n in off.notes)
    assert on.expanded and on.overview
    assert 1 <= len(on.objectives) <= 2
    assert on.enemy_edge is not None and on.crew_edge == fs.OPPOSITE[on.enemy_edge]
    assert on.rolls and all(r.reason for r in on.rolls)


def test_expanded_mission_from_typed_dice():
    faces = [
        70,  # overview: two objectives, both required, +1 XP
        66,  # objective 1: Rescue (placed 1D6" from the centre)
        4,  # its distance
        3,  # its direction, D12 clock
        40,  # objective 2: Investigate, 6 markers
        20,  # time 1: first 6 rounds
        90,  # time 2: no limit, extraction unknown -> no extraction roll now
        6,  # enemy edge: near
        68,  # Patron condition: Flash flooding
        9,  # its starting edge: left
    ]
    plan = fs.roll_mission(
        Dice(seed=1), TABLES, source="patron", options=PLAIN, expanded=True, battle_type="conventional", faces=faces
    )
    assert plan.required == 2 and plan.completion_xp == 1
    rescue, investigate = plan.objectives
    assert rescue.name == "Rescue" and rescue.placement == "4\" from the centre toward 3 o'clock"
    assert rescue.time_limit == 6 and not rescue.core_rulebook
    assert investigate.name == "Investigate" and investigate.markers == 6 and investigate.time_limit is None
    assert investigate.extraction_unknown
    assert plan.extraction is None and plan.extraction_deferred
    assert str(plan.enemy_edge).startswith("near") and str(plan.crew_edge).startswith("far")
    assert (plan.enemy_deploy_in, plan.crew_deploy_in) == (9, 9)
    assert plan.patron_condition is not None
    assert plan.patron_condition.result == "Flash flooding"
    assert str(plan.patron_condition.edge).startswith("left")
    assert len(plan.rolls) == len(faces)
    assert all(r.entered for r in plan.rolls)


def test_core_objective_gets_a_centre_reminder_and_extraction_is_rolled():
    faces = [10, 95, 1, 29, 5]  # single; Sweep; no limit; extraction 29 -> ends at once; edge far
    sweep = fs.roll_mission(Dice(seed=1), TABLES, source="rival", options=PLAIN, expanded=True, faces=faces)
    assert sweep.objectives[0].name == "Sweep" and sweep.objectives[0].markers == 3
    assert sweep.extraction is not None and sweep.extraction.result == "Mission ends immediately"
    assert not any("centre is moved" in n for n in sweep.notes)
    core = fs.roll_mission(Dice(seed=1), TABLES, source="rival", options=PLAIN, expanded=True, faces=[10, 75, 1, 29, 5])
    assert core.objectives[0].name == "Secure" and core.objectives[0].core_page == 91
    assert any("centre is moved" in n for n in core.notes)


def test_two_foot_table_crew_walks_on():
    plan = fs.roll_mission(
        Dice(seed=1), TABLES, source="rival", options=PLAIN, expanded=True, table_ft=2, faces=[10, 75, 1, 29, 5]
    )
    assert plan.enemy_deploy_in == 6 and plan.crew_deploy_in is None
    assert any("walk on" in line for line in plan.lines())


def test_patron_condition_only_for_patron_jobs():
    faces = [10, 75, 1, 29, 5]
    plain = fs.roll_mission(
        Dice(seed=1), TABLES, source="opportunity", options=PLAIN, expanded=True, battle_type="conventional", faces=faces
    )
    patron = fs.roll_mission(
        Dice(seed=1),
        TABLES,
        source="opportunity",
        options=PLAIN,
        expanded=True,
        battle_type="conventional",
        patron=True,
        faces=[*faces, 1],
    )
    assert plain.patron_condition is None
    assert patron.patron_condition is not None and patron.patron_condition.result == "Collateral damage restriction"
    assert patron.patron_condition.crew_only


def test_expanded_missions_leave_other_battle_types_alone():
    plan = fs.roll_mission(Dice(seed=1), TABLES, source="patron", options=PLAIN, expanded=True, battle_type="street_fight")
    assert not plan.expanded and plan.objectives == () and plan.rolls == ()
    assert any("p.123" in n for n in plan.notes)


def test_deferred_extraction_roll():
    extraction = fs.roll_extraction(Dice(seed=1), TABLES, faces=[90])
    assert extraction.result == "Enemy reinforcements"
    assert extraction.basic_enemies == 4 and extraction.round_limit == 3
    assert extraction.roll is not None and extraction.roll.entered


def test_core_objective_typed_or_rolled_on_the_users_table():
    typed = fs.roll_mission(Dice(seed=1), TABLES, source="rival", options=PLAIN, expanded=False, objective="Fight Off")
    assert typed.objectives[0].name == "Fight Off"
    table = RangeTable.build(
        "my-objectives",
        "My objectives",
        "D6",
        [
            Entry("Move Through", 1, 3, column="Patron"),
            Entry("Deliver", 4, 6, column="Patron"),
            Entry("Fight Off", 1, 6, column="Rival"),
        ],
        columns=("Patron", "Rival"),
    )
    rolled = fs.roll_mission(
        Dice(seed=1),
        TABLES,
        source="patron",
        options=PLAIN,
        expanded=False,
        battle_type="conventional",
        core_objectives=table,
        faces=[5],
    )
    assert rolled.objectives[0].name == "Deliver"
    with pytest.raises(fs.SetupError) as err:
        fs.roll_mission(
            Dice(seed=1), TABLES, source="quest", options=PLAIN, expanded=False, battle_type="conventional", core_objectives=table
        )
    assert err.value.field == "core_objectives"


def test_paying_by_the_hour_rolls_a_last_round():
    hourly = CampaignOptions(toggles=frozenset({"paying_by_the_hour"}))
    on = fs.roll_mission(Dice(seed=1), TABLES, source="rival", options=hourly, expanded=False, faces=[2, 5])
    off = fs.roll_mission(Dice(seed=1), TABLES, source="rival", options=PLAIN, expanded=False)
    assert on.time_limit_round == 9  # higher of 2 and 5, plus 4
    assert on.rolls[-1].reason.startswith("Paying us by the Hour")
    assert off.time_limit_round is None and off.rolls == ()
    for seed in range(20):
        limit = fs.roll_mission(Dice(seed=seed), TABLES, source="rival", options=hourly, expanded=False).time_limit_round
        assert limit is not None and 5 <= limit <= 10


# -- deployment variables ---------------------------------------------------------------


def test_deployment_variables_on_vs_off():
    assert fs.roll_deployment(Dice(seed=1), TABLES, ai_type="tactical", options=PLAIN) is None
    plan = fs.roll_deployment(Dice(seed=1), TABLES, ai_type="tactical", options=PLAIN, enabled=True)
    assert plan is not None and len(plan.rolls) >= 1
    assert plan.rolls[0].reason == "Enemy Deployment Variables (Tactical AI)"


def test_progressive_option_2_turns_deployment_variables_on_at_turn_4():
    progressive = CampaignOptions(progressive=frozenset({2}))
    assert fs.roll_deployment(Dice(seed=1), TABLES, ai_type="cautious", options=progressive, campaign_turn=3) is None
    assert fs.roll_deployment(Dice(seed=1), TABLES, ai_type="cautious", options=progressive, campaign_turn=4) is not None


def test_flank_rolls_a_neutral_edge():
    plan = fs.roll_deployment(Dice(seed=1), TABLES, ai_type="tactical", options=PLAIN, enabled=True, faces=[25, 5])
    assert plan is not None
    assert plan.deployment == "half_flank" and plan.flank_edge == "right"
    assert plan.conditional
    flank = fs.roll_deployment(Dice(seed=1), TABLES, ai_type="tactical", options=PLAIN, enabled=True, faces=[85, 2])
    assert flank is not None
    assert flank.deployment == "bolstered_flank" and flank.flank_edge == "left" and flank.extra_specialists == 1


def test_seizing_the_initiative_means_line_without_a_roll():
    seized = fs.roll_deployment(Dice(seed=1), TABLES, ai_type="beast", options=PLAIN, enabled=True, seized=True)
    assert seized is not None and seized.deployment == "line" and seized.rolls == ()
    failed = fs.roll_deployment(Dice(seed=1), TABLES, ai_type="beast", options=PLAIN, enabled=True, seized=False, faces=[1, 4])
    assert failed is not None and failed.deployment == "half_flank" and not failed.conditional


def test_guardian_ai_keeps_line():
    plan = fs.roll_deployment(Dice(seed=1), TABLES, ai_type="Guardian", options=PLAIN, enabled=True)
    assert plan is not None and plan.deployment == "line" and plan.rolls == ()


def test_bolstered_line_compares_crew_and_enemy():
    outnumbering = fs.roll_deployment(
        Dice(seed=1), TABLES, ai_type="aggressive", options=PLAIN, enabled=True, crew_size=6, enemy_count=4, faces=[55]
    )
    equal = fs.roll_deployment(
        Dice(seed=1), TABLES, ai_type="aggressive", options=PLAIN, enabled=True, crew_size=4, enemy_count=4, faces=[55]
    )
    unknown = fs.roll_deployment(Dice(seed=1), TABLES, ai_type="aggressive", options=PLAIN, enabled=True, faces=[55])
    assert outnumbering is not None and equal is not None and unknown is not None
    assert (outnumbering.extra_basic, outnumbering.extra_specialists) == (1, 1)
    assert (equal.extra_basic, equal.extra_specialists) == (1, 0)
    assert any("outnumbers" in n for n in unknown.notes)


def test_reinforced_infiltration_and_concealed_notes():
    reinforced = fs.roll_deployment(Dice(seed=1), TABLES, ai_type="cautious", options=PLAIN, enabled=True, faces=[80])
    infiltration = fs.roll_deployment(Dice(seed=1), TABLES, ai_type="rampage", options=PLAIN, enabled=True, faces=[70])
    concealed = fs.roll_deployment(Dice(seed=1), TABLES, ai_type="defensive", options=PLAIN, enabled=True, faces=[100])
    assert reinforced is not None and reinforced.deployment == "reinforced" and reinforced.extra_basic == 2
    assert infiltration is not None and any("Round 2" in n for n in infiltration.notes)
    assert concealed is not None and any("Rounds 2, 3, 4" in n for n in concealed.notes)


def test_in_play_deployment_rolls():
    placement = fs.infiltration_placement(Dice(seed=1), TABLES, face=6)
    assert placement.placement == "player_edge" and placement.roll.entered
    assert fs.reinforced_arrives(Dice(seed=1), TABLES, round_number=2, face=3)[0] is False
    assert fs.reinforced_arrives(Dice(seed=1), TABLES, round_number=3, face=3)[0] is True
    feature, record = fs.concealed_feature(Dice(seed=1), TABLES, face=4)
    assert feature == 4 and record.reason
    with pytest.raises(fs.SetupError) as err:
        fs.reinforced_arrives(Dice(seed=1), TABLES, round_number=0)
    assert err.value.field == "round_number"


def test_deployment_errors_name_the_field():
    with pytest.raises(fs.SetupError) as err:
        fs.roll_deployment(Dice(seed=1), TABLES, ai_type="sneaky", options=PLAIN, enabled=True)
    assert err.value.field == "ai_type"
    with pytest.raises(fs.SetupError) as faces:
        fs.roll_deployment(Dice(seed=1), TABLES, ai_type="tactical", options=PLAIN, enabled=True, faces=[101])
    assert faces.value.field == "faces"


# -- AI variations ----------------------------------------------------------------------


def test_ai_variation_roll_and_base_condition():
    rolled = fs.ai_variation(Dice(seed=1), TABLES, ai_type="tactical", face=3)
    assert rolled.action == "advance_cover" and rolled.roll is not None and rolled.roll.reason == "AI Variations (Tactical)"
    base = fs.ai_variation(Dice(seed=1), TABLES, ai_type="cautious", base_condition=True)
    assert base.base_condition and base.roll is None and "12" in base.effect
    seeded = fs.ai_variation(Dice(seed=9), TABLES, ai_type="aggressive")
    assert seeded.roll is not None and not seeded.roll.entered


@pytest.mark.parametrize("ai_type", ["beast", "rampage", "guardian"])
def test_ai_variation_leaves_beast_rampage_guardian_unchanged(ai_type):
    result = fs.ai_variation(Dice(seed=1), TABLES, ai_type=ai_type)
    assert result.unchanged and result.roll is None


def test_ai_reminder_merges_rows():
    reminder = fs.ai_reminder(TABLES, "defensive")
    assert "2-4 Maneuver and fire" in reminder.text
    assert reminder.source == "pp.42-43"


# -- whole set-up: every option changes it ----------------------------------------------


def test_generate_collects_every_roll_and_prints_a_card():
    result = setup(expanded_missions=True, deployment_variables=True, ai_type="aggressive", ai_variations=True)
    assert result.deployment is not None and result.terrain is not None
    assert result.rolls == result.mission.rolls + result.deployment.rolls + result.terrain.rolls
    assert all(r.reason for r in result.rolls)
    card = result.card_lines()
    assert card[0].startswith("BATTLE SET-UP")
    assert any(line.startswith("Mission:") for line in card)
    assert any(line.startswith("Objective 1:") for line in card)
    assert any(line.startswith("Enemy deployment (Deployment Variables") for line in card)
    assert [line[:9] for line in card if line.startswith("Quarter")] == [f"Quarter {n}" for n in range(1, 5)]
    json.dumps(result.as_dict())


def test_generate_expanded_missions_on_vs_off():
    assert setup(expanded_missions=True).mission.objectives
    assert setup(expanded_missions=False).mission.objectives == ()


def test_generate_deployment_variables_on_vs_off():
    assert setup(deployment_variables=True, ai_type="tactical").deployment is not None
    off = setup(deployment_variables=False, ai_type="tactical")
    assert off.deployment is None
    assert "Enemy deployment: standard (core rulebook)." in off.card_lines()


def test_generate_ai_variations_on_vs_off():
    on = setup(ai_variations=True, ai_type="cautious")
    off = setup(ai_variations=False, ai_type="cautious")
    assert "ai_variations" in {r.key for r in on.brief}
    assert "ai_variations" not in {r.key for r in off.brief}


def test_generate_progressive_option_1_adds_strength_and_respawn():
    on = setup(options=CampaignOptions(progressive=frozenset({1})), campaign_turn=5)
    off = setup(campaign_turn=5)
    assert {"progressive_strength", "progressive_respawn"} <= {r.key for r in on.brief}
    assert not {r.key for r in off.brief}


def test_generate_progressive_option_2_brings_deployment_variables():
    progressive = CampaignOptions(progressive=frozenset({2}))
    on = setup(options=progressive, campaign_turn=4, ai_type="defensive")
    assert on.deployment is not None
    assert on.difficulty.deployment_variables
    assert "strength_adjusted_enemies" in {r.key for r in on.brief}
    assert setup(options=PLAIN, campaign_turn=4, ai_type="defensive").deployment is None


@pytest.mark.parametrize("toggle", BATTLE_TOGGLES)
def test_generate_each_battle_toggle_changes_the_set_up(toggle):
    on = setup(options=CampaignOptions(toggles=frozenset({toggle})))
    off = setup()
    assert toggle in {r.key for r in on.brief}
    assert toggle not in {r.key for r in off.brief}
    assert len(on.card_lines()) > len(off.card_lines())


def test_generate_other_battle_options_reach_the_brief():
    options = CampaignOptions(dramatic_combat=True, casualty_tables=True, elite_enemies="roll")
    keys = {r.key for r in setup(options=options).brief}
    assert {"dramatic_combat", "casualty_tables", "elite_enemies"} <= keys


def test_generate_terrain_on_vs_off():
    assert setup(theme=None).terrain is None
    assert setup(theme="wilderness").terrain is not None
    assert "Terrain: set up the table as you like." in setup(theme=None).card_lines()


def test_generate_is_repeatable_with_a_seed():
    first = setup(seed=11, expanded_missions=True, deployment_variables=True, ai_type="tactical")
    again = setup(seed=11, expanded_missions=True, deployment_variables=True, ai_type="tactical")
    assert first.as_dict() == again.as_dict()


def test_generate_no_deployment_for_a_stealth_mission():
    result = setup(battle_type="stealth", deployment_variables=True, expanded_missions=True)
    assert result.deployment is None and not result.mission.expanded


def test_generate_typed_faces_per_part():
    result = setup(
        battle_type=None,
        mission_source="opportunity",
        theme="industrial",
        faces={"mission": [5], "terrain": [1] * 21},
    )
    assert result.mission.battle_type == "stealth"
    assert all(r.entered for r in result.rolls)


def test_generate_errors_name_the_field():
    with pytest.raises(fs.SetupError) as ai:
        setup(deployment_variables=True)
    assert ai.value.field == "ai_type"
    with pytest.raises(fs.SetupError) as crew:
        setup(crew_size=0)
    assert crew.value.field == "crew_size"
    with pytest.raises(fs.SetupError) as turn:
        setup(campaign_turn=0)
    assert turn.value.field == "campaign_turn"
    with pytest.raises(fs.SetupError) as faces:
        setup(faces={"enemy": [1]})
    assert faces.value.field == "faces"
    with pytest.raises(fs.SetupError) as stray:
        setup(faces={"deployment": [50]})
    assert stray.value.field == "faces"
