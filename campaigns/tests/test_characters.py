"""Character engine: species, advancement, training, Bot upgrades, injuries, kit."""

from __future__ import annotations

from dataclasses import replace

import pytest

from campaigns.engine import characters as C
from campaigns.engine.options import parse_options
from campaigns.engine.view import CrewView
from rules.engine.dice import Dice, DiceError
from rules.engine.tables import Entry, RangeTable, TableError
from rules.fixturefiles import read_all

TABLES = {s.slug: s.engine() for s in read_all() if s.system == "fiveparsecs"}
PRESETS = {
    "human": {"reactions": 1, "speed": 4, "combat_skill": 0, "toughness": 3, "savvy": 0, "luck": 1},
    "engineer": {"reactions": 1, "speed": 4, "combat_skill": 0, "toughness": 2, "savvy": 1},
}
# A stand-in for the player's core upgrade table; the numbers are test values, not the book's.
CORE_COSTS = RangeTable.build(
    "core-upgrades",
    "Core upgrade table (test values)",
    "",
    [
        Entry("Reactions", data={"stat": "reactions", "xp": 7, "maximum": 6}, position=1),
        Entry("Combat Skill", data={"stat": "combat_skill", "xp": 7, "maximum": 5}, position=2),
        Entry("Speed", data={"stat": "speed", "xp": 5, "maximum": 8}, position=3),
        Entry("Toughness", data={"stat": "toughness", "xp": 6, "maximum": 6}, position=4),
    ],
)
PLAIN = parse_options({})


def human(**changes: object) -> C.Character:
    return replace(C.new_character("Ada", "human", TABLES, PRESETS), **changes)  # type: ignore[arg-type]


# -- values --------------------------------------------------------------------------------


def test_round_trip_keeps_every_field() -> None:
    original = C.Character(
        name="Vex",
        species="precursor",
        kind="biological",
        profile=C.Profile(reactions=2, speed=5, combat_skill=1, toughness=3, savvy=2, luck=1),
        xp=14,
        psionic=True,
        powers={"Barrier": True, "Guide": False},
        psionics_lost=False,
        profile_rolled=True,
        implants=("Night sight",),
        injuries=("Injured leg",),
        sick_bay=2,
        training=("Fixer",),
        equipment=("Hand gun", "Blade"),
        status="sick_bay",
    )
    data = original.as_dict()
    assert data["profile"]["savvy"] == 2
    assert data["powers"] == {"Barrier": True, "Guide": False}
    assert C.Character.from_dict(data) == original


def test_bot_round_trip_and_flat_stats() -> None:
    bot = C.Character(name="K-9", species="bot", kind="bot", bot_upgrades=("Jump module",), bot_upgrade_turn=4)
    assert C.Character.from_dict(bot.as_dict()) == bot
    flat = C.Character.from_dict({"name": "Flat", "reactions": 2, "speed": 5, "combat_skill": 1, "toughness": 4, "savvy": 0})
    assert flat.profile == C.Profile(2, 5, 1, 4, 0, 0)


def test_from_dict_errors_name_the_field() -> None:
    with pytest.raises(C.CharacterError) as unknown:
        C.Character.from_dict({"name": "X", "mood": "grumpy"})
    assert unknown.value.field == "mood"
    with pytest.raises(C.CharacterError) as kind:
        C.Character.from_dict({"name": "X", "kind": "robot"})
    assert kind.value.field == "kind" and "biological, bot, soulless" in str(kind.value)
    with pytest.raises(C.CharacterError) as xp:
        C.Character.from_dict({"name": "X", "xp": "lots"})
    assert xp.value.field == "xp"


# -- species ---------------------------------------------------------------------------------


def test_krag_and_skulker_profiles_come_from_tables() -> None:
    assert C.species_profile("krag", TABLES, {}) == C.Profile(reactions=1, speed=4, combat_skill=0, toughness=4, savvy=0, luck=0)
    assert C.species_profile("Skulker", TABLES, {}) == C.Profile(
        reactions=1, speed=6, combat_skill=0, toughness=3, savvy=1, luck=0
    )


def test_presets_give_other_species_and_luck_defaults_to_zero() -> None:
    assert C.species_profile("human", TABLES, PRESETS).luck == 1
    engineer = C.species_profile("engineer", TABLES, PRESETS)
    assert (engineer.toughness, engineer.savvy, engineer.luck) == (2, 1, 0)


