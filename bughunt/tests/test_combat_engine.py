"""Bug Hunt combat helpers (pp.177-181, 194-197, 201) against the shipped tables.

Most tests enter the dice faces so every outcome is exact; ``faces`` lists the D6 in the order
the engine asks for them (firing dice, Rapid Fire dice, ammunition die, save and Hit dice, splash).
"""

from __future__ import annotations

import dataclasses

import pytest

from bughunt.engine import combat
from bughunt.engine.combat import Combatant, CombatError, WeaponError
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable
from rules.fixturefiles import read_all

TABLES: dict[str, RangeTable] = {s.slug: s.engine() for s in read_all() if s.system == "bughunt"}

DICE = Dice(seed=1)  # never consulted when every face is entered


def trooper(**kw: object) -> Combatant:
    base: dict[str, object] = {"name": "Hicks", "combat_skill": 0, "toughness": 4, "save": 5}
    base.update(kw)
    return Combatant(**base)  # type: ignore[arg-type]


def bug(**kw: object) -> Combatant:
    base: dict[str, object] = {"name": "Bug", "combat_skill": 1, "toughness": 4, "is_enemy": True, "damage": 2}
    base.update(kw)
    return Combatant(**base)  # type: ignore[arg-type]


def shoot(firer: Combatant, name: str, target: Combatant | None, faces: list[int], **kw: object) -> combat.ShotResult:
    kw.setdefault("band", "open")
    return combat.resolve_shot(TABLES, firer, name, target, DICE, faces=faces, **kw)  # type: ignore[arg-type]


# -- tables and weapons -----------------------------------------------------------------------


def test_the_default_numbers_are_the_shipped_table_numbers() -> None:
    numbers = combat.Numbers.from_tables(TABLES)
    assert numbers == combat.Numbers()
    assert [numbers.to_hit(b) for b in combat.BANDS] == [3, 5, 6]
    assert (numbers.repair_target, numbers.knockout_markers, numbers.area_hit_on, numbers.stun_on) == (7, 3, 4, 3)


def test_the_numbers_are_read_once_per_set_of_tables_and_again_for_new_tables() -> None:
    assert combat.Numbers.from_tables(TABLES) is combat.Numbers.from_tables(dict(TABLES))
    shooting = TABLES["bh-shooting"]
    entries = tuple(
        dataclasses.replace(e, data={**e.data, "target": 4}) if e.data.get("in_cover") else e for e in shooting.entries
    )
    edited = {**TABLES, "bh-shooting": dataclasses.replace(shooting, entries=entries)}
    assert combat.Numbers.from_tables(edited).hit_cover == 4
    assert combat.Numbers.from_tables(TABLES).hit_cover == 6


def test_weapon_lookup_reads_bh_weapons_and_ignores_spelling() -> None:
    gun = combat.weapon(TABLES, "shotgun")
    assert (gun.name, gun.range_in, gun.shots, gun.damage, gun.traits) == ("Shot gun", 12, 2, 1, frozenset({"Focused"}))
    claw = combat.weapon(TABLES, "Power claw")
    assert claw.brawl_only and claw.damage == 1
    with pytest.raises(WeaponError, match="Combat rifle"):
        combat.weapon(TABLES, "Phased plasma rifle")


def test_a_brawl_only_weapon_cannot_shoot() -> None:
    with pytest.raises(WeaponError, match="only in Brawls"):
        shoot(trooper(), "Boarding sword", bug(), [6])


def test_combatant_round_trips_through_a_dict() -> None:
    figure = trooper(stun_markers=2, wounded=True, weapons=("Carbine",), special=frozenset({"brawl_best_of_two"}))
    assert Combatant.from_dict(figure.as_dict()) == figure
    with pytest.raises(CombatError, match="toughness"):
        Combatant.from_dict({"name": "X", "combat_skill": 1})


