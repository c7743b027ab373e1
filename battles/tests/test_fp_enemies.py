"""Tests for the Five Parsecs enemy generator (Compendium pp.22-24, 30-33, 48-65)."""

from __future__ import annotations

import json

import pytest

from battles.engine.fp_enemies import (
    NO_PSIONIC_TYPES,
    PSIONIC_TYPES,
    EliteRewards,
    EnemyError,
    EnemyForce,
    core_enemy,
    core_profile,
    custom_enemy,
    elite_rewards,
    elite_rival_follows,
    enemy_psionics,
    roll_elite_enemy,
    weapon_code,
)
from campaigns.engine.options import CampaignOptions
from rules.engine.dice import Dice
from rules.engine.tables import Entry, RangeTable
from rules.fixturefiles import read_all

TABLES = {s.slug: s.engine() for s in read_all() if s.system == "fiveparsecs"}
PLAIN = CampaignOptions()
ARMS = {"basic": "Handgun", "specialist": "Shotgun"}


def opts(*toggles: str, **kw: object) -> CampaignOptions:
    return CampaignOptions(toggles=frozenset(toggles), **kw)  # type: ignore[arg-type]


def force(category: str, faces: list[int], **kw: object) -> EnemyForce:
    args: dict[str, object] = {"crew_size": 4, "options": PLAIN, "base_numbers": 2, "weapons": ARMS}
    args.update(kw)
    return roll_elite_enemy(Dice(seed=1), TABLES, category=category, faces=faces, **args)  # type: ignore[arg-type]


def ranks(f: EnemyForce) -> dict[str, int]:
    return {r: f.count(r) for r in ("basic", "specialist", "lieutenant", "captain", "unique")}


def fig(f: EnemyForce, name: str):
    return next(x for x in f.figures if x.name == name)


# -- type roll, composition, ranks -------------------------------------------------------------


def test_gangers_squad_of_five_with_rank_upgrades_and_swaps():
    # D100 5 Gangers (+3): 2 + 3 = 5 figures; bounty D6 4 (none); Unique Individual 2D6 1+1.
    f = force("Criminal Elements", [5, 4, 1, 1])
    assert (f.category, f.type, f.numbers) == ("Criminal Elements", "Gangers", 5)
    assert ranks(f) == {"basic": 2, "specialist": 2, "lieutenant": 1, "captain": 0, "unique": 0}
    # Clack Clack: two Handguns become Shotguns, basics first; Shotgun specialists add an Assault Blade.
    assert fig(f, "Basic 1").weapons == ("Shotgun",) and fig(f, "Basic 2").weapons == ("Shotgun",)
    assert fig(f, "Specialist 1").weapons == ("Shotgun", "Assault Blade")
    lt = fig(f, "Lieutenant")
    assert lt.weapons == ("Hand gun", "Blade")  # Dramatic Weapons spelling
    assert (lt.combat_skill, lt.save, lt.fearless, lt.reactions) == (2, 5, True, None)
    assert fig(f, "Basic 1").combat_skill == 1 and not fig(f, "Basic 1").fearless
    assert f.panic == "1" and "Lieutenant present" in f.leadership[0]
    assert f.bounty_credits == 0 and f.unique_individual is None
    assert [r.notation for r in f.rolls] == ["D100", "D6", "2D6"]
    assert all(r.reason for r in f.rolls)


@pytest.mark.parametrize(
    ("base", "expected"),
    [
        (0, {"basic": 3, "specialist": 1, "lieutenant": 0, "captain": 0}),  # 0 + 1 raised to 4
        (5, {"basic": 3, "specialist": 2, "lieutenant": 1, "captain": 0}),
        (8, {"basic": 5, "specialist": 2, "lieutenant": 1, "captain": 1}),
    ],
)
def test_composition_by_squad_size(base, expected):
    # D100 91 Hulker Gang (+1); UI roll 1+1.
    f = force("Criminal Elements", [91, 6, 1, 1], base_numbers=base)
    got = ranks(f)
    got.pop("unique")
    assert got == expected
    assert f.numbers == max(4, base + 1)


