"""Combat on the mission tracker (Bug Hunt pp.177-181, 194-197, 201) through
:mod:`bughunt.engine.combat`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bughunt.engine import combat
from bughunt.engine.tracker.base import KNOCKOUT_STUN, _choice, _enemy, _figure, _mine, _not_viewer, _rolls
from bughunt.engine.tracker.enemies import _add_enemy
from bughunt.engine.tracker.troopers import _leave, _weapon_of
from bughunt.engine.tracker.turns import enemy_spent, enemy_turn, override_reason, spend, trooper_turn
from live.engine.tracker import (
    Action,
    Event,
    Role,
    TrackerError,
    payload_flag,
    payload_int,
    payload_ints,
    require_owner,
    words,
)
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

# -- combat (pp.177-181, 194-197, 201) through bughunt.engine.combat ----------------------------------------


def _combat_error(exc: combat.CombatError) -> TrackerError:
    message = str(exc)
    field = next((f for f in ("faces", "band", "grenade", "weapon", "damage") if f in message), None)
    return TrackerError(message, field=field)


def _trooper(fig: Mapping[str, Any]) -> combat.Combatant:
    return combat.Combatant(
        name=fig["name"],
        combat_skill=int(fig["combat_skill"]),
        toughness=int(fig["toughness"]),
        savvy=int(fig["savvy"]),
        save=fig["save"],
        stun_markers=int(fig["stun"]),
        wounded=bool(fig["wounded"]),
        weapons=tuple(w["name"] for w in fig["weapons"]),
        special=frozenset(fig["special"]),
    )


def _foe(
    state: Mapping[str, Any], tables: Mapping[str, RangeTable], group: Mapping[str, Any], fig: Mapping[str, Any]
) -> combat.Combatant:
    base = combat.enemy_combatant(
        tables,
        group["type"],
        variant=state["variant"]["name"] if state["variant"] else None,
        leader=fig["leader"]["name"] if fig["leader"] else None,
        name=fig["name"],
    )
    return replace(base, stun_markers=int(fig["stun"]), wounded=bool(fig["wounded"]))


def _apply_to_trooper(
    state: dict[str, Any], fig: dict[str, Any], hit: combat.HitResult, *, by: str | None = None, dice: Dice | None = None
) -> list[str]:
    """Copy a Hit's result onto a trooper; a removed figure leaves the table (package dropped).
    Shambling reanimations replace a defeated grunt with a new Reanimation (p.194)."""
    fig["stun"] = hit.target.stun_markers
    fig["wounded"] = hit.target.wounded
    notes: list[str] = []
    if hit.removed:
        tail = _leave(state, fig, hit.outcome)
        if by:
            fig["defeated_by"] = by
        if tail:
            notes.append(tail.strip())
        if by == "Shambling reanimations" and not fig["main"] and state["groups"]:
            new = _add_enemy(state, state["groups"][-1], note=f"rose where {fig['name']} fell")
            notes.append(f"{new['name']} rises in {fig['name']}'s place.")
        if by == "Razor lizards":
            notes.append("Razor lizards: their injury recovery takes 1 campaign turn longer.")
    return notes


def _apply_to_enemy(
    state: dict[str, Any],
    tables: Mapping[str, RangeTable],
    group: dict[str, Any],
    fig: dict[str, Any],
    after: combat.Combatant,
    removed: bool,
    dice: Dice,
    *,
    near: Sequence[Target] = (),
    chain: Chain | None = None,
) -> tuple[list[str], list[RollRecord]]:
    """Copy a fight's result onto an enemy figure. Stunned in the Enemy Action phase (Snap Fire
    as it moves), it takes no other action this round (p.198). On death, Acid blobs split (p.195)
    and a Shatter-form bursts: every figure in ``near`` (within 2") takes a Damage 0 Hit, rolled
    and applied here (p.195); a Shatter-form killed by a burst bursts in turn (see :class:`Chain`)."""
    stunned = after.stun_markers > int(fig["stun"])
    fig["stun"] = after.stun_markers
    fig["wounded"] = after.wounded
    notes: list[str] = []
    rolls: list[RollRecord] = []
    if not removed and fig["stun"] >= KNOCKOUT_STUN:
        removed = True
        notes.append(f"{fig['name']} has 3 Stun markers and is knocked out (p.178).")
    if not removed:
        rnd = state["round"]
        moving = rnd not in (fig.get("placed_round"), fig.get("acted_round"), fig.get("distracted_round"))
        if stunned and state["phase"] == "enemy" and moving:
            fig["acted_round"] = state["round"]
            notes.append(f"{fig['name']} is Stunned while moving: it takes no other action this round (p.198).")
        return notes, rolls
    fig["status"] = "killed"
    if group["type"] == "Acid blobs":
        split = combat.acid_blob_death(dice, tables=tables)
        rolls.extend(split.rolls)
        for _ in range(split.new_blobs):
            _add_enemy(state, group, note=f"split from {fig['name']}")
        notes.append(split.text)
    if group["type"] == "Shatter-forms":
        texts, extra = _burst(state, tables, dice, group, fig, near, chain or Chain())
        notes.extend(texts)
        rolls.extend(extra)
    return notes, rolls


SHATTER_CHAIN_CAP = 12
"""Most Shatter-form bursts one action resolves. Each dead figure bursts once and is never hit
again, so a chain ends by itself; the cap only guards against a loop in a bad state."""


@dataclass
class Chain:
    """Shatter-form bursts set off by one action (p.195, resolved as they happen, p.180).

    ``cluster``: the figures named near the shot's target or point, or within 2" of the first
    Shatter-form that died; ``named``: figures named within 2" of a given Shatter-form (payload
    ``near_<enemy id>``). A Shatter-form killed by a burst (or an Area or Stun splash) bursts on
    its own named figures, or else on the cluster (taken as standing together), the dead and
    itself left out. ``bursts`` counts them against the cap."""

    named: dict[str, list[Target]] = field(default_factory=dict)
    cluster: list[Target] = field(default_factory=list)
    bursts: int = 0
    knocked: list[str] = field(default_factory=list)
    """Figures knocked back by the hits rolled along the way (splash, bursts)."""


def _knock_back(events_data: dict[str, Any], texts: list[str], knocked: Sequence[str]) -> None:
    """Name every figure a Hit knocked back 1" (p.178: a save made, Stunned or Wounded) in the
    event's text and its data (``knocked_back``): the players move them at the table."""
    names = list(dict.fromkeys(knocked))
    events_data["knocked_back"] = names
    if names:
        texts.append(f"Knocked back 1 inch, away from the attack (p.178): {', '.join(names)}.")