# -- to-hit -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("band", "hit_face", "miss_face"),
    [("close", 3, 2), ("open", 5, 4), ("cover", 6, 5)],
)
def test_to_hit_numbers_come_from_bh_shooting(band: str, hit_face: int, miss_face: int) -> None:
    target = bug(toughness=10)
    hit = shoot(trooper(), "Combat rifle", target, [hit_face, 1], band=band, take_rapid_fire=False)
    assert hit.to_hit == hit_face and len(hit.hits) == 1
    miss = shoot(trooper(), "Combat rifle", target, [miss_face], band=band)
    assert miss.hits == () and "No hits." in miss.text


def test_combat_skill_is_added_to_each_firing_die() -> None:
    result = shoot(trooper(combat_skill=1), "Combat rifle", bug(toughness=10), [4, 1])
    assert result.modifier == 1 and len(result.hits) == 1
    assert "Firing dice 4 (+1 Combat Skill) against 5+ (in range, in the open): totals 5 (hit)." in result.text


def test_an_unknown_band_is_refused_with_the_allowed_values() -> None:
    with pytest.raises(CombatError, match="band must be one of close, open, cover"):
        shoot(trooper(), "Combat rifle", bug(), [4], band="far")


def test_a_target_is_needed_except_for_area_and_stun_weapons() -> None:
    with pytest.raises(CombatError, match="target is required"):
        shoot(trooper(), "Combat rifle", None, [4])


# -- Rapid Fire and Malfunctions --------------------------------------------------------------


def test_each_natural_six_gives_one_more_shot_which_can_roll_six_again() -> None:
    result = shoot(trooper(), "Combat rifle", bug(toughness=10), [6, 6, 2, 1, 1])
    assert result.firing_faces == (6, 6, 2)
    assert result.extra_shots == 2
    assert len(result.hits) == 2
    assert result.hits[-1].target.stun_markers == 2
    assert result.text.count("Rapid Fire:") == 2


def test_rapid_fire_can_be_declined() -> None:
    result = shoot(trooper(), "Combat rifle", bug(toughness=10), [6, 1], take_rapid_fire=False)
    assert (result.extra_shots, result.declined_shots, result.firing_faces) == (0, 1, (6,))
    assert "declined" in result.text


def test_two_natural_ones_in_the_firing_dice_malfunction_the_weapon() -> None:
    result = shoot(trooper(), "Light machine gun", bug(toughness=10), [1, 1, 3])
    assert result.malfunctioned and result.natural_ones == 2 and result.ones_this_round == 2


def test_a_single_one_only_counts_toward_the_round() -> None:
    result = shoot(trooper(), "Combat rifle", bug(), [1])
    assert not result.malfunctioned and result.ones_this_round == 1
    again = shoot(trooper(), "Combat rifle", bug(), [1], ones_this_round=result.ones_this_round)
    assert again.malfunctioned and again.ones_this_round == 2


def test_ones_on_rapid_fire_dice_count_toward_a_malfunction() -> None:
    result = shoot(trooper(), "Combat rifle", bug(toughness=10), [6, 1, 1], ones_this_round=1)
    assert result.extra_shots == 1 and result.natural_ones == 1
    assert result.malfunctioned
    assert "2 natural 1s this round" in result.text


def test_rapid_fire_shots_owed_when_the_weapon_malfunctions_are_lost() -> None:
    result = shoot(trooper(), "Light machine gun", bug(toughness=10), [1, 1, 6, 1])
    assert result.malfunctioned and result.lost_shots == 1 and result.extra_shots == 0
    assert len(result.hits) == 1  # the 6 itself still hits


def test_a_weapon_that_already_malfunctioned_this_round_cannot_fire() -> None:
    with pytest.raises(CombatError, match="ones_this_round is 2"):
        shoot(trooper(), "Combat rifle", bug(), [4], ones_this_round=2)


def test_no_malfunction_covers_movie_magic_three_shots() -> None:
    # "You want some too?": three shots, no chance of malfunction (p.181).
    result = shoot(trooper(), "Combat rifle", bug(), [1, 1, 1], shots=3, no_malfunction=True)
    assert result.firing_faces == (1, 1, 1) and not result.malfunctioned
    assert "cannot malfunction" in result.text