def test_unknown_species_names_the_known_ones() -> None:
    with pytest.raises(C.CharacterError) as error:
        C.species_profile("hobbit", TABLES, PRESETS)
    assert error.value.field == "species"
    for key in ("engineer", "human", "krag", "skulker"):
        assert key in str(error.value)


def test_new_character_kind_follows_species() -> None:
    presets = {**PRESETS, "soulless": {"reactions": 2, "speed": 4, "combat_skill": 1, "toughness": 4, "savvy": 1}}
    assert C.new_character("S", "soulless", TABLES, presets).kind == "soulless"
    assert C.new_character("K", "krag", TABLES, presets).kind == "biological"


def test_primary_alien_table() -> None:
    assert C.primary_alien(TABLES, Dice(seed=1), value=45)[0] == "krag"
    assert C.primary_alien(TABLES, Dice(seed=1), value=80)[0] == "skulker"
    key, roll = C.primary_alien(TABLES, Dice(seed=3))
    assert key == roll.entry.data["species"] and roll.record.notation == "D100"
    with pytest.raises(TableError):
        C.primary_alien(TABLES, Dice(seed=1), value=101)


def test_krag_cannot_dash() -> None:
    krag = C.new_character("Dorn", "krag", TABLES, {})
    assert not C.can_dash(krag)
    assert not C.can_dash(krag, TABLES)
    assert C.can_dash(human())
    assert C.can_dash(C.new_character("Squeak", "skulker", TABLES, {}), TABLES)


def test_krag_with_a_patron_gains_one_rival() -> None:
    assert C.creation_contacts("krag", 2, 0, TABLES)[:2] == (2, 1)
    assert C.creation_contacts("krag", 1, 1, TABLES)[:2] == (1, 2)
    assert C.creation_contacts("krag", 0, 1, TABLES) == (0, 1, ())
    assert C.creation_contacts("human", 2, 0, TABLES) == (2, 0, ())


def test_skulker_ignores_first_rival() -> None:
    patrons, rivals, notes = C.creation_contacts("skulker", 1, 2, TABLES)
    assert (patrons, rivals) == (1, 1) and notes
    assert C.creation_contacts("skulker", 0, 0, TABLES) == (0, 0, ())
    with pytest.raises(C.CharacterError):
        C.creation_contacts("skulker", 0, -1, TABLES)


def test_skulker_creation_credits_roll_d3() -> None:
    total, records = C.creation_credits(PLAIN, "skulker", Dice(seed=1), 2, faces=[3, 2])
    assert total == 5 and all(r.notation == "D3" for r in records)
    with pytest.raises(DiceError):
        C.creation_credits(PLAIN, "skulker", Dice(seed=1), 1, faces=[5])
    total, records = C.creation_credits(PLAIN, "human", Dice(seed=1), 2, faces=[5, 6])
    assert total == 11 and records[0].notation == "D6"
    rolled, _ = C.creation_credits(PLAIN, "skulker", Dice(seed=9), 10)
    assert 10 <= rolled <= 30


def test_money_is_tight_changes_skulker_credits() -> None:
    tight = parse_options({"toggles": ["money_is_tight"]})
    assert C.creation_credits(PLAIN, "skulker", Dice(seed=1), 2, faces=[3, 1])[0] == 4
    assert C.creation_credits(tight, "skulker", Dice(seed=1), 2, faces=[3, 1])[0] == 3  # 2 + (0 -> 1)
    with pytest.raises(C.CharacterError) as error:
        C.creation_credits(PLAIN, "skulker", Dice(seed=1), 2, faces=[3])
    assert error.value.field == "faces"


def test_fight_always_picks_a_krag() -> None:
    crew = [
        CrewView(id="1", name="Ann", species="human"),
        CrewView(id="2", name="Dorn", species="krag"),
        CrewView(id="3", name="Bo", species="skulker"),
    ]
    for seed in range(20):
        pick = C.fight_candidate(crew, Dice(seed=seed))
        assert pick.id == "2" and pick.krag and not pick.story_points_bypass


