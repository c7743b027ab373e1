"""No-minis battles: the elite-level enemy type rules (Compendium pp.48-65) and enemy Psionic
powers (pp.22-23) that a battle without positions can use.

The battle's ``enemy_rules`` (``{"type", "category", "normal_panic", "data"}``, the type's
table row data) and the enemy figures' ``fearless``, ``captain``, ``unique``, ``psionic_powers``
and ``gear`` drive them; a battle without ``enemy_rules`` (a standard force, or one typed by hand)
plays exactly as before. Numbers come from the type's row data where the table has them.

Applied
-------
Morale (p.72 "as normal", with the elite rules that change it):

- Fearless figures never flee: elite Lieutenants and Captains (p.48, unless the type is Cowardly),
  Unique Individuals (p.62), Fearless types. Morale removes regulars, then Specialists; a
  Lieutenant of a standard force still goes last (the earlier ruling).
- Leadership (p.49): the Panic range is worked out at each Morale test from the type's normal
  range and the highest leader still on the field (``elite-leadership``); when the last Captain or
  Lieutenant falls the normal range is back. Enemy Boss, Authority figure (p.62): Panic -1 while it
  lives, and one more Morale die in the round it is slain.
- Stubborn (Anarchists, K'Erin Outlaws, Black Dragon Mercs, K'Erin Colonists, pp.51-57): the
  first ``stubborn_casualties`` casualties of the battle roll no Morale die.
- Swarming (Abandoned, p.56): each Morale die in ``swarm_morale_roll`` brings one more basic enemy.
- Dogged (Isolationists, p.56): with ``dogged_figures_max`` or fewer left they are Fearless.
- The Prophecy! (Zealots, p.57): each 6 on a Morale die gives a Zealot +1 Combat Skill for the
  rest of the battle (ruling: a random one; there is no "closest to your edge").
- The stars say to stay (Swift War Squad, p.57): once ``fearless_after_morale_losses`` have fled
  by Morale the rest are Fearless.
- Wave attacks (Large bugs, p.61): each Bug that flees by Morale brings another; each Bug slain
  rolls ``wave_dice``, ``wave_roll`` brings another. Displace (Distorts, p.61): each Distort slain
  rolls ``displace_dice``, ``displace_roll`` places a new one. Ruling: arrivals join at the end of
  the round, after Morale.
- Fidgety (Corporate Spook, p.63) and the Gene Dog (p.64): the only enemy left flees (checked at
  the end of each round).
- Bolster (enemy Psionic power, p.23): every enemy is Fearless while the Psionic is on the field.

Shooting and Brawling (each through the combat resolver; +1 to Hit is +1 Combat Skill for that
attack, never on a natural-6-only shot):

- Git 'im! (Punks, p.51): +1 to Hit at a Stunned crew figure.
- Fire frenzy (Psychos, p.51): ``extra_shots`` more Shots, hitting only on a natural 6.
- Best guns daddy could buy (Brat Gang, p.51): Specialists ``specialist_hit_modifier`` to Hit.
- Fight the power (Anarchists, p.52): +1 to Hit and in Brawls against the crew captain.
- Pack tactics (Skulker Brigands, p.52): ``pack_hit_modifier`` against a crew figure an enemy has
  already shot at this round (the target is still drawn at random, p.69).
- Overcharged weapons (Tech Gangers, p.53): in odd rounds Hand and Infantry Lasers
  ``overcharge_damage_bonus`` Damage, Blast Rifles Piercing.
- Wrecking crew (Hulker Gang, p.53): Hulkers Brawl with ``brawl_weapon`` (Damage 1, Melee), a Melee
  weapon gets +1 Damage; not Stunned by shooting (``stun_immune_to_shooting``). Impact is not a
  trait of the combat resolver and is left off.
- Downtown shooting style (Gun Slingers, p.53): ``extra_shots`` within ``close_range_in``.
- Sights (+1 to Hit) carried as gear (Unknown Mercs, Skulker Mercenaries, pp.54-55).
- Upgraded sights (Secret Agents, p.55): 1-Shot weapons ``cover_hit_modifier`` against Cover.
- Evasive tactics (Assassins, p.55), Hulking brute (Krorg, p.61): ``open_hit_modifier`` to shots
  at them in the open; Easy targets (Large bugs, p.61): ``hit_modifier_against``; Dodge (Swarm
  Brood, p.60): -1 in the open beyond ``dodge_range_in``.
- Brutes, Ferocious (Roid-Gangers, Blood Storm Mercs, Zealots, Krorg, Mutant Bruiser):
  ``brawl_initiate_modifier`` when the enemy starts the Brawl. Ruling: the enemy starts it when it
  closes on a crew figure (pp.69-70) or fights a melee-only one; the crew starts a Charge or a
  crew figure closing; nobody starts Stumble into each other.
- Suppressing fire (Renegade Soldiers, p.56): Auto Rifles and Rattle Guns fire ``extra_shots`` more.
- The mark (Bounty Hunters, p.56): a crew figure drawn as the first round starts; ``mark_modifier``
  to Hit and in Brawls against it.
- Underdog (Mutants, p.57): ``underdog_combat_skill_bonus`` while fewer enemies than crew remain.
- Sneaking in (Primitives, p.57): in the first ``cover_rounds`` rounds always in Cover.
- Force screen (Soulless Task Force, p.58): Lieutenants and Captains save against Piercing;
  Inter-link: ``extra_shots`` at a crew figure another Soulless already shot at this round.
- Home field advantage (Colonial Militia, p.58): crew shots over ``home_field_range_in`` count the
  target as in Cover. Hunting shot (Planetary Nomads, p.58): 1-Shot weapons gain Critical.
- Immune to Stun (Haywire Robots, Krorg, ``stun_immune``, p.60); Seen it all (Callous Merc, p.63):
  no Stun marker while it has one.
- Unique Individuals: Rock 'n' Roll (Enemy Heavy, p.63) ``extra_shots`` when not moving; Deadly
  accuracy and Concealed (Nomad Scout, p.64) ``hit_modifier`` to Hit and always in Cover; Armored
  suit (Hakshan Investigator, p.64) every weapon Damage +0 against it, Driven: +1 to shoot and Brawl
  while a Notable Sight Location is not yet checked; Built-in armor (Cyborg Merc, p.64) a 6+ save
  still against Piercing.
- Destroy the unbeliever (Cultists, p.51): a Cultist slain by a crew figure makes a random other
  Cultist fire at that figure, hitting only on ``revenge_hit_on`` (a bonus shot: it never counts
  towards the once-per-round limit, as battle flow shots, p.71).
- Enemy Psionic powers (p.23): Slow (one of the crew's Reaction dice is a 6), Paralyze (a crew
  figure given a 6 takes no Initiative Action, the captain too), Obscure (shots at the Psionic
  hit only on a natural 6), Reflect (a 4+ save that Piercing does not negate), Bolster (above).
  Freelancer, Calculating (p.63): one Reaction die is a 6.

Cannot apply without a table (they need positions, distances to figures or terrain, movement,
visibility or the Seize the Initiative roll, which a no-minis battle has not got): Bug Out, Back
Alley fighting, Secure the goodies, Eager to go, Goes boom, Like a predator, Regain our honor,
Friday night warriors, Cornered rats, Aggro, Black Ops' Fire teams, Low light vision and Go! go!
go!, Quick Feet, Dog Fight, Chemical fog, Flash bangs, Shock tactics, Aggressive tactics, Up Close,
Angry mob, Keep off, Rush job, Delaying action, Here for the goods, Profit focused tactics,
Infiltrators, Scurry, Pack hunters, Slither and sneak, Leap, Hover, We call them that because,
Shimmer, every Seize the Initiative modifier (Careless, Alert, Paid professionals, ...), the
Bruiser's Overbearing, the Bounty Tracker's Target priority, the Gun Dog's Loyal, the Hired
Killer's re-targeting, Predictions, One with the flow, Brute rush, Nerve overrides, the Rogue
Psionic's rerolls within 3", and the Psionic powers Assail, Direct and Dominate ("closest").

Not applied (the combat resolver has no way to roll twice, reroll or add a hit, and this package
may not change it): Ferocious of Hulkers and the Hulker Brawler (roll twice), Trick shot and the
Hired Killer's Following fire (extra shots on 6s), War Bots' Following Fire, Fire teams and the
Engineer Tech (reroll 1s), Pointy bits, Latch on, Hurl, Master fencer, Ship fighting techniques,
Supporting fire, Covering fire, Stay in the fight, Spite, Crush, Psionic Rage, Reflect's deflection;
the Unknown Mercs' truce is a player's choice the automatic policy does not take; Sand Runners'
extra runner on two 6s (Reaction dice) and Combination weapons are left for a later change.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine.nominis.state import Tables, _active_crew, _active_enemies, _panic_faces

UNIQUE_TABLE = "elite-unique-individuals"
LEADERSHIP_TABLE = "elite-leadership"

#: Psionic power names (the ``enemy-psionic-powers`` results, p.23) this module uses.
BOLSTER = "Bolster"
SLOW = "Slow"
PARALYZE = "Paralyze"
OBSCURE = "Obscure"
REFLECT = "Reflect"
REFLECT_SAVE = 4

ALONE_FLEES = frozenset({"Corporate Spook", "Gene Dog"})
CYBORG_PIERCING_SAVE = 6


def rules(st: Mapping[str, Any]) -> Mapping[str, Any]:
    """The battle's enemy type rules (empty for a standard force)."""
    return st.get("enemy_rules") or {}  # type: ignore[no-any-return]