def test_clear_malfunction_needs_seven_with_savvy() -> None:
    fixed = combat.clear_malfunction(1, DICE, tables=TABLES, faces=[6])
    assert fixed.success and fixed.total == 7 and fixed.target == 7
    jammed = combat.clear_malfunction(1, DICE, faces=[5])
    assert not jammed.success and "still jammed" in jammed.text
    assert jammed.rolls[0].entered


# -- Area, Stun, Launcher ---------------------------------------------------------------------


def test_area_weapon_skips_rapid_fire_and_malfunction_and_rolls_ammo_and_splash() -> None:
    result = shoot(trooper(), "Frag grenade", bug(), [6, 1, 1, 4, 4, 3], ones_this_round=1, figures_near_point=2)
    assert result.extra_shots == 0 and not result.malfunctioned
    assert result.ones_this_round == 1
    assert result.out_of_ammo
    assert [h.outcome for h in result.hits] == ["wounded"]
    assert [(s.figure, s.affected) for s in result.splash] == [(1, True), (2, False)]
    assert len(result.rolls) == 5  # firing dice, ammo die, one Hit die, two splash dice


def test_area_ammo_die_above_one_keeps_the_weapon_loaded() -> None:
    result = shoot(trooper(), "Frag grenade", None, [2, 5], figures_near_point=1)
    assert not result.out_of_ammo and result.firing_faces == ()
    assert result.splash[0].affected


def test_stun_weapon_stuns_each_figure_within_two_inches_on_three() -> None:
    result = shoot(trooper(), "Flash grenade", bug(), [3, 2, 6], figures_near_point=2)
    assert [(s.figure, s.affected) for s in result.splash] == [(0, True), (1, False), (2, True)]
    assert result.target is not None and result.target.stun_markers == 1
    assert result.hits == ()


def test_apply_stun_knocks_out_on_the_third_marker() -> None:
    after, out = combat.apply_stun(bug(stun_markers=2), tables=TABLES)
    assert out and after.stun_markers == 3


def test_launcher_fires_the_named_grenade() -> None:
    result = shoot(trooper(), "Mounted launcher", bug(), [5, 1], grenade="Flash grenade", figures_near_point=1)
    assert result.weapon.name == "Mounted launcher (Flash grenade)" and result.weapon.range_in == 18
    assert [s.affected for s in result.splash] == [True, False]
    with pytest.raises(WeaponError, match="grenade must name"):
        shoot(trooper(), "Mounted launcher", bug(), [5])
    with pytest.raises(WeaponError, match="grenade must be a grenade"):
        shoot(trooper(), "Mounted launcher", bug(), [5], grenade="Combat rifle")


# -- weapon traits ----------------------------------------------------------------------------


def test_aimed_weapon_gets_plus_one_only_when_the_firer_did_not_move() -> None:
    still = shoot(trooper(), "Sniper rifle", bug(toughness=10), [4, 1])
    assert still.modifier == 1 and len(still.hits) == 1
    moved = shoot(trooper(), "Sniper rifle", bug(toughness=10), [4], moved=True)
    assert moved.modifier == 0 and moved.hits == ()


def test_heavy_weapon_loses_one_after_moving() -> None:
    moved = shoot(trooper(), "Light machine gun", bug(), [5, 5, 5], moved=True)
    assert moved.modifier == -1 and moved.hits == ()
    still = shoot(trooper(), "Light machine gun", bug(toughness=10), [5, 2, 2, 1])
    assert len(still.hits) == 1


def test_piercing_weapon_ignores_saves() -> None:
    robot = combat.enemy_combatant(TABLES, "Berserk robots")
    pierced = shoot(trooper(), "Plasma rifle", robot, [5, 2, 3])
    assert pierced.hits[0].save_target is None and pierced.hits[0].outcome == "stunned"
    assert len(pierced.rolls) == 2  # firing dice and the Hit die: no save die
    saved = shoot(trooper(), "Combat rifle", robot, [5, 5])
    assert saved.hits[0].outcome == "saved"