def _chain(state: Mapping[str, Any], action: Action) -> Chain:
    """The :class:`Chain` of an action: ``near_<enemy id>`` payload keys name the figures within
    2" of that Shatter-form, should it die. Raises :class:`TrackerError` for an unknown id."""
    named: dict[str, list[Target]] = {}
    for key in action.payload:
        if key.startswith("near_e"):
            _enemy(state, key.removeprefix("near_"), field=key, active=False)
            named[key.removeprefix("near_")] = _targets(state, action, key)
    return Chain(named=named)


def _burst(
    state: dict[str, Any],
    tables: Mapping[str, RangeTable],
    dice: Dice,
    group: Mapping[str, Any],
    fig: Mapping[str, Any],
    near: Sequence[Target],
    chain: Chain,
) -> tuple[list[str], list[RollRecord]]:
    """A Shatter-form dies: a Damage 0 Hit on every figure within 2" (p.195), each rolled here."""
    if chain.bursts >= SHATTER_CHAIN_CAP:
        return [f"{fig['name']} shatters, but {SHATTER_CHAIN_CAP} bursts in a row is the app's limit: resolve it by hand."], []
    chain.bursts += 1
    around, how = list(chain.named.get(fig["id"], near)), ""
    if fig["id"] not in chain.named and not near:
        around, how = chain.cluster, " (the figures named near the first blast or burst, taken as standing together)"
    chain.cluster = chain.cluster or list(near)
    caught = [t for t in around if t[2]["status"] == "active" and t[2] is not fig]
    if not caught:
        return [
            f"{fig['name']} shatters: no figure was named within 2 inches (p.195); resolve any by hand with Hit and near."
        ], []
    names = ", ".join(t[2]["name"] for t in caught)
    notes = [f"{fig['name']} shatters: a Damage 0 Hit on {names}{how} (p.195)."]
    rolls: list[RollRecord] = []
    for target in caught:
        texts, extra = _hit_target(
            state, tables, dice, target, combat.SHATTER_DAMAGE, area=False, ranged=False,
            special=frozenset({combat.SHATTER_FORMS}), source=f"{fig['name']} shattering", by=group["type"], chain=chain,
        )  # fmt: skip
        notes.extend(texts)
        rolls.extend(extra)
    return notes, rolls


