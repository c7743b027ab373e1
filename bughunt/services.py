"""Writes for Bug Hunt campaigns. Each function is one transaction: it loads the squad (locked),
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
from bughunt.engine import campaign, characters, missions
from bughunt.engine import support as support_rules
from bughunt.models import LogEntry, Mission, Squad, Trooper
from bughunt.permissions import EDITOR, mission_for, squad_for
from bughunt.selectors import bughunt_tables
from live.engine.tracker import Role, words
from live.events import publish_room
from rules import bounds, writes
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
    room_id, room_version = squad.room_id, squad.room.version
    transaction.on_commit(lambda: publish_room(room_id, room_version))


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


# -- the campaign engine's squad, to and from the models ------------------------------------

ENGINE_FLAGS = (
    "laid_up",
    "assignment_bonus",
    "no_assignment_next",
    "bonus_assignment_roll",
    "miss_next_mission",
    "weapon_notes",
    "advanced_care_turn",
    "assignment_turn",
    "assignment_rolls",
    "mission_counted_turn",
    "replaced_by",
)


def engine_squad(squad: Squad) -> campaign.Squad:
    """The squad as the campaign engine sees it: every main character (departed ones too), the
    Reputation pool, the operation, the campaign turn and the Intel Corps shift."""
    troopers = tuple(
        campaign.Trooper.from_dict(
            {
                "name": t.name,
                "profile": t.profile,
                "xp": t.xp,
                "completed_missions": t.completed_missions,
                "status": t.status,
                "sick_bay": t.sick_bay,
                "assignments": t.assignments,
                **{k: v for k, v in (t.flags or {}).items() if k in ENGINE_FLAGS},
            }
        )
        for t in squad.troopers.order_by("id")
    )
    return campaign.Squad(
        reputation=squad.reputation,
        troopers=troopers,
        operation=campaign.Operation.from_dict(squad.operation or {}),
        turn=squad.turn,
        priority_shift_next=squad.priority_shift_next,
    )


def _store(squad: Squad, state: campaign.Squad, *, backgrounds: Mapping[str, Mapping[str, Any]] | None = None) -> None:
    """Write the engine's squad back: update each main character by name, add newcomers
    (``backgrounds`` holds their rolled Origin etc.), then the squad's pools. Does not bump."""
    rows = {t.name: t for t in squad.troopers.all()}
    for trooper in state.troopers:
        data = trooper.as_dict()
        fields = {
            **data["profile"],
            "xp": data["xp"],
            "completed_missions": data["completed_missions"],
            "status": data["status"],
            "sick_bay": data["sick_bay"],
            "assignments": data["assignments"],
            "flags": {k: data[k] for k in ENGINE_FLAGS if data.get(k) not in (None, False, 0, [], ())},
        }
        row = rows.get(trooper.name)
        if row is None:
            extra = (backgrounds or {}).get(trooper.name, {})
            Trooper.objects.create(
                squad=squad,
                name=trooper.name,
                origin=extra.get("origin", ""),
                basic_training=extra.get("basic_training", ""),
                service_history=extra.get("service_history", ""),
                commendations=int(extra.get("commendations", 0) or 0),
                joined_turn=state.turn,
                **fields,
            )
            continue
        for key, value in fields.items():
            setattr(row, key, value)
        row.save()
    squad.reputation = state.reputation
    squad.operation = state.operation.as_dict()
    squad.turn = state.turn
    squad.priority_shift_next = state.priority_shift_next


def _trooper_row(squad: Squad, trooper_id: Any, field: str = "trooper") -> Trooper:
    known = str(trooper_id).isdecimal() and int(trooper_id) <= bounds.ID_MAX
    row = squad.troopers.filter(pk=int(trooper_id)).first() if known else None
    if row is None:
        names = ", ".join(f"{t.pk} ({t.name})" for t in squad.troopers.filter(status="active"))
        raise DropshipError(f"{field} must be one of the squad's main characters: {names}.", field=field)
    return row


def assignment_choices(squad: Squad, tables: Mapping[str, RangeTable]) -> list[dict[str, Any]]:
    """For each active main character: the Special Assignments open to them this turn, with
    their 2D6 targets and training, or why they cannot apply (p.183)."""
    state = engine_squad(squad)
    targets = {e.result: e for e in tables["bh-special-assignments"].entries}
    rows = []
    for trooper in squad.troopers.filter(status="active"):
        options = campaign.assignments_available(tables, state, trooper.name)
        rows.append(
            {
                "trooper": trooper,
                "blocked": options.reason,
                "bonus": options.bonus,
                "options": [
                    {
                        "name": name,
                        "target": targets[name].data.get("target"),
                        "note": (f"+{options.bonus} bonus" if options.bonus else ""),
                    }
                    for name in options.available
                ],
            }
        )
    return rows