def test_overheat_malfunctions_when_three_firing_dice_match() -> None:
    assert shoot(trooper(), "Hyper blaster", bug(), [3, 3, 3]).malfunctioned
    assert not shoot(trooper(), "Hyper blaster", bug(), [3, 3, 4]).malfunctioned
    # Fewer than three firing dice: Overheat cannot happen.
    assert not shoot(trooper(), "Hyper blaster", bug(), [3, 3], shots=2).malfunctioned


def test_focused_weapon_says_so_and_wastes_hits_after_its_target_falls() -> None:
    result = shoot(trooper(), "Shot gun", bug(toughness=3), [5, 5, 6])
    assert "Focused" in result.text
    assert result.hits[0].outcome == "casualty" and result.spare_hits == 0 and "wasted" in result.text


def test_unfocused_weapon_keeps_spare_hits_after_its_target_falls() -> None:
    result = shoot(trooper(), "Light machine gun", bug(toughness=3), [5, 5, 2, 6])
    assert [h.outcome for h in result.hits] == ["casualty"] and result.spare_hits == 1 and result.hit_count == 2


# -- Hits and saves ---------------------------------------------------------------------------


def test_a_made_save_negates_the_hit_and_knocks_back_one_inch() -> None:
    result = combat.resolve_hit(TABLES, trooper(), 3, DICE, faces=[5])
    assert result.saved and result.outcome == "saved" and result.knockback_in == 1
    assert result.target == trooper() and "not Stunned" in result.text


def test_a_failed_save_rolls_damage_against_toughness() -> None:
    result = combat.resolve_hit(TABLES, trooper(), 0, DICE, faces=[4, 4])
    assert not result.saved and result.outcome == "wounded" and result.damage_total == 4


@pytest.mark.parametrize(
    ("face", "before", "outcome", "wounded", "markers"),
    [
        (4, {}, "casualty", False, 0),
        (3, {}, "wounded", True, 0),
        (3, {"wounded": True}, "casualty", True, 0),
        (2, {}, "stunned", False, 1),
        (2, {"stun_markers": 2}, "knocked_out", False, 3),
    ],
)
def test_hit_roll_plus_damage_against_toughness(face: int, before: dict, outcome: str, wounded: bool, markers: int) -> None:
    result = combat.resolve_hit(TABLES, bug(**before), 1, DICE, faces=[face])
    assert result.outcome == outcome
    assert result.target.wounded is wounded and result.target.stun_markers == markers
    assert result.removed is (outcome in ("casualty", "knocked_out"))


def test_negative_damage_is_refused() -> None:
    with pytest.raises(CombatError, match="damage must be 0 or more"):
        combat.resolve_hit(TABLES, bug(), -1, DICE)


def test_wrong_number_of_faces_is_refused() -> None:
    with pytest.raises(CombatError, match="faces: 1 D6 face"):
        combat.resolve_hit(TABLES, trooper(), 0, DICE, faces=[2])
    with pytest.raises(CombatError, match="only 1 were needed"):
        combat.resolve_hit(TABLES, bug(), 0, DICE, faces=[2, 2])
    with pytest.raises(CombatError, match="faces: A D6 shows 1 to 6"):
        combat.resolve_hit(TABLES, bug(), 0, DICE, faces=[7])


# -- enemy special rules ----------------------------------------------------------------------


def test_vent_crawlers_in_or_behind_cover_get_no_combat_skill_added() -> None:
    crawler = combat.enemy_combatant(TABLES, "Vent-crawlers")
    assert combat.VENT_CRAWLERS in crawler.special
    sniper = trooper(combat_skill=2)
    assert shoot(sniper, "Combat rifle", crawler, [5], band="cover").hits == ()
    assert len(shoot(sniper, "Combat rifle", bug(toughness=10), [5, 1], band="cover").hits) == 1
    assert shoot(sniper, "Combat rifle", crawler, [4], target_behind_cover=True).hits == ()
    assert len(shoot(sniper, "Combat rifle", crawler, [4, 1]).hits) == 1


