"""Seize the Initiative, Deployment Variables (Compendium pp.44-45), the round's phases, Reactions
and activations (casualty-table conditions, p.100).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from battles.engine.fp_tracker import data_cache
from battles.engine.fp_tracker.base import (
    AI_VARIATION_TYPES,
    PHASE_NAMES,
    PSI_HUNTER_SEIZE,
    _err,
    _face,
    _int,
    _need,
    _roll,
    _rolls,
    _signed,
    _table_row,
    _take,
)
from battles.engine.fp_tracker.combat import _fighter, _settle
from battles.engine.fp_tracker.end_round import _end_of_round
from battles.engine.fp_tracker.enemy_psionics import on_activation, paralyzed, slowed_dice
from battles.engine.fp_tracker.lookups import (
    _crew,
    _crew_up,
    _down,
    _enemy,
    _mine,
    _names,
    _on_table,
    _phase,
    _reactions,
    _refresh,
)
from battles.engine.fp_tracker.psionics import lapse_pending, refuse_while_choosing
from battles.engine.fp_tracker.setup import _add_enemy
from live.engine.tracker import (
    Action,
    Event,
    NotYours,
    Role,
    payload_faces,
    payload_flag,
    payload_int,
    payload_ints,
    payload_words,
    require_owner,
)
from rules.engine.dice import Dice, DiceError, Keep, RollRecord, parse
from rules.engine.tables import RangeTable

# -- set-up and round flow -------------------------------------------------------------------------------


def _seize(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Seize the Initiative before round 1 (core rulebook p.112): ``seize_dice`` plus the set-up
    modifier (and ``modifier`` in the payload) against ``seize_target``, both the user's core
    numbers. Against Psi-hunters (``seize["psi_hunters"]``) the roll is at -2 (p.21), also when the
    enemy's rules allow no other modifier (ruling: the Rival's own adjustment). With Enemy
    Deployment Variables on (p.44) a failure (or a force that cannot be seized
    against) rolls D100 on the deployment table for the main AI type (``deployment_face``)."""
    require_owner(action)
    _phase(state, "setup", what="Seize the Initiative")
    seize = state["seize"]
    if seize["result"] is not None:
        raise _err("Seize the Initiative is already rolled.", "type")
    events: list[Event] = []
    if not seize["allowed"]:
        seize["result"] = "not_allowed"
        events.append(Event("seize", "This enemy cannot be seized against: the enemy has the initiative.", {}))
    else:
        notation = str(action.payload.get("dice") or seize["dice"] or "")
        target = action.payload.get("target") or seize["target"]
        if not notation or target in (None, ""):
            raise _err(
                "Seize the Initiative needs your core rulebook's dice and target: set seize_dice and seize_target.",
                "seize_target",
            )
        target = _int(target, "target", 2, 30)
        extra = payload_int(action, "modifier", low=-6, high=6, default=0)
        modifier = 0 if seize["no_modifiers"] else seize["modifier"] + extra
        hunted = PSI_HUNTER_SEIZE if seize.get("psi_hunters") else 0
        modifier += hunted
        try:
            count = parse(notation).count
        except DiceError as exc:
            raise _err(f"dice: {exc}", "dice") from None
        faces = payload_faces(action, "faces", count)
        record = _roll(dice, notation, "Seize the Initiative", faces)
        total = int(record.total or 0) + modifier
        seize["total"] = total
        seize["result"] = "seized" if total >= target else "failed"
        mod = f" {_signed(modifier)}" if modifier else ""
        if hunted:
            mod += f" (Psi-hunters {_signed(hunted)}, p.21)"
        said = "seized: the crew act first (core rulebook p.112)" if total >= target else "failed"
        events.append(
            Event("seize", f"Seize the Initiative: {record.total}{mod} = {total} against {target}+: {said}.", _rolls(record))
        )
    if state["options"]["deployment_variables"]:
        events.append(_deployment(state, action, dice, tables))
    return events