def test_fight_picks_among_krag_then_anyone_active() -> None:
    crew = [
        CrewView(id="1", name="Ann", species="human"),
        CrewView(id="2", name="Dorn", species="krag"),
        CrewView(id="4", name="Gral", species="krag"),
        CrewView(id="5", name="Hurt", species="krag", status="sick_bay"),
    ]
    assert C.fight_candidate(crew, Dice(seed=1), face=2).id == "4"
    seen = {C.fight_candidate(crew, Dice(seed=s)).id for s in range(30)}
    assert seen == {"2", "4"}
    no_krag = [
        CrewView(id="1", name="Ann"),
        CrewView(id="3", name="Bo", species="skulker"),
        CrewView(id="9", name="X", status="dead"),
    ]
    picks = {C.fight_candidate(no_krag, Dice(seed=s)).id for s in range(30)}
    assert picks == {"1", "3"}
    assert C.fight_candidate(no_krag, Dice(seed=1)).story_points_bypass
    with pytest.raises(C.CharacterError):
        C.fight_candidate([CrewView(id="9", name="X", status="dead")], Dice(seed=1))


def test_pick_one_rerolls_above_the_count() -> None:
    rerolled = False
    for seed in range(40):
        index, record = C.pick_one(Dice(seed=seed), 4, "test")
        assert record is not None and record.notation == "D6"
        assert 0 <= index <= 3 and record.total == index + 1
        rerolled = rerolled or bool(record.rerolled)
    assert rerolled
    assert C.pick_one(Dice(seed=1), 1, "only one") == (0, None)


def test_krag_armor() -> None:
    assert C.krag_armor_refit_cost(TABLES) == 2
    krag = C.new_character("Dorn", "krag", TABLES, {})
    assert C.armor_fits(krag, True) and not C.armor_fits(krag, False)
    assert not C.armor_fits(human(), True) and C.armor_fits(human(), False)
    engineer = C.new_character("E", "engineer", TABLES, PRESETS)
    assert C.armor_fits(engineer, True) and C.armor_fits(engineer, False)


# -- hazards ---------------------------------------------------------------------------------


def test_skulker_resists_bio_hazards_on_3_plus() -> None:
    skulker = C.new_character("Bo", "skulker", TABLES, {})
    assert C.resist_hazard(skulker, TABLES, Dice(seed=1), faces=3).success
    failed = C.resist_hazard(skulker, TABLES, Dice(seed=1), faces=2)
    assert failed.applies and not failed.success and failed.roll is not None
    assert not C.resist_hazard(human(), TABLES, Dice(seed=1), faces=6).applies


def test_skulker_drug_resistance_but_not_stim_packs() -> None:
    skulker = C.new_character("Bo", "skulker", TABLES, {})
    serum = C.resist_hazard(skulker, TABLES, Dice(seed=1), faces=4, drug="Combat Serum")
    assert serum.applies and serum.success and "Combat Serum" in serum.note
    stim = C.resist_hazard(skulker, TABLES, Dice(seed=1), faces=6, drug="Stim-packs")
    assert not stim.applies and stim.roll is None


def test_survival_course_is_a_separate_roll() -> None:
    trained = human(training=("Survival course",))
    assert C.survival_check(trained, TABLES, Dice(seed=1), faces=4).success
    assert not C.survival_check(trained, TABLES, Dice(seed=1), faces=3).success
    assert not C.survival_check(human(), TABLES, Dice(seed=1), faces=6).applies
    skulker = replace(C.new_character("Bo", "skulker", TABLES, {}), training=("Survival course",))
    assert C.hazard_rolls(skulker, "bio_hazard") == ("skulker_resistance", "survival_course")
    assert C.hazard_rolls(skulker, "trap") == ("survival_course",)
    assert C.hazard_rolls(skulker, "drug", drug="Still") == ("skulker_resistance",)
    assert C.hazard_rolls(skulker, "drug", drug="Stim-pack") == ()
    assert C.hazard_rolls(human(), "environment") == ()
    with pytest.raises(C.CharacterError):
        C.hazard_rolls(skulker, "lava")


# -- advancement -------------------------------------------------------------------------------


def test_upgrade_costs_picks_the_table() -> None:
    slower = parse_options({"toggles": ["slower_progression"]})
    assert C.upgrade_costs(slower, TABLES, CORE_COSTS).slug == "slower-progression-upgrades"
    assert C.upgrade_costs(slower, TABLES, None).slug == "slower-progression-upgrades"
    assert C.upgrade_costs(PLAIN, TABLES, CORE_COSTS) is CORE_COSTS
    with pytest.raises(C.CharacterError) as error:
        C.upgrade_costs(PLAIN, TABLES, None)
    assert error.value.field == "advancement_costs" and "upgrade table" in str(error.value)