def test_captain_upgrades_and_leadership_to_fearless():
    # Cultists: Panic 1, Toughness 3; 9 figures gives a Captain: Panic 1 becomes 0.
    f = force("Criminal Elements", [30, 6, 1, 1], base_numbers=5)
    cpt = fig(f, "Captain")
    assert cpt.toughness == 5 and cpt.save == 5 and cpt.combat_skill == 2
    assert "Ripper sword" in cpt.weapons and "Cling fire pistol" in cpt.weapons
    assert f.panic == "0"
    assert fig(f, "Specialist 1").combat_skill == 1


def test_specialist_combat_skill_floor_and_black_dragon_bonus():
    punks = force("Criminal Elements", [15, 6, 1, 1])  # Punks Combat Skill +0
    assert fig(punks, "Specialist 1").combat_skill == 1 and fig(punks, "Basic 1").combat_skill == 0
    dragons = force("Hired Muscle", [88, 1, 1], base_numbers=4)  # Black Dragon Mercs +1, specialists +2
    assert fig(dragons, "Specialist 1").combat_skill == 3
    assert "Glare sword" in fig(dragons, "Specialist 1").weapons


def test_hired_muscle_well_supplied_and_seize_modifier():
    f = force("Hired Muscle", [20, 1, 1], base_numbers=5)  # Enforcers, 7 figures
    assert fig(f, "Lieutenant").save == 4 and fig(f, "Captain").save == 4
    assert fig(f, "Basic 1").save is None
    assert f.seize_initiative_modifier == -1
    assert fig(f, "Basic 1").weapons == ("Hand gun", "Under-barrel Shotgun")
    assert fig(f, "Basic 3").weapons == ("Hand gun",)


def test_armored_type_lieutenant_save_improves_by_one():
    f = force("Criminal Elements", [46, 6, 1, 1], base_numbers=3)  # Brat Gang, 5+ vests
    assert fig(f, "Basic 1").save == 5 and fig(f, "Lieutenant").save == 4


def test_seize_initiative_cannot_and_no_modifiers():
    assert force("Hired Muscle", [62, 1, 1]).seize_initiative_modifier is None  # Skulker Mercenaries
    swift = force("Interested Parties", [66, 1, 1])
    assert swift.seize_initiative_modifier == 0 and any("No modifiers" in line for line in swift.lines)


def test_weapon_replacements_named_any_and_all_normal():
    roid = force("Hired Muscle", [36, 1, 1], base_numbers=3, weapons={"basic": "Blade", "specialist": "Shotgun"})
    # Rolled Blade becomes a Ripper Sword, then the type's own Blade is added.
    assert fig(roid, "Basic 1").weapons == ("Ripper sword", "Blade")
    assert fig(roid, "Lieutenant").weapons == ("Ripper sword", "Blade")
    kerin = force("Criminal Elements", [68, 6, 1, 1])  # K'Erin Outlaws: one basic gets an Auto-Rifle
    assert fig(kerin, "Basic 1").weapons == ("Auto rifle",) and fig(kerin, "Basic 2").weapons == ("Hand gun",)
    prim = force("Interested Parties", [50, 1, 1], weapons=None)  # Primitives: Blades, no core roll
    assert fig(prim, "Basic 1").weapons == ("Blade",)
    assert fig(prim, "Specialist 1").weapons == ("Blade", "Brutal melee weapon")
    assert not any("core rulebook" in line for line in prim.lines)
    iso = force("Interested Parties", [30, 1, 1], base_numbers=3, weapons={"basic": "Scrap Pistol", "specialist": "Shotgun"})
    assert fig(iso, "Basic 1").weapons == ("Colony rifle",) and fig(iso, "Lieutenant").weapons[0] == "Scrap pistol"


