"""Stacking: a group rolls as one (the "Stacking" module, p.1).

A stack is a PC with their contractors, or a group of identical creatures, clustered within
Adjacent or Close Range and attacking with the same weapon. Contractors first pass a stacked
Loyalty Check (roll under the sum of their Loyalty; a failure costs every contractor their
actions this turn). A stacked Combat Check rolls under the sum of the Combat of every acting
member, the PC's included, after advantage or disadvantage. A hit rolls damage once, multiplies
it by the number of members acting, and shares it evenly between the target and the entities
adjacent to it. A hit on a PC with adjacent contractors costs each contractor a Wound and the PC
the rolled damage. A stacked Save rolls under the contractors' Instinct plus the PC's applicable
Save; on a failure each member takes the encounter's damage (contractors a Wound, the PC the
rolled damage).

The document leaves the dice to the host game, so they are settings (``rules``) the owner may
change: the check die (default D100, roll under), whether a roll equal to the target succeeds
(default no), how advantage works (default: roll twice, keep the better), what happens to the
points of spread damage that do not divide evenly (default: the main target takes them) and what
happens at 0 Health (default: the entity is down).

State (JSON-ready dict)::

    {"rules": {"check_die": "D100", "equal_succeeds": False, "advantage": "twice" | "shift",
               "advantage_shift": 10, "remainder": "target" | "drop", "zero_health": "down" | "wound"},
     "turn": 1,
     "stacks": [{"id": "s1", "name": "Ripley's team", "kind": "party" | "creatures",
                 "owner": "7" | None, "damage": "1D10", "loyalty": None | "passed" | "refused",
                 "members": [{"id": "m2", "name": "Ripley", "role": "pc" | "contractor" | "creature",
                              "combat": 35, "instinct": 30, "loyalty": 0, "save": 40,
                              "health": 10, "max_health": 10, "wounds": 0, "max_wounds": 2,
                              "down": False}],
                 "sums": {"loyalty": 0, "contractors": 0, "combat": 35, "save": 40,
                          "acting": 1, "size": 1}}],
     "targets": [{"id": "t3", "name": "Warrior", "health": 20, "max_health": 20, "wounds": 0,
                  "max_wounds": 0, "down": False}],
     "pending": None | {...a hit or failed save waiting for its damage roll},
     "last": None | {"kind", "outcome", "headline", "text", "dice"},
     "next_id": 4}

``down`` and ``sums`` are derived after every action (for the screen); members who are down
leave the stack's sums and its size.

Actions (``faces`` is optional everywhere a roll is made: the physical dice, one value per die):

- owner set-up: ``set_rules`` {check_die?, equal_succeeds?, advantage?, advantage_shift?,
  remainder?, zero_health?}; ``add_stack`` {name, kind, owner?, damage?}; ``add_member``
  {stack, name, role?, count?, combat?, instinct?, loyalty?, save?, health?, max_wounds?};
  ``add_target`` {name, health?, max_wounds?}; ``set_stats`` {id, combat?, instinct?, loyalty?,
  save?, health?, max_health?, wounds?, max_wounds?} (a member or target; for a stack: damage?,
  owner?); ``remove`` {id}; ``new_turn``;
  ``take_hit`` {target, damage} (an attacker outside the tracker hit a PC and contractors).
- the owner or the stack's player: ``loyalty_check`` {stack, faces?}; ``combat_check`` {stack,
  target, advantage?, damage?, faces?}; ``stacked_save`` {stack, damage, advantage?, pc_save?,
  faces?}.
- the owner or the player who made the hit: ``roll_damage`` {characters?, faces?}:
  ``characters`` lists the entities adjacent to the target (a spread hit) or the contractors
  adjacent to the PC (a hit on a party), as a list or a comma-separated string.

Every roll is one :class:`Event` with its record under ``data["roll"]``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from live.engine.tracker import Action, Event, NotYours, Role, TrackerError, payload_int, payload_ints, require_owner, words
from rules.engine.dice import Dice, DiceError, Keep, Notation, RollRecord, parse
from rules.engine.state import copy_state

SOURCE = "Stacking, p.1"

CHECK_DICE: tuple[str, ...] = ("D100", "D20", "D12", "D10", "D6")
ADVANTAGE_RULES: dict[str, str] = {
    "twice": "roll the check die twice and keep the better (lower) roll",
    "shift": "move the target up (advantage) or down (disadvantage) by a fixed amount",
}
REMAINDER_RULES: dict[str, str] = {
    "target": "the main target takes the points left over",
    "drop": "the points left over are lost",
}
ZERO_HEALTH_RULES: dict[str, str] = {
    "down": "Health stops at 0 and the entity is down",
    "wound": "at 0 Health take a Wound and Health refills, the excess carrying over",
}
ADVANTAGES = ("none", "advantage", "disadvantage")
KINDS = ("party", "creatures")
STAT_LIMIT = 999
DEFAULT_DAMAGE = "1D10"
DEFAULT_RULES: dict[str, Any] = {
    "check_die": "D100",
    "equal_succeeds": False,
    "advantage": "twice",
    "advantage_shift": 10,
    "remainder": "target",
    "zero_health": "down",
}

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def initial_state(
    *,
    check_die: str = "D100",
    equal_succeeds: bool = False,
    advantage: str = "twice",
    advantage_shift: int = 10,
    remainder: str = "target",
    zero_health: str = "down",
) -> dict[str, Any]:
    """An empty stacking table at turn 1 with the given dice settings.

    ``check_die`` is one of :data:`CHECK_DICE`; ``advantage``, ``remainder`` and ``zero_health``
    are keys of :data:`ADVANTAGE_RULES`, :data:`REMAINDER_RULES` and :data:`ZERO_HEALTH_RULES`;
    ``advantage_shift`` is 0-100. Raises :class:`TrackerError` naming the bad setting. The
    document leaves all of these to the host game (Stacking, p.1).
    """
    rules = dict(DEFAULT_RULES)
    for key, value in {
        "check_die": check_die,
        "equal_succeeds": equal_succeeds,
        "advantage": advantage,
        "advantage_shift": advantage_shift,
        "remainder": remainder,
        "zero_health": zero_health,
    }.items():
        rules[key] = _rule_value(key, value)
    return {"rules": rules, "turn": 1, "stacks": [], "targets": [], "pending": None, "last": None, "next_id": 1}


def apply(state: dict[str, Any], action: Action, dice: Dice) -> tuple[dict[str, Any], list[Event]]:
    """The reducer: ``(state, action, dice) -> (new_state, events)``.

    Raises :class:`TrackerError` (or :class:`NotYours`) and changes nothing when the action is
    refused; the error names the payload field at fault and the allowed values.
    """
    handler = _HANDLERS.get(action.type)
    if handler is None:
        raise TrackerError(f"Unknown action {action.type!r}; use one of {', '.join(sorted(_HANDLERS))}.", field="type")
    new = copy_state(state)
    events = handler(new, action, dice)
    _refresh(new)
    return new, events


# -- rules of the stack ----------------------------------------------------------------------


def is_success(natural: int, target: int, *, equal_succeeds: bool) -> bool:
    """Roll-under: ``natural`` below ``target`` succeeds; equal succeeds only if the setting says
    so (Stacking, p.1: "the target to roll under")."""
    return natural < target or (equal_succeeds and natural == target)


def acting_members(stack: dict[str, Any]) -> list[dict[str, Any]]:
    """The members who act in the stack's attack this turn: everyone not down, except that
    contractors drop out after a failed Loyalty Check (Stacking, p.1)."""
    members = [m for m in stack["members"] if not _is_down(m)]
    if stack["loyalty"] == "refused":
        members = [m for m in members if m["role"] != "contractor"]
    return members


def spread(total: int, receivers: int, *, remainder: str) -> list[int]:
    """``total`` damage points shared evenly by ``receivers`` (the main target first).

    Points that do not divide evenly go to the main target (``remainder="target"``) or are lost
    (``"drop"``). Returns one share per receiver (Stacking, p.1: "evenly distributed").
    """
    if receivers < 1:
        raise ValueError("spread needs at least one receiver")
    share, rest = divmod(max(0, total), receivers)
    shares = [share] * receivers
    if remainder == "target":
        shares[0] += rest
    return shares


# -- set-up ------------------------------------------------------------------------------------


def _set_rules(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    given = {key: _rule_value(key, action.payload[key]) for key in DEFAULT_RULES if action.payload.get(key) not in (None, "")}
    if not given:
        raise TrackerError(f"Nothing to change: give one of {', '.join(DEFAULT_RULES)}.", field="type")
    changed = [key for key, value in given.items() if state["rules"][key] != value]
    state["rules"].update(given)
    return [Event("rules_changed", f"Stack rules now: {describe_rules(state['rules'])}.", {"changed": changed})]


def describe_rules(rules: dict[str, Any]) -> str:
    """The settings in one line, for the log and the screen."""
    equal = "equal succeeds" if rules["equal_succeeds"] else "equal fails"
    if rules["advantage"] == "twice":
        adv = "advantage rolls twice and keeps the better"
    else:
        adv = f"advantage moves the target by {rules['advantage_shift']}"
    return (
        f"{rules['check_die']} roll-under ({equal}); {adv}; {REMAINDER_RULES[rules['remainder']]}; "
        f"{ZERO_HEALTH_RULES[rules['zero_health']]}"
    )


def _add_stack(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    name = _name(action)
    kind = str(action.payload.get("kind", "party"))
    if kind not in KINDS:
        raise TrackerError(f"kind must be party (a PC with contractors) or creatures; got {kind!r}.", field="kind")
    damage = _notation(action.payload.get("damage") or DEFAULT_DAMAGE, field="damage")
    owner = action.payload.get("owner")
    stack_id = _new_id(state, "s")
    state["stacks"].append(
        {
            "id": stack_id,
            "name": name,
            "kind": kind,
            "owner": None if owner in (None, "") else str(owner),
            "damage": damage,
            "loyalty": None,
            "members": [],
        }
    )
    what = "a PC with contractors" if kind == "party" else "a group of identical creatures"
    return [Event("stack_added", f"{name} forms a stack: {what}, dealing {damage}.", {"id": stack_id})]


def _add_member(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    stack = _stack(state, action.payload.get("stack"))
    name = _name(action)
    if stack["kind"] == "creatures":
        role = str(action.payload.get("role") or "creature")
        if role != "creature":
            raise TrackerError(f"{stack['name']} is a creature stack: role must be creature.", field="role")
    else:
        role = str(action.payload.get("role") or "contractor")
        if role not in ("pc", "contractor"):
            raise TrackerError(f"role must be pc or contractor in {stack['name']}; got {role!r}.", field="role")
    count = payload_int(action, "count", low=1, high=20, default=1)
    if role == "pc":
        if count != 1:
            raise TrackerError("count must be 1 for a PC.", field="count")
        if any(m["role"] == "pc" for m in stack["members"]):
            raise TrackerError(f"{stack['name']} already has a PC; a stack has one.", field="role")
    stats = {key: payload_int(action, key, low=0, high=STAT_LIMIT, default=0) for key in ("combat", "instinct")}
    stats["loyalty"] = payload_int(action, "loyalty", low=0, high=STAT_LIMIT, default=0) if role == "contractor" else 0
    stats["save"] = payload_int(action, "save", low=0, high=STAT_LIMIT, default=0) if role == "pc" else 0
    health = payload_int(action, "health", low=0, high=STAT_LIMIT, default=10)
    max_wounds = payload_int(action, "max_wounds", low=0, high=20, default=2)
    names = [name] if count == 1 else [f"{name} {n}" for n in range(1, count + 1)]
    for each in names:
        stack["members"].append(
            {
                "id": _new_id(state, "m"),
                "name": each,
                "role": role,
                **stats,
                "health": health,
                "max_health": health,
                "wounds": 0,
                "max_wounds": max_wounds,
            }
        )
    label = {"pc": "the PC", "contractor": "a contractor", "creature": "a creature"}[role]
    who = name if count == 1 else f"{count} of {name}"
    return [Event("member_added", f"{who} joins {stack['name']} as {label}.", {"stack": stack["id"], "count": count})]


def _add_target(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    name = _name(action)
    health = payload_int(action, "health", low=1, high=STAT_LIMIT, default=10)
    max_wounds = payload_int(action, "max_wounds", low=0, high=20, default=0)
    target_id = _new_id(state, "t")
    state["targets"].append(
        {"id": target_id, "name": name, "health": health, "max_health": health, "wounds": 0, "max_wounds": max_wounds}
    )
    return [Event("target_added", f"{name} ({health} Health) can take stacked damage.", {"id": target_id})]


_STAT_KEYS = ("combat", "instinct", "loyalty", "save", "health", "max_health", "wounds", "max_wounds")
_TARGET_KEYS = ("health", "max_health", "wounds", "max_wounds")


def _set_stats(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    entity_id = str(action.payload.get("id", ""))
    entity = _entity(state, entity_id)
    changes: dict[str, Any] = {}
    if entity_id.startswith("s"):
        keys: tuple[str, ...] = ("damage", "owner")
        if action.payload.get("damage") not in (None, ""):
            changes["damage"] = _notation(action.payload["damage"], field="damage")
        if "owner" in action.payload:
            owner = action.payload["owner"]
            changes["owner"] = None if owner in (None, "") else str(owner)
    else:
        keys = _STAT_KEYS if entity_id.startswith("m") else _TARGET_KEYS
        for key in keys:
            if action.payload.get(key) not in (None, ""):
                changes[key] = payload_int(action, key, low=0, high=STAT_LIMIT)
    if not changes:
        raise TrackerError(f"Nothing to change: give one of {', '.join(keys)}.", field="id")
    entity.update(changes)
    listed = ", ".join(f"{k.replace('_', ' ')} {'referee' if v is None else v}" for k, v in changes.items())
    return [Event("stats_changed", f"{entity['name']}: {listed}.", {"id": entity_id, "changes": changes})]


def release(state: dict[str, Any], player: str) -> list[tuple[str, dict[str, Any]]]:
    """The owner's actions that hand every stack ``player`` (a user id as text) plays back to the referee."""
    return [("set_stats", {"id": s["id"], "owner": ""}) for s in state["stacks"] if s.get("owner") == player]