def test_slower_progression_costs_more_xp_for_the_same_character() -> None:
    ada = human(xp=7)
    core = C.advance(ada, "reactions", C.upgrade_costs(PLAIN, TABLES, CORE_COSTS))
    assert (core.profile.reactions, core.xp) == (2, 0)
    slower = C.upgrade_costs(parse_options({"toggles": ["slower_progression"]}), TABLES, CORE_COSTS)
    with pytest.raises(C.CharacterError) as error:
        C.advance(ada, "reactions", slower)
    assert error.value.field == "xp" and "8 XP" in str(error.value)
    assert C.advance(human(xp=8), "reactions", slower).xp == 0


def test_advance_respects_maximum_and_moves_speed_in_inches() -> None:
    slower = TABLES["slower-progression-upgrades"]
    with pytest.raises(C.CharacterError) as error:
        C.advance(human(xp=20, profile=C.Profile(toughness=5)), "toughness", slower)
    assert "maximum of 5" in str(error.value)
    assert C.advance(human(xp=20, profile=C.Profile(toughness=5)), "toughness", CORE_COSTS).profile.toughness == 6
    faster = C.advance(human(xp=5), "speed", slower)
    assert (faster.profile.speed, faster.xp) == (5, 0)
    with pytest.raises(C.CharacterError) as missing:
        C.advance(human(xp=20), "luck", CORE_COSTS)
    assert missing.value.field == "stat"


def test_psionic_cannot_buy_combat_skill() -> None:
    with pytest.raises(C.CharacterError) as error:
        C.advance(human(xp=20, psionic=True), "combat_skill", CORE_COSTS)
    assert error.value.field == "stat"
    assert C.advance(human(xp=20), "combat_skill", CORE_COSTS).profile.combat_skill == 1


# -- training ----------------------------------------------------------------------------------


def test_training_cost_with_and_without_instructor() -> None:
    plain = C.training_cost("Survival course", TABLES, [])
    assert (plain.course_credits, plain.fee, plain.total, plain.availability_roll) == (10, 1, 11, True)
    taught = C.training_cost("survival course", TABLES, ["Fixer", "Instructor"])
    assert (taught.fee, taught.total, taught.availability_roll) == (0, 10, False)
    core = C.training_cost("Pilot training", TABLES, [], credits=20)
    assert core.total == 21
    with pytest.raises(C.CharacterError) as error:
        C.training_cost("Pilot training", TABLES, [])
    assert error.value.field == "course" and "Instructor" in str(error.value)


def test_training_add_and_fixer_bonus() -> None:
    fixer = C.training_add(human(), "Fixer")
    assert fixer.training == ("Fixer",)
    with pytest.raises(C.CharacterError):
        C.training_add(fixer, "fixer")
    assert C.crew_action_bonus(fixer, "Find a Patron", TABLES) == 1
    assert C.crew_action_bonus(fixer, "Track", TABLES) == 1
    assert C.crew_action_bonus(fixer, "Trade", TABLES) == 0
    assert C.crew_action_bonus(human(), "Recruit", TABLES) == 0


# -- Bot upgrades ------------------------------------------------------------------------------


def bot() -> C.Character:
    return C.Character(name="K-9", species="bot", kind="bot", equipment=("Hand gun",))


def test_bot_upgrade_once_per_turn() -> None:
    first, credits = C.bot_upgrade(bot(), "Jump module", TABLES, turn=3)
    assert credits == 6 and first.bot_upgrades == ("Jump module",) and first.bot_upgrade_turn == 3
    with pytest.raises(C.CharacterError) as error:
        C.bot_upgrade(first, "Multi-wave scanner", TABLES, turn=3)
    assert error.value.field == "turn"
    second, credits = C.bot_upgrade(first, "Multi-wave scanner", TABLES, turn=4)
    assert credits == 10 and second.bot_upgrades == ("Jump module", "Multi-wave scanner")
    with pytest.raises(C.CharacterError) as again:
        C.bot_upgrade(second, "jump module", TABLES, turn=5)
    assert again.value.field == "upgrade"


def test_bot_upgrades_are_for_bots_only() -> None:
    with pytest.raises(C.CharacterError) as soulless:
        C.bot_upgrade(C.Character(name="S", species="soulless", kind="soulless"), "Jump module", TABLES, turn=1)
    assert "Soulless" in str(soulless.value) and soulless.value.field == "kind"
    with pytest.raises(C.CharacterError):
        C.bot_upgrade(human(), "Jump module", TABLES, turn=1)
    with pytest.raises(C.CharacterError) as unknown:
        C.bot_upgrade(bot(), "Rocket boots", TABLES, turn=1)
    assert "Jump module" in str(unknown.value)