Target = tuple[str, dict[str, Any], dict[str, Any]]
"""("trooper", unit, figure) or ("enemy", group, enemy figure)."""


def _targets(state: Mapping[str, Any], action: Action, key: str) -> list[Target]:
    """The figures a payload lists under ``key`` (trooper ids f1.. or enemy ids e1..), each once,
    on the table. Raises :class:`TrackerError` naming ``key`` for an unknown id."""
    found: list[Target] = []
    for fid in dict.fromkeys(words(action.payload.get(key))):
        if fid.startswith("e"):
            group, enemy = _enemy(state, fid, field=key)
            found.append(("enemy", group, enemy))
        else:
            unit, fig = _figure(state, fid, field=key)
            found.append(("trooper", unit, fig))
    return found


def _hit_target(
    state: dict[str, Any],
    tables: Mapping[str, RangeTable],
    dice: Dice,
    target: Target,
    damage: int,
    *,
    area: bool,
    ranged: bool,
    special: frozenset[str],
    source: str,
    piercing: bool = False,
    by: str | None = None,
    chain: Chain | None = None,
) -> tuple[list[str], list[RollRecord]]:
    """Roll one Hit on ``target`` (save, then 1D6 + Damage, p.178) and apply it to the state."""
    kind, owner, fig = target
    if fig["status"] != "active":
        return [], []
    chain = chain or Chain()
    if kind == "enemy":
        result = combat.resolve_hit(
            tables, _foe(state, tables, owner, fig), damage, dice,
            piercing=piercing, area=area, ranged=ranged, attacker_special=special, source=source,
        )  # fmt: skip
        if result.knockback_in:
            chain.knocked.append(fig["name"])
        notes, extra = _apply_to_enemy(state, tables, owner, fig, result.target, result.removed, dice, chain=chain)
        return [result.text, *notes], [*result.rolls, *extra]
    result = combat.resolve_hit(
        tables, _trooper(fig), damage, dice,
        piercing=piercing, area=area, ranged=ranged, attacker_special=special, source=source,
    )  # fmt: skip
    if result.knockback_in:
        chain.knocked.append(fig["name"])
    return [result.text, *_apply_to_trooper(state, fig, result, by=by)], list(result.rolls)


def _stun_target(
    state: dict[str, Any], tables: Mapping[str, RangeTable], dice: Dice, target: Target, chain: Chain
) -> tuple[list[str], list[RollRecord]]:
    """One more Stun marker on ``target`` from a Stun weapon (pp.178-179); three knock it out
    (a Shatter-form knocked out bursts)."""
    kind, owner, fig = target
    if kind == "enemy":
        after, _ = combat.apply_stun(_foe(state, tables, owner, fig), tables=tables)
        return _apply_to_enemy(state, tables, owner, fig, after, False, dice, chain=chain)
    fig["stun"] += 1
    if fig["stun"] >= KNOCKOUT_STUN:
        return [f"{fig['name']} has 3 Stun markers and is knocked out.{_leave(state, fig, 'knocked_out')}"], []
    return [], []