def data(st: Mapping[str, Any]) -> Mapping[str, Any]:
    return rules(st).get("data") or {}  # type: ignore[no-any-return]


def type_is(st: Mapping[str, Any], name: str) -> bool:
    return bool(rules(st).get("type") == name)


def unique_data(tables: Tables, name: str | None) -> Mapping[str, Any]:
    """The ``elite-unique-individuals`` row data of ``name`` (empty when unknown)."""
    if not name or UNIQUE_TABLE not in tables:
        return {}
    for entry in tables[UNIQUE_TABLE].entries:
        if entry.result == name:
            return entry.data
    return {}


def _powers(st: Mapping[str, Any]) -> set[str]:
    """Psionic powers of enemies still on the field (effects end when the Psionic falls, p.23)."""
    found: set[str] = set()
    for enemy in st["enemies"]:
        if enemy["status"] == "active" and enemy.get("psionic_powers"):
            found.update(enemy["psionic_powers"])
    return found


def has_power(st: Mapping[str, Any], power: str) -> bool:
    """Whether an enemy Psionic on the field has ``power`` (:func:`_powers`; asked every round)."""
    for enemy in st["enemies"]:
        if enemy["status"] == "active":
            powers = enemy.get("psionic_powers")
            if powers and power in powers:
                return True
    return False


