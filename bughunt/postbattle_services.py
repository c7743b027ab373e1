"""Writes for a Bug Hunt squad after a mission and between missions: the end of a mission (post-battle
step 1 for the casualties, p.202, then :func:`mission_finish`), Military Life offers (p.206),
advancement (p.204) and Special Assignments (p.183), with the campaign engine's squad read
from and stored back to the models (:func:`engine_squad`).

As in :mod:`bughunt.services`, each write is one transaction on the locked squad, names the
squad ``version`` it was made against (a missing one is refused naming ``version``, an older
one with :class:`StaleVersion`, 409), raises :class:`DropshipError` naming the field when a rule
refuses, writing nothing then, and logs every roll in the campaign log with its reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction

from bughunt.engine import campaign
from bughunt.models import Mission, Squad, Trooper
from bughunt.selectors import bughunt_tables
from bughunt.services import (
    HAND_CANNON,
    LOADOUT_WEAPONS,
    SERVICE_PISTOL,
    _bump,
    _engine_call,
    _faces,
    _locked_mission,
    _locked_squad,
    _log,
)
from rules import bounds
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable
from rules.errors import DropshipError

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
