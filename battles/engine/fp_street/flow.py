"""A Street Fight's round and its markers: Reactions, the phases and the round-end rules; Suspect
markers acting and being identified (p.125); the opposition revealed (p.129); Evasion (p.126);
Starting Trouble (p.126); City markers (pp.133-135) and the Sirens! clock.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine.fp_street import common as c
from battles.engine.fp_tracker.base import _err, _rolls
from live.engine.tracker import Action, Event, payload_faces, reaction_pick, require_owner
from rules.engine.dice import Dice, Keep, RollRecord
from rules.engine.tables import RangeTable

Tables = Mapping[str, RangeTable]

#: Sirens! (p.135): the clock's target and the Enforcers that arrive.
SIREN_TARGET = 10
ENFORCERS = 6
#: It's a set-up! (p.135): one pursuing Suspect on the center of each table edge.
SET_UP_EDGES = ("far edge", "right edge", "near edge", "left edge")
#: Gang turf (p.135): six enemies, two on each of three random edges.
GANG_TURF = 6
#: Gangs whose next gang is a rival one of the same kind (p.129).
RIVAL_GANGS: tuple[str, ...] = ("Gutter Gang", "Main Gang")
#: Urban Separatists' reinforcements (p.129).
SEPARATIST_WEAPONS = ("Rattle gun", "Colony rifle", "Colony rifle")


def _on_table(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [f for f in state["crew"] if f["status"] == "active"]


def refresh(state: dict[str, Any]) -> None:
    """Derived fields: each crew figure's Quick or Slow slot, the Reaction die picker and the
    enemy types on the table (``present``)."""
    for fig in state["crew"]:
        fig["slot"] = None if fig["face"] is None else ("quick" if fig["face"] <= fig["reactions"] else "slow")
    state["reaction_pick"] = reaction_pick(state["reaction_dice"], state["crew"])
    state["present"] = sorted({e["type"] for e in state["enemies"] if e["status"] == "active"})


# -- players and reactions -------------------------------------------------------------------------


def release(state: Mapping[str, Any], player: str) -> list[tuple[str, dict[str, Any]]]:
    """The owner's ``set_player`` actions that hand every crew figure ``player`` plays back to the owner."""
    return [("set_player", {"figure": f["id"], "player": ""}) for f in state["crew"] if f.get("owner") == player]


