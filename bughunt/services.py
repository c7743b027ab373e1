"""Writes for Bug Hunt campaigns: squads, their main characters and missions set up. What comes
after a mission (post-battle, offers, advancement, Special Assignments) is in
:mod:`bughunt.postbattle_services`; members in :mod:`bughunt.member_services`, undo and import in
:mod:`bughunt.history_services`. Each write is one transaction: it loads the squad (locked),
calls the engines, saves, and logs every roll in the campaign log with its reason.

Every write names the squad ``version`` it was made against (:mod:`rules.writes`): a missing
one is refused naming ``version`` and an older one than the stored one with
:class:`StaleVersion` (409); rule refusals raise :class:`DropshipError` naming the field. Nothing is
written when a write is refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.db import transaction

from bughunt import documents, squad_room
from bughunt.engine import characters, missions
from bughunt.engine import support as support_rules
from bughunt.models import LogEntry, Mission, Squad, Trooper
from bughunt.permissions import EDITOR, mission_for, squad_for
from bughunt.selectors import bughunt_tables
from live.engine.tracker import Role, words
from live.events import announce_room
from rules import writes
from rules.engine.dice import Dice, FedDice, RollRecord, fed
from rules.engine.tables import RangeTable
from rules.errors import DropshipError, NotFound, rule_errors

MIN_MAIN, MAX_MAIN = 3, 5
TRACKER_KIND = "bughunt-mission"
LOADOUT_WEAPONS = ("Combat rifle", "Shot gun", "Boarding sword")
HAND_CANNON = "Hand cannon"
SERVICE_PISTOL = "Service pistol"
EDGES = {1: "north", 2: "east", 3: "south", 4: "west"}


# -- helpers ----------------------------------------------------------------------------------


def _rolls(records: Iterable[RollRecord]) -> list[dict[str, Any]]:
    return [r.as_dict() for r in records]


def _log(
    squad: Squad,
    step: str,
    text: str,
    rolls: Iterable[RollRecord] = (),
    *,
    mission: Mission | None = None,
    data: Mapping[str, Any] | None = None,
) -> LogEntry:
    return LogEntry.objects.create(
        squad=squad, mission=mission, turn=squad.turn, step=step, text=text, rolls=_rolls(rolls), data=dict(data or {})
    )


def _locked_squad(user: Any, squad_id: int, version: int | None, *, at_least: Role = EDITOR) -> Squad:
    """The squad taken for update for a member with at least the role ``at_least`` (editor:
    play the campaign; owner: options, members, who commands which marine) and checked against
    ``version`` (required): raises :class:`NotFound` for an outsider, :class:`NotAllowed` for a
    role too low, :class:`DropshipError` naming ``version`` when none is sent, or
    :class:`StaleVersion` (409, with the current version)."""
    squad_for(user, squad_id, at_least=at_least)
    squad = writes.locked(
        Squad.objects.filter(pk=squad_id), version, message="The squad changed since you loaded it; reload and try again."
    )
    if squad is None:  # gone since squad_for read it
        raise NotFound("No such squad, or it is not shared with you.", field="squad")
    documents.remember(squad)  # what the squad was before this write, for its undo
    return squad


def _bump(squad: Squad, *fields: str) -> None:
    documents.keep(squad)  # the write's first log line keeps the squad from before it (undo)
    writes.bump(squad, fields=fields)
    state = {**squad.room.state, "squad": squad.pk, "name": squad.name, "turn": squad.turn}
    squad.room.state = state
    writes.bump(squad.room, fields=["state"])  # every device at the squad's table hears of it
    announce_room(squad.room_id, squad.room.version)


def _locked_mission(user: Any, mission_id: int, version: int | None, *, stage: str | None = None) -> Mission:
    mission, _ = mission_for(user, mission_id, at_least=EDITOR)
    mission.squad = _locked_squad(user, mission.squad_id, version)
    mission.refresh_from_db()
    if stage is not None and mission.stage != stage:
        raise DropshipError(
            f"Mission {mission.number} is at {mission.get_stage_display()}; this needs {dict(Mission.STAGES)[stage]}.",
            field="stage",
        )
    return mission


def _faces(raw: Sequence[int] | str | None, field: str) -> list[int] | None:
    """The player's own dice: a list of faces, or text such as "4, 2"; ``None`` when blank."""
    parts = words(raw)
    if not parts:
        return None
    try:
        return [int(p) for p in parts]
    except (TypeError, ValueError):
        raise DropshipError(f"{field} must be whole numbers, one per die, such as 4, 2.", field=field) from None


