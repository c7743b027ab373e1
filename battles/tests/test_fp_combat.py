"""Tests for the Five Parsecs combat resolver (battles/engine/fp_combat.py).

Pure engine tests: real shipped tables, seeded dice or entered faces, no database.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from battles.engine import fp_combat as fc
from rules.engine.dice import Dice
from rules.fixturefiles import read_all

TABLES = {s.slug: s.engine() for s in read_all() if s.system == "fiveparsecs"}
DRAMATIC = fc.hit_numbers(TABLES, dramatic=True)
CORE = fc.HitNumbers(open=4, cover=5, source="user's core table")


def gun(*traits: str, range: int = 24, shots: int = 1, damage: int = 0, name: str = "Test gun") -> fc.Weapon:
    return fc.custom_weapon(name, range, shots, damage, traits)


def fighter(name: str = "Target", **kw: Any) -> fc.Fighter:
    base: dict[str, object] = {"combat_skill": 0, "toughness": 4}
    base.update(kw)
    return fc.Fighter(name=name, **base)  # type: ignore[arg-type]


SHOOTER = fighter("Shooter")


def shoot(weapon: fc.Weapon, faces: list[int], **kw: object) -> fc.ShotResult:
    args: dict[str, object] = {
        "shooter": SHOOTER,
        "target": fighter(),
        "weapon": weapon,
        "numbers": DRAMATIC,
        "range_in": 10,
        "cover": False,
    }
    args.update(kw)
    return fc.resolve_shot(Dice(seed=1), faces=faces, **args)  # type: ignore[arg-type]


def brawl(a: fc.Fighter, b: fc.Fighter, aw: fc.Weapon | None, bw: fc.Weapon | None, faces: list[int]) -> fc.BrawlResult:
    return fc.resolve_brawl(Dice(seed=1), a=a, b=b, a_weapon=aw, b_weapon=bw, faces=faces)


# -- tables and weapons -------------------------------------------------------------------------


def test_trait_numbers_match_shipped_tables() -> None:
    assert fc.TraitNumbers.from_tables(TABLES) == fc.TraitNumbers()
    assert fc.TraitNumbers.from_tables(None) == fc.TraitNumbers()


def test_trait_numbers_follow_a_changed_table() -> None:
    table = TABLES["dramatic-weapon-traits"]
    entries = tuple(replace(e, data={**e.data, "brawl_modifier": 3}) if e.result == "Melee" else e for e in table.entries)
    changed = {**TABLES, "dramatic-weapon-traits": replace(table, entries=entries)}
    assert fc.TraitNumbers.from_tables(changed).melee == 3


def test_every_dramatic_weapon_loads_with_known_traits() -> None:
    for entry in TABLES["dramatic-weapons"].entries:
        w = fc.weapon(TABLES, entry.result)
        assert w.traits <= fc.TRAITS
    assert fc.weapon(TABLES, "hunting RIFLE") == fc.Weapon("Hunting rifle", 30, 1, 1, frozenset({"heavy", "critical"}))


def test_weapon_brawl_area_and_no_damage_profiles() -> None:
    blade = fc.weapon(TABLES, "Blade")
    assert blade.range == 0 and blade.brawl_only and blade.has("Melee")
    dazzle = fc.weapon(TABLES, "Dazzle grenade")
    assert dazzle.shots == 0 and dazzle.no_damage and dazzle.has("single_use") and dazzle.has("Single-use")
    frakk = fc.weapon(TABLES, "Frakk grenade")
    assert frakk.has("area") and not frakk.no_damage and frakk.damage == 0
    assert fc.weapon(TABLES, "Hand laser").has("snap_shot")


def test_weapon_errors_name_the_field() -> None:
    with pytest.raises(fc.CombatError) as err:
        fc.weapon(TABLES, "Lightsaber")
    assert err.value.field == "name" and "Auto rifle" in str(err.value)
    with pytest.raises(fc.CombatError) as err:
        fc.weapon(TABLES, "Blade", table="no-such-table")
    assert err.value.field == "table"


def test_custom_weapon_normalises_traits_and_rejects_bad_input() -> None:
    w = fc.custom_weapon("Blaster", 12, 1, 0, ["Snap Shot", "Single use", "PISTOL"])
    assert w.traits == frozenset({"snap_shot", "single_use", "pistol"})
    with pytest.raises(fc.CombatError) as err:
        fc.custom_weapon("Blaster", 12, 1, 0, ["Aimed"])
    assert err.value.field == "traits" and "snap_shot" in str(err.value)
    with pytest.raises(fc.CombatError) as err:
        fc.custom_weapon("Blaster", -1, 1, 0, [])
    assert err.value.field == "range"
    with pytest.raises(fc.CombatError) as err:
        fc.custom_weapon("  ", 1, 1, 0, [])
    assert err.value.field == "name"
    assert isinstance(err.value, ValueError)


def test_weapon_and_fighter_round_trip() -> None:
    w = fc.weapon(TABLES, "Plasma rifle")
    assert fc.Weapon.from_dict(w.as_dict()) == w
    f = fighter("Kira", save=5, enemy=True, stun_markers=1, weapons=(w,))
    assert fc.Fighter.from_dict(json.loads(json.dumps(f.as_dict()))) == f
    with pytest.raises(fc.CombatError) as err:
        fc.Fighter.from_dict({"name": "x", "combat_skill": 0})
    assert err.value.field == "toughness"


@pytest.mark.parametrize(
    ("kw", "field"),
    [({"save": 7}, "save"), ({"toughness": 0}, "toughness"), ({"stun_markers": -1}, "stun_markers"), ({"speed": -2}, "speed")],
)
def test_fighter_errors(kw: dict[str, int], field: str) -> None:
    with pytest.raises(fc.CombatError) as err:
        fighter("Target", **kw)
    assert err.value.field == field


# -- hit numbers --------------------------------------------------------------------------------


def test_hit_numbers_dramatic_reads_p87() -> None:
    assert (DRAMATIC.open, DRAMATIC.cover) == (5, 6)
    assert DRAMATIC.source == "p.87 adjusted shooting"
    assert fc.hit_numbers(TABLES, dramatic=True, core=CORE) == DRAMATIC


def test_hit_numbers_core_must_be_given_without_dramatic() -> None:
    assert fc.hit_numbers(TABLES, dramatic=False, core=CORE) is CORE
    with pytest.raises(fc.CombatError) as err:
        fc.hit_numbers(TABLES, dramatic=False)
    assert err.value.field == "core"
    with pytest.raises(fc.CombatError) as err:
        fc.hit_numbers({}, dramatic=True)
    assert err.value.field == "tables"
    with pytest.raises(fc.CombatError) as err:
        fc.HitNumbers(open=0, cover=6, source="x")
    assert err.value.field == "open"


def test_core_close_band() -> None:
    numbers = fc.HitNumbers(open=5, cover=6, source="core", close=3, close_range_in=6)
    assert numbers.target(cover=False, range_in=6) == 3
    assert numbers.target(cover=False, range_in=7) == 5
    assert numbers.target(cover=True, range_in=2) == 6
    assert shoot(gun(), [3, 1], numbers=numbers, range_in=5).hits == 1
    assert shoot(gun(), [3], numbers=numbers, range_in=8).hits == 0


# -- shooting -----------------------------------------------------------------------------------


def test_open_against_cover() -> None:
    assert shoot(gun(), [5, 6], cover=False).hits == 1
    assert shoot(gun(), [5], cover=True).hits == 0
    assert shoot(gun(), [6, 6], cover=True).hits == 1


def test_dramatic_against_core_numbers() -> None:
    # A 4 hits on the user's core 4+ but not on the p.87 5+.
    core = shoot(gun(), [4, 6], numbers=CORE)
    dramatic = shoot(gun(), [4], numbers=DRAMATIC)
    assert core.hits == 1 and core.to_hit == 4
    assert dramatic.hits == 0 and dramatic.to_hit == 5


def test_combat_skill_adds_to_each_die() -> None:
    skilled = replace(SHOOTER, combat_skill=2)
    assert shoot(gun(), [3, 6], shooter=skilled).hits == 1
    assert shoot(gun(), [3], shooter=SHOOTER).hits == 0


def test_pistol_within_six_inches() -> None:
    assert shoot(gun("pistol"), [4, 6], range_in=6).hits == 1
    assert shoot(gun("pistol"), [4], range_in=7).hits == 0
    assert shoot(gun(), [4], range_in=6).hits == 0


def test_snap_shot_within_six_and_stacks_with_pistol() -> None:
    assert shoot(gun("snap_shot"), [4, 6], range_in=6).hits == 1
    assert shoot(gun("snap_shot"), [4], range_in=7).hits == 0
    both = shoot(gun("snap_shot", "pistol"), [3, 6], range_in=4)
    assert both.hits == 1 and both.modifier == 2
    assert shoot(gun("pistol"), [3], range_in=4).hits == 0


def test_heavy_after_moving() -> None:
    assert shoot(gun("heavy"), [5, 6], moved=False).hits == 1
    moved = shoot(gun("heavy"), [5], moved=True)
    assert moved.hits == 0 and moved.modifier == -1
    assert shoot(gun(), [5, 6], moved=True).hits == 1


def test_heavy_does_not_touch_area() -> None:
    # Area: unmodified D6 4+, even when Heavy and moved.
    assert shoot(gun("area", "heavy", shots=0), [4, 6], moved=True).hits == 1


def test_critical_natural_six_is_two_hits() -> None:
    crit = shoot(gun("critical"), [6, 1, 1])
    assert crit.hits == 2 and len(crit.outcomes) == 2
    assert all(o.natural_six for o in crit.outcomes)
    plain = shoot(gun(), [6, 1])
    assert plain.hits == 1
    # A non-six hit with Critical is one hit.
    assert shoot(gun("critical"), [5, 1]).hits == 1


def test_shrapnel_hits_on_five_whatever_the_modifiers() -> None:
    # In cover with Combat Skill 0 a 5 hits (otherwise 6+ needed).
    assert shoot(gun("shrapnel"), [5, 1], cover=True).hits == 1
    assert shoot(gun(), [5], cover=True).hits == 0
    # A 4 misses even with Combat Skill +3 (which would otherwise hit).
    ace = replace(SHOOTER, combat_skill=3)
    assert shoot(gun("shrapnel"), [4], shooter=ace).hits == 0
    assert shoot(gun(), [4, 1], shooter=ace).hits == 1


def test_overheat_uses_fired_last_round() -> None:
    hyper = fc.weapon(TABLES, "Hyper blaster")
    fresh = shoot(hyper, [1, 1, 1])
    hot = shoot(hyper, [1, 1], fired_last_round=True)
    assert fresh.shots == 3 and hot.shots == 2
    assert fresh.rolls[0].faces == (1, 1, 1) and hot.rolls[0].faces == (1, 1)
    # Without Overheat, firing last round changes nothing.
    assert shoot(gun(shots=3), [1, 1, 1], fired_last_round=True).shots == 3


def test_focused_loses_spare_hits_non_focused_keeps_them() -> None:
    weak = fighter(toughness=3)
    focused = shoot(gun("focused", shots=2), [6, 6, 6], target=weak)
    assert focused.removed and focused.spare_hits == 0 and focused.hits == 2
    assert any("Focused" in line for line in focused.lines)
    spread = shoot(gun(shots=2), [6, 6, 6], target=weak)
    assert spread.removed and spread.spare_hits == 1
    assert len(spread.outcomes) == 1


def test_single_use_is_marked() -> None:
    grenade = shoot(fc.weapon(TABLES, "Frakk grenade"), [1], range_in=5)
    assert grenade.single_use and any("Single-use" in line for line in grenade.lines)
    assert not shoot(gun(), [1]).single_use


def test_area_four_in_open_five_when_partly_shielded() -> None:
    shell = fc.weapon(TABLES, "Shell gun")
    assert shoot(shell, [4, 1], cover=False).hits == 1
    assert shoot(shell, [4], cover=True).hits == 0
    assert shoot(shell, [5, 1], cover=True).hits == 1
    # Combat Skill does not help an Area roll.
    ace = replace(SHOOTER, combat_skill=3)
    result = shoot(shell, [3], shooter=ace)
    assert result.hits == 0 and result.to_hit == 4


def test_piercing_ignores_the_save() -> None:
    armoured = fighter(save=5)
    pierced = shoot(gun("piercing", damage=0), [6, 1], target=armoured)
    assert len(pierced.rolls) == 2  # firing die, Damage die: no save roll
    assert pierced.outcomes[0].result == "stunned"
    saved = shoot(gun(damage=0), [6, 5], target=armoured)
    assert len(saved.rolls) == 2 and saved.outcomes[0].result == "saved"
    assert saved.target.stun_markers == 0 and saved.outcomes[0].knockback_in == 1


def test_failed_save_then_damage() -> None:
    result = shoot(gun(damage=1), [6, 4, 3], target=fighter(save=5))
    assert result.outcomes[0].result == "casualty" and result.outcomes[0].beat_toughness


def test_damage_against_toughness() -> None:
    # D6 + Damage equal to Toughness is a casualty (p.98); below is a Stun marker and 1" back.
    equal = shoot(gun(damage=1), [6, 3])
    assert equal.outcomes[0].result == "casualty" and equal.outcomes[0].beat_toughness and equal.removed
    below = shoot(gun(damage=1), [6, 2])
    assert below.outcomes[0].result == "stunned" and below.target.stun_markers == 1
    assert below.outcomes[0].knockback_in == 1 and not below.removed


def test_third_stun_marker_knocks_out_without_casualty_table() -> None:
    result = shoot(gun(), [6, 1], target=fighter(stun_markers=2))
    outcome = result.outcomes[0]
    assert outcome.result == "casualty" and not outcome.beat_toughness and result.removed
    assert shoot(gun(), [6, 1], target=fighter(stun_markers=1)).outcomes[0].result == "stunned"


def test_stun_trait_stuns_through_armour() -> None:
    armoured = fighter(save=5)
    stun = shoot(gun("stun"), [6, 6], target=armoured)
    assert stun.outcomes[0].result == "stunned" and stun.target.stun_markers == 1
    plain = shoot(gun(), [6, 6], target=armoured)
    assert plain.outcomes[0].result == "saved" and plain.target.stun_markers == 0


def test_stun_trait_adds_only_one_marker_on_a_failed_damage_roll() -> None:
    result = shoot(gun("stun"), [6, 1])
    assert result.target.stun_markers == 1 and result.outcomes[0].result == "stunned"


def test_dazzle_grenade_only_stuns() -> None:
    dazzle = fc.weapon(TABLES, "Dazzle grenade")
    result = shoot(dazzle, [4], range_in=5, target=fighter(save=4))
    assert len(result.rolls) == 1  # only the Area roll
    assert result.outcomes[0].result == "stunned" and result.target.stun_markers == 1
    assert result.outcomes[0].knockback_in == 0


def test_burn_moves_a_surviving_unsaved_target() -> None:
    burner = gun("burn", damage=0)
    burnt = shoot(burner, [6, 1], target=fighter(speed=5))
    assert any("Burn" in n and '5"' in n for n in burnt.outcomes[0].notes)
    saved = shoot(burner, [6, 6], target=fighter(save=5))
    assert not any("Burn" in n for n in saved.outcomes[0].notes)
    robot = shoot(burner, [6, 1], target=fighter(bot=True))
    assert not any("Burn" in n for n in robot.outcomes[0].notes)
    plain = shoot(gun(), [6, 1])
    assert not any("Burn" in n for n in plain.outcomes[0].notes)


def test_shockwave_throws_a_survivor_1d6() -> None:
    wave = shoot(gun("shockwave"), [6, 1, 4])
    assert wave.outcomes[0].knockback_in == 4 and len(wave.rolls) == 3
    assert wave.rolls[-1].reason.startswith("Shockwave")
    # Also after a made save.
    saved = shoot(gun("shockwave"), [6, 6, 2], target=fighter(save=5))
    assert saved.outcomes[0].result == "saved" and saved.outcomes[0].knockback_in == 2
    # No throw for a casualty, and 1" without the trait.
    assert len(shoot(gun("shockwave", damage=3), [6, 1]).rolls) == 2
    assert shoot(gun(), [6, 1]).outcomes[0].knockback_in == 1


def test_rolls_and_lines_are_reported() -> None:
    result = fc.resolve_shot(
        Dice(seed=11),
        shooter=SHOOTER,
        target=fighter(save=5),
        weapon=fc.weapon(TABLES, "Rattle gun"),
        numbers=DRAMATIC,
        range_in=12,
        cover=False,
    )
    assert result.rolls[0].notation == "3D6" and result.rolls[0].reason
    assert all(r.reason for r in result.rolls)
    assert result.lines[0].startswith("Shooter fires the Rattle gun")
    assert len(result.outcomes) <= result.hits
    json.dumps(result.as_dict())


def test_seeded_rolls_repeat() -> None:
    def run() -> fc.ShotResult:
        return fc.resolve_shot(
            Dice(seed=42),
            shooter=SHOOTER,
            target=fighter(),
            weapon=fc.weapon(TABLES, "Hyper blaster"),
            numbers=DRAMATIC,
            range_in=12,
            cover=False,
        )

    assert run().as_dict() == run().as_dict()


def test_entered_faces_are_marked_entered() -> None:
    result = shoot(gun(), [6, 2])
    assert all(r.entered for r in result.rolls)
    rolled = fc.resolve_shot(
        Dice(seed=3), shooter=SHOOTER, target=fighter(), weapon=gun(), numbers=DRAMATIC, range_in=10, cover=False
    )
    assert not any(r.entered for r in rolled.rolls)


@pytest.mark.parametrize("faces", [[], [6], [6, 2, 3], [7], [0]])
def test_wrong_faces_raise(faces: list[int]) -> None:
    with pytest.raises(fc.CombatError) as err:
        shoot(gun(), faces)
    assert err.value.field == "faces"


def test_shot_errors() -> None:
    with pytest.raises(fc.CombatError) as err:
        shoot(fc.weapon(TABLES, "Blade"), [6])
    assert err.value.field == "weapon"
    with pytest.raises(fc.CombatError) as err:
        shoot(gun(range=12), [6], range_in=13)
    assert err.value.field == "range_in" and '12"' in str(err.value)
    with pytest.raises(fc.CombatError) as err:
        shoot(gun(), [6], range_in=-1)
    assert err.value.field == "range_in"


# -- Lunge and Duck Back ------------------------------------------------------------------------


def test_lunge_needs_dramatic_close_range_and_all_misses() -> None:
    unarmed = fighter()
    assert shoot(gun(), [1], target=unarmed, range_in=6, dramatic=True).lunge
    assert not shoot(gun(), [1], target=unarmed, range_in=6, dramatic=False).lunge
    assert not shoot(gun(), [1], target=unarmed, range_in=7, dramatic=True).lunge
    assert not shoot(gun(shots=2), [1, 6, 1], target=unarmed, range_in=6, dramatic=True).lunge


def test_lunge_depends_on_the_targets_weapons() -> None:
    rifle, blade, heavy = fc.weapon(TABLES, "Military rifle"), fc.weapon(TABLES, "Blade"), fc.weapon(TABLES, "Rattle gun")
    assert not shoot(gun(), [1], target=fighter(weapons=(rifle,)), range_in=4, dramatic=True).lunge
    assert shoot(gun(), [1], target=fighter(weapons=(rifle, blade)), range_in=4, dramatic=True).lunge
    assert shoot(gun(), [1], target=fighter(weapons=(blade,)), range_in=4, dramatic=True).lunge
    assert not shoot(gun(), [1], target=fighter(weapons=(heavy, blade)), range_in=4, dramatic=True).lunge


def test_enemy_lunge_is_forced_when_p87_says_so() -> None:
    rifle, blade = fc.weapon(TABLES, "Military rifle"), fc.weapon(TABLES, "Blade")
    beast = fighter(enemy=True)
    assert shoot(gun(), [1], target=beast, range_in=4, dramatic=True).lunge_forced
    # With a ranged weapon: only when Combat Skill + Melee bonus beats the shooter's.
    armed = fighter(enemy=True, weapons=(rifle, blade), combat_skill=0)
    skilled = replace(SHOOTER, combat_skill=2)
    assert shoot(gun(), [1], target=armed, range_in=4, dramatic=True, shooter=SHOOTER).lunge_forced
    result = shoot(gun(), [1], target=armed, range_in=4, dramatic=True, shooter=skilled)
    assert result.lunge and not result.lunge_forced
    # Player characters choose.
    assert not shoot(gun(), [1], target=fighter(), range_in=4, dramatic=True).lunge_forced


def test_duck_back_due_flag() -> None:
    assert shoot(gun(), [1], range_in=10, dramatic=True).duck_back_due
    assert not shoot(gun(), [1], range_in=10, dramatic=False).duck_back_due
    assert not shoot(gun(), [1], range_in=6, dramatic=True).duck_back_due
    assert not shoot(gun(), [1], range_in=10, dramatic=True, target=fighter(bot=True)).duck_back_due
    assert not shoot(gun(), [6, 1], range_in=10, dramatic=True).duck_back_due


def test_duck_back_open_three_cover_four() -> None:
    target = fighter()
    ducks, record = fc.duck_back(Dice(seed=1), target=target, cover=False, far_shooter=True, was_hit=False, faces=[3])
    assert ducks and record is not None and record.entered
    ducks, _ = fc.duck_back(Dice(seed=1), target=target, cover=True, far_shooter=True, was_hit=False, faces=[3])
    assert not ducks
    ducks, _ = fc.duck_back(Dice(seed=1), target=target, cover=True, far_shooter=True, was_hit=False, faces=[4])
    assert ducks


def test_duck_back_conditions() -> None:
    for kw in ({"was_hit": True, "far_shooter": True}, {"was_hit": False, "far_shooter": False}):
        assert fc.duck_back(Dice(seed=1), target=fighter(), cover=False, **kw) == (False, None)  # type: ignore[arg-type]
    robot = fighter(bot=True)
    assert fc.duck_back(Dice(seed=1), target=robot, cover=False, far_shooter=True, was_hit=False) == (False, None)
    with pytest.raises(fc.CombatError) as err:
        fc.duck_back(Dice(seed=1), target=robot, cover=False, far_shooter=True, was_hit=False, faces=[4])
    assert err.value.field == "faces"
    ducks, record = fc.duck_back(Dice(seed=1), target=fighter(), cover=False, far_shooter=True, was_hit=False)
    assert record is not None and ducks == (int(record.total or 0) >= 3)


# -- Brawls -------------------------------------------------------------------------------------


A = fighter("Ana", toughness=4)
B = fighter("Bez", toughness=4)


def test_brawl_lower_total_takes_a_hit() -> None:
    result = brawl(A, B, None, None, [5, 3, 1])
    assert result.winner == "Ana" and len(result.outcomes) == 1
    assert result.outcomes[0].target == "Bez" and result.b.stun_markers == 1
    assert (result.a_total, result.b_total) == (5, 3)


def test_brawl_draw_hits_both() -> None:
    result = brawl(A, B, None, None, [4, 4, 1, 1])
    assert result.winner is None
    assert [o.target for o in result.outcomes] == ["Bez", "Ana"]
    assert result.a.stun_markers == 1 and result.b.stun_markers == 1


def test_brawl_melee_bonus_and_damage() -> None:
    blade = fc.weapon(TABLES, "Ripper sword")  # Melee, Damage 2
    armed = brawl(A, B, blade, None, [3, 4, 2])
    assert armed.winner == "Ana" and armed.a_total == 5
    assert armed.outcomes[0].result == "casualty"  # 2 + 2 = 4, Toughness 4
    unarmed = brawl(A, B, None, None, [3, 4, 2])
    assert unarmed.winner == "Bez" and unarmed.outcomes[0].result == "stunned"  # 2 + 0 < 4


def test_brawl_pistol_bonus() -> None:
    pistol = fc.weapon(TABLES, "Hand gun")
    assert brawl(A, B, pistol, None, [3, 3, 1]).winner == "Ana"
    assert brawl(A, B, None, None, [3, 3, 1, 1]).winner is None


def test_brawl_non_close_weapon_counts_as_unarmed() -> None:
    rifle = fc.custom_weapon("Rifle", 24, 1, 3, [])
    result = brawl(A, B, rifle, None, [4, 3, 3])
    assert result.a_total == 4 and result.outcomes[0].result == "stunned"
    assert any("neither Melee nor Pistol" in line for line in result.lines)


def test_brawl_clumsy_only_against_faster() -> None:
    brute = fc.weapon(TABLES, "Brutal melee weapon")
    fast = replace(B, speed=6)
    assert brawl(A, fast, brute, None, [3, 5, 1]).a_total == 4
    assert brawl(A, B, brute, None, [3, 6, 1]).a_total == 5


def test_brawl_elegant_rerolls_when_behind() -> None:
    saber = fc.weapon(TABLES, "Boarding saber")  # Melee +2, Elegant
    result = brawl(A, B, saber, None, [1, 6, 5, 1])
    assert result.a_total == 7 and result.winner == "Ana"
    assert any("Elegant" in r.reason for r in result.rolls)
    ahead = brawl(A, B, saber, None, [5, 3, 1])
    assert not any("Elegant" in r.reason for r in ahead.rolls)
    plain = brawl(A, B, fc.weapon(TABLES, "Ripper sword"), None, [1, 6, 1])
    assert plain.winner == "Bez"


def test_brawl_elegant_not_for_kerin() -> None:
    saber = fc.weapon(TABLES, "Boarding saber")
    kerin = replace(A, kerin=True)
    result = brawl(kerin, B, saber, None, [1, 6, 1])
    assert result.winner == "Bez" and not any("Elegant" in r.reason for r in result.rolls)
    assert any("K'Erin" in line for line in result.lines)


def test_brawl_elegant_for_second_fighter() -> None:
    saber = fc.weapon(TABLES, "Boarding saber")
    result = brawl(A, B, None, saber, [6, 1, 6, 1])
    assert result.b_total == 8 and result.winner == "Bez"


def test_brawl_stunned_minus_one_and_loses_a_marker() -> None:
    dazed = replace(A, stun_markers=1)
    result = brawl(dazed, B, None, None, [4, 3, 1, 1])
    assert result.a_total == 3 and result.winner is None  # draw: both hit
    assert result.a.stun_markers == 1  # +1 from the hit, -1 for surviving
    fresh = brawl(A, B, None, None, [4, 3, 1])
    assert fresh.winner == "Ana"


def test_brawl_piercing_stun_and_shockwave_weapons() -> None:
    armoured = replace(B, save=5)
    glare = fc.weapon(TABLES, "Glare sword")  # Piercing
    assert len(brawl(A, armoured, glare, None, [6, 1, 1]).rolls) == 3  # no save die
    assert len(brawl(A, armoured, None, None, [6, 1, 6]).rolls) == 3  # save die, made
    maul = fc.weapon(TABLES, "Suppression maul")
    stunned = brawl(A, armoured, maul, None, [6, 1, 6])
    assert stunned.outcomes[0].result == "stunned" and stunned.b.stun_markers == 1
    axe = fc.weapon(TABLES, "Shatter Axe")
    thrown = brawl(A, replace(B, toughness=5), axe, None, [6, 1, 1, 5])  # 1 + 3 < 5, survives, thrown 5"
    assert thrown.outcomes[0].knockback_in == 5


def test_brawl_winner_move_note_and_json() -> None:
    result = brawl(A, B, fc.weapon(TABLES, "Power claw"), None, [6, 1, 1])
    assert result.b_removed and not result.a_removed
    assert any('move 2"' in line for line in result.lines)
    json.dumps(result.as_dict())


def test_brawl_wrong_faces() -> None:
    with pytest.raises(fc.CombatError) as err:
        brawl(A, B, None, None, [5])
    assert err.value.field == "faces"
    with pytest.raises(fc.CombatError):
        brawl(A, B, None, None, [5, 3, 1, 1])


# -- casualty tables ----------------------------------------------------------------------------


def test_casualty_regular_and_boss_columns() -> None:
    assert fc.casualty_roll(Dice(seed=1), TABLES, kind="humanoid", faces=[5])[0] == "Goner"
    assert fc.casualty(Dice(seed=1), TABLES, kind="humanoid", boss=True, faces=[5]).result == "Wounded"
    assert fc.casualty_roll(Dice(seed=1), TABLES, kind="cybernetic", faces=[3])[0] == "Damaged"
    assert fc.casualty_roll(Dice(seed=1), TABLES, kind="beasts", faces=[1])[0] == "Knock down / Drive off"


def test_casualty_only_highest_of_several_hits_applies() -> None:
    result = fc.casualty(Dice(seed=1), TABLES, kind="humanoid", hits=2, faces=[2, 5])
    assert result.result == "Goner" and result.value == 5 and len(result.rolls) == 2 and result.removed
    one = fc.casualty(Dice(seed=1), TABLES, kind="humanoid", hits=1, faces=[2])
    assert one.result == "Dazed" and not one.removed


def test_casualty_critical_adds_a_roll() -> None:
    name, rolls = fc.casualty_roll(Dice(seed=1), TABLES, kind="humanoid", critical=True, faces=[1, 4])
    assert name == "Wounded" and len(rolls) == 2
    name, rolls = fc.casualty_roll(Dice(seed=1), TABLES, kind="humanoid", critical=False, faces=[1])
    assert name == "Dazed" and len(rolls) == 1


def test_casualty_modifier_for_earlier_damage() -> None:
    assert fc.casualty(Dice(seed=1), TABLES, kind="cybernetic", modifier=1, faces=[4]).result == "Goner"
    assert fc.casualty(Dice(seed=1), TABLES, kind="cybernetic", modifier=0, faces=[4]).result == "Damaged"
    assert fc.casualty(Dice(seed=1), TABLES, kind="beasts", modifier=2, faces=[6]).value == 6


def test_casualty_seeded_and_recorded() -> None:
    result = fc.casualty(Dice(seed=9), TABLES, kind="beasts", hits=3)
    assert len(result.rolls) == 3 and not any(r.entered for r in result.rolls)
    assert result.value == max(int(r.total or 0) for r in result.rolls)
    json.dumps(result.as_dict())


def test_casualty_errors() -> None:
    with pytest.raises(fc.CombatError) as err:
        fc.casualty_roll(Dice(seed=1), TABLES, kind="robot")
    assert err.value.field == "kind" and "humanoid" in str(err.value)
    with pytest.raises(fc.CombatError) as err:
        fc.casualty(Dice(seed=1), TABLES, kind="humanoid", hits=0)
    assert err.value.field == "hits"
    with pytest.raises(fc.CombatError) as err:
        fc.casualty_roll(Dice(seed=1), {}, kind="humanoid")
    assert err.value.field == "tables"
    with pytest.raises(fc.CombatError) as err:
        fc.casualty_roll(Dice(seed=1), TABLES, kind="humanoid", faces=[3, 3])
    assert err.value.field == "faces"