def test_pistol_type_and_conditional_kit():
    raiders = force("Criminal Elements", [22, 6, 1, 1], weapons={"basic": "Hand Laser", "specialist": "Shotgun"})
    assert fig(raiders, "Basic 1").weapons == ("Hand laser", "Blade")
    assert fig(raiders, "Specialist 1").weapons == ("Shotgun",)
    psychos = force("Criminal Elements", [40, 6, 1, 1], weapons={"basic": "Scrap Pistol", "specialist": "Shotgun"})
    assert "Frakk grenade" in fig(psychos, "Basic 1").weapons and "Frakk grenade" not in fig(psychos, "Specialist 1").weapons
    mercs = force("Hired Muscle", [5, 1, 1], base_numbers=3)  # Unknown Mercs: two basic enemies with sights
    assert fig(mercs, "Basic 1").gear == ("Sight (+1 to Hit)",) and fig(mercs, "Lieutenant").gear == ()


def test_natural_weapons_and_placeholders():
    krorg = force("Roving Threats", [65], weapons=ARMS)
    assert fig(krorg, "Basic 1").weapons == ("Rip and tear",)
    assert any("not used" in line for line in krorg.lines)
    placeholder = force("Criminal Elements", [5, 6, 1, 1], weapons=None)
    assert fig(placeholder, "Basic 1").weapons == ("Basic weapon (1A)",)
    assert any("core rulebook's enemy weapon tables" in line for line in placeholder.lines)


def test_core_weapon_table_is_rolled_by_code_column():
    table = RangeTable.build(
        "enemy-weapons",
        "My core weapons",
        "D6",
        [
            Entry("Colony Rifle", 1, 6, data={"specialist": "Shotgun"}, column="1A"),
            Entry("Hand Laser", 1, 6, column="2B"),
        ],
        columns=("1A", "2B"),
    )
    f = force("Criminal Elements", [5, 3, 6, 1, 1], weapons=None, core={"enemy-weapons": table})
    assert fig(f, "Basic 1").weapons == ("Colony rifle",) and fig(f, "Specialist 1").weapons[0] == "Shotgun"
    assert [r.reason for r in f.rolls][1] == "Enemy weapons (1A)"


# -- numbers and options ---------------------------------------------------------------------


def test_numbers_need_core_roll_unless_strength_adjusted():
    with pytest.raises(EnemyError) as err:
        force("Criminal Elements", [5, 6, 1, 1], base_numbers=None)
    assert err.value.field == "base_numbers"
    on = force("Criminal Elements", [5, 6, 1, 1], base_numbers=None, crew_size=6, options=opts("strength_adjusted_enemies"))
    assert on.numbers == 6 + 3
    off = force("Criminal Elements", [5, 6, 1, 1], base_numbers=2, crew_size=4)
    assert off.numbers == 5
    # six crew outnumber those five: the Unique Individual comes without a 2D6 roll (D100 face 20)
    out = force("Criminal Elements", [5, 6, 20], base_numbers=2, crew_size=6)
    assert out.unique_individual is not None


def test_core_numbers_table_by_crew_size_column():
    table = RangeTable.build(
        "enemy-numbers",
        "Numbers",
        "D6",
        [Entry("few", 1, 6, data={"enemies": 2}, column="4"), Entry("many", 1, 6, data={"enemies": 5}, column="6")],
        columns=("4", "5", "6"),
    )
    # column "5" has no rows: only 4 and 6 are used here
    f = force("Criminal Elements", [5, 2, 6, 1, 1], base_numbers=None, core={"enemy-numbers": table})
    assert f.numbers == 5


def test_category_from_core_table_or_error():
    with pytest.raises(EnemyError) as err:
        roll_elite_enemy(Dice(seed=1), TABLES, crew_size=4, options=PLAIN, base_numbers=2)
    assert err.value.field == "category"
    cats = RangeTable.build(
        "enemy-category",
        "Category",
        "D6",
        [Entry("Hired Muscle", 1, 3, column="patron"), Entry("x", 4, 6, data={"category": "Roving Threats"}, column="patron")],
        columns=("patron",),
    )
    f = roll_elite_enemy(
        Dice(seed=1),
        TABLES,
        crew_size=4,
        options=PLAIN,
        base_numbers=2,
        core={"enemy-category": cats},
        mission="patron",
        faces=[5, 65],
    )
    assert (f.category, f.type) == ("Roving Threats", "Krorg")
    with pytest.raises(EnemyError) as err:
        roll_elite_enemy(
            Dice(seed=1), TABLES, crew_size=4, options=PLAIN, base_numbers=2, core={"enemy-category": cats}, mission="quest"
        )
    assert err.value.field == "mission"
    with pytest.raises(EnemyError) as err:
        force("Pirates", [5])
    assert err.value.field == "category"