def _fed(dice: Dice, raw: Sequence[int] | str | None, field: str) -> Dice:
    """``dice``, or the player's own faces typed in ``field`` fed to the engine roll by roll."""
    return fed(dice, _faces(raw, field), field=field)


def _all_used(*fed_dice: Dice) -> None:
    """Refuse typed faces that the rolls made did not use (400 naming their field)."""
    for dice in fed_dice:
        if isinstance(dice, FedDice):
            with rule_errors():
                dice.check_used()


def _engine_call(field: str, call: Any, *args: Any, **kwargs: Any) -> Any:
    """Run an engine function; its refusals become a :class:`DropshipError` naming the field
    they name, else ``field``."""
    try:
        with rule_errors(field=field):
            return call(*args, **kwargs)
    except ValueError as exc:  # a value the engine could not read rather than one of its refusals
        raise DropshipError(str(exc), field=field) from exc


def _trooper_from_engine(squad: Squad, made: characters.MainCharacter) -> Trooper:
    return Trooper.objects.create(
        squad=squad,
        name=made.name,
        xp=made.xp,
        completed_missions=made.completed_missions,
        origin=made.origin,
        basic_training=made.basic_training,
        service_history=made.service_history,
        commendations=made.commendations,
        joined_turn=squad.turn,
        **made.profile.as_dict(),
    )


def _roll_character(squad: Squad, tables: Mapping[str, RangeTable], name: str, dice: Dice, *, step: str) -> Trooper:
    made = _engine_call("name", characters.create_main_character, name, tables, dice)
    trooper = _trooper_from_engine(squad, made)
    squad.reputation += made.reputation
    bits = [f"{made.origin}", f"{made.basic_training}", f"{made.service_history}"]
    extra = []
    if made.commendations:
        extra.append(f"{made.commendations} commendation{'s' if made.commendations > 1 else ''}")
    if made.reputation:
        extra.append(f"+{made.reputation} Reputation to the squad")
    _log(
        squad,
        step,
        f"{made.name}: {', '.join(bits)}" + (f"; {', '.join(extra)}" if extra else "") + ".",
        made.rolls,
        data={"trooper": trooper.pk, "profile": made.profile.as_dict(), "xp": made.xp},
    )
    return trooper


# -- squads -----------------------------------------------------------------------------------