def _faces_text(faces: frozenset[int]) -> str:
    if not faces:
        return "0"
    low, high = min(faces), max(faces)
    return str(low) if low == high else f"{low}-{high}"


# -- Morale ------------------------------------------------------------------------------------


def panic_now(st: Mapping[str, Any], tables: Tables) -> tuple[frozenset[int], str]:
    """The enemy Panic faces at this Morale test and why (p.49 Leadership, p.62 Authority figure)."""
    normal = rules(st).get("normal_panic")
    if not normal:
        return _panic_faces(st["enemy_panic"]), ""
    on_field = _active_enemies(st)
    panic = str(normal)
    why = []
    leader = (
        "captain"
        if any(e.get("captain") for e in on_field)
        else "lieutenant"
        if any(e["rank"] == "lieutenant" and not e.get("unique") for e in on_field)
        else ""
    )
    if leader and LEADERSHIP_TABLE in tables:
        for entry in tables[LEADERSHIP_TABLE].entries:
            if entry.data.get("rank") == leader and str(entry.data.get("normal_panic")) == panic:
                panic = str(entry.data.get("modified_panic"))
                why.append(f"{leader.title()} on the field (p.49)")
                break
    faces = _panic_faces(panic)
    for enemy in on_field:
        change = int(unique_data(tables, enemy.get("unique")).get("panic_modifier") or 0)
        if change and faces:
            top = max(faces) + change
            faces = frozenset(range(1, top + 1)) if top > 0 else frozenset()
            why.append(f"{enemy['name']}, Authority figure (p.62)")
    return faces, f"Panic {_faces_text(faces)}" + (f" ({'; '.join(why)})" if why else "")