def test_quest_rival_and_hatred_numbers():
    base = force("Interested Parties", [3, 1, 1]).numbers  # Renegade Soldiers +2
    assert force("Interested Parties", [3, 1, 1], quest=True).numbers == base + 1
    assert force("Interested Parties", [3, 1, 1], rival=True).numbers == base + 1
    assert force("Interested Parties", [10, 1, 1], rival=True).numbers == force("Interested Parties", [10, 1, 1]).numbers
    crim = force("Criminal Elements", [5, 6, 1, 1]).numbers
    assert force("Criminal Elements", [5, 6, 1, 1], rival_hates_you=True).numbers == crim + 1
    assert force("Hired Muscle", [5, 1, 1], quest=True).numbers == force("Hired Muscle", [5, 1, 1]).numbers


def test_progressive_strength_adds_ranked_figures():
    off = force("Criminal Elements", [5, 6, 1, 1], campaign_turn=15)
    on = force("Criminal Elements", [5, 6, 1, 1], campaign_turn=15, options=CampaignOptions(progressive=frozenset({1})))
    assert on.count("basic") == off.count("basic") + 2
    assert on.count("lieutenant") == off.count("lieutenant") + 1
    assert on.count("captain") == off.count("captain")


def test_veteran_toggle():
    off = force("Criminal Elements", [5, 6, 1, 1])
    on = force("Criminal Elements", [5, 6, 1, 1], options=opts("veteran"))
    assert fig(on, "Basic 1").combat_skill == fig(off, "Basic 1").combat_skill + 1
    assert fig(on, "Basic 2").combat_skill == fig(off, "Basic 2").combat_skill
    # progressive option 2 switches it on from turn 8
    prog = force(
        "Criminal Elements", [5, 6, 1, 1], campaign_turn=8, options=CampaignOptions(progressive=frozenset({2})), base_numbers=None
    )
    assert fig(prog, "Basic 1").combat_skill == 2


def test_actually_specialized_toggle():
    off = force("Criminal Elements", [30, 6, 1, 1])  # Cultists Toughness 3
    on = force("Criminal Elements", [30, 6, 1, 1], options=opts("actually_specialized"))
    assert fig(off, "Specialist 1").toughness == 3 and fig(on, "Specialist 1").toughness == 4
    assert fig(on, "Basic 1").toughness == 3


def test_armored_leaders_elite_unchanged_core_armored():
    off = force("Criminal Elements", [5, 6, 1, 1])
    on = force("Criminal Elements", [5, 6, 1, 1], options=opts("armored_leaders"))
    assert fig(on, "Lieutenant").save == fig(off, "Lieutenant").save == 5
    profile = custom_enemy("Thugs", category="Criminal Elements", numbers=1, panic="1-2", speed=4, combat_skill=0, toughness=3)
    plain = core_enemy(Dice(seed=1), TABLES, profile, crew_size=4, options=PLAIN, specialists=1, lieutenants=1, base_numbers=3)
    armored = core_enemy(
        Dice(seed=1), TABLES, profile, crew_size=4, options=opts("armored_leaders"), specialists=1, lieutenants=1, base_numbers=3
    )
    assert fig(plain, "Lieutenant").save is None and fig(armored, "Lieutenant").save == 5
    assert not plain.elite and plain.numbers == 4 and plain.count("basic") == 2


# -- Unique Individuals ----------------------------------------------------------------------


def test_unique_individual_roll_seven_plus():
    miss = force("Hired Muscle", [5, 3, 3])
    assert miss.unique_individual is None and miss.rolls[-1].total == 6
    hit = force("Hired Muscle", [5, 3, 4, 20])  # 7: present; D100 20 Hired Killer
    ui = hit.unique_individual
    assert ui is not None and ui.name == "Hired Killer" and ui.rank == "unique"
    assert (ui.speed, ui.combat_skill, ui.toughness, ui.luck, ui.fearless) == (6, 2, 5, 1, True)
    assert hit.figures[-1] is ui