def _deployment(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> Event:
    """Enemy Deployment Variables (pp.44-45): Line after a seized initiative, else the D100 table."""
    effects = _need(tables, "deployment-variable-effects")
    if state["seize"]["result"] == "seized":
        row = _table_row(effects, "deployment", "line")
        state["deployment"] = {"name": row.result, "key": "line", "effect": row.effect}
        return Event("deployment", "Deployment: the crew seized the initiative, so the enemy deploys in a Line (p.44).", {})
    face = _face(action, "deployment_face", 100)
    planned = (state.get("planned") or {}).get("deployment_face") if face is None else None
    reason = f"Deployment ({state['ai'].title()} AI)" + (", the D100 on the set-up card" if planned else "")
    rolled = _need(tables, "deployment-variables").roll_or_enter(
        dice, value=face if planned is None else planned, column=state["ai"].title(), reason=reason
    )
    key = str(rolled.entry.data["deployment"])
    row = _table_row(effects, "deployment", key)
    state["deployment"] = {"name": row.result, "key": key, "effect": row.effect}
    texts = [f"Deployment (D100 {rolled.value}, {state['ai'].title()} AI): {row.result}. {row.effect}"]
    data = row.data
    group = state["groups"][0]
    enemies = _on_table(state)
    if key in ("bolstered_line", "bolstered_flank"):
        added = []
        for _ in range(int(data.get("basic_enemies") or 0)):
            added.append(_add_enemy(state, group, "basic", note="Bolstered deployment (p.45)"))
        specialists = int(data.get("specialists") or 0)
        if key == "bolstered_line" and len(_crew_up(state)) > len(enemies):
            specialists += int(data.get("specialists_if_crew_outnumbers") or 0)
        for _ in range(specialists):
            added.append(_add_enemy(state, group, "specialist", note="Bolstered deployment (p.45)"))
        texts.append(f"Added: {_names(added)}.")
    elif key in ("infiltration", "reinforced"):
        held = enemies[len(enemies) - int(len(enemies) * float(data["fraction_removed"])) :]
        for fig in held:
            fig["status"], fig["waiting"] = "held", key
        texts.append(f"Off the table for now: {_names(held)}.")
    elif key == "concealed":
        groups = int(data["groups"])
        for n, fig in enumerate(enemies):
            fig["status"], fig["waiting"] = "held", f"concealed{n % groups + 1}"
        texts.append(
            f"The whole force is hidden in {groups} groups; they appear at the end of rounds {', '.join(map(str, data['arrival_rounds']))}."
        )
    return Event("deployment", " ".join(texts), _rolls(rolled.record))


def release(state: dict[str, Any], player: str) -> list[tuple[str, dict[str, Any]]]:
    """The owner's actions that hand every crew figure ``player`` (a user id as text) plays back to the owner."""
    return [("set_player", {"figure": f["id"], "player": ""}) for f in state["crew"] if f.get("owner") == player]


def _set_player(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Hand a crew figure to a player (their user id as text), or back to the owner with ``""``."""
    require_owner(action)
    fig = _crew(state, action.payload.get("figure"), active=False)
    player = str(action.payload.get("player") or "").strip()
    if player and not player.isdigit():
        raise _err(f"player must be a member's user id, or empty for the owner; got {player!r}.", "player")
    fig["owner"] = player
    return [
        Event("set_player", f"{fig['name']} is now played by {'a player' if player else 'the owner'}.", {"figure": fig["id"]})
    ]


def _next_phase(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Advance: set-up -> round 1 -> Quick -> Enemy -> Slow -> End (round-end rules) -> next round.
    A Strain choice still open lapses: the power fails."""
    require_owner(action)
    lapsed = lapse_pending(state)
    if lapsed:
        return lapsed + _next_phase(state, action, dice, tables)
    phase = state["phase"]
    if phase == "setup":
        return _begin(state, action, dice, tables)
    if phase == "start":
        if not state["reaction_dice"]:
            raise _err("Roll Reactions first.", "type")
        missing = [f for f in _crew_up(state) if f["die"] is None]
        if missing:
            raise _err(f"Assign a Reaction die to {_names(missing)} first.", "figure")
        state["phase"] = "quick"
        quick = [f for f in _crew_up(state) if f["slot"] == "quick"]
        return [Event("phase", f"Quick Action phase: {_names(quick)} to act.", {"phase": "quick"})]
    if phase == "quick":
        state["phase"] = "enemy"
        return [Event("phase", "Enemy Action phase: each enemy acts in turn.", {"phase": "enemy"}), *data_cache.arrivals(state)]
    if phase == "enemy":
        state["phase"] = "slow"
        slow = [f for f in _crew_up(state) if f["slot"] == "slow"]
        return [Event("phase", f"Slow Action phase: {_names(slow)} to act.", {"phase": "slow"})]
    if phase == "slow":
        return _end_of_round(state, action, dice, tables)
    return _new_round(state)


def _begin(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    events: list[Event] = []
    if state["options"]["deployment_variables"] and state["deployment"] is None:
        raise _err("Roll to Seize the Initiative first: Enemy Deployment Variables read it (p.44).", "type")
    if state["options"]["paying_by_the_hour"]:
        data = _table_row(_need(tables, "difficulty-toggles"), "toggle", "paying_by_the_hour").data
        typed = payload_faces(action, "time_faces", 2)
        planned = (state.get("planned") or {}).get("time_limit") if typed is None else None
        after = f"after it only {' and '.join(data['objectives_after_limit'])} can still be won."
        if planned:
            # Rolled once, on the set-up card (fp_setup.roll_mission); not rolled again here.
            state["time_limit"] = planned
            events.append(
                Event("time_limit", f"They are Paying us by the Hour: round {planned}, as the set-up card says; {after}", {})
            )
        else:
            record = _roll(dice, "2D6", "Paying by the Hour: time limit", typed, keep=Keep.HIGHEST)
            state["time_limit"] = int(record.total or 0) + int(data["time_limit_bonus"])
            events.append(
                Event(
                    "time_limit",
                    f"They are Paying us by the Hour: higher die {record.total} + {data['time_limit_bonus']} = "
                    f"round {state['time_limit']}; {after}",
                    _rolls(record),
                )
            )
    events.extend(_new_round(state))
    return events


def _new_round(state: dict[str, Any]) -> list[Event]:
    state["round"] += 1
    state["phase"] = "start"
    state["reaction_dice"] = []
    for fig in state["crew"] + state["enemies"]:
        fig["acted"] = False
        if fig["side"] == "crew":
            fig.update({"die": None, "face": None, "slot": None})
    tail = (
        " Every crew member counts as Reactions 1 this round (Unconventional tactics)."
        if state["reactions_one_round"] == state["round"]
        else ""
    )
    return [Event("round", f"Round {state['round']} begins: roll Reactions.{tail}", {"round": state["round"]})]


def _roll_reactions(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """One D6 per crew figure on the table, to be assigned (core round sequence)."""
    require_owner(action)
    _phase(state, "start", what="Rolling Reactions")
    if state["reaction_dice"]:
        raise _err("Reactions are already rolled this round.", "type")
    crew = _crew_up(state)
    if not crew:
        raise _err("No crew figure is left on the table.", "type")
    count = len(crew)
    rolled = slowed_dice(state, count)  # an enemy Psionic's Slow sets one die to 6 (p.23)
    records: list[RollRecord] = []
    if rolled:
        faces = payload_faces(action, "faces", rolled)
        records.append(
            Dice.enter(f"{rolled}D6", faces, "Reactions", keep=Keep.SEPARATE) if faces else dice.separate(rolled, 6, "Reactions")
        )
    state["reaction_dice"] = [*(records[0].faces if records else ()), *[6] * (count - rolled)]
    slow = " An enemy Psionic's Slow sets one die to 6 (p.23)." if rolled < count else ""
    shown = ", ".join(map(str, state["reaction_dice"]))
    text = f"Reactions: {shown}.{slow} Assign one to each of {_names(crew)}: at or under Reactions is Quick."
    return [Event("reactions", text, _rolls(*records))]


def _assign_reaction(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Give a crew figure one of this round's free Reaction dice (``die``, 1-based).

    A die another figure holds is refused, naming the die and its holder, unless the owner asks
    to ``reassign`` it (``on``): then the holder is left without a die and the log says so. A
    player asking to reassign is refused (:class:`NotYours`)."""
    fig = _crew(state, action.payload.get("figure"))
    _mine(action, fig)
    _phase(state, "start", what="Assigning Reaction dice")
    if not state["reaction_dice"]:
        raise _err("Roll Reactions first.", "type")
    reassign = payload_flag(action, "reassign")
    if reassign:
        require_owner(action)
    index = payload_int(action, "die", low=1, high=len(state["reaction_dice"])) - 1
    holder = next((other for other in state["crew"] if other["die"] == index and other is not fig), None)
    taken = ""
    if holder is not None:
        if not reassign:
            raise _err(
                f"Die {index + 1} (a {state['reaction_dice'][index]}) is {holder['name']}'s; pick a free die"
                " (only the owner can reassign a die).",
                "die",
            )
        holder["die"], holder["face"] = None, None
        taken = f" (taken from {holder['name']}, who now has no die)"
    fig["die"], fig["face"] = index, state["reaction_dice"][index]
    _refresh(state)
    slot = "Quick" if fig["slot"] == "quick" else "Slow"
    text = f"{fig['name']} takes the {fig['face']}{taken} against Reactions {_reactions(state, fig)}: acts in the {slot} Action phase."
    data: dict[str, Any] = {"figure": fig["id"], "face": fig["face"]}
    if holder is not None:
        data["taken_from"] = holder["id"]
    return [Event("reaction_assigned", text, data)]


def _activation(
    fig: dict[str, Any], dice: Dice, faces: list[int], *, before: bool, rnd: int
) -> tuple[list[str], list[RollRecord]]:
    """Casualty-table conditions at activation (p.100): Damaged rolls before, Bleeding after;
    Stun markers go at the end (not when Dazed / shut down)."""
    texts: list[str] = []
    rolls: list[RollRecord] = []
    if before and fig["damaged"]:
        record = _roll(dice, "D6", f"{fig['name']}: Damaged", _take(faces, 1))
        rolls.append(record)
        if record.total == 6:
            _down(fig, "casualty", rnd)
            texts.append(f"{fig['name']} is Damaged and rolls a 6: it falls apart and is removed.")
        else:
            texts.append(f"{fig['name']} is Damaged: rolled {record.total}, holds together.")
    if not before:
        if fig["bleeding"]:
            record = _roll(dice, "D6", f"{fig['name']}: Bleeding", _take(faces, 1))
            rolls.append(record)
            total = int(record.total or 0)
            if total == 6:
                _down(fig, "casualty", rnd)
                texts.append(f"{fig['name']} is Bleeding and rolls a 6: a Goner.")
            elif total == 1:
                fig["bleeding"] = False
                texts.append(f"{fig['name']} rolls a 1: the Bleeding stops.")
            else:
                texts.append(f"{fig['name']} keeps Bleeding (rolled {total}).")
        if fig["status"] == "active" and fig["stun"]:
            if fig["dazed"]:
                fig["dazed"] = False
                texts.append(f"{fig['name']} is Dazed: keeps its Stun marker this time.")
            else:
                fig["stun"] -= 1
                texts.append(f"{fig['name']} loses a Stun marker ({fig['stun']} left).")
    return texts, rolls


def _act(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Mark a crew figure's activation done in its phase (Quick or Slow); its Stun marker and
    casualty-table conditions are handled (``faces`` for Damaged / Bleeding dice)."""
    fig = _crew(state, action.payload.get("figure"))
    _mine(action, fig)
    _phase(state, "quick", "slow", what="A crew activation")
    if fig["acted"]:
        raise _err(f"{fig['name']} has already acted this round.", "figure")
    if fig["slot"] != state["phase"]:
        raise _err(f"{fig['name']} acts in the {PHASE_NAMES[fig['slot'] or 'start']} this round.", "figure")
    refuse_while_choosing(state, fig)
    if paralyzed(state, fig):
        return [_activate(state, fig, action, dice, "is Paralyzed and takes no action (p.23)")]
    return [_activate(state, fig, action, dice, "acts")]


def _activate(
    state: dict[str, Any], fig: dict[str, Any], action: Action, dice: Dice, how: str, extra: Sequence[str] = ()
) -> Event:
    faces = payload_ints(action, "check_faces" if fig["side"] == "enemy" else "faces")
    texts, rolls = _activation(fig, dice, faces, before=True, rnd=state["round"])
    fig["acted"] = True
    if fig["status"] == "active":
        texts.insert(0, f"{fig['name']} {how}.")
        texts.extend(extra)
        more, extra_rolls = _activation(fig, dice, faces, before=False, rnd=state["round"])
        texts.extend(more)
        rolls.extend(extra_rolls)
    return Event("act", " ".join(texts), {"figure": fig["id"], **_rolls(*rolls)})


def _enemy_act(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """An enemy figure activates in the Enemy Action phase. With AI Variations on (pp.42-43) and a
    Cautious, Aggressive, Tactical or Defensive AI: ``base`` on when its base condition applies,
    else a D6 on the variation table (``faces``); ``also`` lists enemies within 2" that obey the
    same die (group actions). Unique Individuals roll on their own AI."""
    require_owner(action)
    _phase(state, "enemy", what="An enemy activation")
    fig = _enemy(state, action.payload.get("enemy"))
    if fig["acted"]:
        raise _err(f"{fig['name']} has already acted this round.", "enemy")
    others = [_enemy(state, e, field="also") for e in payload_words(action, "also")]
    rolls: list[RollRecord] = []
    ai = str(fig.get("ai") or state["ai"])
    line = ""
    if state["options"]["ai_variations"] and ai in AI_VARIATION_TYPES:
        if payload_flag(action, "base"):
            row = _table_row(_need(tables, "ai-variation-base-conditions"), "ai", ai)
            line = f"{ai.title()} AI base condition: {row.effect}"
        else:
            rolled = _need(tables, "ai-variations").roll_or_enter(
                dice,
                value=_face(action, "faces", 6),
                column=ai.title(),
                reason=f"{fig['name']}: {ai.title()} AI",
            )
            rolls.append(rolled.record)
            line = f"{ai.title()} AI D6 {rolled.value}: {rolled.entry.result}. {rolled.entry.effect}"
    elif state["options"]["ai_variations"]:
        line = f"{ai.title()} AI acts as usual (p.42)."
    powers, power_rolls = on_activation(state, fig, action, dice, tables, fighter=_fighter, settle=_settle(state, tables, dice))
    rolls.extend(power_rolls)
    event = _activate(state, fig, action, dice, "acts", [*powers, line] if line else powers)
    texts = [event.text]
    records = [r.as_dict() for r in rolls] + list(event.data.get("rolls", []))
    for other in others:
        if not other["acted"]:
            other["acted"] = True
            more, extra = _activation(other, dice, [], before=False, rnd=state["round"])
            records.extend(r.as_dict() for r in extra)
            texts.append(" ".join([f'{other["name"]} obeys the same die (within 2").', *more]))
    data: dict[str, Any] = {"figure": fig["id"], "also": [o["id"] for o in others], "rolls": records}
    if len(records) == 1:
        data["roll"] = records[0]
    return [Event("enemy_act", " ".join(texts), data)]


def _objective_reached(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A crew member reached an objective this round (an Escalation trigger, p.46)."""
    if action.role == Role.VIEWER:
        raise NotYours("Viewers cannot act at this table.")
    _phase(state, "quick", "enemy", "slow", what="Reaching an objective")
    state["escalation"]["objective_round"] = state["round"]
    return [Event("objective", f"A crew member reached an objective in round {state['round']}.", {})]