def _splash(
    state: dict[str, Any],
    tables: Mapping[str, RangeTable],
    dice: Dice,
    shot: combat.ShotResult,
    near: Sequence[Target],
    firer: Mapping[str, Any],
    chain: Chain,
) -> tuple[list[str], list[RollRecord]]:
    """Apply an Area or Stun shot's splash rolls to the figures within 2" (p.179): Area hits at
    the weapon's Damage, Stun markers for Stun weapons, in the order the figures were named."""
    texts: list[str] = []
    rolls: list[RollRecord] = []
    gun = shot.weapon
    for roll in shot.splash:
        if roll.figure == 0 or not roll.affected or roll.figure > len(near):
            continue
        target = near[roll.figure - 1]
        if roll.kind == "stun":
            texts.append(f"{target[2]['name']} is Stunned.")
            words_, extra = _stun_target(state, tables, dice, target, chain)
            texts.extend(words_)
            rolls.extend(extra)
            continue
        words_, extra = _hit_target(
            state, tables, dice, target, gun.damage, area=True, ranged=True,
            special=frozenset(firer["special"]), source=gun.name, piercing=gun.has("Piercing"), chain=chain,
        )  # fmt: skip
        texts.extend(words_)
        rolls.extend(extra)
    return texts, rolls


def _shoot(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A trooper fires one weapon (pp.177-179) as its Combat Action (see
    :func:`bughunt.engine.tracker.turns.trooper_turn`: its unit must be acting now, once a
    round; Snap Fire in the Enemy Action phase; a free bonus shot at enemies revealed from a
    "Beep... Sir?" marker) at an enemy figure (``enemy``; optional for Area and Stun weapons
    aimed at a point): ``band`` close (3+), open (5+) or cover (6+); ``moved``,
    ``behind_cover`` (Vent-crawlers), ``rapid_fire`` (default on), ``near`` (ids of the other
    figures within 2" of an Area/Stun point: each is rolled for and hit or Stunned by the app;
    troopers may not be put under an Area attack, p.180), ``shatter_near`` (ids within 2" of a
    Shatter-form target, hit if it dies), ``grenade`` (Launcher), ``faces``. The weapon's
    natural 1s this round are counted toward a Malfunction; Area ammunition can run out. Movie
    magic weapons and "You want some too?" (three shots) never malfunction."""
    unit, fig = _figure(state, action.payload.get("figure"))
    _mine(action, unit)
    weapon = _weapon_of(fig, action)
    if weapon["malfunctioned"]:
        raise TrackerError(f"{fig['name']}'s {weapon['name']} has malfunctioned: clear it first (1D6+Savvy 7+).", field="weapon")
    if weapon["out_of_ammo"]:
        raise TrackerError(f"{fig['name']}'s {weapon['name']} is out of ammunition for this battle.", field="weapon")
    group = target = None
    if action.payload.get("enemy"):
        group, target = _enemy(state, action.payload.get("enemy"))
    way = trooper_turn(state, action, unit, fig, what="Firing", group=group)
    near = [t for t in _targets(state, action, "near") if t[2] is not target]
    shatter_near = _targets(state, action, "shatter_near")
    chain = _chain(state, action)
    try:
        gun = combat.weapon(tables, weapon["name"])
        if gun.has("Launcher"):
            gun = combat.weapon(tables, str(action.payload.get("grenade") or "") or weapon["name"])
    except combat.CombatError:
        gun = None
    if gun is not None and gun.has("Area") and any(k == "trooper" for k, _, _ in near) and not override_reason(action):
        raise TrackerError(
            "Troopers may not fire an Area weapon where the blast would threaten other troopers (p.180).", field="near"
        )
    three = fig.get("three_shots_round") == state["round"]
    band = _choice(action, "band", ("close", "open", "cover"), default="open")
    try:
        shot = combat.resolve_shot(
            tables,
            _trooper(fig),
            weapon["name"],
            _foe(state, tables, group, target) if group is not None and target is not None else None,
            dice,
            band=band,
            moved=payload_flag(action, "moved") or fig.get("moved_round") == state["round"],
            target_behind_cover=payload_flag(action, "behind_cover"),
            ones_this_round=int(weapon["ones"]),
            take_rapid_fire=payload_flag(action, "rapid_fire", default=True),
            no_malfunction=bool(weapon["no_malfunction"]) or three,
            figures_near_point=len(near),
            grenade=str(action.payload.get("grenade") or "") or None,
            shots=3 if three else None,
            faces=payload_ints(action, "faces") or None,
        )
    except combat.CombatError as exc:
        raise _combat_error(exc) from None
    weapon["ones"] = shot.ones_this_round
    weapon["malfunctioned"] = weapon["malfunctioned"] or shot.malfunctioned
    weapon["out_of_ammo"] = weapon["out_of_ammo"] or shot.out_of_ammo
    if three:
        fig["three_shots_round"] = None
    texts = [shot.text]
    spent = spend(state, unit, fig, way)
    fig["fired_round"] = state["round"]
    if spent:
        texts.append(spent)
    rolls = list(shot.rolls)
    chain.cluster = [*([("enemy", group, target)] if group is not None and target is not None else []), *shatter_near, *near]
    if group is not None and target is not None and shot.target is not None:
        removed = any(h.removed for h in shot.hits)
        notes, extra = _apply_to_enemy(
            state, tables, group, target, shot.target, removed, dice, near=[*shatter_near, *near], chain=chain
        )
        texts.extend(notes)
        rolls.extend(extra)
    notes, extra = _splash(state, tables, dice, shot, near, fig, chain)
    texts.extend(notes)
    rolls.extend(extra)
    if shot.spare_hits:
        texts.append(
            f"{shot.spare_hits} hit(s) left over: put them on a figure within 3 inches with Hit (not for Focused weapons)."
        )
    data: dict[str, Any] = {"figure": fig["id"], "way": way, **_rolls(*rolls)}
    _knock_back(data, texts, [*(h.target.name for h in shot.hits if h.knockback_in), *chain.knocked])
    return [Event("shoot", " ".join(texts), data)]


def _brawl(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A Brawl between a trooper (``figure``) and an enemy (``enemy``) (pp.177-180): both 1D6 +
    Combat Skill with the trooper's weapon bonus; lower total takes a Hit, a draw hits both.
    ``by``: who moved into contact, "trooper" (its Combat Action, in its own activation; it
    cannot fire this round) or "enemy" (the enemy's action in the Enemy Action phase; not for
    enemies placed this round or Stunned; a Wounded enemy also attacks a trooper who comes within
    1" in the Quick or Slow phase, p.178); the default is the enemy in the Enemy Action phase,
    the trooper otherwise. ``crash`` (a random move: both +0, no modifiers, any time),
    ``second_opponent`` (+1 to the second enemy met at once), ``near`` or ``shatter_near``
    (other ids within 2" of a Shatter-form: with the trooper they take its burst if it dies),
    ``faces``.
    Results are applied to both figures."""
    unit, fig = _figure(state, action.payload.get("figure"))
    if action.role == Role.PLAYER:
        _mine(action, unit)
    else:
        _not_viewer(action)
    group, enemy = _enemy(state, action.payload.get("enemy"))
    crash = payload_flag(action, "crash")
    by = _choice(action, "by", ("trooper", "enemy"), default="enemy" if state["phase"] == "enemy" else "trooper")
    way = ""
    # a Wounded enemy lies where it fell and attacks a trooper who comes within 1" (p.178)
    lying = by == "enemy" and enemy["wounded"] and state["phase"] in ("quick", "slow")
    if crash or lying:
        pass
    elif by == "trooper":
        way = trooper_turn(state, action, unit, fig, what="A Brawl")
    else:
        enemy_turn(state, action, enemy, what="Brawl")
    shatter_near = [t for t in [*_targets(state, action, "near"), *_targets(state, action, "shatter_near")] if t[2] is not fig]
    chain = _chain(state, action)
    try:
        fight = combat.resolve_brawl(
            tables,
            _trooper(fig),
            _foe(state, tables, group, enemy),
            dice,
            second_opponent=payload_flag(action, "second_opponent"),
            crash=crash,
            faces=payload_ints(action, "faces") or None,
        )
    except combat.CombatError as exc:
        raise _combat_error(exc) from None
    texts = [fight.text]
    if way:
        fig["fired_round"] = state["round"]
        spent = spend(state, unit, fig, way)
        texts.append(spent or f"{fig['name']} entered the Brawl on their action and cannot fire this round (p.176).")
    elif not (crash or lying):
        enemy_spent(state, enemy)
    rolls = list(fight.rolls)
    enemy_removed = any(h.removed and h.target.is_enemy for h in fight.hits)
    fig["stun"], fig["wounded"] = fight.trooper.stun_markers, fight.trooper.wounded
    fallen = next((h for h in fight.hits if h.removed and not h.target.is_enemy), None)
    if fallen is not None:
        texts.extend(_apply_to_trooper(state, fig, fallen, by=group["type"]))
    near: list[Target] = [("trooper", unit, fig), *shatter_near]
    notes, extra = _apply_to_enemy(state, tables, group, enemy, fight.enemy, enemy_removed, dice, near=near, chain=chain)
    texts.extend(notes)
    rolls.extend(extra)
    data = {"figure": fig["id"], "enemy": enemy["id"], "by": "crash" if crash else by, **_rolls(*rolls)}
    _knock_back(data, texts, [*(h.target.name for h in fight.hits if h.knockback_in), *chain.knocked])
    return [Event("brawl", " ".join(texts), data)]


def _hit(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Resolve one Hit by hand (p.178) on a trooper (``figure``) or an enemy (``enemy``): splash
    hits, spare hits, a Shatter-form burst, a fall. ``damage`` 0-5, ``piercing``, ``area``,
    ``ranged`` (default on), ``near`` (ids within 2" of a Shatter-form that dies: its burst is
    rolled and applied), ``faces`` (save die if any, then the Hit die)."""
    require_owner(action)
    damage = payload_int(action, "damage", low=0, high=5, default=0)
    piercing, area = payload_flag(action, "piercing"), payload_flag(action, "area")
    ranged = payload_flag(action, "ranged", default=True)
    faces = payload_ints(action, "faces") or None
    try:
        if action.payload.get("enemy"):
            group, enemy = _enemy(state, action.payload.get("enemy"))
            foe = _foe(state, tables, group, enemy)
            result = combat.resolve_hit(tables, foe, damage, dice, piercing=piercing, area=area, ranged=ranged, faces=faces)
            near = _targets(state, action, "near")
            chain = _chain(state, action)
            notes, extra = _apply_to_enemy(
                state, tables, group, enemy, result.target, result.removed, dice, near=near, chain=chain
            )
            texts = [result.text, *notes]
            data: dict[str, Any] = {"enemy": enemy["id"], **_rolls(*result.rolls, *extra)}
            _knock_back(data, texts, [*([enemy["name"]] if result.knockback_in else []), *chain.knocked])
            return [Event("hit", " ".join(texts), data)]
        _, fig = _figure(state, action.payload.get("figure"))
        result = combat.resolve_hit(tables, _trooper(fig), damage, dice, piercing=piercing, area=area, ranged=ranged, faces=faces)
    except combat.CombatError as exc:
        raise _combat_error(exc) from None
    texts = [result.text, *_apply_to_trooper(state, fig, result)]
    data = {"figure": fig["id"], **_rolls(*result.rolls)}
    _knock_back(data, texts, [fig["name"]] if result.knockback_in else [])
    return [Event("hit", " ".join(texts), data)]


def _enemy_attack(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable], kind: str) -> list[Event]:
    require_owner(action)
    group, enemy = _enemy(state, action.payload.get("enemy"))
    _, fig = _figure(state, action.payload.get("figure"))
    enemy_turn(state, action, enemy, what="Spitting" if kind == "spitter" else "A Lancer dart")
    faces = payload_ints(action, "faces") or None
    try:
        if kind == "spitter":
            if not state["variant"] or state["variant"]["key"] != "spitters":
                raise TrackerError("Only the Spitters variant spits (p.196).", field="enemy")
            foe = _foe(state, tables, group, enemy)
            attack = combat.spitter_attack(_trooper(fig), dice, tables=tables, attacker_special=foe.special, faces=faces)
        else:
            if not enemy["leader"] or enemy["leader"]["key"] != "lancer":
                raise TrackerError(f"{enemy['name']} is not a Lancer (p.197).", field="enemy")
            attack = combat.lancer_dart(_trooper(fig), dice, tables=tables, faces=faces)
    except combat.CombatError as exc:
        raise _combat_error(exc) from None
    notes = _apply_to_trooper(state, fig, attack.result, by=group["type"]) if attack.result is not None else []
    enemy_spent(state, enemy)
    texts = [f"{enemy['name']}: {attack.text}", *notes]
    data: dict[str, Any] = {"figure": fig["id"], **_rolls(*attack.rolls)}
    _knock_back(data, texts, [fig["name"]] if attack.result is not None and attack.result.knockback_in else [])
    return [Event(kind, " ".join(texts), data)]


def _spitter(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A Spitter ends its move within 6" and sight of a trooper (p.196): 1D6, a 6 hits, Damage 1, armor applies."""
    return _enemy_attack(state, action, dice, tables, "spitter")


def _lancer(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A Lancer's dart after its move (p.197): 5+ hits, Damage 1, ignores armor."""
    return _enemy_attack(state, action, dice, tables, "lancer")


def _drop_ship_fire(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """The hovering drop ship's supporting fire, once in each hovering round including the arrival
    round (p.201): two Light Machine Guns at +1 Combat Skill that never malfunction, at ``enemy``
    (``band``) and optionally ``enemy2`` (``band2``) for the second gun."""
    require_owner(action)
    evac = state["evac"]
    if evac["status"] != "hovering":
        raise TrackerError("The drop ship is not hovering over the table.", field="type")
    if evac["fired_round"] == state["round"]:
        raise TrackerError("The drop ship has already fired this round.", field="type")
    group, enemy = _enemy(state, action.payload.get("enemy"))
    second = None
    if action.payload.get("enemy2"):
        second = _enemy(state, action.payload.get("enemy2"), field="enemy2")
    bands = ("close", "open", "cover")
    try:
        fire = combat.drop_ship_fire(
            tables,
            _foe(state, tables, group, enemy),
            dice,
            band=_choice(action, "band", bands, default="open"),
            second_target=_foe(state, tables, *second) if second else None,
            second_band=_choice(action, "band2", bands, default="open") if second else None,
            faces=payload_ints(action, "faces") or None,
        )
    except combat.CombatError as exc:
        raise _combat_error(exc) from None
    evac["fired_round"] = state["round"]
    texts = [f"Drop ship supporting fire: {fire.text}"]
    rolls = list(fire.rolls)
    targets = [(group, enemy)] + ([second] if second else [])
    chain = _chain(state, action)
    for shot in fire.shots:
        if shot.target is None:
            continue
        chain.knocked.extend(h.target.name for h in shot.hits if h.knockback_in)
        for grp, foe in targets:
            if foe["name"] == shot.target.name and foe["status"] == "active":
                removed = any(h.removed for h in shot.hits)
                notes, extra = _apply_to_enemy(state, tables, grp, foe, shot.target, removed, dice, chain=chain)
                texts.extend(notes)
                rolls.extend(extra)
    data: dict[str, Any] = {"enemy": enemy["id"], **_rolls(*rolls)}
    _knock_back(data, texts, chain.knocked)
    return [Event("drop_ship_fire", " ".join(texts), data)]