def test_outnumbering_and_starport_scum_are_automatic():
    f = force("Hired Muscle", [5, 15], crew_size=6, base_numbers=1)  # 3 figures raised to 4; 6 crew outnumber
    assert f.unique_individual is not None and f.unique_individual.name == "Enemy Boss"
    assert "2D6" not in [r.notation for r in f.rolls]
    # Enemy Boss: base profile +1/+1, Panic -1 on top of the Lieutenant-free squad
    assert (f.unique_individual.combat_skill, f.unique_individual.toughness) == (2, 5)
    assert f.panic == "1"
    scum = force("Criminal Elements", [85, 6, 20])
    assert scum.unique_individual is not None and "2D6" not in [r.notation for r in scum.rolls]


def test_mastermind_adds_one():
    ip = force("Interested Parties", [3, 3, 3, 76])  # 6 + 1 = 7: present
    assert ip.rolls[1].modifier == 1 and ip.unique_individual is not None
    hm = force("Hired Muscle", [5, 3, 3])
    assert hm.rolls[1].modifier == 0 and hm.unique_individual is None


def test_roving_threats_unique_only_on_insanity():
    plain = force("Roving Threats", [65])
    assert plain.unique_individual is None and len(plain.rolls) == 1
    insane = force("Roving Threats", [65, 6, 6, 50], options=CampaignOptions(difficulty_mode="Insanity"))
    assert insane.unique_individual is not None and insane.unique_individual.name == "Gun Slinger"


def test_better_leadership_boosts_a_random_roving_figure():
    off = force("Roving Threats", [65])
    # Krorg: 2 + 1 = 4 figures; 2D6 4+3 = 7 succeeds; pick D3... 4 figures -> D12 face 1 = first figure
    on = force("Roving Threats", [65, 4, 3, 1], options=opts("better_leadership"))
    boosted = on.figures[0]
    assert (boosted.combat_skill, boosted.toughness) == (4, 6)  # +2/+2 capped at +4 and 6
    assert off.figures[0].combat_skill == 2
    assert [r.notation for r in on.rolls] == ["D100", "2D6", "D12"]
    fail = force("Roving Threats", [65, 1, 1], options=opts("better_leadership"))
    assert fail.figures[0].combat_skill == 2
    profile = custom_enemy("Thugs", category="Criminal Elements", numbers=1, panic="1", speed=4, combat_skill=0, toughness=3)
    lines = core_enemy(
        Dice(seed=1),
        TABLES,
        profile,
        crew_size=4,
        options=opts("better_leadership"),
        specialists=0,
        lieutenants=0,
        base_numbers=3,
    ).lines
    assert any("present on 7+" in line for line in lines)
    lines = core_enemy(
        Dice(seed=1), TABLES, profile, crew_size=4, options=PLAIN, specialists=0, lieutenants=0, base_numbers=3
    ).lines
    assert any("present on 9+" in line for line in lines)


def test_secret_agent_carries_combination_weapons():
    f = force("Hired Muscle", [5, 6, 6, 43])
    assert f.unique_individual is not None
    assert f.unique_individual.weapons == ("Plasma rifle", "Fury rifle", "Flak gun", "Glare sword")


def test_cowardly_lieutenants_are_not_fearless():
    f = force("Interested Parties", [45, 1, 1], base_numbers=3)  # Mutants
    assert not fig(f, "Lieutenant").fearless
    g = force("Interested Parties", [40, 1, 1], base_numbers=3)  # Zealots
    assert fig(g, "Lieutenant").fearless


def test_war_bots_dash_panic_is_fearless():
    f = force("Hired Muscle", [44, 1, 1])
    assert f.panic == "0" and all(x.fearless for x in f.figures)


def test_bounty_pay_rolled_at_setup():
    f = force("Criminal Elements", [5, 2, 1, 1])
    assert f.bounty_credits == 2 and any("Bounty pay: +2" in r for r in f.rewards)
    assert force("Hired Muscle", [5, 1, 1]).bounty_credits is None