@transaction.atomic
def squad_create(
    *,
    user: Any,
    name: str,
    character_names: Sequence[str],
    difficulty: str = "Mess Me Up",
    escalation: bool = False,
    signals: bool = False,
    regiment_faces: Sequence[int] | str | None = None,
    character_faces: Mapping[str, Sequence[int] | str | None] | None = None,
    seed: int | None = None,
) -> Squad:
    """A new Hunter Squad (pp.170-173): one main character per name (3 to 5), each rolled on
    Origin, Basic Training and Service History with commendations; Reputation gained goes to the
    squad pool; the regiment's title and uniform come from the Regiment Flavor table.

    The player's own dice: ``regiment_faces`` for the Regiment Flavor rolls in order (p.173:
    title part 1, part 2, then the uniform color; a number or color result asks for its die
    next), ``character_faces`` by name for that character's Origin, Basic Training and Service
    History D100s, then two D6 for commendations after a Combat Operation (pp.171-172).

    Raises :class:`DropshipError` naming ``name``, ``character_names`` (3-5 distinct names),
    ``difficulty`` (the five settings) or the dice field (too few or too many faces, or a face
    the die cannot show); nothing is written then.
    """
    name = name.strip()
    if not name:
        raise DropshipError("name is required: what the squad is called.", field="name")
    names = [n.strip() for n in character_names if n and n.strip()]
    if not MIN_MAIN <= len(names) <= MAX_MAIN:
        raise DropshipError(
            f"character_names must hold {MIN_MAIN} to {MAX_MAIN} names (three is standard); got {len(names)}.",
            field="character_names",
        )
    if len({n.lower() for n in names}) != len(names):
        raise DropshipError("character_names must be different from each other.", field="character_names")
    allowed = [d for d, _ in Squad.DIFFICULTIES]
    if difficulty not in allowed:
        raise DropshipError(f"difficulty must be one of: {', '.join(allowed)}.", field="difficulty")
    strays = [n for n in (character_faces or {}) if n not in names]
    if strays:
        raise DropshipError(
            f"character_faces names {', '.join(strays)}, who is not one of character_names: {', '.join(names)}.",
            field="character_faces",
        )
    from live.services import room_create

    tables = bughunt_tables()
    dice = Dice(seed=seed)
    room = room_create(user=user, kind=squad_room.KIND, title=name[:120], options={"name": name[:80]}, unlisted=True)
    squad = Squad.objects.create(
        owner=user,
        room=room,
        name=name[:80],
        main_characters=len(names),
        difficulty=difficulty,
        escalation=escalation,
        signals=signals,
    )
    regiment_dice = _fed(dice, regiment_faces, "regiment_faces")
    regiment = _engine_call("regiment_faces", characters.regiment_flavor, tables, regiment_dice)
    _all_used(regiment_dice)
    squad.regiment, squad.uniform = regiment.title, regiment.uniform
    _log(squad, "creation", f"Regiment: the {regiment.title}, uniform {regiment.uniform}.", regiment.rolls)
    for character in names:
        typed = _faces((character_faces or {}).get(character), "character_faces")
        own = fed(dice, typed, field="character_faces", label=f"character_faces[{character!r}]")
        _roll_character(squad, tables, character[:60], own, step="creation")
        _all_used(own)
    squad.save()
    room.state = room.initial_state = squad_room.initial_state({"squad": squad.pk, "name": squad.name})
    room.save(update_fields=["state", "initial_state"])
    return squad


@transaction.atomic
def squad_update(
    *,
    user: Any,
    squad_id: int,
    version: int | None,
    name: str | None = None,
    difficulty: str | None = None,
    escalation: bool | None = None,
    signals: bool | None = None,
) -> Squad:
    """Change the squad's name or campaign options (owner only). Raises :class:`StaleVersion`,
    :class:`NotAllowed` for a member or :class:`DropshipError` naming the field."""
    squad = _locked_squad(user, squad_id, version, at_least=Role.OWNER)
    if name is not None:
        if not name.strip():
            raise DropshipError("name is required: what the squad is called.", field="name")
        squad.name = name.strip()[:80]
    if difficulty is not None:
        allowed = [d for d, _ in Squad.DIFFICULTIES]
        if difficulty not in allowed:
            raise DropshipError(f"difficulty must be one of: {', '.join(allowed)}.", field="difficulty")
        squad.difficulty = difficulty
    if escalation is not None:
        squad.escalation = escalation
    if signals is not None:
        squad.signals = signals
    _bump(squad, "name", "difficulty", "escalation", "signals")
    return squad


# -- mission set-up ---------------------------------------------------------------------------


def available_troopers(squad: Squad) -> list[Trooper]:
    """Main characters who may take the field: active, not in Sick Bay, not kept back."""
    return [t for t in squad.troopers.filter(status="active") if t.sick_bay == 0 and not (t.flags or {}).get("miss_next_mission")]


