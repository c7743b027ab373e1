"""Automatic no-minis battles a player would accept (Compendium pp.66-73): the stances and their
Retreat (p.72), Morale as written with the elite-level type rules (pp.48-65), enemy Psionic
powers (p.23) and the casualty tables option (p.99)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from battles.engine import fp_combat
from battles.engine import nominis as nm
from battles.engine.nominis import elite
from battles.engine.nominis.combat import _apply_shot, _fall
from battles.tests.test_nominis import TABLES, battle, crew_fig, fig, foe, text
from rules.engine.dice import Dice


class Faces(Dice):
    """Dice that give these faces first, in order, then roll from seed 0."""

    def __init__(self, *faces: int) -> None:
        super().__init__(seed=0)
        self.queue = list(faces)

    def face(self, sides: int) -> int:
        return self.queue.pop(0) if self.queue else super().face(sides)


def four_crew() -> list[dict[str, Any]]:
    return [crew_fig(n, "Military rifle", combat_skill=1, toughness=4, captain=n == "Ada") for n in ("Ada", "Bo", "Cy", "Di")]


def six_foes() -> list[dict[str, Any]]:
    return [foe(f"E{i}", "Colony rifle") for i in range(6)]


def play(stance: str, seed: int, **options: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    start = battle(four_crew(), six_foes(), options=nm.NoMinisOptions(stance=stance, **options))
    return nm.play_automatic(start, Dice(seed=seed), TABLES)


def kinds(events: list[dict[str, Any]], kind: str) -> list[str]:
    return [e["text"] for e in events if e["kind"] == kind]


# -- stances and Retreat (p.72) ----------------------------------------------------------------------


def test_a_cautious_crew_withdraws_where_a_reckless_one_fights_on_same_seed_p72() -> None:
    cautious, c_events = play("cautious", 27)
    reckless, r_events = play("reckless", 27)
    c, r = nm.outcome(cautious), nm.outcome(reckless)
    assert c["retreated"] == ["Bo", "Di"] and not c["held_field"] and len(c["crew_casualties"]) == 2
    assert r["retreated"] == [] and r["held_field"] and len(r["crew_casualties"]) == 3
    assert kinds(c_events, "withdraw")[0] == "Cautious: 2 of 4 crew down, the crew withdraws (Retreat, p.72)."
    assert kinds(r_events, "withdraw") == []


def test_a_steady_crew_withdraws_when_half_down_and_outnumbered_two_to_one_p72() -> None:
    steady, events = play("steady", 3)
    reckless, _ = play("reckless", 3)
    assert nm.outcome(steady)["retreated"] == ["Bo", "Cy"] and len(nm.outcome(steady)["crew_casualties"]) == 2
    assert len(nm.outcome(reckless)["crew_casualties"]) == 4
    assert kinds(events, "withdraw")[0].startswith("Steady: 2 of 4 crew down and 5 enemies against 2 crew")


def test_the_default_stance_is_steady_and_a_bad_one_is_refused() -> None:
    assert nm.NoMinisOptions().stance == "steady" and set(nm.STANCES) == {"cautious", "steady", "reckless"}
    with pytest.raises(nm.NoMinisError) as err:
        battle(options=nm.NoMinisOptions(stance="brave"))
    assert err.value.field == "stance" and "cautious, steady, reckless" in err.value.message


def down(st: dict[str, Any], *names: str) -> dict[str, Any]:
    st = copy.deepcopy(st)
    for name in names:
        fig(st, name)["status"] = "casualty"
    return st


@pytest.mark.parametrize(
    ("stance", "fallen", "foes", "reason"),
    [
        ("cautious", ("Ada",), 6, "Cautious: 6 enemies against 3 crew, the crew withdraws"),
        ("cautious", ("Ada", "Bo"), 2, "Cautious: 2 of 4 crew down, the crew withdraws"),
        ("cautious", (), 6, ""),  # nobody down yet: a cautious crew still fights
        ("steady", ("Ada",), 6, ""),
        ("steady", ("Ada", "Bo"), 3, ""),  # half down but not outnumbered 2 to 1
        ("steady", ("Ada", "Bo"), 4, "Steady: 2 of 4 crew down and 4 enemies against 2 crew, the crew withdraws"),
        ("reckless", ("Ada", "Bo", "Cy"), 6, ""),
    ],
)
def test_withdraw_reason_by_stance(stance: str, fallen: tuple[str, ...], foes: int, reason: str) -> None:
    st = down(
        battle(four_crew(), [foe(f"E{i}", "Colony rifle") for i in range(foes)], options=nm.NoMinisOptions(stance=stance)),
        *fallen,
    )
    assert nm.policy.withdraw_reason(st) == reason


def test_a_withdrawing_crew_retreats_two_a_round_and_special_movement_on_top_p72() -> None:
    crew = [*four_crew(), crew_fig("Jet", "Hand gun", special_movement=True)]
    st = down(battle(crew, six_foes(), options=nm.NoMinisOptions(stance="cautious")), "Ada", "Bo", "Cy")
    st["phase"] = "retreat"
    fig(st, "Di")["speed"] = 6  # always gets away on a D6
    action = nm.auto_action(st, TABLES)
    assert action["type"] == "retreat" and action["names"] == ["Jet", "Di"]
    after, events = nm.apply(st, action, Dice(seed=1), TABLES)
    assert kinds(events, "withdraw") == ["Cautious: 3 of 5 crew down, the crew withdraws (Retreat, p.72)."]
    assert fig(after, "Jet")["status"] == fig(after, "Di")["status"] == "retreated"
    assert after["finished"] and not nm.outcome(after)["held_field"]


def test_covered_retreat_takes_the_whole_withdrawing_crew_p71() -> None:
    st = down(battle(four_crew(), six_foes(), options=nm.NoMinisOptions(stance="cautious", battle_flow=True)), "Ada", "Bo")
    st["pending"] = {"kind": "covered_retreat"}
    action = nm.auto_action(st, TABLES)
    assert action["names"] == ["Cy", "Di"] and action["reason"].startswith("Cautious")
    after, events = nm.apply(st, action, Dice(seed=1), TABLES)
    assert nm.outcome(after)["retreated"] == ["Cy", "Di"] and kinds(events, "withdraw")
    reckless = copy.deepcopy(st)
    reckless["options"]["stance"] = "reckless"
    assert nm.auto_action(reckless, TABLES)["names"] == []


def test_a_cautious_crew_sends_a_wounded_figure_off_p72_p99() -> None:
    st = battle(four_crew(), six_foes(), options=nm.NoMinisOptions(stance="cautious", casualty_tables=True))
    st["phase"] = "retreat"
    fig(st, "Bo")["wounded"] = True
    action = nm.auto_action(st, TABLES)
    assert action["names"] == ["Bo"] and action["reason"] == "Cautious: Bo is Wounded, Bo withdraws"
    st["options"]["stance"] = "steady"
    assert nm.auto_action(st, TABLES)["names"] == []


# -- the casualty tables option (p.99) --------------------------------------------------------------


def test_the_casualty_tables_option_changes_what_happens_to_a_crew_casualty_in_automatic_play() -> None:
    off, _ = play("reckless", 1)
    on, events = play("reckless", 1, casualty_tables=True)
    assert nm.outcome(off)["crew_casualties"] == ["Cy"]
    assert nm.outcome(on)["crew_casualties"] == []
    assert 'Di: the casualty table gives Wounded (p.99). Half Speed (2") and Combat Skill +0.' in kinds(events, "casualty_table")


def hit(name: str) -> fp_combat.HitOutcome:
    return fp_combat.HitOutcome(result="casualty", notes=(), rolls=(), target=name, beat_toughness=True)


def test_casualty_table_wounded_twice_is_a_goner_and_the_captain_rolls_the_boss_column_p99() -> None:
    st = battle(options=nm.NoMinisOptions(casualty_tables=True))
    bo = fig(st, "Bo")
    events: list[dict[str, Any]] = []
    _fall(st, Faces(3), TABLES, bo, [hit("Bo")], events)  # Regular 3-4: Wounded
    assert bo["status"] == "active" and bo["wounded"] and bo["speed"] == 2 and bo["combat_skill"] == -1
    _fall(st, Faces(4), TABLES, bo, [hit("Bo")], events)
    assert bo["status"] == "casualty" and "Wounded again: a Goner." in events[-2]["text"]
    ada = fig(st, "Ada")
    _fall(st, Faces(5), TABLES, ada, [hit("Ada")], events)  # Boss column: 3-5 Wounded, a Regular 5 is a Goner
    assert ada["status"] == "active" and ada["wounded"]


def test_without_the_option_a_crew_casualty_is_removed_p99() -> None:
    st = battle()
    _fall(st, Faces(3), TABLES, fig(st, "Bo"), [hit("Bo")], [])
    assert fig(st, "Bo")["status"] == "casualty"


def test_dazed_keeps_its_stun_and_damaged_bots_may_fall_apart_at_the_end_of_the_round_p99() -> None:
    crew = [crew_fig("Ada", "Military rifle", captain=True), crew_fig("Robo", "Shotgun", bot=True)]
    st = battle(crew, options=nm.NoMinisOptions(casualty_tables=True))
    events: list[dict[str, Any]] = []
    _fall(st, Faces(1), TABLES, fig(st, "Ada"), [hit("Ada")], events)  # Dazed
    _fall(st, Faces(3), TABLES, fig(st, "Robo"), [hit("Robo")], events)  # Cybernetic: Damaged
    assert fig(st, "Ada")["dazed"] and fig(st, "Robo")["damaged"] and fig(st, "Robo")["casualty_modifier"] == 1
    fig(st, "Ada")["stun"] = 1
    st["phase"] = "end"
    after, events = nm.apply(st, {"type": "end_round"}, Faces(6), TABLES)
    assert fig(after, "Ada")["stun"] == 1 and "dazed" not in fig(after, "Ada")
    assert "Ada keep theirs (Dazed, p.99)" in text(events)
    assert fig(after, "Robo")["status"] == "casualty" and "Robo rolls a 6 and falls apart." in text(events)


# -- Morale as written, with the elite type rules (pp.48-65, 72) -----------------------------------


def elite_battle(
    kind: str, data: dict[str, Any], enemies: list[dict[str, Any]], *, panic: str = "1-6", **kw: Any
) -> dict[str, Any]:
    rules = {"type": kind, "category": "test", "normal_panic": panic, "data": data}
    return battle(four_crew(), enemies, enemy_panic=panic, enemy_rules=rules, **kw)


def fallen(st: dict[str, Any], *names: str, before: int = 0) -> dict[str, Any]:
    """At the end of a round in which ``names`` became casualties (``before`` fell earlier)."""
    st = copy.deepcopy(st)
    st["phase"] = "end"
    st["enemies_killed"] = before
    for name in names:
        fig(st, name)["status"] = "casualty"
        st["enemy_casualties_round"] += 1
        st["enemies_killed"] += 1
        st["flags"].setdefault("slain", []).append(name)
    return st


def morale(st: dict[str, Any], *faces: int) -> tuple[dict[str, Any], str]:
    after, events = nm.apply(st, {"type": "end_round"}, Faces(*faces), TABLES)
    return after, "\n".join(kinds(events, "morale") + kinds(events, "elite"))


def fled(st: dict[str, Any]) -> list[str]:
    return [e["name"] for e in st["enemies"] if e["status"] == "fled"]


def test_stubborn_the_first_two_casualties_force_no_morale_test_p51() -> None:
    foes = [foe(f"E{i}", "Colony rifle") for i in range(6)]
    stubborn = elite_battle("Anarchists", {"stubborn_casualties": 2}, foes)
    after, said = morale(fallen(stubborn, "E0", "E1"), 1, 1)
    assert fled(after) == [] and "Stubborn: 2 of the first casualties force no Morale die (p.51)" in said
    plain = elite_battle("Pirates", {}, foes)
    after, _ = morale(fallen(plain, "E0", "E1"), 1, 1)
    assert len(fled(after)) == 2
    after, said = morale(fallen(stubborn, "E2", "E3", before=1), 1, 1)  # one more free, then one die
    assert len(fled(after)) == 1 and "1 die/dice in the Panic range" in said


def test_fearless_leaders_never_flee_regulars_go_first_then_specialists_p48_p72() -> None:
    foes = [
        foe("R1", "Colony rifle"),
        foe("S1", "Colony rifle", specialist=True),
        foe("L1", "Colony rifle", rank="lieutenant", fearless=True),
        foe("C1", "Colony rifle"),
        foe("C2", "Colony rifle"),
        foe("C3", "Colony rifle"),
    ]
    st = elite_battle("Pirates", {}, foes)
    after, _ = morale(fallen(st, "C1", "C2", "C3"), 1, 1, 1)
    assert fled(after) == ["R1", "S1"] and fig(after, "L1")["status"] == "active"


def test_leadership_improves_panic_only_while_the_lieutenant_is_on_the_field_p49() -> None:
    foes = [foe("L1", "Colony rifle", rank="lieutenant", fearless=True), *[foe(f"E{i}", "Colony rifle") for i in range(4)]]
    st = elite_battle("Pirates", {}, foes, panic="1-2")
    assert elite.panic_now(st, TABLES) == ({1}, "Panic 1 (Lieutenant on the field (p.49))")
    after, said = morale(fallen(st, "E0"), 2)
    assert fled(after) == [] and "Panic 1 (Lieutenant on the field (p.49)): 0 die/dice" in said
    after, said = morale(fallen(st, "L1"), 2)
    assert len(fled(after)) == 1 and "Panic 1-2: 1 die/dice" in said


def test_authority_figure_reduces_panic_and_rolls_one_more_die_when_slain_p62() -> None:
    foes = [foe("Enemy Boss", "Colony rifle", rank="lieutenant", fearless=True, unique="Enemy Boss"), *six_foes()]
    st = elite_battle("Pirates", {}, foes, panic="1-2")
    assert elite.panic_now(st, TABLES)[0] == {1}
    after, said = morale(fallen(st, "Enemy Boss"), 1, 2)
    assert "one more Morale die (Authority figure, p.62)" in said and len(fled(after)) == 2


def test_swarming_brings_a_basic_enemy_for_each_five_or_six_p56() -> None:
    st = elite_battle("Abandoned", {"swarm_morale_roll": "5-6"}, six_foes(), panic="1-3")
    after, said = morale(fallen(st, "E0", "E1"), 5, 6)
    assert "Swarming: 2 more basic enemy (p.56)" in said and "E6, E7 join the enemy." in said
    assert [e["name"] for e in after["enemies"] if e["status"] == "active"] == ["E2", "E3", "E4", "E5", "E6", "E7"]


def test_dogged_isolationists_are_fearless_with_two_left_p56() -> None:
    st = elite_battle("Isolationists", {"dogged_figures_max": 2}, [foe(f"E{i}", "Colony rifle") for i in range(3)])
    after, said = morale(fallen(st, "E0"), 1)
    assert fled(after) == [] and "Dogged" in said
    loose = elite_battle("Pirates", {}, [foe(f"E{i}", "Colony rifle") for i in range(3)])
    assert len(fled(morale(fallen(loose, "E0"), 1)[0])) == 1


def test_the_prophecy_a_six_on_a_morale_die_gives_a_zealot_combat_skill_p57() -> None:
    st = elite_battle("Zealots", {}, six_foes(), panic="1")
    after, said = morale(fallen(st, "E0"), 6)
    assert "The Prophecy!" in said and sum(e["combat_skill"] for e in after["enemies"]) == 1


def test_the_stars_say_to_stay_after_two_swift_fled_by_morale_p57() -> None:
    st = elite_battle("Swift War Squad", {"fearless_after_morale_losses": 2}, six_foes())
    after, _ = morale(fallen(st, "E0", "E1"), 1, 1)
    assert after["morale_fled"] == 2
    left = [e["name"] for e in after["enemies"] if e["status"] == "active"]
    again, said = morale(fallen(after, left[0]), 1)
    assert len(fled(again)) == 2 and "The stars say to stay" in said


def test_wave_attacks_and_displace_bring_more_enemies_p61() -> None:
    bugs = elite_battle(
        "Large bugs", {"wave_dice": "1D6", "wave_roll": "5-6", "hit_modifier_against": 1}, six_foes(), panic="1-2"
    )
    after, said = morale(fallen(bugs, "E0"), 1, 1, 5)  # one flees (another comes), the slain one rolls a 5
    assert "Wave attacks: 1 Bug(s) arrive" in said and "rolled 5, another one arrives" in said
    assert len([e for e in after["enemies"] if e["status"] == "active"]) == 6
    distorts = elite_battle("Distorts", {"displace_dice": "1D6", "displace_roll": "5-6"}, six_foes(), panic="0")
    after, said = morale(fallen(distorts, "E0"), 6)
    assert "Displace (p.61): rolled 6, another one arrives." in said and "E6 join the enemy." in said


def test_a_lone_corporate_spook_flees_p63() -> None:
    foes = [
        foe("Corporate Spook", "Hand laser", rank="lieutenant", fearless=True, unique="Corporate Spook"),
        foe("E1", "Colony rifle"),
    ]
    st = elite_battle("Pirates", {}, foes, panic="0")
    after, _ = morale(fallen(st, "E1"))
    assert fled(after) == ["Corporate Spook"] and after["finished"] and nm.outcome(after)["held_field"]


def test_bolster_makes_every_enemy_fearless_while_the_psionic_stands_p23() -> None:
    foes = [foe("Psi", "Hand gun", psionic_powers=["Bolster"]), *six_foes()]
    st = battle(four_crew(), foes, enemy_panic="1-6")  # enemy Psionics work on any force
    after, _ = morale(fallen(st, "E0"), 1)
    assert fled(after) == []
    after, _ = morale(fallen(st, "Psi"), 1)
    assert len(fled(after)) == 1


# -- shooting and Brawling ---------------------------------------------------------------------------


def shot(
    st: dict[str, Any], shooter: str, target: str, weapon: str, *, range_in: int = 24, cover: bool = True, moved: bool = False
) -> tuple[int, dict[str, Any] | None, bool, bool, Any, list[str]]:
    s, t = fig(st, shooter), fig(st, target)
    gun = next(w for w in s["weapons"] if w["name"] == weapon)
    return elite.shot_changes(st, TABLES, s, t, gun, range_in=range_in, cover=cover, moved=moved, natural_six=False)


@pytest.mark.parametrize(
    ("kind", "data", "enemy", "setup", "call", "expected"),
    [
        # (bonus to Hit, Shots added, cover, natural 6s only)
        ("Punks", {}, {}, {"Ada": {"stun": 1}}, ("E", "Ada", "Colony rifle"), (1, 0, True, False)),  # Git 'im! p.51
        ("Psychos", {"extra_shots": 1, "hit_on": 6}, {}, {}, ("E", "Ada", "Colony rifle"), (0, 1, True, True)),  # p.51
        (
            "Brat Gang",
            {"specialist_hit_modifier": 1},
            {"specialist": True},
            {},
            ("E", "Ada", "Colony rifle"),
            (1, 0, True, False),
        ),
        ("Anarchists", {}, {}, {}, ("E", "Ada", "Colony rifle"), (1, 0, True, False)),  # Fight the power, p.52
        ("Anarchists", {}, {}, {}, ("E", "Bo", "Colony rifle"), (0, 0, True, False)),
        (
            "Gun Slingers",
            {"close_range_in": 8, "extra_shots": 1},
            {},
            {"range_in": 6},
            ("E", "Ada", "Colony rifle"),
            (0, 1, True, False),
        ),
        ("Gun Slingers", {"close_range_in": 8, "extra_shots": 1}, {}, {}, ("E", "Ada", "Colony rifle"), (0, 0, True, False)),
        ("Unknown Mercs", {}, {"gear": ["Sight (+1 to Hit)"]}, {}, ("E", "Ada", "Colony rifle"), (1, 0, True, False)),
        ("Secret Agents", {"cover_hit_modifier": 1}, {}, {}, ("E", "Ada", "Colony rifle"), (1, 0, True, False)),  # p.55
        ("Assassins", {"open_hit_modifier": -1}, {}, {"cover": False}, ("Ada", "E", "Military rifle"), (-1, 0, False, False)),
        ("Krorg", {"open_hit_modifier": 1}, {}, {"cover": False}, ("Ada", "E", "Military rifle"), (1, 0, False, False)),
        ("Large bugs", {"hit_modifier_against": 1}, {}, {}, ("Ada", "E", "Military rifle"), (1, 0, True, False)),  # p.61
        ("Swarm Brood", {"dodge_range_in": 9}, {}, {"cover": False}, ("Ada", "E", "Military rifle"), (-1, 0, False, False)),
        ("Primitives", {"cover_rounds": 2}, {}, {"cover": False}, ("Ada", "E", "Military rifle"), (0, 0, True, False)),  # p.57
        (
            "Colonial Militia",
            {"home_field_range_in": 12},
            {},
            {"cover": False},
            ("Ada", "E", "Military rifle"),
            (0, 0, True, False),
        ),
        ("Mutants", {"underdog_combat_skill_bonus": 1}, {}, {}, ("E", "Ada", "Colony rifle"), (1, 0, True, False)),  # p.57
        ("Pirates", {}, {"unique": "Enemy Heavy"}, {}, ("E", "Ada", "Colony rifle"), (0, 1, True, False)),  # Rock 'n' Roll
        ("Pirates", {}, {"unique": "Enemy Heavy"}, {"moved": True}, ("E", "Ada", "Colony rifle"), (0, 0, True, False)),
        ("Pirates", {}, {"unique": "Nomad Scout"}, {}, ("E", "Ada", "Colony rifle"), (1, 0, True, False)),  # Deadly accuracy
        ("Pirates", {}, {"psionic_powers": ["Obscure"]}, {}, ("Ada", "E", "Military rifle"), (0, 0, True, True)),  # p.23
    ],
)
def test_type_rules_change_the_shot(
    kind: str,
    data: dict[str, Any],
    enemy: dict[str, Any],
    setup: dict[str, Any],
    call: tuple[str, str, str],
    expected: tuple[int, int, bool, bool],
) -> None:
    st = elite_battle(kind, data, [foe("E", "Colony rifle", **enemy), foe("E2", "Colony rifle")])
    for name, values in setup.items():
        if isinstance(values, dict):
            fig(st, name).update(values)
    options = {k: v for k, v in setup.items() if not isinstance(v, dict)}
    bonus, changed, cover, six, _, notes = shot(st, *call, **options)
    added = (changed["shots"] - fig(st, call[0])["weapons"][0]["shots"]) if changed else 0
    assert (bonus, added, cover, six) == expected
    assert bool(notes) == (expected != (0, 0, options.get("cover", True), False))


def test_overcharged_weapons_only_in_odd_rounds_p53() -> None:
    st = elite_battle("Tech Gangers", {"overcharge_damage_bonus": 1}, [foe("E", "Infantry laser"), foe("F", "Blast rifle")])
    _, laser, *_ = shot(st, "E", "Ada", "Infantry laser")
    _, blast, *_ = shot(st, "F", "Ada", "Blast rifle")
    assert laser is not None and laser["damage"] == fig(st, "E")["weapons"][0]["damage"] + 1
    assert blast is not None and "piercing" in blast["traits"]
    st["round"] = 2
    assert shot(st, "E", "Ada", "Infantry laser")[1] is None


def test_pack_tactics_and_inter_link_count_earlier_shots_this_round_p52_p58() -> None:
    st = elite_battle("Skulker Brigands", {"pack_hit_modifier": 1}, [foe("E", "Colony rifle"), foe("F", "Colony rifle")])
    assert shot(st, "F", "Ada", "Colony rifle")[0] == 0
    st["flags"]["fired_upon"] = {"Ada": ["E"]}
    assert shot(st, "F", "Ada", "Colony rifle")[0] == 1
    soulless = elite_battle("Soulless Task Force", {"extra_shots": 1}, [foe("E", "Colony rifle"), foe("F", "Colony rifle")])
    soulless["flags"]["fired_upon"] = {"Ada": ["E"]}
    changed = shot(soulless, "F", "Ada", "Colony rifle")[1]
    assert changed is not None and changed["shots"] == 2


def test_force_screen_cyborg_armour_and_reflect_save_against_piercing_p58_p64_p23() -> None:
    foes = [
        foe("L", "Colony rifle", rank="lieutenant"),
        foe("Cyborg Merc", "Colony rifle", unique="Cyborg Merc", rank="lieutenant"),
        foe("P", "Hand gun", psionic_powers=["Reflect"]),
    ]
    crew = [crew_fig("Ada", "Needle rifle", captain=True)]
    st = battle(crew, foes, enemy_rules={"type": "Soulless Task Force", "data": {}})
    for target, save in (("L", None), ("Cyborg Merc", 6), ("P", 4)):
        _, changed, _, _, found, _ = elite.shot_changes(
            st,
            TABLES,
            fig(st, "Ada"),
            fig(st, target),
            fig(st, "Ada")["weapons"][0],
            range_in=18,
            cover=True,
            moved=False,
            natural_six=False,
        )
        assert changed is not None and "piercing" not in changed["traits"] and found == save


def test_brawl_bonus_only_when_the_enemy_starts_the_brawl_p53() -> None:
    st = elite_battle("Roid-Gangers", {"brawl_initiate_modifier": 1}, [foe("E", "Blade"), foe("F", "Blade")])
    crew, enemy = fig(st, "Ada"), fig(st, "E")
    assert elite.brawl_changes(st, TABLES, crew, enemy, None, initiator="enemy")[0] == 1
    assert elite.brawl_changes(st, TABLES, crew, enemy, None, initiator="crew")[0] == 0


def test_hulkers_brawl_with_damage_1_and_are_not_stunned_by_shooting_p53() -> None:
    data = {"brawl_weapon": {"name": "Brawl", "damage": 1, "traits": ["Melee", "Impact"]}, "stun_immune_to_shooting": True}
    st = elite_battle("Hulker Gang", data, [foe("E", "Colony rifle"), foe("F", "Colony rifle")])
    weapon = elite.brawl_changes(st, TABLES, fig(st, "Ada"), fig(st, "E"), None, initiator="enemy")[1]
    assert weapon == {"name": "Brawl", "range": 0, "shots": 0, "damage": 1, "traits": ["melee"]}
    assert elite.stun_immune(st, fig(st, "E"), shooting=True) and not elite.stun_immune(st, fig(st, "E"), shooting=False)
    stunned = fp_combat.Fighter(name="E", combat_skill=0, toughness=3, stun_markers=1)
    shot_result = fp_combat.ShotResult(hits=1, outcomes=(), target=stunned, rolls=(), lines=(), lunge=False)
    _apply_shot(st, Dice(seed=1), TABLES, fig(st, "Ada"), fig(st, "E"), shot_result, [])
    assert fig(st, "E")["stun"] == 0
    plain = elite_battle("Pirates", {}, [foe("E", "Colony rifle"), foe("F", "Colony rifle")])
    _apply_shot(plain, Dice(seed=1), TABLES, fig(plain, "Ada"), fig(plain, "E"), shot_result, [])
    assert fig(plain, "E")["stun"] == 1


def test_destroy_the_unbeliever_a_slain_cultist_brings_a_shot_on_a_natural_six_p51() -> None:
    st = elite_battle("Cultists", {"revenge_hit_on": 6}, [foe("E", "Colony rifle"), foe("F", "Colony rifle")])
    dead = fp_combat.ShotResult(
        hits=1,
        outcomes=(hit("E"),),
        target=fp_combat.Fighter(name="E", combat_skill=0, toughness=3),
        rolls=(),
        lines=(),
        lunge=False,
        removed=True,
    )
    events: list[dict[str, Any]] = []
    _apply_shot(st, Dice(seed=3), TABLES, fig(st, "Ada"), fig(st, "E"), dead, events)
    assert "Destroy the unbeliever: F fires at Ada (p.51)." in text(events)
    assert any(e["kind"] == "shot" and "natural 6s only" in e["text"] for e in events)


# -- Reaction dice: Slow, Paralyze, Calculating; the mark ---------------------------------------------


def test_slow_sets_one_reaction_die_to_six_and_paralyze_stops_its_figure_p23() -> None:
    foes = [foe("Psi", "Hand gun", psionic_powers=["Slow", "Paralyze"]), foe("E", "Colony rifle")]
    st = battle(four_crew(), foes)
    after, events = nm.apply(st, {"type": "roll_initiative"}, Faces(1, 2), TABLES)
    assert after["initiative_dice"] == [1, 2, 6] and "1 die/dice set to 6 (Slow (p.23))" in events[0]["rolls"][0]["reason"]
    after, events = nm.apply(
        after, {"type": "assign_initiative", "assignments": {"Ada": 6, "Bo": 1, "Cy": 2}}, Dice(seed=1), TABLES
    )
    assert not fig(after, "Ada")["eligible"] and "Ada was given a 6: Paralyzed" in text(events)


def test_the_mark_is_drawn_in_the_first_round_and_counts_in_shots_p56() -> None:
    st = elite_battle("Bounty Hunters", {"mark_modifier": 1}, [foe("E", "Colony rifle"), foe("F", "Colony rifle")])
    after, events = nm.apply(st, {"type": "roll_initiative"}, Dice(seed=2), TABLES)
    marked = after["elite_mark"]
    assert f"The mark: the Bounty Hunters are after {marked} (p.56)." in text(events)
    other = next(c["name"] for c in after["crew"] if c["name"] != marked)
    assert shot(after, "E", marked, "Colony rifle")[0] == 1 and shot(after, "E", other, "Colony rifle")[0] == 0


def test_a_plain_force_plays_exactly_as_before() -> None:
    st = battle(four_crew(), six_foes(), options=nm.NoMinisOptions(stance="reckless"))
    assert "enemy_rules" not in st and all("fearless" not in e for e in st["enemies"])
    _, events = nm.play_automatic(st, Dice(seed=5), TABLES)
    assert not any(e["kind"] in ("elite", "withdraw", "casualty_table") for e in events)


def test_elite_figures_in_a_full_automatic_battle_are_repeatable() -> None:
    foes = [foe("L1", "Colony rifle", rank="lieutenant", fearless=True), *six_foes()]
    st = elite_battle(
        "Anarchists", {"stubborn_casualties": 2}, foes, panic="1-2", options=nm.NoMinisOptions(casualty_tables=True)
    )
    one = nm.play_automatic(st, Dice(seed=9), TABLES)
    assert one == nm.play_automatic(st, Dice(seed=9), TABLES) and one[0]["finished"]


def test_set_stance_is_an_action_of_the_log_so_replay_keeps_it() -> None:
    st = battle(four_crew(), six_foes())
    after, events = nm.apply(st, {"type": "set_stance", "stance": "cautious"}, Dice(seed=1), TABLES)
    assert after["options"]["stance"] == "cautious" and st["options"]["stance"] == "steady"
    assert text(events) == "Stance for automatic play: Cautious (Retreat, p.72)."
    with pytest.raises(nm.NoMinisError) as err:
        nm.apply(st, {"type": "set_stance", "stance": "timid"}, Dice(seed=1), TABLES)
    assert err.value.field == "stance"


def test_beasts_roll_their_own_casualty_table_p99() -> None:
    st = battle(four_crew(), six_foes(), enemy_kind="beasts", options=nm.NoMinisOptions(casualty_tables=True))
    events: list[dict[str, Any]] = []
    _fall(st, Faces(3), TABLES, fig(st, "E0"), [hit("E0")], events)
    assert fig(st, "E0")["bleeding"] and "Bleeding" in events[0]["text"]
    with pytest.raises(nm.NoMinisError) as err:
        battle(enemy_kind="dragons")
    assert err.value.field == "enemy_kind"