# -- custom profiles -----------------------------------------------------------------------------


def test_custom_enemy_validation_and_use():
    with pytest.raises(EnemyError) as err:
        custom_enemy("X", category="Hired Muscle", numbers=1, panic="1-9", speed=4, combat_skill=0, toughness=3)
    assert err.value.field == "panic"
    with pytest.raises(EnemyError) as err:
        custom_enemy("X", category="Hired Muscle", numbers=1, panic="1", speed=0, combat_skill=0, toughness=3)
    assert err.value.field == "speed"
    with pytest.raises(EnemyError) as err:
        custom_enemy("", category="Hired Muscle", numbers=1, panic="1", speed=4, combat_skill=0, toughness=3)
    assert err.value.field == "name"
    # Elite rules with old stats: the type's kit still applies by name.
    gangers = custom_enemy(
        "Gangers", category="Criminal Elements", numbers=2, panic="1-2", speed=4, combat_skill=0, toughness=4, weapons="1A"
    )
    f = roll_elite_enemy(
        Dice(seed=1), TABLES, crew_size=4, options=PLAIN, profile=gangers, base_numbers=2, weapons=ARMS, faces=[6, 1, 1]
    )
    assert f.type == "Gangers" and f.numbers == 4 and fig(f, "Basic 1").weapons == ("Shotgun",)
    assert [r.notation for r in f.rolls] == ["D6", "2D6"]


def test_core_profile_needs_the_users_table():
    with pytest.raises(EnemyError) as err:
        core_profile(Dice(seed=1), None, "core-hired-muscle", category="Hired Muscle")
    assert err.value.field == "core" and "core-hired-muscle" in str(err.value)
    table = RangeTable.build(
        "core-hired-muscle",
        "My Hired Muscle",
        "D100",
        [
            Entry(
                "Goons",
                1,
                100,
                data={"numbers": "+1", "panic": "1-2", "speed": 4, "combat_skill": 0, "toughness": 4, "weapons": "1A"},
            )
        ],
    )
    profile, rolled = core_profile(
        Dice(seed=1), {"core-hired-muscle": table}, "core-hired-muscle", category="Hired Muscle", faces=[40]
    )
    assert (profile.name, profile.numbers, profile.weapons) == ("Goons", 1, "1A") and rolled.value == 40


def test_faces_must_all_be_used_and_be_valid():
    with pytest.raises(EnemyError) as err:
        force("Hired Muscle", [5, 1, 1, 3])
    assert err.value.field == "faces"
    with pytest.raises(EnemyError) as err:
        force("Hired Muscle", [101])
    assert err.value.field == "faces"


def test_seeded_rolls_repeat_and_serialise():
    a = roll_elite_enemy(Dice(seed=42), TABLES, crew_size=5, options=PLAIN, category="Hired Muscle", base_numbers=3)
    b = roll_elite_enemy(Dice(seed=42), TABLES, crew_size=5, options=PLAIN, category="Hired Muscle", base_numbers=3)
    assert a == b
    data = json.loads(json.dumps(a.as_dict()))
    assert data["type"] == a.type and len(data["figures"]) == len(a.figures) and len(data["rolls"]) == len(a.rolls)


# -- enemy Psionics ------------------------------------------------------------------------------


def test_psionics_off_changes_nothing():
    f = force("Hired Muscle", [5, 1, 1])
    assert enemy_psionics(Dice(seed=1), TABLES, f, options=PLAIN) is f
    assert enemy_psionics(Dice(seed=1), TABLES, f, options=CampaignOptions(psionics="crew")) is f


def test_psionics_roll_four_plus_picks_a_figure():
    f = force("Hired Muscle", [5, 1, 1], base_numbers=4)  # Unknown Mercs, 6 figures
    both = CampaignOptions(psionics="both")
    none = enemy_psionics(Dice(seed=1), TABLES, f, options=both, faces=[3])
    assert not any(x.psionic_powers for x in none.figures) and none.psionics_checked
    yes = enemy_psionics(Dice(seed=1), TABLES, f, options=CampaignOptions(psionics="enemies"), faces=[4, 1, 7])
    psi = yes.figures[0]
    assert psi.psionic_powers == ("Dominate",)
    assert psi.weapons == ("Hand gun", "Blade") and psi.toughness == 5
    assert [r.notation for r in yes.rolls[-3:]] == ["D6", "D6", "D10"]
    assert enemy_psionics(Dice(seed=1), TABLES, yes, options=both) is yes