def test_built_in_weapon_price() -> None:
    fitted, credits = C.bot_upgrade(bot(), "Built-in weapon", TABLES, turn=1, shots=2, damage=1)
    assert credits == 7
    assert C.bot_upgrade(bot(), "Built-in weapon", TABLES, turn=1, shots=2, damage=1, cost_reduction=1)[1] == 6
    assert C.bot_upgrade(bot(), "Improved armor casing", TABLES, turn=1, cost_reduction=9)[1] == 0
    with pytest.raises(C.CharacterError) as error:
        C.bot_upgrade(bot(), "Built-in weapon", TABLES, turn=1, damage=1)
    assert error.value.field == "shots"
    reverted, fee = C.revert_built_in_weapon(fitted, TABLES)
    assert fee == 1 and reverted.bot_upgrades == ()


def test_killed_bot_loses_upgrades() -> None:
    upgraded, _ = C.bot_upgrade(bot(), "Deflection module", TABLES, turn=2)
    dead = C.character_killed(upgraded)
    assert dead.status == "dead" and dead.bot_upgrades == () and dead.bot_upgrade_turn is None
    with pytest.raises(C.CharacterError) as error:
        C.bot_upgrade(dead, "Jump module", TABLES, turn=3)
    assert error.value.field == "status"


# -- injuries ----------------------------------------------------------------------------------


def test_sick_bay_counts_down_to_active() -> None:
    hurt = C.injury_apply(human(), "", 2)
    assert (hurt.status, hurt.sick_bay) == ("sick_bay", 2)
    longer = C.injury_apply(hurt, "Broken rib", 1)
    assert longer.sick_bay == 2 and longer.injuries == ("Broken rib",)
    once = C.sick_bay_tick(longer)
    assert (once.status, once.sick_bay) == ("sick_bay", 1)
    twice = C.sick_bay_tick(once)
    assert (twice.status, twice.sick_bay) == ("active", 0)
    dead = C.character_killed(hurt)
    assert C.sick_bay_tick(dead) == dead
    with pytest.raises(C.CharacterError):
        C.injury_apply(human(), "", -1)


def test_detailed_injury_rejects_bots() -> None:
    with pytest.raises(C.CharacterError) as error:
        C.detailed_injury(TABLES, Dice(seed=1), bot(), 50)
    assert error.value.field == "kind"


def test_detailed_injury_death_damages_an_item() -> None:
    ada = human(equipment=("Hand gun", "Blade"))
    outcome = C.detailed_injury(TABLES, Dice(seed=1), ada, 7, item_face=2)
    assert outcome.dead and outcome.item == "Blade" and outcome.item_result == "Damaged"
    after = C.detailed_injury_apply(ada, outcome)
    assert after.status == "dead" and after.equipment == ("Hand gun", "Blade (damaged)")


def test_critical_strike_asks_about_armor() -> None:
    pending = C.detailed_injury(TABLES, Dice(seed=1), human(), 12)
    assert pending.pending == "armor"
    with pytest.raises(C.CharacterError):
        C.detailed_injury_apply(human(), pending)
    assert C.detailed_injury(TABLES, Dice(seed=1), human(), 12, armor=False).dead
    saved = C.detailed_injury(TABLES, Dice(seed=1), human(), 12, armor=True, sick_bay_faces=[2])
    assert not saved.dead and saved.armor_damaged and saved.sick_bay_turns == 5


def test_extensive_injury_waits_for_treatment() -> None:
    outcome = C.detailed_injury(TABLES, Dice(seed=1), human(), 18, cost_faces=[3])
    assert (outcome.treatment_credits, outcome.sick_bay_turns, outcome.treatment_first) == (4, 4, True)
    assert "detailed-injuries-medical-facilities" in outcome.follow_ups
    waiting = C.detailed_injury_apply(human(), outcome)
    assert (waiting.status, waiting.sick_bay, waiting.injuries) == ("sick_bay", 0, ("Extensive injury",))
    assert C.sick_bay_tick(waiting).status == "sick_bay"
    treated = C.injury_treat(waiting, "Extensive injury", outcome.sick_bay_turns)
    assert (treated.sick_bay, treated.injuries) == (4, ())
    for _ in range(4):
        treated = C.sick_bay_tick(treated)
    assert treated.status == "active"