@transaction.atomic
def mission_create(
    *,
    user: Any,
    squad_id: int,
    version: int | None,
    difficulty: str | None = None,
    reputation_spent: int = 0,
    priority_shift: int = 0,
    objective_faces: Sequence[int] | str | None = None,
    objective_type_faces: Sequence[int] | str | None = None,
    priority_faces: Sequence[int] | str | None = None,
    signals_faces: Sequence[int] | str | None = None,
    edge_faces: Sequence[int] | str | None = None,
    seed: int | None = None,
) -> Mission:
    """Generate the next mission, steps 2-5 and 8-9 (pp.184-190): Objectives (three D6), the
    difficulty, Priority (lower of 2D6 +1 Vital +2 Critical, up to 2 Reputation either way,
    1-6; or the escalation sequence), Spawn Rating, Signals, Tactical Locations and the initial
    Contact markers (with Operational Progress extras), and the deployment edge (a D12 in quarters: the book only says to pick one at random).

    ``reputation_spent`` is -2..2 (each point costs 1 Reputation); ``priority_shift`` is the
    -1/+1 a friend in the Intel Corps allows (Military Life, p.206).

    The player's own dice, each logged as typed: ``objective_faces`` (three D6 for the markers,
    p.185), ``objective_type_faces`` (one D6 on the Objective table per kept marker, lowest
    marker first, p.185), ``priority_faces`` (two D6, p.186), ``signals_faces`` (one D6, with
    the Signals option, p.190) and ``edge_faces`` (one D12 for the deployment edge). Raises
    :class:`DropshipError` naming the field; nothing is written then.
    """
    squad = _locked_squad(user, squad_id, version)
    if squad.missions.exclude(stage="done").exists():
        raise DropshipError("Finish the current mission's post-battle before starting another.", field="mission")
    if not available_troopers(squad):
        raise DropshipError("No main character can take the field this turn.", field="troopers")
    tables = bughunt_tables()
    dice = Dice(seed=seed)
    number = squad.missions.count() + 1
    setting = _engine_call("difficulty", missions.difficulty, tables, difficulty or squad.difficulty)
    try:
        spent = int(reputation_spent or 0)
        shift = int(priority_shift or 0)
    except (TypeError, ValueError):
        raise DropshipError("reputation_spent must be a whole number from -2 to 2.", field="reputation_spent") from None
    if not -2 <= spent <= 2:
        raise DropshipError("reputation_spent must be from -2 to 2 (each point moves Priority by 1).", field="reputation_spent")
    if abs(spent) > squad.reputation:
        raise DropshipError(
            f"reputation_spent needs {abs(spent)} Reputation; the squad has {squad.reputation}.", field="reputation_spent"
        )
    operation = dict(squad.operation or {})
    intel = squad.priority_shift_next
    if shift and not intel:
        raise DropshipError(
            "priority_shift is only allowed after a friend in the Intel Corps (Military Life).", field="priority_shift"
        )
    if shift not in (-1, 0, 1):
        raise DropshipError("priority_shift must be -1, 0 or 1.", field="priority_shift")

    mission = Mission(squad=squad, number=number, turn=squad.turn)
    mission.save()
    objectives = _engine_call(
        "objective_faces",
        missions.roll_objectives,
        tables,
        dice,
        faces=_faces(objective_faces, "objective_faces"),
        type_faces=_faces(objective_type_faces, "objective_type_faces"),
    )
    _log(
        squad,
        "mission: objectives",
        "Objectives: " + "; ".join(f"marker {o.position} {o.type} ({o.rank})" for o in objectives.objectives) + ".",
        objectives.rolls,
        mission=mission,
    )
    if squad.escalation and number <= 8:
        priority = missions.escalation_priority(tables, number)
        if priority_faces not in (None, "", []):
            raise DropshipError(
                "priority_faces: under the campaign escalation option Priority is set, not rolled (p.187).",
                field="priority_faces",
            )
        if spent:
            raise DropshipError("reputation_spent does not apply under the campaign escalation option.", field="reputation_spent")
    else:
        priority = _engine_call(
            "priority_faces",
            missions.determine_priority,
            dice,
            vital=objectives.has_vital,
            critical=objectives.has_critical,
            reputation_spent=spent,
            faces=_faces(priority_faces, "priority_faces"),
        )
    value = max(missions.PRIORITY_MIN, min(missions.PRIORITY_MAX, priority.priority + shift))
    squad.reputation -= abs(spent)
    explanation = priority.explanation + (f", {shift:+d} from the Intel Corps friend: Priority {value}" if shift else "")
    _log(
        squad,
        "mission: priority",
        explanation + f". Spawn Rating {missions.spawn_rating(value)}.",
        [priority.record] if priority.record else [],
        mission=mission,
    )
    squad.priority_shift_next = 0
    if signals_faces not in (None, "", []) and not squad.signals:
        raise DropshipError(
            "signals_faces: this squad plays without Signals, so no Signals die is rolled.", field="signals_faces"
        )
    signals_dice = _fed(dice, signals_faces, "signals_faces")
    markers = _engine_call(
        "signals_faces", missions.place_markers, len(objectives.objectives), setting, signals_dice, use_signals=squad.signals
    )
    extra_contacts = int(operation.get("extra_contacts", 0) or 0)  # a disaster's two are already in it
    edge_dice = _fed(dice, edge_faces, "edge_faces")
    edge = _engine_call("edge_faces", edge_dice.roll, "D12", "Deployment edge (1-3 north, 4-6 east, 7-9 south, 10-12 west)")
    _all_used(signals_dice, edge_dice)
    side = EDGES[(int(edge.total or 1) + 2) // 3]
    _log(
        squad,
        "mission: markers",
        f"{markers.signals} Signals, {markers.tactical_locations} Tactical Locations; Contact markers: one on each Objective, "
        f"{markers.contacts_at_center + extra_contacts} at the center"
        + (f" ({extra_contacts} from Operational Progress)" if extra_contacts else "")
        + f'. Deploy within 3" of the {side} edge.',
        [*markers.rolls, edge],
        mission=mission,
    )
    support_points = missions.support_points(value, setting) + int(operation.get("extra_support_rolls", 0) or 0)
    mission.setup = {
        "mission_number": number,
        "difficulty": setting.name,
        "encounter": setting.encounter,
        "living_nightmare": setting.minimum_contacts is not None,
        "priority": value,
        "spawn_rating": missions.spawn_rating(value),
        "objectives": [o.as_dict() for o in objectives.objectives],
        "signals": markers.signals,
        "tactical_locations": markers.tactical_locations,
        "contacts_on_objectives": markers.contacts_on_objectives,
        "contacts_at_center": markers.contacts_at_center,
        "extra_contacts": extra_contacts,
        "deployment_edge": side,
        "support": {"points": support_points, "reputation_bought": False, "requests": [], "extra_support_card": False},
        "loadout": {},
        "hand_cannon": None,
        "extras": [],
        "intel_report": False,
    }
    mission.save()
    _bump(squad, "reputation", "priority_shift_next")
    return mission


@transaction.atomic
def mission_buy_support(*, user: Any, mission_id: int, version: int | None) -> Mission:
    """Spend 1 Reputation for +1 Support point (p.187), once per mission.

    Raises :class:`DropshipError` when already bought or without Reputation."""
    mission = _locked_mission(user, mission_id, version, stage="setup")
    support = mission.setup["support"]
    if support["reputation_bought"]:
        raise DropshipError("The Reputation point for support was already spent on this mission.", field="support")
    if mission.squad.reputation < 1:
        raise DropshipError("The squad has no Reputation to spend.", field="support")
    support["reputation_bought"] = True
    support["points"] += 1
    mission.squad.reputation -= 1
    mission.save(update_fields=["setup"])
    _log(mission.squad, "mission: support", "Spent 1 Reputation for +1 Support point.", mission=mission)
    _bump(mission.squad, "reputation")
    return mission


SECOND_FIRE_TEAM = "Fire team (Support)"
"""A Fire team granted as Support, named apart from the free one so each figure has one name."""


def _team(option: str, data: Mapping[str, Any], *, name: str | None = None) -> dict[str, Any]:
    """A granted Support team as the set-up keeps it (pp.187-189): profile, armor, the weapons of
    each figure (:func:`bughunt.engine.support.team_weapons`) and the arms it offers (the Sarge)."""
    profile = dict(data.get("profile") or {})
    special = []
    if data.get("brawl_dice"):
        special.append("kerin")
    if data.get("reaction_rerolls"):
        special.append("precursor")
    if data.get("objective_at_center"):
        special.append("scientists")
    figure_weapons = support_rules.team_weapons(data)
    arms = support_rules.arms_options(data)
    return {
        "name": name or option,
        "option": option,
        "figures": int(data.get("figures") or 1),
        **{k: int(profile.get(k, 0)) for k in ("reactions", "speed", "combat_skill", "toughness", "savvy")},
        "save": data.get("armor_save"),
        "weapons": list(dict.fromkeys(w for figure in figure_weapons for w in figure)),
        "figure_weapons": figure_weapons,
        "arms_options": arms,
        "arms": arms[0] if arms else None,
        "special": special,
        "owner": "",
    }


@transaction.atomic
def mission_request_support(
    *,
    user: Any,
    mission_id: int,
    version: int | None,
    option: str,
    faces: Sequence[int] | str | None = None,
    extra_support_card: bool = False,
    seed: int | None = None,
) -> Mission:
    """Spend one Support point on ``option`` (pp.187-189): 2D6 at or over its target grants it.
    Each option once per mission. ``extra_support_card`` plays the Extra Support movie magic card
    (p.181): the first request needs no roll; the card is spent for the campaign.

    Raises :class:`DropshipError` naming ``option`` (the choices), ``faces`` or the card."""
    mission = _locked_mission(user, mission_id, version, stage="setup")
    squad = mission.squad
    support = mission.setup["support"]
    if len(support["requests"]) >= support["points"]:
        raise DropshipError(f"All {support['points']} Support points are spent.", field="option")
    already = [r["option"] for r in support["requests"]]
    if extra_support_card:
        if "Extra Support" in squad.movie_magic_used:
            raise DropshipError("The Extra Support card was already used this campaign.", field="extra_support_card")
        if support["requests"]:
            raise DropshipError("The Extra Support card works on the first Support request only.", field="extra_support_card")
    request = _engine_call(
        "option",
        missions.request_support,
        bughunt_tables(),
        Dice(seed=seed),
        option,
        already=already,
        faces=_faces(faces, "faces"),
        free=extra_support_card,
    )
    granted, target, record, data = request.granted, request.target, request.record, request.data
    if record is None:
        squad.movie_magic_used = [*squad.movie_magic_used, "Extra Support"]
        support["extra_support_card"] = True
        text = f"Support: {option} granted without a roll (Extra Support card)."
    else:
        text = f"Support: {option} needs {target}+ on 2D6, rolled {record.total}: {'granted' if granted else 'not available, point lost'}."
    entry: dict[str, Any] = {"option": option, "target": target, "granted": granted, "total": record.total if record else None}
    support["requests"].append(entry)
    if granted:
        if data.get("profile"):
            name = SECOND_FIRE_TEAM if option == "Fire team" else option
            mission.setup.setdefault("teams", []).append(_team(option, data, name=name))
        elif data.get("tactical_activation"):
            mission.setup["intel_report"] = True
        else:
            mission.setup["extras"].append({"option": option, "weapons": list(data.get("weapons") or []), "assigned": None})
    mission.save(update_fields=["setup"])
    _log(squad, "mission: support", text, [record] if record else [], mission=mission, data=entry)
    _bump(squad, "movie_magic_used")
    return mission


def _field_teams(setup: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The combat teams taking the field: the free Fire team (p.187), then the granted Support."""
    fire_team = next(e for e in bughunt_tables()["bh-support"].entries if e.result == "Fire team")
    return [_team("Fire team", fire_team.data), *setup.get("teams", [])]


def field_figures(mission: Mission) -> list[str]:
    """Every figure taking the field, named as the tracker names them: the main characters who
    may go, then each team's figures (``"Fire team 1"`` ...). Support weapons go to one of these."""
    names = [t.name for t in available_troopers(mission.squad)]
    for team in _field_teams(mission.setup):
        names += support_rules.figure_labels(team["name"], int(team["figures"]))
    return names


def extra_choices(mission: Mission) -> list[dict[str, Any]]:
    """For each granted weapons option (p.188): ``{"option", "choices", "slots", "assigned"}``,
    the ``"<figure>: <weapon>"`` texts a screen offers, how many figures may carry it, and the
    current choice (for the loadout form)."""
    rows = {e.result: e.data for e in bughunt_tables()["bh-support"].entries}
    figures = field_figures(mission)
    out = []
    for extra in mission.setup.get("extras", []):
        options, slots = support_rules.choices(rows[extra["option"]], figures)
        current = [f"{o['figure']}: {' + '.join(o['weapons'])}" for o in _outfits(extra)]
        out.append(
            {
                "option": extra["option"],
                "choices": options,
                "slots": [current[i] if i < len(current) else "" for i in range(slots)],
            }
        )
    return out


def _outfits(extra: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Who carries a granted weapons option: ``[{"figure", "weapons"}]`` (an older set-up kept
    one text ``"<name>: <weapon>"``)."""
    assigned = extra.get("assigned")
    if not assigned:
        return []
    if isinstance(assigned, str):
        figure, _, weapon = assigned.partition(":")
        return [{"figure": figure.strip(), "weapons": [weapon.strip()]}]
    return [dict(a) for a in assigned]


@transaction.atomic
def mission_loadout(
    *,
    user: Any,
    mission_id: int,
    version: int | None,
    loadout: Mapping[str, str],
    hand_cannon: str | None = None,
    extras: Mapping[str, str | Sequence[str]] | None = None,
    arms: Mapping[str, str] | None = None,
) -> Mission:
    """Step 6 (p.187): each main character taking the field carries a Combat rifle, Shot gun or
    Boarding sword (``loadout`` maps trooper id to weapon); one may swap the Service pistol for a
    Hand cannon (``hand_cannon``: trooper id).

    ``extras`` says who carries each granted weapons option (p.188), any figure taking the field
    (:func:`field_figures`), main character or grunt: ``{"Weapons support": "Fire team 2:
    Plasma rifle", "Grenades": ["Hicks: Frag grenade", "Fire team 1: Flash grenade"]}`` (up to
    four figures with grenades, or ``"Sarge 1: Mounted launcher + Frag grenade"``). ``arms``
    picks a team's arms where the book offers a choice: ``{"Sarge": "Service pistol + Power
    claw"}``.

    Raises :class:`DropshipError` naming the field (``loadout``, ``hand_cannon``, ``extras``,
    ``arms``) and the allowed values; nothing is written then."""
    mission = _locked_mission(user, mission_id, version, stage="setup")
    ids = {str(t.pk): t for t in available_troopers(mission.squad)}
    chosen: dict[str, str] = {}
    for key, weapon in loadout.items():
        if str(key) not in ids:
            raise DropshipError(f"loadout names trooper {key}, who is not taking the field.", field="loadout")
        if weapon not in LOADOUT_WEAPONS:
            raise DropshipError(f"loadout weapons must be one of: {', '.join(LOADOUT_WEAPONS)}; got {weapon!r}.", field="loadout")
        chosen[str(key)] = weapon
    missing = [t.name for k, t in ids.items() if k not in chosen]
    if missing:
        raise DropshipError(f"loadout needs a weapon for {', '.join(missing)}.", field="loadout")
    if hand_cannon not in (None, "") and str(hand_cannon) not in ids:
        raise DropshipError("hand_cannon must name one main character taking the field.", field="hand_cannon")
    mission.setup["loadout"] = chosen
    mission.setup["hand_cannon"] = str(hand_cannon) if hand_cannon not in (None, "") else None
    rows = {e.result: e.data for e in bughunt_tables()["bh-support"].entries}
    teams = {t["name"]: t for t in mission.setup.get("teams", [])}
    for name, label in (arms or {}).items():
        team = teams.get(name)
        if team is None or not team.get("arms_options"):
            offered = [t["name"] for t in teams.values() if t.get("arms_options")]
            raise DropshipError(
                f"arms: {name!r} has no choice of arms; teams with one: {', '.join(offered) or 'none'}.", field="arms"
            )
        team["figure_weapons"] = _engine_call("arms", support_rules.team_weapons, rows[team["option"]], arms=label)
        team["arms"] = label
    granted = {e["option"]: e for e in mission.setup.get("extras", [])}
    unknown = [k for k in (extras or {}) if k not in granted]
    if unknown:
        raise DropshipError(
            f"extras: {', '.join(unknown)} is not a granted Support option; granted: {', '.join(granted) or 'none'}.",
            field="extras",
        )
    figures = field_figures(mission)
    for option, assignment in (extras or {}).items():
        made = _engine_call("extras", support_rules.outfit, option, rows[option], assignment, figures)
        granted[option]["assigned"] = [o.as_dict() for o in made]
    mission.save(update_fields=["setup"])
    names = {k: t.name for k, t in ids.items()}
    carried = [f"{o['figure']} {' + '.join(o['weapons'])}" for e in mission.setup.get("extras", []) for o in _outfits(e)] + [
        f"{t['name']} {t['arms']}" for t in teams.values() if t.get("arms")
    ]
    _log(
        mission.squad,
        "mission: loadout",
        "Loadout: "
        + "; ".join(f"{names[k]} {w}" for k, w in chosen.items())
        + (
            f"; {names[mission.setup['hand_cannon']]} swaps the Service pistol for a Hand cannon"
            if mission.setup["hand_cannon"]
            else ""
        )
        + (f"; Support: {'; '.join(carried)}" if carried else "")
        + ".",
        mission=mission,
    )
    _bump(mission.squad)
    return mission


def tracker_setup(mission: Mission) -> dict[str, Any]:
    """The set-up the mission tracker starts from: the generated mission plus the squad's main
    characters (profile, Trooper armor 5+, weapons from the loadout) and combat teams (the Fire
    team always, then the granted Support, each figure with its own weapons), the Support
    weapons on the figures that carry them (p.188), enemy types met and movie magic cards used."""
    squad = mission.squad
    setup = dict(mission.setup)
    loadout = setup.get("loadout", {})
    gains: dict[str, list[str]] = {}
    for extra in setup.get("extras", []):
        for made in _outfits(extra):
            gains.setdefault(made["figure"], []).extend(made["weapons"])
    mains = []
    for trooper in available_troopers(squad):
        key = str(trooper.pk)
        sidearm = HAND_CANNON if setup.get("hand_cannon") == key else SERVICE_PISTOL
        weapons = [sidearm, loadout.get(key, "Combat rifle"), *gains.get(trooper.name, [])]
        mains.append(
            {
                **trooper.profile,
                "name": trooper.name,
                "save": 5,
                "weapons": weapons,
                "owner": commander(trooper),
                "trooper_id": trooper.pk,
            }
        )
    teams = []
    for team in _field_teams(setup):
        figures = int(team["figures"])
        per_figure = team.get("figure_weapons") or [list(team.get("weapons") or []) for _ in range(figures)]
        labels = support_rules.figure_labels(team["name"], figures)
        per_figure = [[*w, *gains.get(label, [])] for w, label in zip(per_figure, labels, strict=True)]
        teams.append({**team, "figure_weapons": per_figure, "weapons": list(dict.fromkeys(w for f in per_figure for w in f))})
    setup.update(
        {
            "main_characters": mains,
            "combat_teams": teams,
            "enemies_met": list(squad.enemies_met),
            "movie_magic_used": list(squad.movie_magic_used),
            "squad": squad.pk,
            "mission": mission.pk,
        }
    )
    return setup


def commander(trooper: Trooper) -> str:
    """Who commands ``trooper`` at the mission tracker: the user id (as text) of the squad member
    given the marine, or ``""`` for the owner, who referees and commands the rest."""
    return str(trooper.player_id) if trooper.player_id else ""


def seat_members(squad: Squad, room: Any) -> None:
    """Seat the squad's members at a mission's table: editors play (each commands the marines
    given to them), readers watch. Nobody needs the join code."""
    from live.models import Membership
    from live.services import room_share

    members = Membership.objects.filter(room_id=squad.room_id).exclude(user_id=squad.owner_id)
    room_share(room, {m.user_id: Role.VIEWER.value if m.role == Role.VIEWER.value else Role.PLAYER.value for m in members})


@transaction.atomic
def mission_start(*, user: Any, mission_id: int, version: int | None, guests_can_watch: bool = False) -> Mission:
    """Open the live mission tracker (a room of kind ``bughunt-mission``) for this mission,
    refereed by the squad's owner; the squad's members take their seats (:func:`seat_members`)
    and each commands the marines given to them (:func:`commander`).

    Raises :class:`DropshipError` when the loadout is missing or a granted weapons option
    (Weapons support, Grenades) has nobody to carry it."""
    from live import services as live_services

    mission = _locked_mission(user, mission_id, version, stage="setup")
    if not mission.setup.get("loadout"):
        raise DropshipError("Choose the loadout (step 6) before the mission starts.", field="loadout")
    waiting = [e["option"] for e in mission.setup.get("extras", []) if not _outfits(e)]
    if waiting:
        raise DropshipError(
            f"extras: choose who carries {', '.join(waiting)} (step 6) before the mission starts.", field="extras"
        )
    room = live_services.room_create(
        user=mission.squad.owner,  # the squad's owner referees, whoever opens the table
        kind=TRACKER_KIND,
        title=f"{mission.squad.name}: mission {mission.number}",
        options={"setup": tracker_setup(mission)},
        guests_can_watch=guests_can_watch,
    )
    seat_members(mission.squad, room)
    mission.room = room
    mission.stage = "in_play"
    mission.save(update_fields=["room", "stage"])
    _log(mission.squad, "mission: start", f"Mission {mission.number} is on the table.", mission=mission, data={"room": room.pk})
    _bump(mission.squad)
    return mission