def test_psionics_swift_and_tough_figure():
    f = force("Interested Parties", [66, 1, 1])  # Swift War Squad: 6 figures, Toughness 3
    out = enemy_psionics(Dice(seed=1), TABLES, f, options=CampaignOptions(psionics="both"), faces=[6, 3])
    psi = out.figures[5]
    assert psi.psionic_powers == ("Bolster",) and psi.toughness == 4
    hulks = force("Criminal Elements", [92, 6, 1, 1], base_numbers=4)  # Toughness 5 stays 5
    out = enemy_psionics(Dice(seed=1), TABLES, hulks, options=CampaignOptions(psionics="both"))
    assert "Hulker Gang" in NO_PSIONIC_TYPES and "Swift War Squad" in PSIONIC_TYPES
    assert out.count("basic") == hulks.count("basic") + 1 and not any(x.psionic_powers for x in out.figures)


def test_psionics_roving_threats_add_a_basic_enemy():
    f = force("Roving Threats", [65], options=opts("veteran"))
    out = enemy_psionics(Dice(seed=1), TABLES, f, options=CampaignOptions(psionics="both"))
    new = out.figures[-1]
    assert out.count("basic") == f.count("basic") + 1
    assert new.rank == "basic" and new.combat_skill == 2 and new.name == f"Basic {f.count('basic') + 1}"
    assert len(out.rolls) == len(f.rolls)


def test_rogue_psionic_two_powers_repeat_gives_one():
    f = force("Hired Muscle", [5, 6, 6, 84])
    assert f.unique_individual is not None and f.unique_individual.name == "Rogue Psionic"
    two = enemy_psionics(Dice(seed=1), TABLES, f, options=CampaignOptions(psionics="both"), faces=[1, 2])
    assert two.unique_individual is not None and two.unique_individual.psionic_powers == ("Assail", "Reflect")
    assert two.unique_individual.weapons == f.unique_individual.weapons
    one = enemy_psionics(Dice(seed=1), TABLES, f, options=CampaignOptions(psionics="both"), faces=[3, 3])
    assert one.unique_individual is not None and one.unique_individual.psionic_powers == ("Bolster",)


# -- rewards ---------------------------------------------------------------------------------------


def test_elite_rewards_basics():
    f = force("Hired Muscle", [5, 1, 1])
    r = elite_rewards(Dice(seed=1), TABLES, f, held_field=False)
    assert isinstance(r, EliteRewards) and r.extra_loot_rolls == 1 and r.credits == 0 and r.rolls == ()
    r = elite_rewards(
        Dice(seed=1), TABLES, f, held_field=True, patron_job=True, killed_any=True, quest_finished=True, crew_all_casualties=True
    )
    assert (r.danger_pay_credits, r.loot_items, r.xp, r.credits) == (1, 1, 1, 1)
    assert elite_rewards(Dice(seed=1), TABLES, f, held_field=True, patron_job=True).danger_pay_credits == 0
    assert json.loads(json.dumps(r.as_dict()))["xp"] == 1


def test_bounty_paid_only_when_holding_the_field():
    f = force("Criminal Elements", [5, 3, 1, 1])
    assert elite_rewards(Dice(seed=1), TABLES, f, held_field=True).bounty_credits == 3
    assert elite_rewards(Dice(seed=1), TABLES, f, held_field=False).bounty_credits == 0