def test_face_rippers_let_trooper_armor_save_only_on_six() -> None:
    ripper = combat.enemy_combatant(TABLES, "Face-rippers")
    result = combat.resolve_hit(TABLES, trooper(), ripper.damage, DICE, attacker_special=ripper.special, faces=[5, 1])
    assert result.save_target == 6 and not result.saved and result.outcome == "stunned"


def test_slithering_horrors_cut_the_melee_bonus_to_one() -> None:
    swordsman = trooper(weapons=("Boarding sword",))
    horror = combat.enemy_combatant(TABLES, "Slithering horrors")
    assert combat.brawl_weapon(TABLES, swordsman, against=horror)[0] == 1
    assert combat.brawl_weapon(TABLES, swordsman, against=bug())[0] == 2
    result = combat.resolve_brawl(TABLES, swordsman, horror, DICE, faces=[4, 4, 1, 5])
    assert result.trooper_total == 5 and result.enemy_total == 5 and result.winner == "draw"
    assert [h.outcome for h in result.hits] == ["stunned", "saved"]


def test_tentacle_creepers_save_on_five_except_against_area_weapons() -> None:
    creeper = combat.enemy_combatant(TABLES, "Tentacle creepers")
    assert combat.save_for(creeper, area=False)[0] == 5
    assert combat.save_for(creeper, area=True)[0] is None
    burnt = shoot(trooper(), "Incinerator", creeper, [5, 2, 2, 3, 2])
    assert burnt.hits[0].save_target is None and burnt.hits[0].outcome == "stunned"
    assert len(burnt.rolls) == 3


def test_berserk_robots_save_on_five_against_everything() -> None:
    robot = combat.enemy_combatant(TABLES, "Berserk robots")
    assert robot.save == 5
    assert {combat.save_for(robot, area=a, ranged=r)[0] for a in (True, False) for r in (True, False)} == {5}


def test_converted_assault_team_saves_only_against_ranged_attacks() -> None:
    converted = combat.enemy_combatant(TABLES, "Converted assault team")
    assert combat.save_for(converted, ranged=True)[0] == 5
    assert combat.save_for(converted, ranged=False)[0] is None


def test_the_swarm_ignores_trooper_saves() -> None:
    swarm = combat.enemy_combatant(TABLES, "The Swarm")
    result = combat.resolve_brawl(TABLES, trooper(), swarm, DICE, faces=[1, 3, 3])
    assert result.winner == "enemy" and result.hits[0].save_target is None
    assert result.hits[0].outcome == "casualty"
    assert "nearest visible trooper" in result.move


def test_toughs_save_against_area_and_join_an_existing_save_into_four_plus() -> None:
    plain = combat.enemy_combatant(TABLES, "Razor lizards", variant="Toughs")
    assert combat.save_for(plain, area=True)[0] == 5 and combat.save_for(plain, area=False)[0] is None
    creeper = combat.enemy_combatant(TABLES, "Tentacle creepers", variant="toughs")
    assert combat.save_for(creeper, area=True)[0] == 4 and combat.save_for(creeper, area=False)[0] == 4
    converted = combat.enemy_combatant(TABLES, "Converted assault team", variant="Toughs")
    assert combat.save_for(converted, ranged=True)[0] == 4 and combat.save_for(converted, ranged=False)[0] is None


def test_assassin_gains_combat_skill_and_damage_and_ignores_armor() -> None:
    assassin = combat.enemy_combatant(TABLES, "Razor lizards", leader="Assassin")
    assert (assassin.combat_skill, assassin.damage) == (2, 3) and combat.ASSASSIN in assassin.special
    result = combat.resolve_hit(TABLES, trooper(), assassin.damage, DICE, attacker_special=assassin.special, faces=[1])
    assert result.save_target is None and result.outcome == "wounded"