def advancement_choices(squad: Squad, tables: Mapping[str, RangeTable]) -> list[dict[str, Any]]:
    """For each active main character, the advances their XP buys now (cost and maximum from
    ``bh-advancement``, p.204)."""
    rows = []
    for trooper in squad.troopers.filter(status="active"):
        stats = []
        for entry in tables["bh-advancement"].entries:
            stat = str(entry.data["stat"])
            cost, maximum = int(entry.data["xp"]), int(entry.data["maximum"])
            if trooper.xp >= cost and getattr(trooper, stat) < maximum:
                stats.append({"stat": stat, "label": campaign.PROFILE_NAMES[stat], "cost": cost})
        if stats:
            rows.append({"trooper": trooper, "stats": stats})
    return rows


@transaction.atomic
def special_assignment_apply(
    *,
    user: Any,
    squad_id: int,
    version: int | None,
    trooper_id: Any,
    assignment: str,
    faces: Sequence[int] | str | None = None,
    seed: int | None = None,
) -> Squad:
    """Apply a main character for a Special Assignment (p.183): 2D6 (or the player's own two
    D6 as ``faces``) plus any bonus against the target; success brings the training award,
    bonus XP and Reputation. Raises :class:`DropshipError` naming the field."""
    squad = _locked_squad(user, squad_id, version)
    if squad.missions.filter(stage__in=["in_play", "post_battle"]).exists():
        raise DropshipError(
            "Special Assignments come before the mission; this turn's mission is already under way.", field="assignment"
        )
    row = _trooper_row(squad, trooper_id)
    tables = bughunt_tables()
    result = _engine_call(
        "assignment",
        campaign.special_assignment,
        tables,
        engine_squad(squad),
        row.name,
        assignment,
        Dice(seed=seed),
        faces=_faces(faces, "faces"),
    )
    _store(squad, result.squad)
    _log(squad, "special assignment", result.text, result.rolls, data=dict(result.data))
    _bump(squad, "reputation", "operation", "turn", "priority_shift_next")
    return squad


@transaction.atomic
def trooper_advance(*, user: Any, squad_id: int, version: int | None, trooper_id: Any, stat: str) -> Squad:
    """Spend XP on +1 to ``stat`` (p.204). Raises :class:`DropshipError` naming the stat (the
    five allowed), its maximum or the XP missing."""
    squad = _locked_squad(user, squad_id, version)
    row = _trooper_row(squad, trooper_id)
    result = _engine_call("stat", campaign.advance_trooper, bughunt_tables(), engine_squad(squad), row.name, stat)
    _store(squad, result.squad)
    _log(squad, "advance", result.text, data=dict(result.data))
    _bump(squad)
    return squad


def _offer_entry(offer: campaign.Offer, weapons: Sequence[str]) -> dict[str, Any]:
    """A pending Military Life offer with the buttons the player can press."""
    if offer.kind == "raise_stat":
        label = campaign.PROFILE_NAMES.get(offer.stat or "", offer.stat or "")
        text = f"{offer.trooper} may raise {label} by 1 for {offer.cost_xp} XP."
        choices = [("accept", f"Raise {label}"), ("decline", "No thanks")]
    elif offer.kind == "tinkering":
        text = f'{offer.trooper} tinkers with a personal weapon: +{offer.range_in}" range.'
        choices = [(f"weapon:{w}", w) for w in weapons] + [("decline", "Not now")]
    else:
        text = (
            f"{offer.trooper} may cash in a favor: up to {offer.max_reputation} Reputation, each for "
            f"{offer.xp_per_reputation} XP or +{offer.bonus_per_reputation} on the next Special Assignments roll."
        )
        choices = [
            (f"favor:{x}:{b}", f"{x} for XP, {b} for the assignment roll")
            for x in range(offer.max_reputation + 1)
            for b in range(offer.max_reputation + 1 - x)
            if x + b > 0
        ] + [("decline", "Spend nothing")]
    return {"offer": offer.as_dict(), "text": text, "choices": choices}