def all_fearless(st: Mapping[str, Any]) -> str:
    """Why every enemy is Fearless now, or ``""``."""
    if has_power(st, BOLSTER):
        return "an enemy Psionic's Bolster makes them all Fearless (p.23)"
    d = data(st)
    dogged = d.get("dogged_figures_max")
    if dogged and len(_active_enemies(st)) <= int(dogged):
        return f"Dogged: {int(dogged)} or fewer left, they are Fearless (p.56)"
    swift = d.get("fearless_after_morale_losses")
    if swift and int(st.get("morale_fled", 0)) >= int(swift):
        return f"The stars say to stay: {int(swift)} fled by Morale, the rest are Fearless (p.57)"
    return ""


def stubborn_exempt(st: Mapping[str, Any]) -> int:
    """Casualties this round that force no Morale die (Stubborn, pp.51-57)."""
    first = int(data(st).get("stubborn_casualties") or 0)
    if not first:
        return 0
    casualties = int(st["enemy_casualties_round"])
    before = int(st["enemies_killed"]) - casualties
    return max(0, min(casualties, first - before))


def roll_range(text: Any) -> set[int]:
    """``"5-6"`` -> {5, 6}."""
    low, _, high = str(text).partition("-")
    return set(range(int(low), int(high or low) + 1))


# -- shooting and Brawling ---------------------------------------------------------------------


def _crew_captain(figure: Mapping[str, Any]) -> bool:
    return bool(figure.get("captain")) and "rank" not in figure


