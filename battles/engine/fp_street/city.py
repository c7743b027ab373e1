"""City markers found (pp.134-135) and their follow-ups, and Messing with the Law (p.136).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine.fp_street import common as c
from battles.engine.fp_street.flow import Tables, start_sirens
from battles.engine.fp_tracker.base import _err, _need, _rolls
from live.engine.tracker import Action, Event, payload_flag, require_owner
from rules.engine.dice import Dice, RollRecord

#: City marker reveal results that leave something on the table, by the ``city`` counter they raise.
_LEFT: dict[str, str] = {"Crowd": "crowds", "Roadblock": "roadblocks", "Bot-struction": "botstructions", "Reporter": "reporters"}


def city_reveal(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """A crew figure comes within 4" of a City marker (no Line of Sight needed, p.134): the
    marker goes and D100 on the City marker reveal table (``face``) says what it was. Follow-up
    dice: ``follow_face`` (Jostled D6), ``combatant_face`` (Street Combatant D100),
    ``direction_face`` (a Crowd's heading, D12)."""
    fig = c.crew(state, action)
    c.phase(state, *c.ROUND_PHASES, what="Finding a City marker")
    city = state["city"]
    if city["markers"] <= 0:
        raise _err("No City marker is on the table.", "type")
    city["markers"] -= 1
    got = c.table_roll(dice, tables, c.CITY_REVEALS, f"City marker found by {fig['name']}", action.payload.get("face"))
    records: list[RollRecord] = [got.record]
    result = got.entry.result
    lines = [f"{fig['name']} finds a City marker: {result}. {got.entry.effect}"]
    extra: list[Event] = []
    if result == "Jostled":
        fig["stun"] = max(fig["stun"], 1)
        follow = c.table_roll(
            dice, tables, c.JOSTLED, "Jostled: does the crowd stay?", action.payload.get("follow_face"), key="follow_face"
        )
        records.append(follow.record)
        if follow.entry.result == "Crowd marker":
            city["crowds"] += 1
        lines.append(f"{fig['name']} halts, Stunned. {follow.entry.result}.")
    elif result == "Curiosity":
        city["curiosities"] += 1
    elif result == "Informer":
        state["pay"]["quest_clues"] += int(got.entry.data.get("quest_clues", 1))
    elif result in _LEFT:
        city[_LEFT[result]] += 1
        if result == "Crowd":
            record, towards = c.direction(dice, "Crowd: its heading", action.payload.get("direction_face"))
            records.append(record)
            lines.append(f"It heads toward {towards}.")
    elif result == "Street combatant":
        follow = c.table_roll(
            dice, tables, c.COMBATANTS, "Street Combatant", action.payload.get("combatant_face"), key="combatant_face"
        )
        records.append(follow.record)
        foe = c.add_enemy(
            state,
            c.profile_of(follow.entry.data),
            name=follow.entry.result,
            where=f'out of sight, at least 6" from {fig["name"]}',
            combatant=True,
            revealed_by=fig["id"],
        )
        lines.append(f"{foe['name']} shows up: {follow.entry.effect}")
    elif result == "It's a set-up!":
        state["pending"]["set_up_round"] = state["round"]
    elif result == "Gang turf":
        state["pending"]["gang_turf_round"] = state["round"] + 1
    elif result == "Sirens!":
        started = start_sirens(state, "a City marker")
        if started is None:
            lines.append("The Siren clock is already running.")
        else:
            extra.append(started)
    elif result == "Looking suspicious":
        city["markers"] += 1
        c.new_suspect(state, f"in the terrain feature nearest {fig['name']}")
    return [Event("city", " ".join(lines), _rolls(*records)), *extra]


def curiosity(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """A figure picks up a Curiosity marker (p.134): D6, 5-6 gives 2 Quest Clues (``face``)."""
    fig = c.crew(state, action)
    c.phase(state, *c.ROUND_PHASES, what="Picking up a Curiosity")
    if state["city"]["curiosities"] <= 0:
        raise _err("No Curiosity marker is on the table.", "type")
    state["city"]["curiosities"] -= 1
    got = c.table_roll(dice, tables, c.CURIOSITY, f"Curiosity picked up by {fig['name']}", action.payload.get("face"))
    clues = int(got.entry.data.get("quest_clues", 0))
    state["pay"]["quest_clues"] += clues
    return [Event("curiosity", f"{fig['name']} picks up the Curiosity: {got.entry.result}.", _rolls(got.record))]


def botstruction(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """A crew figure caught by the Bot-struction zone (p.134): 1D6 + Savvy, 6+ gets clear;
    otherwise the bots make it a casualty."""
    fig = c.crew(state, action)
    c.phase(state, *c.ROUND_PHASES, "end", what="Escaping the construction bots")
    if state["city"]["botstructions"] <= 0:
        raise _err("No Bot-struction is on the table.", "type")
    record = c.savvy_test(dice, fig, action, "Bot-struction: 6+ to get clear")
    if (record.total or 0) >= 6:
        return [Event("botstruction", f"{fig['name']} gets clear of the construction bots.", _rolls(record))]
    fig["status"] = "casualty"
    return [Event("botstruction", f"{fig['name']} is caught by the construction bots: a casualty.", _rolls(record))]


def city_clear(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """Take a Crowd, Roadblock, Bot-struction or Reporter off the table (``what``: crowds,
    roadblocks, botstructions, reporters), e.g. a crowd dispersed by gunfire (p.134)."""
    require_owner(action)
    what = str(action.payload.get("what") or "")
    if what not in _LEFT.values():
        raise _err(f"what must be one of {', '.join(_LEFT.values())}; got {what!r}.", "what")
    if state["city"][what] <= 0:
        raise _err(f"No {what[:-1]} is on the table.", "what")
    state["city"][what] -= 1
    events = [Event("city_clear", f"One {what[:-1]} leaves the table.", {})]
    if what == "crowds" and payload_flag(action, "fired"):
        started = start_sirens(state, "shots fired near a crowd")
        events += [started] if started else []
    return events


def reporter(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """Gunfire in the Reporter's sight (p.135) starts Sirens!; when a crew member fired or began
    a Brawl in their sight (``crew`` on; not returning fire in a Shootout) you also gain an
    Enforcer Rival."""
    require_owner(action)
    c.phase(state, *c.ROUND_PHASES, what="Gunfire before the Reporter")
    if state["city"]["reporters"] <= 0:
        raise _err("No Reporter is on the table.", "type")
    events: list[Event] = []
    started = start_sirens(state, "gunfire in sight of the Reporter")
    if started:
        events.append(started)
    if payload_flag(action, "crew"):
        state["pay"]["rivals"].append("Enforcer")
        events.append(Event("rival", "The Reporter saw your crew start it: you gain an Enforcer Rival.", {}))
    return events or [Event("reporter", "The Reporter films it; the Siren clock is already running.", {})]


# -- the law --------------------------------------------------------------------------------------


def attack_law(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """A crew figure fired on the law (p.136): the crew have attacked the law officials; the figure
    is a Level 3 Perpetrator should it surrender."""
    fig = c.crew(state, action)
    if not any(e["law"] for e in state["enemies"]):
        raise _err("The law has not arrived.", "type")
    fig["fired_on_law"] = True
    state["law"]["attacked"] = True
    return [Event("law", f"{fig['name']} fires on the law.", {"figure": fig["id"]})]


def _level(state: Mapping[str, Any], fig: Mapping[str, Any]) -> int:
    rivals = state["law"]["rivals"]
    if fig["fired_on_law"] or "enforcer" in rivals:
        return 3
    if state["law"]["attacked"] or "bounty_hunter" in rivals or "vigilante" in rivals:
        return 2
    return 1


def surrender(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """A crew figure surrenders to a law officer in sight (p.136). Level 1: 1D6 + Savvy, 6+ talks
    free, else detained 1D6 campaign turns and non-Pistol weapons taken. Level 2 (a crew member
    attacked the law, or a Bounty Hunter or Vigilante Rival): 8+, else 1D6+2 turns; all weapons
    taken either way. Level 3 (fired on the law, or an Enforcer Rival): sent to a prison planet.
    ``face``: the Savvy test's D6; ``turns_face``: the detention D6."""
    fig = c.crew(state, action)
    if not any(e["law"] and e["status"] == "active" for e in state["enemies"]):
        raise _err("There is no law officer on the table to surrender to.", "type")
    level = _level(state, fig)
    rows = {int(e.data["level"]): e for e in _need(tables, c.LAW).entries if e.position <= 3}
    row = rows[level]
    records: list[RollRecord] = []
    entry: dict[str, Any] = {
        "figure": fig["id"],
        "name": fig["name"],
        "ref": fig.get("ref"),
        "level": level,
        "turns": None,
        "prison": False,
    }
    if level == 3:
        entry["prison"] = True
        entry["confiscated"] = "all"
        text = f"{fig['name']} surrenders as a Level 3 Perpetrator: sent to a prison planet, lost to this campaign."
    else:
        target = int(row.data["target"])
        record = c.savvy_test(dice, fig, action, f"Talk to the law: {target}+")
        records.append(record)
        confiscated = "all" if level == 2 else None
        if (record.total or 0) >= target:
            text = f"{fig['name']} ({row.result}) talks their way out ({record.total})."
        else:
            turns = c.roll(dice, str(row.data["detained_turns"]), "Campaign turns detained", action, "turns_face")
            records.append(turns)
            entry["turns"] = int(turns.total or 0)
            confiscated = "all" if level == 2 else "non-pistol"
            text = f"{fig['name']} ({row.result}) fails ({record.total}): detained {entry['turns']} campaign turns."
        entry["confiscated"] = confiscated
        if confiscated:
            text += " All weapons are taken." if confiscated == "all" else " Weapons without the Pistol trait are taken for good."
    fig["status"] = "detained" if entry["prison"] or entry["turns"] else "escaped"
    if entry["prison"] or entry["turns"] or entry["confiscated"]:
        state["detained"].append(entry)
    return [Event("surrender", text, _rolls(*records))]


# -- the opposition's own rules (pp.129-132) -------------------------------------------------------

#: Savvy tests some enemies call for: (target, what success does, page).
SAVVY_TESTS: dict[str, tuple[int, str]] = {
    "neon_barbarians": (7, "p.131"),
    "haywire_bot": (7, "p.132"),
    "disarm_bomb": (6, "p.131"),
}


def _active_of(state: Mapping[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e for e in state["enemies"] if e["status"] == "active" and e["type"] == kind]


def savvy(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """A crew figure's 1D6 + Savvy test that an enemy's rules call for (``test``):
    ``neon_barbarians`` (within 4", 7+: the Barbarians ignore the figure until it attacks them,
    p.131; not while carrying a sword), ``haywire_bot`` (after winning a Brawl against the Haywire
    Bot ``enemy``, 7+: it joins the crew for the battle, p.132), ``disarm_bomb`` (in contact with
    Bomb marker ``bomb``, 6+: disarmed, p.131)."""
    fig = c.crew(state, action)
    c.phase(state, *c.ROUND_PHASES, what="A Savvy test")
    test = str(action.payload.get("test") or "")
    if test not in SAVVY_TESTS:
        raise _err(f"test must be one of {', '.join(SAVVY_TESTS)}; got {test!r}.", "test")
    target, page = SAVVY_TESTS[test]
    foe: dict[str, Any] | None = None
    bomb: dict[str, Any] | None = None
    if test == "neon_barbarians":
        if not _active_of(state, "Neon Barbarians") or fig["barbarians_ignore"]:
            raise _err("No Neon Barbarians are on the table to talk to, or they ignore this figure already.", "test")
    elif test == "haywire_bot":
        foe = c.enemy(state, action.payload.get("enemy"))
        if foe["type"] != "Haywire Bot" or foe["status"] != "active":
            raise _err(f"{foe['name']} is not an active Haywire Bot.", "enemy")
    else:
        bomb = next((b for b in state["bombs"] if b["id"] == str(action.payload.get("bomb") or "")), None)
        if bomb is None:
            raise _err(
                f"bomb must be a Bomb marker on the table ({', '.join(b['id'] for b in state['bombs']) or 'none'}).", "bomb"
            )
    record = c.savvy_test(dice, fig, action, f"{test.replace('_', ' ').capitalize()}: {target}+ ({page})")
    passed = (record.total or 0) >= target
    if not passed:
        tail = " Damage it as normal." if foe else ""
        return [Event("savvy", f"{fig['name']} fails ({record.total} against {target}+).{tail}", _rolls(record))]
    if foe is not None:
        foe["status"] = "ally"
        text = f"{foe['name']} reboots on your side for the rest of the battle."
    elif bomb is not None:
        state["bombs"].remove(bomb)
        text = f"{fig['name']} disarms {bomb['id']}."
    else:
        fig["barbarians_ignore"] = True
        text = f"{fig['name']} talks well: the Neon Barbarians ignore them until they attack."
    return [Event("savvy", f"{text} ({record.total})", _rolls(record))]


def terror(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """Terror Faction (p.131). A member that activates with nobody in sight rolls a D6 (``face``):
    on a 1 it heads for the nearest terrain feature or building to blow it up. Once there
    (``plant`` on) it places a Bomb marker; a bomb rolls a D6 at every activation, the first one
    included (``bomb`` names it on later ones): 1-2 and it goes off, every figure in, on or next
    to the feature is a casualty with no save (set them with ``adjust``) and Sirens! starts."""
    require_owner(action)
    c.phase(state, "enemy", what="A Terror Faction activation")
    records: list[RollRecord] = []
    if action.payload.get("bomb"):
        bomb = next((b for b in state["bombs"] if b["id"] == str(action.payload.get("bomb"))), None)
        if bomb is None:
            raise _err("bomb must be a Bomb marker on the table.", "bomb")
        return _tick(state, bomb, action, dice)
    foe = c.enemy(state, action.payload.get("enemy"))
    if foe["type"] != "Terror Faction" or foe["status"] != "active":
        raise _err(f"{foe['name']} is not an active Terror Faction member.", "enemy")
    if payload_flag(action, "plant"):
        if not foe.get("bomber"):
            raise _err(f"{foe['name']} is not heading off to plant a bomb.", "plant")
        foe["bomber"] = False
        bomb = {"id": f"b{state['next']['bomb']}", "by": foe["id"]}
        state["next"]["bomb"] += 1
        state["bombs"].append(bomb)
        return [Event("bomb", f"{foe['name']} places Bomb marker {bomb['id']}.", {}), *_tick(state, bomb, action, dice)]
    if foe.get("bomber"):
        raise _err(f"{foe['name']} is already heading for a feature to blow up.", "enemy")
    record = c.roll(dice, "1D6", f"{foe['name']}: nobody in sight, a 1 means a bomb", action, "face")
    records.append(record)
    if record.total != 1:
        return [Event("terror", f"{foe['name']} sees nobody ({record.total}): acts as usual.", _rolls(*records))]
    foe["bomber"] = True
    return [Event("terror", f"{foe['name']} heads for the nearest feature to blow it up ({record.total}).", _rolls(*records))]


def _tick(state: dict[str, Any], bomb: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    record = c.roll(dice, "1D6", f"Bomb {bomb['id']}: 1-2 it goes off", action, "bomb_face")
    if (record.total or 0) > 2:
        return [Event("bomb", f"Bomb {bomb['id']} ticks ({record.total}).", _rolls(record))]
    state["bombs"].remove(bomb)
    events = [
        Event(
            "bomb",
            f"Bomb {bomb['id']} goes off ({record.total}): all in, on or next to the feature are casualties, no save.",
            _rolls(record),
        )
    ]
    started = start_sirens(state, "a bomb went off")
    return events + ([started] if started else [])