@transaction.atomic
def offer_answer(*, user: Any, squad_id: int, version: int | None, index: Any, choice: str) -> Squad:
    """Take or decline a waiting Military Life offer (p.206). ``choice`` is ``accept``,
    ``decline``, ``weapon:<name>`` (tinkering) or ``favor:<xp points>:<bonus points>``.
    Raises :class:`DropshipError` naming ``index`` or ``choice``."""
    squad = _locked_squad(user, squad_id, version)
    pending = list(squad.pending or [])
    try:
        entry = pending[int(index)]
    except (TypeError, ValueError, IndexError):
        raise DropshipError(f"index must be 0 to {len(pending) - 1}: a waiting offer.", field="index") from None
    allowed = [value for value, _ in entry["choices"]]
    if choice not in allowed:
        raise DropshipError(f"choice must be one of: {', '.join(allowed)}.", field="choice")
    pending.pop(int(index))
    offer = campaign.Offer.from_dict(entry["offer"])
    if choice == "decline":
        _log(squad, "military life", f"{offer.trooper} lets the offer go.")
    else:
        kwargs: dict[str, Any] = {}
        if choice.startswith("weapon:"):
            kwargs["weapon"] = choice.split(":", 1)[1]
        elif choice.startswith("favor:"):
            _, xp_points, bonus_points = choice.split(":")
            kwargs.update(xp_points=int(xp_points), bonus_points=int(bonus_points))
        result = _engine_call("choice", campaign.accept_offer, bughunt_tables(), engine_squad(squad), offer, **kwargs)
        _store(squad, result.squad)
        _log(squad, "military life", result.text, data=dict(result.data))
    squad.pending = pending
    _bump(squad, "pending", "reputation", "operation", "turn", "priority_shift_next")
    return squad


# -- the end of a mission and the post-battle sequence ----------------------------------------


def _outcome(mission: Mission) -> dict[str, Any]:
    from bughunt.engine import tracker

    if mission.room is None:
        raise DropshipError("This mission has no tracker yet; start it first.", field="mission")
    if mission.room.state.get("phase") != "over":
        raise DropshipError("End the mission on the tracker first (End mission), then run the post-battle.", field="mission")
    return dict(tracker.outcome(mission.room.state))


def _main_names(report: Mapping[str, Any], key: str) -> list[str]:
    return [f["name"] for f in report.get(key, []) if f.get("main")]


def _mission_outcome(mission: Mission, report: Mapping[str, Any], in_charge: str | None) -> campaign.MissionOutcome:
    took_field = list(report.get("took_field", []))
    return campaign.MissionOutcome(
        # The generated Priority, before drop ship raises (reading at campaign.award_experience, p.204).
        priority=int(report.get("priority_start", report.get("priority", mission.setup.get("priority", 1)))),
        # Before the Signals penalty, which the post-battle sequence applies (once) from the
        # Signals numbers below; a report from before ``objective_points`` has only the total.
        objectives_completed=int(report.get("objective_points", report.get("objectives_completed", 0))),
        took_field=tuple(took_field),
        casualties=tuple(_main_names(report, "casualties")),
        lost_marines=tuple(_main_names(report, "lost_marines")),
        evacuated=tuple(_main_names(report, "evacuated")),
        enemy=report.get("enemy"),
        signals_initial=int(report.get("signals_initial", 0)),
        signals_investigated=int(report.get("signals_investigated", 0)),
        in_charge=in_charge or (took_field[0] if took_field else None),
    )


def _card_free(squad: Squad, report: Mapping[str, Any], card: str) -> None:
    if card in squad.movie_magic_used or card in report.get("movie_magic_used", []):
        raise DropshipError(f"The {card} card was already used this campaign.", field=f"{card.lower()}_card")


def _escape_changes_something(report: Mapping[str, Any]) -> None:
    if not _main_names(report, "lost_marines"):
        raise DropshipError(
            "The Escape card changes nothing: no main character left by a battlefield edge, so nobody rolls on the"
            " Lost Marine column (p.181).",
            field="escape_card",
        )