def test_type_rewards_loot_finds_and_intrigue():
    pirates = force("Criminal Elements", [60, 6, 1, 1])
    assert elite_rewards(Dice(seed=1), TABLES, pirates, held_field=True).extra_loot_rolls == 2
    assert elite_rewards(Dice(seed=1), TABLES, pirates, held_field=False).extra_loot_rolls == 1
    raiders = force("Criminal Elements", [22, 6, 1, 1])
    assert elite_rewards(Dice(seed=1), TABLES, raiders, held_field=True).battlefield_finds_rolls == 1
    cult = force("Criminal Elements", [30, 6, 1, 1])
    miss = elite_rewards(Dice(seed=1), TABLES, cult, held_field=False, faces=[4, 4])
    hit = elite_rewards(Dice(seed=1), TABLES, cult, held_field=False, killed_leader=True, faces=[4, 4])
    assert (miss.quest_rumors, hit.quest_rumors) == (0, 1) and hit.rolls[0].modifier == 1
    agents = force("Hired Muscle", [48, 1, 1])
    r = elite_rewards(Dice(seed=1), TABLES, agents, held_field=True, faces=[1, 1])
    assert r.extra_rivals == 1 and r.extra_loot_rolls == 2


def test_rivals_gang_feuds_enforcers_and_roving():
    gang = force("Criminal Elements", [5, 6, 1, 1])
    assert elite_rewards(Dice(seed=1), TABLES, gang, held_field=True).rival is None
    feud = elite_rewards(Dice(seed=1), TABLES, gang, held_field=True, rival_roll=True, faces=[1, 4])
    assert feud.rival is True and not feud.rival_hates_you
    hate = elite_rewards(Dice(seed=1), TABLES, gang, held_field=True, rival_roll=True, faces=[1, 1])
    assert hate.rival is True and hate.rival_hates_you
    calm = elite_rewards(Dice(seed=1), TABLES, gang, held_field=True, rival_roll=True, faces=[2, 5])
    assert calm.rival is False
    assert elite_rewards(Dice(seed=1), TABLES, force("Hired Muscle", [20, 1, 1]), held_field=True).rival is True
    assert elite_rewards(Dice(seed=1), TABLES, force("Roving Threats", [65]), held_field=True, rival_roll=True).rival is False


def test_rewards_refuse_standard_forces():
    profile = custom_enemy("Thugs", category="Criminal Elements", numbers=1, panic="1", speed=4, combat_skill=0, toughness=3)
    plain = core_enemy(Dice(seed=1), TABLES, profile, crew_size=4, options=PLAIN, specialists=0, lieutenants=0, base_numbers=3)
    with pytest.raises(EnemyError) as err:
        elite_rewards(Dice(seed=1), TABLES, plain, held_field=True)
    assert err.value.field == "force"


def test_elite_rivals_follow_on_four_plus():
    result, rolls = elite_rival_follows(Dice(seed=1), TABLES, ["Pirates", "Enforcers"], faces=[3, 4])
    assert result == {"Pirates": False, "Enforcers": True} and len(rolls) == 2
    with pytest.raises(EnemyError):
        elite_rival_follows(Dice(seed=1), TABLES, ["A", "A"])


@pytest.mark.parametrize("seed", range(8))
def test_a_stored_force_comes_back_whole(seed: int) -> None:
    category = ("Criminal Elements", "Hired Muscle", "Interested Parties", "Roving Threats")[seed % 4]
    made = roll_elite_enemy(
        Dice(seed=seed),
        TABLES,
        category=category,
        crew_size=5,
        options=CampaignOptions(psionics="enemies"),
        base_numbers=3,
        weapons=ARMS,
    )
    made = enemy_psionics(Dice(seed=seed), TABLES, made, options=CampaignOptions(psionics="enemies"))
    assert EnemyForce.from_dict(made.as_dict()) == made


def test_a_typed_core_weapon_code_forgives_spaces_and_case_but_not_a_code_outside_1a_3c() -> None:
    assert weapon_code("1 A") == "1A" and weapon_code(" 3c ") == "3C"
    assert weapon_code("Hand gun") is None and weapon_code("-") is None
    with pytest.raises(EnemyError) as refused:
        weapon_code("4 D", field="enemy.weapons")
    assert refused.value.field == "enemy.weapons" and "1A to 3C" in refused.value.message
    profile = custom_enemy(
        "Dock Toughs", category="Criminal Elements", numbers=0, panic="1-2", speed=4, combat_skill=0, toughness=3, weapons="1 a"
    )
    assert profile.weapons == "1A"