def shot_changes(
    st: Mapping[str, Any],
    tables: Tables,
    shooter: Mapping[str, Any],
    target: Mapping[str, Any],
    weapon: Mapping[str, Any],
    *,
    range_in: int,
    cover: bool,
    moved: bool,
    natural_six: bool,
) -> tuple[int, dict[str, Any] | None, bool, bool, int | None, list[str]]:
    """What the type rules change in one shot: ``(hit bonus, changed weapon or None, cover,
    natural_six, target save, notes)``."""
    d = data(st)
    name = rules(st).get("type")
    bonus = 0
    shots = 0
    damage = 0
    add: set[str] = set()
    strip: set[str] = set()
    save = target.get("save")
    notes: list[str] = []
    enemy_shoots = "rank" in shooter
    if enemy_shoots:
        udata = unique_data(tables, shooter.get("unique"))
        if name == "Punks" and target["stun"]:
            bonus += 1
            notes.append("Git 'im! +1 at a Stunned target (p.51)")
        if name == "Psychos" and d.get("extra_shots"):
            shots += int(d["extra_shots"])
            natural_six = True
            notes.append(f"Fire frenzy: +{int(d['extra_shots'])} Shot, natural 6s only (p.51)")
        if d.get("specialist_hit_modifier") and shooter["rank"] == "specialist":
            bonus += int(d["specialist_hit_modifier"])
            notes.append("Best guns daddy could buy (p.51)")
        if name == "Anarchists" and _crew_captain(target):
            bonus += 1
            notes.append("Fight the power: +1 against the captain (p.52)")
        fired = st["flags"].get("fired_upon") or {}
        if d.get("pack_hit_modifier") and target["name"] in fired:
            bonus += int(d["pack_hit_modifier"])
            notes.append("Pack tactics (p.52)")
        if d.get("overcharge_damage_bonus") and st["round"] % 2 == 1:
            lowered = weapon["name"].lower().replace("-", " ")
            if lowered in ("hand laser", "infantry laser"):
                damage += int(d["overcharge_damage_bonus"])
                notes.append("Overcharged weapons: +1 Damage in an odd round (p.53)")
            elif lowered == "blast rifle":
                add.add("piercing")
                notes.append("Overcharged weapons: Piercing in an odd round (p.53)")
        if d.get("close_range_in") and d.get("extra_shots") and range_in <= int(d["close_range_in"]):
            shots += int(d["extra_shots"])
            notes.append("Downtown shooting style (p.53)")
        if any("sight" in str(g).lower() for g in shooter.get("gear", ())):
            bonus += 1
            notes.append("sight +1 to Hit")
        if d.get("cover_hit_modifier") and cover and weapon["shots"] == 1:
            bonus += int(d["cover_hit_modifier"])
            notes.append("Upgraded sights (p.55)")
        if name == "Renegade Soldiers" and weapon["name"].lower().replace("-", " ") in ("auto rifle", "rattle gun"):
            shots += int(d.get("extra_shots") or 1)
            notes.append("Suppressing fire (p.56)")
        mark = st.get("elite_mark")
        if d.get("mark_modifier") and mark == target["name"]:
            bonus += int(d["mark_modifier"])
            notes.append("The mark (p.56)")
        if d.get("underdog_combat_skill_bonus") and len(_active_enemies(st)) < len(_active_crew(st)):
            bonus += int(d["underdog_combat_skill_bonus"])
            notes.append("Underdog (p.57)")
        if name == "Soulless Task Force" and d.get("extra_shots"):
            others = [n for n in fired.get(target["name"], ()) if n != shooter["name"]]
            if others:
                shots += int(d["extra_shots"])
                notes.append("Inter-link (p.58)")
        if name == "Planetary Nomads" and weapon["shots"] == 1:
            add.add("critical")
            notes.append("Hunting shot (p.58)")
        if udata.get("extra_shots") and not moved:
            shots += int(udata["extra_shots"])
            notes.append("Rock 'n' Roll (p.63)")
        if udata.get("hit_modifier"):
            bonus += int(udata["hit_modifier"])
            notes.append("Deadly accuracy (p.64)")
        if shooter.get("unique") == "Hakshan Investigator" and _unchecked_sight(st):
            bonus += 1
            notes.append("Driven (p.64)")
    else:
        if d.get("home_field_range_in") and range_in > int(d["home_field_range_in"]) and not cover:
            cover = True
            notes.append("Home field advantage: counts as Cover (p.58)")
        if d.get("cover_rounds") and st["round"] <= int(d["cover_rounds"]) and not cover:
            cover = True
            notes.append("Sneaking in: in Cover (p.57)")
        if target.get("unique") == "Nomad Scout" and not cover:
            cover = True
            notes.append("Concealed (p.64)")
        if not cover and d.get("open_hit_modifier"):
            bonus += int(d["open_hit_modifier"])
            notes.append(f"{name}: {int(d['open_hit_modifier']):+d} in the open")
        if not cover and d.get("dodge_range_in") and range_in > int(d["dodge_range_in"]):
            bonus -= 1
            notes.append("Dodge (p.60)")
        if d.get("hit_modifier_against"):
            bonus += int(d["hit_modifier_against"])
            notes.append("Easy targets (p.61)")
        if name == "Soulless Task Force" and target["rank"] == "lieutenant" and "piercing" in weapon["traits"]:
            strip.add("piercing")
            notes.append("Force screen: saves even against Piercing (p.58)")
        if target.get("unique") == "Cyborg Merc" and "piercing" in weapon["traits"]:
            strip.add("piercing")
            save = CYBORG_PIERCING_SAVE if save is None else min(save, CYBORG_PIERCING_SAVE)
            notes.append("Built-in armor: a 6+ save against Piercing (p.64)")
        if target.get("unique") == "Hakshan Investigator":
            damage -= weapon["damage"]
            notes.append("Armored suit: Damage +0 (p.64)")
        if OBSCURE in (target.get("psionic_powers") or ()):
            natural_six = True
            notes.append("Obscure: natural 6s only (p.23)")
        if REFLECT in (target.get("psionic_powers") or ()):
            strip.add("piercing")
            save = REFLECT_SAVE if save is None else min(save, REFLECT_SAVE)
            notes.append("Reflect: a 4+ save Piercing does not negate (p.23)")
    changed = None
    if shots or damage or add or strip:
        changed = dict(weapon)
        changed["shots"] = weapon["shots"] + shots
        changed["damage"] = max(0, weapon["damage"] + damage)
        changed["traits"] = sorted((set(weapon["traits"]) | add) - strip)
    return (0 if natural_six else bonus), changed, cover, natural_six, save, notes