@transaction.atomic
def mission_casualties(
    *,
    user: Any,
    mission_id: int,
    version: int | None,
    escape_card: bool = False,
    faces: Mapping[str, int] | None = None,
    recovery_faces: Mapping[str, int] | None = None,
    seed: int | None = None,
) -> Mission:
    """Post-battle step 1 (p.202) on its own, before the rest: the D100 for each casualty and
    lost marine (and the Sick Bay D3), logged and kept for :func:`mission_finish`, so the
    Survived card can be played after these rolls, on one that had an effect (p.181).

    ``escape_card`` plays Escape, which is used after the battle in place of the Lost Marine
    rolls: refused when no main character left by a battlefield edge (it would change nothing)
    and spent otherwise. ``faces`` / ``recovery_faces``: the player's own D100 / D3 by name.

    Raises :class:`DropshipError` naming ``mission`` (tracker not over, already rolled),
    ``escape_card`` or ``faces``; nothing is written then."""
    mission = _locked_mission(user, mission_id, version, stage="in_play")
    squad = mission.squad
    report = _outcome(mission)
    if (mission.post_battle or {}).get("casualties"):
        raise DropshipError("The casualties of this mission are already rolled; finish the post-battle.", field="mission")
    lost = _main_names(report, "lost_marines")
    if escape_card:
        _card_free(squad, report, "Escape")
        _escape_changes_something(report)
    rolling = [n for n in _main_names(report, "casualties") + lost if not (escape_card and n in lost)]
    _only_rolling(rolling, faces, recovery_faces)
    outcome = _mission_outcome(mission, report, None)
    result = _engine_call(
        "faces",
        campaign.casualties,
        bughunt_tables(),
        engine_squad(squad),
        outcome,
        Dice(seed=seed),
        faces=faces or None,
        recovery_faces=recovery_faces or None,
        escaped=tuple(lost) if escape_card else (),
    )
    results = result.data["results"]
    mission.post_battle = {
        "casualties": {
            "escaped": bool(escape_card),
            "faces": {n: r["roll"] for n, r in results.items() if r.get("roll") is not None},
            "recovery_faces": {n: r["recovery_face"] for n, r in results.items() if r.get("recovery_face") is not None},
            "results": results,
            "text": " ".join(result.lines),
            "rolls": [r.as_dict() for r in result.rolls],
        }
    }
    mission.save(update_fields=["post_battle"])
    if escape_card:
        squad.movie_magic_used = [*squad.movie_magic_used, "Escape"]
    _log(squad, "post-battle: 1. casualties rolled", " ".join(result.lines), result.rolls, mission=mission, data=results)
    _bump(squad, "movie_magic_used")
    return mission


def step_one_names(mission: Mission) -> list[str]:
    """The main characters who roll in post-battle step 1 (p.202): casualties, then those who
    left by an edge; empty until the tracker's mission is over."""
    try:
        report = _outcome(mission)
    except DropshipError:
        return []
    return _main_names(report, "casualties") + _main_names(report, "lost_marines")


def _only_rolling(rolling: Sequence[str], faces: Mapping[str, int] | None, recovery_faces: Mapping[str, int] | None) -> None:
    """Refuse step-1 dice typed for someone who makes no roll (they would be dropped)."""
    for field, typed in (("faces", faces), ("recovery_faces", recovery_faces)):
        strays = [n for n in (typed or {}) if n not in rolling]
        if strays:
            raise DropshipError(
                f"{field} names {', '.join(strays)}, who makes no roll here; rolling: {', '.join(rolling) or 'nobody'}.",
                field=field,
            )


def survivable(mission: Mission) -> list[str]:
    """The main characters the Survived card can save now (p.181): those whose step-1 roll,
    already made (:func:`mission_casualties`), had an effect to ignore."""
    rolled = (mission.post_battle or {}).get("casualties") or {}
    return [n for n, r in rolled.get("results", {}).items() if r.get("outcome") in SURVIVABLE]


SURVIVABLE = ("dead", "dead_or_removed", "injury")
"""Casualty outcomes the Survived card can cancel (p.181); Knocked out and School of hard knocks
have no ill effect to ignore."""