def set_player(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """Hand a crew figure to a player (user id as text), or back to the owner with ``""``."""
    require_owner(action)
    fig = c.crew(state, action, active=False)
    player = str(action.payload.get("player") or "").strip()
    if player and not player.isdigit():
        raise _err(f"player must be a member's user id, or empty for the owner; got {player!r}.", "player")
    fig["owner"] = player
    return [
        Event("set_player", f"{fig['name']} is now played by {'a player' if player else 'the owner'}.", {"figure": fig["id"]})
    ]


def roll_reactions(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """One D6 per crew figure on the table (the core battle round); ``faces`` types them."""
    require_owner(action)
    c.phase(state, "start", what="Rolling Reactions")
    if state["reaction_dice"]:
        raise _err("Reactions are already rolled this round.", "type")
    crew = _on_table(state)
    faces = payload_faces(action, "faces", len(crew))
    record = (
        Dice.enter(f"{len(crew)}D6", faces, "Reactions", keep=Keep.SEPARATE)
        if faces
        else dice.separate(len(crew), 6, "Reactions")
    )
    state["reaction_dice"] = list(record.faces)
    shown = ", ".join(map(str, record.faces))
    return [
        Event(
            "reactions",
            f"Reactions: {shown}. Give one to each of {c.names(crew)}: at or under Reactions acts Quick.",
            _rolls(record),
        )
    ]


def assign_reaction(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """Give a crew figure one of this round's free Reaction dice (``die``, 1-based)."""
    fig = c.crew(state, action)
    c.phase(state, "start", what="Assigning Reaction dice")
    if not state["reaction_dice"]:
        raise _err("Roll Reactions first.", "type")
    index = c.int_in(action, "die", 1, len(state["reaction_dice"])) - 1
    holder = next((o for o in state["crew"] if o["die"] == index and o is not fig), None)
    if holder is not None:
        raise _err(f"Die {index + 1} is {holder['name']}'s; pick a free die.", "die")
    fig["die"], fig["face"] = index, state["reaction_dice"][index]
    refresh(state)
    slot = "Quick" if fig["slot"] == "quick" else "Slow"
    return [Event("reaction", f"{fig['name']} takes the {fig['face']}: acts in the {slot} Action phase.", {"figure": fig["id"]})]


# -- the phases ------------------------------------------------------------------------------------


def next_phase(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """Set-up -> round 1 -> Quick -> Enemy -> Slow -> End -> next round. Leaving the Slow Action
    phase rolls the City marker event (p.133, ``city_face``) when City markers are in use;
    entering the End phase runs the round-end rules (:func:`_round_end`)."""
    require_owner(action)
    phase = state["phase"]
    if phase in ("setup", "end"):
        state["round"] += 1
        state["phase"] = "start"
        state["reaction_dice"] = []
        for fig in state["crew"]:
            fig["die"], fig["face"] = None, None
        refresh(state)
        return [Event("round", f"Round {state['round']}: roll Reactions.", {})]
    if phase == "start":
        if not state["reaction_dice"]:
            raise _err("Roll Reactions first.", "type")
        state["phase"] = "quick"
        return [Event("phase", "Quick Action phase.", {})]
    if phase == "quick":
        state["phase"] = "enemy"
        return [Event("phase", "Enemy Action phase: revealed enemies act, then the Suspect markers, left to right.", {})]
    if phase == "enemy":
        state["phase"] = "slow"
        return [Event("phase", "Slow Action phase.", {})]
    events: list[Event] = []
    if state["city"]["in_use"]:
        events.append(_city_event(state, action, dice, tables))
    state["phase"] = "end"
    return events + _round_end(state, action, dice, tables)


def _city_event(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> Event:
    """The City marker event at the end of the Slow Actions phase: one D6 a round (p.133)."""
    got = c.table_roll(dice, tables, c.CITY_EVENTS, "City marker event", action.payload.get("city_face"), key="city_face")
    added = int(got.entry.data.get("city_markers", 0))
    state["city"]["markers"] += added
    text = f"City marker event: {got.entry.result}. {got.entry.effect}"
    if got.entry.data.get("move_in") and not state["city"]["markers"]:
        text += " (no City marker is on the table)"
    return Event("city_event", text, _rolls(got.record))


def _round_end(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """The End phase, in this order: surveillance counted (p.127), It's a set-up! and Gang turf
    arrivals (p.135), Fanatics (p.130), the Sirens! clock and the law's arrival (p.135)."""
    events: list[Event] = []
    rnd = state["round"]
    objective = state["objective"]
    if objective["key"] == "surveil" and objective["surveil_round"] == rnd and not objective["done"]:
        objective["surveilled"] += 1
        if objective["surveilled"] >= 3:
            objective["done"] = True
        left = max(0, 3 - objective["surveilled"])
        what = "surveillance complete: now make your escape" if objective["done"] else f"{left} more to go"
        events.append(Event("surveil", f"Round {rnd} ended under surveillance ({objective['surveilled']} of 3): {what}.", {}))
    if state["pending"]["set_up_round"] == rnd:
        state["pending"]["set_up_round"] = None
        for edge in SET_UP_EDGES:
            c.new_suspect(state, f"center of the {edge}", pursuing=True)
        events.append(Event("set_up", "It's a set-up! A pursuing Suspect marker on the center of each table edge.", {}))
    if state["pending"]["gang_turf_round"] == rnd:
        state["pending"]["gang_turf_round"] = None
        events += _gang_turf(state, action, dice)
    events += _fanatics(state, action, dice)
    events += _sirens_tick(state, action, dice)
    return events


def _gang_turf(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Gang turf arrives (p.135): Criminal Elements (core rules p.94; their profile is the core
    book's) two on each of three random edges: a D12 clock face names the edge left out."""
    record, left_out = c.direction(
        dice, "Gang turf: the edge they do not come from", action.payload.get("edge_face"), "edge_face"
    )
    gang = next((t for t in state["enemy_types"] if t["name"] in RIVAL_GANGS), None)
    profile: dict[str, Any] = {
        "special_rules": ["Fights both sides; ignores Suspect markers", "Profile: Criminal Elements table (core rules p.94)"]
    }
    name = "Gang turf ganger"
    if gang is not None:  # p.129: any further gang is a rival gang of the same kind
        profile = {**gang, "special_rules": ["A rival gang: fights your crew and the other gang; ignores Suspect markers"]}
        name = f"Rival {gang['name']}"
    for _ in range(GANG_TURF):
        c.add_enemy(state, profile, name=name, where=f"two on each table edge but the one at {left_out}")
    text = f"Gang turf: {GANG_TURF} of {name} arrive, two on each edge but the one at {left_out}."
    events = [Event("gang_turf", text, _rolls(record))]
    return events + _separatists(state, "gangers arrived")


def _separatists(state: dict[str, Any], why: str) -> list[Event]:
    """Urban Separatists call three more when gangers or enforcers show up (p.129), once."""
    types = [t["name"] for t in state["enemy_types"]]
    if "Urban Separatists" not in types or state["separatists_called"]:
        return []
    state["separatists_called"] = True
    profile = next(t for t in state["enemy_types"] if t["name"] == "Urban Separatists")
    for weapon in SEPARATIST_WEAPONS:
        c.add_enemy(state, {**profile, "weapons": weapon}, name="Urban Separatists", where="table center")
    return [
        Event("separatists", f"Urban Separatists: {why}, so three more arrive at the center (1 rattle gun, 2 colony rifles).", {})
    ]


def _fanatics(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Fanatics (p.130): a D6 for each Fanatic on the table; any 6 adds one beside the Fanatic nearest the crew."""
    fanatics = [e for e in state["enemies"] if e["status"] == "active" and e["type"] == "Fanatics"]
    if not fanatics:
        return []
    reason = "Fanatics: one more shows up on any 6"
    faces = payload_faces(action, "fanatic_faces", len(fanatics))
    notation = f"{len(fanatics)}D6"
    record = Dice.enter(notation, faces, reason, keep=Keep.SEPARATE) if faces else dice.separate(len(fanatics), 6, reason)
    if 6 not in record.faces:
        return [Event("fanatics", f"Fanatics: no 6 ({', '.join(map(str, record.faces))}).", _rolls(record))]
    profile = next(t for t in state["enemy_types"] if t["name"] == "Fanatics")
    fig = c.add_enemy(state, profile, name="Fanatics", where="beside the Fanatic nearest your crew")
    return [Event("fanatics", f"Fanatics: a 6, so {fig['name']} joins beside the Fanatic nearest your crew.", _rolls(record))]


def _sirens_tick(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """The Siren clock advances 1D6 at the end of each round, the first one included; at 10 the
    law arrives (p.135): six Enforcers on the center of a random table edge."""
    sirens = state["sirens"]
    if sirens is None or sirens["arrived"]:
        return []
    record = c.roll(dice, "1D6", "Siren clock", action, "siren_face")
    sirens["clock"] += int(record.total or 0)
    if sirens["clock"] < SIREN_TARGET:
        return [Event("sirens", f"Siren clock: +{record.total}, now {sirens['clock']} of {SIREN_TARGET}.", _rolls(record))]
    sirens["arrived"] = True
    edge_record, edge = c.direction(
        dice, "Sirens!: the edge the law comes in from", action.payload.get("law_edge_face"), "law_edge_face"
    )
    for _ in range(ENFORCERS):
        c.add_enemy(
            state,
            {
                "special_rules": [
                    'Removes Suspect and City markers within 4"',
                    'Closes to 6" of your crew before firing',
                    "Profile: Enforcers (core rules)",
                ]
            },
            name="Enforcer",
            where=f"center of the table edge at {edge}",
            law=True,
        )
    text = f"Siren clock: +{record.total}, now {sirens['clock']}: the law arrives, {ENFORCERS} Enforcers at {edge}. A crew member may surrender to one in sight."
    return [Event("sirens", text, _rolls(record, edge_record)), *_separatists(state, "enforcers arrived")]


def start_sirens(state: dict[str, Any], why: str) -> Event | None:
    """Start the Siren clock at 0 (p.135) unless it already runs."""
    if state["sirens"] is not None:
        return None
    state["sirens"] = {"clock": 0, "arrived": False, "why": why}
    return Event("sirens", f"Sirens! ({why}): the Siren clock starts at 0 and advances 1D6 at the end of every round.", {})


# -- Suspect markers ----------------------------------------------------------------------------------


def suspects_act(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """The Suspect markers act in the Enemy Action phase, after the revealed enemies (p.125): a
    D6 each on the Suspect marker actions table, in marker order (number them left to right;
    ``faces`` types them). Pursuing markers do not roll: they close 4" on the nearest crew
    member. A 6 puts a City marker under the marker once a round; later 6s count as Stay."""
    require_owner(action)
    c.phase(state, "enemy", what="Suspect markers acting")
    if state["suspects_round"] == state["round"]:
        raise _err("The Suspect markers have acted this round.", "type")
    rolling = [s for s in state["suspects"] if not s["pursuing"]]
    if not state["suspects"]:
        raise _err("No Suspect marker is on the table.", "type")
    faces = payload_faces(action, "faces", len(rolling)) if rolling else None
    records: list[RollRecord] = []
    lines: list[str] = []
    for i, marker in enumerate(rolling):
        got = c.table_roll(
            dice, tables, c.SUSPECT_ACTIONS, f"Suspect marker {marker['id']} acts", faces[i] if faces else None, key="faces"
        )
        records.append(got.record)
        result = got.entry.result
        if got.entry.data.get("city_markers"):
            if state["interesting_round"] == state["round"] or not state["city"]["in_use"]:
                result = (
                    "Stay (a City marker was placed this round already)"
                    if state["city"]["in_use"]
                    else "Stay (no City markers in use)"
                )
            else:
                state["interesting_round"] = state["round"]
                state["city"]["markers"] += 1
        if got.entry.data.get("pursuing"):
            marker["pursuing"] = True
        lines.append(f"{marker['id']} rolls {got.value}: {result}.")
    chasing = [s["id"] for s in state["suspects"] if s["pursuing"] and s not in rolling]
    if chasing:
        lines.append(f'Pursuing: {", ".join(chasing)} move 4" toward the nearest crew member.')
    state["suspects_round"] = state["round"]
    return [Event("suspects", " ".join(lines), _rolls(*records))]


def _enemy_type(
    state: dict[str, Any], action: Action, dice: Dice, tables: Tables
) -> tuple[dict[str, Any], list[RollRecord], str]:
    """The type of the enemy revealed now (p.129): rolled at the first reveal unless known; with
    It's a Weird Place a second type at the second reveal, then either with even chance (a D6)."""
    rolls: list[RollRecord] = []
    state["reveals"] += 1
    types = state["enemy_types"]
    need_new = not types or (state["weird_place"] and len(types) == 1 and state["reveals"] == 2)
    if need_new:
        why = "Street Fight Enemies" if not types else "It's a Weird Place: a second enemy type"
        got = c.table_roll(dice, tables, c.ENEMIES, why, action.payload.get("enemy_face"), key="enemy_face")
        rolls.append(got.record)
        kind = {"name": got.entry.result, "effect": got.entry.effect, **c.profile_of(got.entry.data)}
        types.append(kind)
        note = f" The opposition is {kind['name']}: {kind['effect']}"
        if kind["name"] == "Spooks":
            state["spooks"] = True
            for marker in state["suspects"]:
                marker["pursuing"] = True
            note += " Every Suspect marker now pursues."
        return kind, rolls, note
    if len(types) == 2:
        record = c.roll(dice, "1D6", "It's a Weird Place: 1-3 the first type, 4-6 the second", action, "type_face")
        rolls.append(record)
        return types[0 if (record.total or 0) <= 3 else 1], rolls, ""
    return types[0], rolls, ""


def identify(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """A crew figure identifies a Suspect marker in Line of Sight within 4" + Savvy (p.125), as
    either moves: D6 on the Suspect identification table (``face``). A Possible enemy is an enemy
    only when the marker was pursuing; an Ambush adds a second enemy 6" from the spotter in a
    random direction (``direction_face``, a D12). The first enemy sets the opposition's type
    (``enemy_face``, D100, p.129)."""
    fig = c.crew(state, action)
    c.phase(state, *c.ROUND_PHASES, what="Identifying a Suspect")
    marker = c.suspect(state, action.payload.get("suspect"))
    got = c.table_roll(
        dice, tables, c.SUSPECT_RESULTS, f"Identify Suspect {marker['id']} ({fig['name']})", action.payload.get("face")
    )
    records = [got.record]
    state["suspects"].remove(marker)
    count = int(got.entry.data.get("enemies_if_pursuing", 0) if marker["pursuing"] else 0) or int(
        got.entry.data.get("enemies", 0)
    )
    text = f'{fig["name"]} (spots at {4 + fig["savvy"]}") identifies {marker["id"]}: {got.entry.result}.'
    if not count:
        return [Event("identify", text + " The marker is removed.", _rolls(*records))]
    kind, rolled, note = _enemy_type(state, action, dice, tables)
    records += rolled
    first = c.add_enemy(state, kind, name=kind["name"], where=f"where {marker['id']} was", revealed_by=fig["id"])
    placed = [first["name"]]
    if count > 1:
        record, towards = c.direction(dice, "Ambush: the second enemy's direction", action.payload.get("direction_face"))
        records.append(record)
        second = c.add_enemy(
            state, kind, name=kind["name"], where=f'6" from {fig["name"]} toward {towards}', revealed_by=fig["id"]
        )
        placed.append(f"{second['name']} ({second['where']})")
    return [Event("identify", f"{text} {', '.join(placed)} revealed.{note}", _rolls(*records))]


def trouble(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """Starting Trouble (p.126): a revealed enemy that sees no crew after moving rolls a D6; on a
    1 a Suspect marker appears 6" from it at random, at most one a round."""
    require_owner(action)
    c.phase(state, "enemy", what="Starting Trouble")
    fig = c.enemy(state, action.payload.get("enemy"))
    if fig["status"] != "active" or fig["law"] or fig["combatant"]:
        raise _err(f"{fig['name']} cannot start trouble: only the opposition's active figures do.", "enemy")
    record = c.roll(dice, "1D6", f"Starting Trouble ({fig['name']})", action, "face")
    if record.total != 1:
        return [Event("trouble", f"{fig['name']} looks for trouble: {record.total}, nothing.", _rolls(record))]
    if state["trouble_round"] == state["round"]:
        return [Event("trouble", f"{fig['name']} rolls a 1, but a marker was placed this round already.", _rolls(record))]
    state["trouble_round"] = state["round"]
    marker = c.new_suspect(state, f'6" from {fig["name"]}, random direction')
    return [Event("trouble", f'{fig["name"]} starts trouble: Suspect marker {marker["id"]} appears 6" away.', _rolls(record))]


def evade(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """Evasion (p.126): a crew figure with no enemy in sight at the start of the Enemy Actions
    phase may roll 1D6 + Savvy when an enemy moves into view; each point over 4 is 1" of move
    in any direction. Once a round."""
    fig = c.crew(state, action)
    c.phase(state, "enemy", what="Evasion")
    if fig["evade_round"] == state["round"]:
        raise _err(f"{fig['name']} has tried to Evade this round already.", "figure")
    fig["evade_round"] = state["round"]
    record = c.savvy_test(dice, fig, action, "Evasion")
    inches = max(0, int(record.total or 0) - 4)
    text = f'{fig["name"]} evades {inches}" in any direction.' if inches else f"{fig['name']} fails to Evade ({record.total})."
    return [Event("evade", text, {**_rolls(record), "inches": inches})]