def _remove(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    if state["pending"] is not None:
        raise TrackerError("Roll the damage waiting first; nothing can leave until then.", field="id")
    entity_id = str(action.payload.get("id", ""))
    entity = _entity(state, entity_id)
    if entity_id.startswith("s"):
        state["stacks"] = [s for s in state["stacks"] if s["id"] != entity_id]
    elif entity_id.startswith("t"):
        state["targets"] = [t for t in state["targets"] if t["id"] != entity_id]
    else:
        for stack in state["stacks"]:
            stack["members"] = [m for m in stack["members"] if m["id"] != entity_id]
    return [Event("removed", f"{entity['name']} leaves the table.", {"id": entity_id})]


def _new_turn(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    _no_pending(state)
    state["turn"] += 1
    for stack in state["stacks"]:
        stack["loyalty"] = None
    return [Event("new_turn", f"Turn {state['turn']}: contractors may be asked for loyalty again.", {"turn": state["turn"]})]


# -- stacked rolls -------------------------------------------------------------------------------


def _loyalty_check(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    stack = _stack(state, action.payload.get("stack"))
    _may_roll_for(stack, action)
    _no_pending(state)
    if stack["kind"] == "creatures":
        raise TrackerError(f"{stack['name']} are creatures: they skip the Loyalty Check.", field="stack")
    contractors = [m for m in stack["members"] if m["role"] == "contractor" and not _is_down(m)]
    if not contractors:
        raise TrackerError(f"{stack['name']} has no contractors able to act: no Loyalty Check needed.", field="stack")
    if stack["loyalty"] is not None:
        result = "passed" if stack["loyalty"] == "passed" else "failed"
        raise TrackerError(
            f"{stack['name']} already {result} its Loyalty Check this turn; it holds until a new turn.", field="stack"
        )
    target = sum(m["loyalty"] for m in contractors)
    record, target, success = _check(
        state, action, dice, target=target, reason=f"Loyalty Check: {stack['name']}", advantage="none"
    )
    stack["loyalty"] = "passed" if success else "refused"
    consequence = "the contractors act with the stack this turn" if success else "no contractor acts this turn"
    text = (
        f"{stack['name']} Loyalty Check: {record.total} against {target} (the contractors' summed Loyalty), "
        f"{'passed' if success else 'failed'}: {consequence}."
    )
    state["last"] = {
        "kind": "loyalty",
        "outcome": "success" if success else "failure",
        "headline": "Loyal" if success else "Refused",
        "text": text,
        "dice": record.describe(),
    }
    return [Event("loyalty_check", text, {"stack": stack["id"], "success": success, "target": target, "roll": record.as_dict()})]


def _combat_check(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    stack = _stack(state, action.payload.get("stack"))
    _may_roll_for(stack, action)
    _no_pending(state)
    contractors_waiting = any(m["role"] == "contractor" and not _is_down(m) for m in stack["members"])
    if stack["kind"] == "party" and contractors_waiting and stack["loyalty"] is None:
        raise TrackerError(f"{stack['name']} must make its Loyalty Check before the contractors attack.", field="stack")
    members = acting_members(stack)
    if not members:
        raise TrackerError(f"Nobody in {stack['name']} can act.", field="stack")
    target_id = str(action.payload.get("target") or "")
    if not target_id:
        raise TrackerError("target is required: a target, a creature, or a party stack to attack.", field="target")
    party_hit = target_id.startswith("s")
    if party_hit:
        defender = _stack(state, target_id, field="target")
        if defender["kind"] != "party" or defender["id"] == stack["id"]:
            raise TrackerError(
                "target must be another party stack (a PC with contractors), a target or a creature.", field="target"
            )
        target_name = defender["name"]
    else:
        target_name = _receiver(state, target_id, attacker=stack["id"], field="target")["name"]
    damage = _notation(action.payload.get("damage") or stack["damage"], field="damage")
    advantage = _advantage(action)
    total = sum(m["combat"] for m in members)
    reason = f"Combat Check: {stack['name']} ({len(members)}) at {target_name}"
    record, target, success = _check(state, action, dice, target=total, reason=reason, advantage=advantage)
    with_adv = "" if advantage == "none" else f" with {advantage}"
    if success:
        state["pending"] = {
            "kind": "party" if party_hit else "spread",
            "by": stack["owner"],
            "stack": target_id if party_hit else stack["id"],
            "attacker": stack["name"],
            "target": target_id,
            "target_name": target_name,
            "size": 1 if party_hit else len(members),
            "damage": damage,
            "dice": parse(damage).count,
        }
        then = (
            f"roll {damage}: the PC loses it, each adjacent contractor takes a Wound"
            if party_hit
            else f"roll {damage} once, times {len(members)}, shared by {target_name} and whatever is adjacent"
        )
    else:
        then = "no damage"
    text = f"{stack['name']} Combat Check{with_adv}: {record.total} against {target} (summed Combat), {'a hit' if success else 'a miss'}: {then}."
    headline = f"Hit {target_name}" if success else "Miss"
    return _checked(state, "combat", stack, text, headline, record=record, success=success, target=target, advantage=advantage)


def _checked(
    state: dict[str, Any],
    kind: str,
    stack: Mapping[str, Any],
    text: str,
    headline: str,
    *,
    record: RollRecord,
    success: bool,
    target: int,
    advantage: str,
) -> list[Event]:
    """Record a stacked Combat Check or Save as the last result and return its event
    (``combat_check`` or ``stacked_save``) carrying the roll."""
    state["last"] = {
        "kind": kind,
        "outcome": "success" if success else "failure",
        "headline": headline,
        "text": text,
        "dice": record.describe(),
    }
    event_type = "combat_check" if kind == "combat" else "stacked_save"
    data = {"stack": stack["id"], "success": success, "target": target, "advantage": advantage, "roll": record.as_dict()}
    return [Event(event_type, text, data)]


def _stacked_save(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    stack = _stack(state, action.payload.get("stack"))
    _may_roll_for(stack, action)
    _no_pending(state)
    if stack["kind"] != "party":
        raise TrackerError(f"{stack['name']} are creatures: a stacked save is for a PC and contractors.", field="stack")
    members = [m for m in stack["members"] if not _is_down(m)]
    if not members:
        raise TrackerError(f"Nobody in {stack['name']} is standing to save.", field="stack")
    raw_damage = action.payload.get("damage")
    if raw_damage in (None, ""):
        raise TrackerError("damage is required: the encounter's damage dice, such as 2D10.", field="damage")
    damage = _notation(raw_damage, field="damage")
    pc_save: int | None = None
    if action.payload.get("pc_save") not in (None, ""):
        pc_save = payload_int(action, "pc_save", low=0, high=STAT_LIMIT)
    total = sum((pc_save if pc_save is not None else m["save"]) if m["role"] == "pc" else m["instinct"] for m in members)
    advantage = _advantage(action)
    record, target, success = _check(
        state, action, dice, target=total, reason=f"Stacked Save: {stack['name']} ({len(members)})", advantage=advantage
    )
    with_adv = "" if advantage == "none" else f" with {advantage}"
    if success:
        then = "nobody is hurt"
    else:
        then = f"roll the encounter's {damage}: each contractor takes a Wound, the PC loses the damage"
        state["pending"] = {
            "kind": "save",
            "by": None,
            "stack": stack["id"],
            "attacker": "the encounter",
            "members": [m["id"] for m in members],
            "size": 1,
            "damage": damage,
            "dice": parse(damage).count,
        }
    text = (
        f"{stack['name']} Save{with_adv}: {record.total} against {target} (Instinct plus the PC's Save), "
        f"{'saved' if success else 'failed'}: {then}."
    )
    headline = "Saved" if success else "Save failed"
    return _checked(state, "save", stack, text, headline, record=record, success=success, target=target, advantage=advantage)


def _take_hit(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    _no_pending(state)
    stack = _stack(state, action.payload.get("target"), field="target")
    if stack["kind"] != "party":
        raise TrackerError(f"target must be a party (a PC with contractors); {stack['name']} are creatures.", field="target")
    raw_damage = action.payload.get("damage")
    if raw_damage in (None, ""):
        raise TrackerError("damage is required: the attacker's damage dice, such as 2D10.", field="damage")
    damage = _notation(raw_damage, field="damage")
    state["pending"] = {
        "kind": "party",
        "by": None,
        "stack": stack["id"],
        "attacker": "an attacker",
        "target": stack["id"],
        "target_name": stack["name"],
        "size": 1,
        "damage": damage,
        "dice": parse(damage).count,
    }
    return [Event("hit_taken", f"{stack['name']} is hit: roll {damage} and tick the contractors adjacent to the PC.", {})]


def _roll_damage(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    pending = state["pending"]
    if pending is None:
        raise TrackerError("No damage to roll: no hit or failed save is waiting.", field="type")
    if action.role == Role.VIEWER or (action.role == Role.PLAYER and pending["by"] != action.actor):
        raise NotYours("Only the referee or whoever made the hit rolls this damage.")
    picked = _id_list(action.payload.get("characters"))
    reason = f"Damage: {pending['attacker']}"
    record = _roll(action, dice, pending["damage"], reason)
    rolled = max(0, record.total or 0)
    rules = state["rules"]
    if pending["kind"] == "spread":
        attacker = pending["stack"]
        receivers = [_receiver(state, pending["target"], attacker=attacker, field="target")]
        for entity_id in picked:
            if entity_id == pending["target"]:
                continue
            entity = _receiver(state, entity_id, attacker=attacker, field="characters")
            if all(entity["id"] != r["id"] for r in receivers):
                receivers.append(entity)
        total = rolled * pending["size"]
        shares = spread(total, len(receivers), remainder=rules["remainder"])
        results = [_hurt(entity, share, rules) for entity, share in zip(receivers, shares, strict=True)]
        lost = total - sum(shares)
        extra = f", {lost} left over lost" if lost else ""
        text = f"Damage {rolled} times {pending['size']} = {total}, shared by {len(receivers)}{extra}: {'; '.join(results)}."
    else:
        stack = _stack(state, pending["stack"])
        if pending["kind"] == "party":
            contractors = {m["id"]: m for m in stack["members"] if m["role"] == "contractor" and not _is_down(m)}
            for entity_id in picked:
                if entity_id not in contractors:
                    names = ", ".join(f"{m['id']} ({m['name']})" for m in contractors.values()) or "none standing"
                    raise TrackerError(
                        f"characters must be contractors of {stack['name']} standing by the PC; they are: {names}.",
                        field="characters",
                    )
            hit = [m for m in stack["members"] if (m["role"] == "pc" and not _is_down(m)) or m["id"] in picked]
        else:
            hit = [m for m in stack["members"] if m["id"] in pending["members"]]
        results = [_wound(m) if m["role"] == "contractor" else _hurt(m, rolled, rules) for m in hit]
        text = f"Damage {rolled} to {stack['name']}: {'; '.join(results) if results else 'nobody in reach'}."
    state["pending"] = None
    state["last"] = {
        "kind": "damage",
        "outcome": "damage",
        "headline": f"{rolled} damage",
        "text": text,
        "dice": record.describe(),
    }
    return [Event("damage", text, {"kind": pending["kind"], "rolled": rolled, "roll": record.as_dict()})]


# -- helpers ---------------------------------------------------------------------------------------


def _check(
    state: dict[str, Any], action: Action, dice: Dice, *, target: int, reason: str, advantage: str
) -> tuple[RollRecord, int, bool]:
    """Roll the check die under ``target``; returns the record, the target used and success."""
    rules = state["rules"]
    sides = parse(rules["check_die"]).sides
    count, keep = 1, Keep.SUM
    if advantage != "none":
        if rules["advantage"] == "twice":
            count, keep = 2, Keep.LOWEST if advantage == "advantage" else Keep.HIGHEST
        else:
            target += rules["advantage_shift"] if advantage == "advantage" else -rules["advantage_shift"]
    faces = _faces(action)
    notation = Notation(count, sides)
    if faces is not None:
        try:
            record = Dice.enter(notation, faces, reason, keep=keep)
        except DiceError as exc:
            raise TrackerError(f"faces: {exc}", field="faces") from None
    else:
        record = dice.roll(notation, reason, keep=keep)
    assert record.total is not None
    return record, target, is_success(record.total, target, equal_succeeds=rules["equal_succeeds"])


def _roll(action: Action, dice: Dice, notation: str, reason: str) -> RollRecord:
    faces = _faces(action)
    if faces is None:
        return dice.roll(notation, reason)
    try:
        return Dice.enter(notation, faces, reason)
    except DiceError as exc:
        raise TrackerError(f"faces: {exc}", field="faces") from None


def _hurt(entity: dict[str, Any], amount: int, rules: dict[str, Any]) -> str:
    """Take ``amount`` from Health; at 0 the ``zero_health`` setting decides."""
    if amount <= 0:
        return f"{entity['name']} takes nothing"
    entity["health"] -= amount
    wounds = 0
    if rules["zero_health"] == "wound" and entity["max_health"] > 0:
        while entity["health"] <= 0:
            entity["wounds"] += 1
            wounds += 1
            if entity["max_wounds"] and entity["wounds"] >= entity["max_wounds"]:
                break
            entity["health"] += entity["max_health"]
    entity["health"] = max(0, entity["health"])
    note = f" and {wounds} Wound{'s' if wounds != 1 else ''}" if wounds else ""
    down = ", down" if _is_down(entity) else ""
    return f"{entity['name']} loses {amount} Health{note} ({entity['health']} left{down})"


def _wound(member: dict[str, Any]) -> str:
    member["wounds"] += 1
    down = ", down" if _is_down(member) else ""
    return f"{member['name']} takes a Wound ({member['wounds']}/{member['max_wounds'] or '-'}{down})"


def _is_down(entity: dict[str, Any]) -> bool:
    return bool(
        (entity["max_health"] > 0 and entity["health"] <= 0)
        or (entity["max_wounds"] > 0 and entity["wounds"] >= entity["max_wounds"])
    )


def _refresh(state: dict[str, Any]) -> None:
    """Derived fields for the screen: who is down, and each stack's summed targets."""
    for target in state["targets"]:
        target["down"] = _is_down(target)
    for stack in state["stacks"]:
        for member in stack["members"]:
            member["down"] = _is_down(member)
        standing = [m for m in stack["members"] if not m["down"]]
        acting = acting_members(stack)
        stack["sums"] = {
            "loyalty": sum(m["loyalty"] for m in standing if m["role"] == "contractor"),
            "contractors": sum(1 for m in standing if m["role"] == "contractor"),
            "combat": sum(m["combat"] for m in acting),
            "save": sum(m["save"] if m["role"] == "pc" else m["instinct"] for m in standing),
            "acting": len(acting),
            "size": len(standing),
        }


def _rule_value(key: str, raw: Any) -> Any:
    if key == "check_die":
        value = str(raw).strip().upper()
        if value not in CHECK_DICE:
            raise TrackerError(f"check_die must be one of {', '.join(CHECK_DICE)}; got {raw!r}.", field=key)
        return value
    if key == "equal_succeeds":
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise TrackerError(f"equal_succeeds must be yes or no; got {raw!r}.", field=key)
    if key == "advantage_shift":
        try:
            value_int = int(raw)
        except (TypeError, ValueError):
            raise TrackerError(f"advantage_shift must be a whole number from 0 to 100; got {raw!r}.", field=key) from None
        if not 0 <= value_int <= 100:
            raise TrackerError(f"advantage_shift must be from 0 to 100; got {value_int}.", field=key)
        return value_int
    allowed = {"advantage": ADVANTAGE_RULES, "remainder": REMAINDER_RULES, "zero_health": ZERO_HEALTH_RULES}[key]
    value = str(raw).strip()
    if value not in allowed:
        raise TrackerError(f"{key} must be one of {', '.join(allowed)}; got {raw!r}.", field=key)
    return value


def _advantage(action: Action) -> str:
    value = str(action.payload.get("advantage") or "none")
    if value not in ADVANTAGES:
        raise TrackerError(f"advantage must be one of {', '.join(ADVANTAGES)}; got {value!r}.", field="advantage")
    return value


def _notation(raw: Any, *, field: str) -> str:
    try:
        parsed = parse(str(raw))
    except DiceError as exc:
        raise TrackerError(f"{field}: {exc}", field=field) from None
    if parsed.count > 20:
        raise TrackerError(f"{field}: at most 20 damage dice; got {parsed.count}.", field=field)
    return str(parsed)


def _faces(action: Action) -> list[int] | None:
    """Entered faces: a list of numbers, or text with numbers separated by commas or spaces."""
    return payload_ints(action, "faces") or None


def _id_list(raw: Any) -> list[str]:
    return words(raw)


def _name(action: Action) -> str:
    name = str(action.payload.get("name", "")).strip()
    if not name:
        raise TrackerError("name is required.", field="name")
    return name[:60]


def _new_id(state: dict[str, Any], prefix: str) -> str:
    entity_id = f"{prefix}{state['next_id']}"
    state["next_id"] += 1
    return entity_id


def _stack(state: dict[str, Any], stack_id: Any, *, field: str = "stack") -> dict[str, Any]:
    for stack in state["stacks"]:
        if stack["id"] == str(stack_id):
            return stack  # type: ignore[no-any-return]
    known = ", ".join(f"{s['id']} ({s['name']})" for s in state["stacks"]) or "none yet"
    raise TrackerError(f"No stack {stack_id!r}; stacks: {known}.", field=field)


def _entity(state: dict[str, Any], entity_id: str) -> dict[str, Any]:
    everything = [*state["stacks"], *state["targets"], *(m for s in state["stacks"] for m in s["members"])]
    for entity in everything:
        if entity["id"] == entity_id:
            return entity  # type: ignore[no-any-return]
    raise TrackerError(f"No stack, member or target {entity_id!r}.", field="id")


def _receiver(state: dict[str, Any], entity_id: str, *, attacker: str, field: str) -> dict[str, Any]:
    """A target or a creature of another stack, able to take spread damage."""
    options = [
        *state["targets"],
        *(m for s in state["stacks"] if s["kind"] == "creatures" and s["id"] != attacker for m in s["members"]),
    ]
    for entity in options:
        if entity["id"] == entity_id:
            if _is_down(entity):
                raise TrackerError(f"{entity['name']} is already down.", field=field)
            return entity  # type: ignore[no-any-return]
    known = ", ".join(f"{e['id']} ({e['name']})" for e in options if not _is_down(e)) or "none"
    raise TrackerError(f"{field}: no target or creature {entity_id!r}; standing: {known}.", field=field)


def _may_roll_for(stack: dict[str, Any], action: Action) -> None:
    if action.role == Role.VIEWER or (action.role == Role.PLAYER and stack["owner"] != action.actor):
        raise NotYours(f"{stack['name']} is not your stack.")


def _no_pending(state: dict[str, Any]) -> None:
    if state["pending"] is not None:
        raise TrackerError(f"Roll the damage for {state['pending']['attacker']} first.", field="type")


_HANDLERS: dict[str, Callable[[dict[str, Any], Action, Dice], list[Event]]] = {
    "set_rules": _set_rules,
    "add_stack": _add_stack,
    "add_member": _add_member,
    "add_target": _add_target,
    "set_stats": _set_stats,
    "remove": _remove,
    "new_turn": _new_turn,
    "loyalty_check": _loyalty_check,
    "combat_check": _combat_check,
    "stacked_save": _stacked_save,
    "take_hit": _take_hit,
    "roll_damage": _roll_damage,
}