def test_bruiser_gains_toughness_and_a_four_plus_save_replacing_any_other() -> None:
    bruiser = combat.enemy_combatant(TABLES, "Berserk robots", leader="bruiser")
    assert bruiser.toughness == 6 and bruiser.save == 4
    assert combat.save_for(bruiser, ranged=False)[0] == 4
    assert combat.save_for(bruiser, piercing=True)[0] is None


def test_unknown_enemy_names_are_refused_with_the_choices() -> None:
    with pytest.raises(CombatError, match="Vent-crawlers"):
        combat.enemy_combatant(TABLES, "Xenomorphs")
    with pytest.raises(CombatError, match="Spitters"):
        combat.enemy_combatant(TABLES, "Vent-crawlers", variant="Huggers")


def test_spitters_hit_only_on_six_with_damage_one_and_armor_applies() -> None:
    spat = combat.spitter_attack(trooper(), DICE, tables=TABLES, faces=[6, 4, 3])
    assert spat.hit and spat.result is not None and spat.result.save_target == 5 and spat.result.outcome == "wounded"
    missed = combat.spitter_attack(trooper(), DICE, faces=[5])
    assert not missed.hit and missed.result is None and len(missed.rolls) == 1


def test_lancer_dart_hits_on_five_with_damage_one_and_ignores_armor() -> None:
    dart = combat.lancer_dart(trooper(), DICE, tables=TABLES, faces=[5, 3])
    assert dart.hit and dart.result is not None and dart.result.save_target is None
    assert dart.result.damage_total == 4 and dart.target is not None and dart.target.wounded
    assert not combat.lancer_dart(trooper(), DICE, faces=[4]).hit


def test_shatter_form_death_hits_each_nearby_figure_at_damage_zero() -> None:
    hits = combat.shatter_burst(TABLES, [trooper(), bug(name="Shatter-form")], DICE, faces=[5, 5])
    assert [h.outcome for h in hits] == ["saved", "casualty"]
    assert hits[1].damage_total == 5


@pytest.mark.parametrize(("face", "new"), [(1, 1), (2, 2), (3, 0), (6, 0)])
def test_acid_blob_splits_on_one_or_two(face: int, new: int) -> None:
    assert combat.acid_blob_death(DICE, tables=TABLES, faces=[face]).new_blobs == new


# -- Brawling ---------------------------------------------------------------------------------


def test_brawl_higher_total_wins_and_hits_the_loser() -> None:
    result = combat.resolve_brawl(TABLES, trooper(combat_skill=1, weapons=("Combat rifle",)), bug(), DICE, faces=[5, 3, 4])
    assert (result.winner, result.trooper_total, result.enemy_total) == ("trooper", 6, 4)
    assert result.enemy.wounded and result.hits[0].damage_total == 4  # Damage 0 without a Melee or Pistol weapon
    assert result.move == ""


def test_brawl_counts_one_weapon_bonus_and_a_draw_hits_both() -> None:
    armed = trooper(weapons=("Service pistol", "Boarding sword"))
    result = combat.resolve_brawl(TABLES, armed, bug(), DICE, faces=[3, 4, 1, 2, 1])
    assert result.trooper_total == 5 and result.enemy_total == 5 and result.winner == "draw"
    assert [h.target.name for h in result.hits] == ["Bug", "Hicks"]
    assert result.enemy.stun_markers == 1 and result.trooper.stun_markers == 1


def test_brawl_damage_is_the_best_melee_or_pistol_weapon() -> None:
    clawed = trooper(weapons=("Service pistol", "Power claw"))
    result = combat.resolve_brawl(TABLES, clawed, bug(), DICE, faces=[6, 1, 4])
    assert result.hits[0].damage_total == 5 and result.hits[0].outcome == "casualty"
    assert result.enemy_total is None and 'may move 2"' in result.move