def test_item_hit_destroys_a_random_item() -> None:
    ada = human(equipment=("Hand gun", "Blade"))
    outcome = C.detailed_injury(TABLES, Dice(seed=1), ada, 25, item_face=1, item_value=5)
    assert (outcome.item, outcome.item_result, outcome.sick_bay_turns) == ("Hand gun", "Destroyed", 0)
    assert C.detailed_injury_apply(ada, outcome).equipment == ("Blade",)
    damaged = C.detailed_injury(TABLES, Dice(seed=1), ada, 25, item_face=1, item_value=4)
    assert damaged.item_result == "Damaged"
    bare = C.detailed_injury(TABLES, Dice(seed=1), human(), 25)
    assert bare.item is None and bare.notes


def test_lingering_injury_rolls_before_missions() -> None:
    outcome = C.detailed_injury(TABLES, Dice(seed=1), human(), 33, sick_bay_faces=[1])
    assert outcome.lasting == "Lingering injury" and outcome.sick_bay_turns == 2
    assert "detailed-injuries-lingering" in outcome.follow_ups
    limping = replace(C.detailed_injury_apply(human(), outcome), status="active", sick_bay=0)
    out, rolls, sits_out = C.lingering_check(limping, TABLES, Dice(seed=1), values=[1])
    assert sits_out and out.injuries == ("Lingering injury",) and len(rolls) == 1
    cured, _, sits_out = C.lingering_check(limping, TABLES, Dice(seed=1), values=[6])
    assert not sits_out and cured.injuries == ()
    with pytest.raises(C.CharacterError):
        C.lingering_check(limping, TABLES, Dice(seed=1), values=[1, 2])


def test_injured_leg_penalty_until_treated() -> None:
    outcome = C.detailed_injury(TABLES, Dice(seed=1), human(), 55, sick_bay_faces=[2])
    assert (outcome.treatment_credits, outcome.penalties) == (3, {"speed": -1})
    hurt = C.detailed_injury_apply(human(), outcome)
    assert C.injury_penalties(hurt, TABLES) == {"speed": -1}
    assert C.injury_penalties(C.injury_treat(hurt, "Injured leg"), TABLES) == {}
    assert C.medical_facilities(TABLES, Dice(seed=1), value=2).entry.data["facilities"] is False


def test_school_of_hard_knocks_and_minor_results() -> None:
    smart = C.detailed_injury_apply(human(xp=3), C.detailed_injury(TABLES, Dice(seed=1), human(), 100))
    assert (smart.xp, smart.status) == (4, "active")
    minor = C.detailed_injury(TABLES, Dice(seed=1), human(), 78)
    assert minor.sick_bay_turns == 1 and minor.lasting == ""
    rolled = C.detailed_injury(TABLES, Dice(seed=5), human())
    assert rolled.roll.record.notation == "D100" and rolled.rolls[0] == rolled.roll.record


# -- implants and kit --------------------------------------------------------------------------


def test_implant_ends_psionics_for_good() -> None:
    psionic = human(psionic=True, powers={"Barrier": False, "Shock": True})
    wired = C.implant_add(psionic, "Neural link")
    assert (wired.psionic, wired.powers, wired.psionics_lost) == (False, {}, True)
    clean = C.implant_remove(wired, "Neural link")
    assert clean.implants == () and clean.psionics_lost and not clean.psionic
    ordinary = C.implant_add(human(), "Neural link")
    assert not ordinary.psionics_lost


def test_psionic_weapons_pistol_or_melee_only() -> None:
    psionic = human(psionic=True)
    rifle = C.weapon_traits(TABLES, "Military rifle")
    assert rifle == ()
    assert not C.weapon_allowed(psionic, rifle, TABLES)
    assert C.weapon_allowed(psionic, C.weapon_traits(TABLES, "Hand gun"))
    assert C.weapon_allowed(psionic, ["Melee", "Clumsy"])
    assert C.weapon_allowed(human(), rifle)
    with pytest.raises(C.CharacterError) as error:
        C.equip(psionic, "Military rifle", rifle)
    assert error.value.field == "item"
    armed = C.equip(C.equip(psionic, "Blade", ["Melee"]), "Med-kit")
    assert armed.equipment == ("Blade", "Med-kit")
    assert C.unequip(armed, "Blade").equipment == ("Med-kit",)
    with pytest.raises(C.CharacterError):
        C.unequip(armed, "Rifle")