def _unchecked_sight(st: Mapping[str, Any]) -> bool:
    return any(loc["kind"] == "sight" and not loc["checked"] for loc in st["locations"])


def brawl_changes(
    st: Mapping[str, Any],
    tables: Tables,
    crew: Mapping[str, Any],
    enemy: Mapping[str, Any],
    enemy_weapon: Mapping[str, Any] | None,
    *,
    initiator: str,
) -> tuple[int, dict[str, Any] | None, list[str]]:
    """What the type rules change in one Brawl: ``(enemy bonus, enemy weapon, notes)``;
    ``initiator`` is ``"crew"``, ``"enemy"`` or ``""``."""
    d = data(st)
    name = rules(st).get("type")
    udata = unique_data(tables, enemy.get("unique"))
    bonus = 0
    notes: list[str] = []
    if initiator == "enemy":
        ferocious = int(d.get("brawl_initiate_modifier") or 0) + int(udata.get("brawl_initiate_modifier") or 0)
        if ferocious:
            bonus += ferocious
            notes.append(f"+{ferocious} starting the Brawl (Brutes / Ferocious)")
    if name == "Anarchists" and _crew_captain(crew):
        bonus += 1
        notes.append("Fight the power (p.52)")
    if d.get("mark_modifier") and st.get("elite_mark") == crew["name"]:
        bonus += int(d["mark_modifier"])
        notes.append("The mark (p.56)")
    if d.get("underdog_combat_skill_bonus") and len(_active_enemies(st)) < len(_active_crew(st)):
        bonus += int(d["underdog_combat_skill_bonus"])
        notes.append("Underdog (p.57)")
    if enemy.get("unique") == "Hakshan Investigator" and _unchecked_sight(st):
        bonus += 1
        notes.append("Driven (p.64)")
    weapon = dict(enemy_weapon) if enemy_weapon else None
    brawl = d.get("brawl_weapon")
    if isinstance(brawl, Mapping):
        if weapon is not None and "melee" in weapon["traits"]:
            weapon["damage"] += 1
            notes.append("Wrecking crew: +1 Damage (p.53)")
        else:
            weapon = {"name": str(brawl.get("name") or "Brawl"), "range": 0, "shots": 0, "damage": int(brawl["damage"]),
                      "traits": ["melee"]}  # fmt: skip
            notes.append("Wrecking crew: Damage 1 Melee (p.53)")
    return bonus, weapon, notes


def stun_immune(st: Mapping[str, Any], figure: Mapping[str, Any], *, shooting: bool) -> bool:
    """Whether ``figure`` takes no Stun markers here (p.53 Hulkers from shots, p.60 stun_immune)."""
    if "rank" not in figure or not rules(st):
        return False
    d = data(st)
    if figure.get("unique"):
        return figure["unique"] == "Callous Merc" and bool(figure["stun"])
    return bool(d.get("stun_immune")) or (shooting and bool(d.get("stun_immune_to_shooting")))