def test_pistol_gives_plus_one_in_a_brawl() -> None:
    result = combat.resolve_brawl(TABLES, trooper(weapons=("Hand cannon",)), bug(), DICE, faces=[3, 2, 1])
    assert result.trooper_total == 4 and result.enemy_total == 3 and result.hits[0].damage_total == 2


def test_enemy_natural_one_takes_a_hit_and_rolls_again_if_it_survives() -> None:
    result = combat.resolve_brawl(TABLES, trooper(), bug(), DICE, faces=[2, 1, 1, 5, 6])
    assert [h.outcome for h in result.hits] == ["stunned", "saved"]
    assert result.winner == "enemy" and result.enemy_total == 6
    assert "rolls again" in result.text and result.enemy.stun_markers == 1


def test_wounded_and_stunned_trooper_fights_at_minus_two_and_sheds_a_marker() -> None:
    hurt = trooper(combat_skill=1, wounded=True, stun_markers=1)
    result = combat.resolve_brawl(TABLES, hurt, bug(), DICE, faces=[5, 2, 1])
    assert result.trooper_total == 4 and result.winner == "trooper"
    assert result.trooper.stun_markers == 0 and "removes a Stun marker" in result.text


def test_second_opponent_gets_plus_one_combat_skill() -> None:
    first = combat.resolve_brawl(TABLES, trooper(), bug(), DICE, faces=[4, 2, 1])
    assert first.enemy_total == 3 and first.winner == "trooper"
    second = combat.resolve_brawl(TABLES, trooper(), bug(), DICE, second_opponent=True, faces=[4, 2, 1, 6])
    assert second.enemy_total == 4 and second.winner == "draw"


def test_crash_brawl_uses_combat_skill_zero_and_no_modifiers() -> None:
    skilled = trooper(combat_skill=2, weapons=("Boarding sword",))
    result = combat.resolve_brawl(TABLES, skilled, bug(combat_skill=3), DICE, crash=True, faces=[3, 4, 1, 1])
    assert (result.trooper_total, result.enemy_total, result.winner) == (3, 4, "enemy")
    assert result.trooper.stun_markers == 1


def test_kerin_assault_marines_roll_two_dice_and_keep_the_better() -> None:
    marine = combat.support_combatant(TABLES, "K'Erin assault marine Team")
    assert combat.BRAWL_BEST_OF_TWO in marine.special and marine.save == 5
    result = combat.resolve_brawl(TABLES, marine, bug(), DICE, faces=[1, 5, 4, 2])
    assert result.rolls[0].faces == (1, 5) and result.trooper_total == 7 and result.winner == "trooper"


def test_brawl_sides_are_checked() -> None:
    with pytest.raises(CombatError, match="enemy must be an enemy"):
        combat.resolve_brawl(TABLES, trooper(), trooper(), DICE)


# -- drop ship and records --------------------------------------------------------------------


def test_drop_ship_fires_two_machine_guns_at_plus_one_that_never_malfunction() -> None:
    fire = combat.drop_ship_fire(TABLES, bug(), DICE, band="open", faces=[1, 1, 4, 1, 6, 1, 2, 3, 1])
    first, second = fire.shots
    assert first.modifier == 1 and not first.malfunctioned and len(first.hits) == 1
    assert second.extra_shots == 1 and not second.malfunctioned
    assert second.target is not None and second.target.stun_markers == 2
    assert len(fire.rolls) == 5


def test_every_roll_is_returned_and_seeded_rolls_repeat() -> None:
    def run() -> combat.ShotResult:
        return combat.resolve_shot(TABLES, trooper(combat_skill=1), "Light machine gun", bug(), Dice(seed=7), band="close")

    one, two = run(), run()
    assert one == two
    dice_made = sum(len(r.faces) for r in one.rolls)
    expected = len(one.firing_faces) + sum(len(h.rolls) for h in one.hits)
    assert dice_made == expected
    assert not any(r.entered for r in one.rolls)
    assert one.as_dict()["rolls"][0]["reason"].startswith("Light machine gun firing dice")