@transaction.atomic
def mission_finish(
    *,
    user: Any,
    mission_id: int,
    version: int | None,
    mvp: str | None = None,
    in_charge: str | None = None,
    advanced_care: Sequence[str] = (),
    retire: Sequence[str] = (),
    replacement_names: Sequence[str] = (),
    pay_court_martial: bool = False,
    buy_rest: bool = False,
    escape_card: bool = False,
    survived_card: str | None = None,
    faces: Mapping[str, int] | None = None,
    recovery_faces: Mapping[str, int] | None = None,
    court_martial_faces: Sequence[int] | str | None = None,
    muster_out_faces: Sequence[int] | str | None = None,
    reputation_faces: Sequence[int] | str | None = None,
    replacement_faces: Sequence[int] | str | None = None,
    progress_faces: Sequence[int] | str | None = None,
    military_life_faces: Sequence[int] | str | None = None,
    rest_faces: Sequence[int] | str | None = None,
    seed: int | None = None,
) -> Mission:
    """End the mission: read the tracker's outcome (Objectives, casualties, lost marines, Evac,
    the enemy met, movie magic spent) and run the court martial when no Objective was completed
    and the nine post-battle steps (pp.201-206). Offers from Military Life wait on the squad
    page. Replacements are rolled for every main character who left; unnamed ones are called
    "Recruit <turn>-<n>".

    Step 1 uses the rolls :func:`mission_casualties` made, when it ran; otherwise it rolls here.
    The post-battle movie magic cards (p.181), each once per campaign, are played at their
    moment: ``escape_card`` (no Lost Marine rolls) only before those rolls, so here only when
    step 1 was not rolled yet, and only when a main character left by an edge;
    ``survived_card`` names a character whose step-1 roll, already made, had an effect to
    ignore. A card that would change nothing is refused, not spent.

    The player's own dice, each list taken in the order the step rolls and logged as typed (see
    :data:`bughunt.engine.campaign.TYPED_STEPS`): ``court_martial_faces`` (D6, p.201),
    ``muster_out_faces`` (2D6 per main character who may leave, p.203), ``reputation_faces``
    (a D6 per Objective point, p.203), ``replacement_faces`` (three D100 and, after a Combat
    Operation, two D6 per replacement, pp.171-172), ``progress_faces`` (D100 and any die it asks
    for, p.205), ``military_life_faces`` (who, then D100 and any die it asks for, p.206) and
    ``rest_faces`` (R&R, p.206); ``faces`` / ``recovery_faces`` are step 1's D100 and D3 by name
    when :func:`mission_casualties` did not roll them. A step left blank is rolled.

    Raises :class:`DropshipError` naming the field; nothing is written then."""
    mission = _locked_mission(user, mission_id, version, stage="in_play")
    squad = mission.squad
    tables = bughunt_tables()
    report = _outcome(mission)
    took_field = list(report.get("took_field", []))
    names = {t.name for t in squad.troopers.all()}
    for field, value in (("mvp", mvp), ("in_charge", in_charge)):
        if value and value not in took_field:
            raise DropshipError(
                f"{field} must be one of those who took the field: {', '.join(took_field) or 'nobody'}.", field=field
            )
    for field, values in (("advanced_care", advanced_care), ("retire", retire)):
        unknown = [v for v in values if v not in names]
        if unknown:
            raise DropshipError(f"{field} names {', '.join(unknown)}, who is not in the squad.", field=field)

    lost = _main_names(report, "lost_marines")
    rolled = (mission.post_battle or {}).get("casualties") or None
    played_here = list(report.get("movie_magic_mission", []))  # an older tracker let Escape/Survived be played there
    if escape_card:
        if rolled is not None:
            raise DropshipError(
                "escape_card: the Lost Marine rolls are made; Escape is played in their place, before them (p.181).",
                field="escape_card",
            )
        if "Escape" not in played_here:
            _card_free(squad, report, "Escape")
            _escape_changes_something(report)
            played_here.append("Escape")
    if survived_card:
        if rolled is None and "Survived" not in played_here:
            raise DropshipError(
                "survived_card: Survived is played after the injury rolls (p.181): roll the casualties first.",
                field="survived_card",
            )
        if "Survived" not in played_here:
            _card_free(squad, report, "Survived")
            played_here.append("Survived")
        can = survivable(mission) if rolled is not None else _main_names(report, "casualties") + lost
        if survived_card not in can:
            got = (rolled or {}).get("results", {}).get(survived_card)
            why = (
                f"{survived_card} rolled {got['result']}, which has no effect to ignore"
                if got
                else f"{survived_card} made no injury roll"
            )
            raise DropshipError(
                f"survived_card: the Survived card changes nothing: {why}; it can save {', '.join(can) or 'nobody'}.",
                field="survived_card",
            )
    report["movie_magic_mission"] = played_here
    report["movie_magic_used"] = sorted({*report.get("movie_magic_used", []), *played_here})
    escaped = "Escape" in played_here or bool(rolled and rolled.get("escaped"))
    outcome = _mission_outcome(mission, report, in_charge)
    state = engine_squad(squad)
    departing = len(retire) + len(outcome.casualties) + len(outcome.lost_marines) + 3
    recruits = [n.strip() for n in replacement_names if n and n.strip()]
    taken = {t.name for t in state.troopers}
    serial = 1
    while len(recruits) < departing:
        candidate = f"Recruit {squad.turn}-{serial}"
        serial += 1
        if candidate not in taken:
            recruits.append(candidate)
    choices = campaign.PostBattleChoices(
        mvp=mvp,
        escaped=tuple(lost) if escaped else (),
        survived=survived_card or None,
        casualty_faces=(rolled or {}).get("faces") if rolled is not None else (faces or None),
        recovery_faces=(rolled or {}).get("recovery_faces") if rolled is not None else (recovery_faces or None),
        advanced_care=tuple(advanced_care),
        retire=tuple(retire),
        replacement_names=tuple(recruits),
        spend_reputation_on_rr=buy_rest,
        pay_court_martial=pay_court_martial,
    )
    if rolled is not None and (faces or recovery_faces):
        raise DropshipError(
            "faces: the casualties of this mission were rolled already (step 1); their dice cannot change now.", field="faces"
        )
    if rolled is None:
        _only_rolling([n for n in _main_names(report, "casualties") + lost if not (escaped and n in lost)], faces, recovery_faces)
    typed = {
        step: _faces(raw, f"{step}_faces")
        for step, raw in (
            ("court_martial", court_martial_faces),
            ("muster_out", muster_out_faces),
            ("reputation", reputation_faces),
            ("replacement", replacement_faces),
            ("progress", progress_faces),
            ("military_life", military_life_faces),
            ("rest", rest_faces),
        )
    }
    result = _engine_call(
        "post_battle",
        campaign.post_battle,
        tables,
        state,
        outcome,
        Dice(seed=seed),
        choices,
        typed={k: v for k, v in typed.items() if v is not None},
    )
    total = _engine_call("post_battle", campaign.objective_total, tables, outcome)[0]  # after the Signals rule
    backgrounds = {
        str(step.data.get("name")): dict(step.data) for _, title, step in result.steps if title == "Replacement" and step.data
    }
    _store(squad, result.squad, backgrounds=backgrounds)
    offers: list[dict[str, Any]] = list(squad.pending or [])
    for _, _, step in result.steps:
        for offer in step.offers:
            weapons = [SERVICE_PISTOL, *LOADOUT_WEAPONS, HAND_CANNON]
            offers.append(_offer_entry(offer, weapons))
    squad.pending = offers
    played = [c for c in report.get("movie_magic_used", []) if c not in squad.movie_magic_used]
    squad.movie_magic_used = [*squad.movie_magic_used, *played]
    if report.get("enemy") and report["enemy"] not in squad.enemies_met:
        squad.enemies_met = [*squad.enemies_met, report["enemy"]]
    _log(
        squad,
        "mission: end",
        f"Mission {mission.number} over after round {report.get('rounds', '?')}: {total} Objective point(s); "
        f"casualties {', '.join(outcome.casualties) or 'none'}; lost marines {', '.join(lost) or 'none'}"
        + (" (Escape card: no Lost Marine rolls)" if escaped and lost else "")
        + ".",
        mission=mission,
        data=report,
    )
    first = result.steps[1 if result.steps[0][0] == 0 else 0][2]  # step 1 (after any court martial)
    for number, title, step in result.steps:
        squad.turn = mission.turn  # the log keeps the turn the steps belong to
        again = rolled is not None and step is first  # its dice were logged when they were rolled
        _log(
            squad,
            f"post-battle: {number}. {title}",
            step.text or title,
            () if again else step.rolls,
            mission=mission,
            data=dict(step.data),
        )
    squad.turn = result.squad.turn
    mission.outcome = {**report, "objectives_completed": total, "in_charge": outcome.in_charge}
    mission.post_battle = {
        **({"casualties": rolled} if rolled is not None else {}),
        "steps": [
            {
                "number": n,
                "title": t,
                "text": r.text,
                "rolls": rolled["rolls"] if rolled is not None and r is first else [x.as_dict() for x in r.rolls],
            }
            for n, t, r in result.steps
        ],
    }
    mission.stage = "done"
    mission.save(update_fields=["outcome", "post_battle", "stage"])
    _bump(squad, "reputation", "operation", "turn", "priority_shift_next", "pending", "movie_magic_used", "enemies_met")
    return mission
