"""The live PvP battle (Compendium pp.35-37): two players' crews on one table, each player on
their own device.

``apply(state, action, dice, tables) -> (new_state, events)`` deep-copies the state, dispatches
on ``action.type`` and refuses with :class:`TrackerError` naming the payload field (changing
nothing) when the chapter says no. Every die is rolled or typed and returned in an event's
``data["rolls"]``.

Seats: each side has ``players`` (user ids as text). A player acts only for a side they sit on,
with that side's figures and initiative points; the table's owner has no say over the other
side (a player who sits on both sides, one device at the table, plays both). Readers watch.
``referee`` (a user id as text, or ``None``): a third user who runs the three-way battle's third
party from their own device (``seat_referee`` seats a room member who plays neither crew); with
a referee seated only they act for the third party, without one either player does. The referee
never acts for a crew (refused naming ``figure``). ``unseat_referee``: the referee leaves, or a
host's player frees the seat of one who has gone; either player runs the third party again. All information is open: the chapter hides
nothing (Reaction dice are rolled and assigned in the open, the First Player first; the third
party's force is on the card for everyone).

The battle, in the chapter's order:

- ``deploy`` {figures}: players take turns placing two figures (fewer when fewer are left),
  the lower Power Rating first (p.36). The last placement starts round 1.
- Each round: both sides get 1 initiative point (p.35). ``roll_reactions`` {faces?}: the First
  Player rolls first, then the Second (one D6 per figure on the table); ``assign_reaction``
  {figure, die}: at or under the figure's Reactions it acts in the Quick Action phase, above it
  in the Slow Action phase.
- Quick and Slow Actions: ``activate`` {figures}: the player whose turn it is picks one or two
  of their figures able to act in the phase; then the other player; alternating until all
  have acted (a player with none left passes the turn). Activating removes one Stun marker.
  ``resolve`` {attacker, target, mode shot | brawl, weapon?, target_weapon?, range?, cover?,
  moved?, faces?, draw_if_lost?}: only a figure of the current activation attacks, and only an
  enemy figure. ``spend_point`` {use, figure}: Fire (before the shot: +1 Shot, natural 1s to
  Hit rerolled), Double Speed (one move), Remove all Stun markers (a figure selected to act);
  ``draw_if_lost`` on a brawl spends a point only if the figure lost, to make it a draw.
- ``next_phase`` {end_faces?, reinforcement_faces?}: once everyone in the phase has acted. The
  Enemy Actions phase comes only with third-party figures on the table (p.37): whoever runs the
  third party ``activate``s any of its figures and ``resolve``s their attacks against figures of
  either crew (the third party treats both crews as one force); the crews attack its figures
  in their own phases. It deploys by its D100 row: on a neutral edge or near the centre from the
  start, or arriving at the start of round 3 or of a rolled round, or with 1D6 reinforcements at
  the start of round 3 (typed ``reinforcement_faces``). With every figure of it off the table
  and none to come it is gone. Leaving the Slow Action phase ends the round:
  2D6 against the round number; under it, the battle ends at the end of the next round (p.36).
  The First Player token passes to the other player.
- Morale: at the end of a round the third party rolls one D6 per figure of it that became a
  casualty that round (typed ``morale_faces`` on the ``next_phase`` that ends the round); each
  die in its Panic range makes one figure flee (p.37: Morale dice only for AI forces).
- ``agree_end``: at a round's end both players may agree to stop, unless a third party is on
  the table (``third_party_gone`` marks it gone); nobody Holds the Field then (p.36).
- ``retreat`` {figure} off the battlefield edge; ``adjust`` {figure, stun?, status?} corrects a
  figure of one's own side; ``objective_done``: the side completed its objective.

The expanded co-op battle (``mode`` ``"coop"``, pp.39-41; the set-up card from
:func:`battles.engine.fp_pvp.coop.coop_waves` as ``third_party``): the two crews are one force
against the enemy waves (the third-party machinery: its runner, the Enemy Actions phase). It
starts at round 1 with Wave 1 and both crews on the table (no Seize the Initiative, no
initiative points: ``spend_point`` and ``agree_end`` are refused). Each player rolls their own
crew's Reaction dice, in any order (``side`` names the crew for a player of both); in the Quick
and Slow phases the players take turns with one figure each, the one with fewer figures to use
starting (the host on a tie, our ruling); crews attack only enemies. Wave 2 arrives at the start
of round 3 (typed ``wave_faces`` for its edge); from round 3, while Wave 3 has not come, the
``next_phase`` that ends the round takes the 2D6 (``end_faces``) whose total under the round
number brings it (``wave_faces`` again; Wave 2's edge sends it opposite). Morale per wave with
Panic 1 (``morale_faces``, Wave 1's first). The battle is won (``held_field`` ``"both"``) at a
round's end with no enemy on the table, Wave 2 come, and Wave 3 come and gone or the round 6 or
later (Make it Quick); lost (``"none"``) when neither crew has a figure on the table. All is
open, as in PvP.

A side with no figure left on the table loses; the other Holds the Field. Not modelled: the
casualty tables and Wounded results (a hit that beats Toughness is a casualty), the third
party's AI choices (its runner plays them at the table), movement.

State::

    {"round": 0, "phase": "deploy" | "reactions" | "quick" | "enemy" | "slow" | "end" | "over",
     "turn": "host" | "guest" | None, "first_player": "host",
     "sides": {"host": {"name", "players": ["3"], "points": 0, "power_rating": 5,
               "reaction_dice": [4, 1] | None, "pick": None | reaction_pick(...),
               "objective_done": False, "agree_end": False}, ...},
     "figures": [{"id": "h1", "side": "host", "name", "ref", "reactions", "speed", "combat_skill",
                  "toughness", "savvy", "save", "save_kind", "second_save", "weapons", "bot",
                  "kerin", "stun": 0, "status": "undeployed" | "active" | "casualty" | "retreated",
                  "die": None | 0, "face": None, "slot": None | "quick" | "slow", "acted": False}],
     "activation": None | {"side", "figures": ["h1"], "fire": ["h1"]},
     "ending": {"last_round": None | 4}, "referee": None | "7",
     "third_party": None | {"gone": False, "next": 9, "reinforcement": figure, ...card},
     "dramatic_combat": True, "hit_numbers": None | {"open": 5, "cover": 6},
     "held_field": None | "host" | "guest" | "none", "last": None | {"type", "text"}}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from battles.engine import fp_combat
from battles.engine.fp_enemies.profiles import _panic_top
from battles.engine.fp_pvp import coop as coop_rules
from battles.engine.fp_pvp.setup import SIDES
from battles.engine.fp_tracker.combat import _weapon_of
from live.engine.tracker import (
    Action,
    Event,
    NotYours,
    Role,
    TrackerError,
    payload_faces,
    payload_flag,
    payload_int,
    payload_ints,
    payload_words,
    reaction_pick,
)
from rules.engine.dice import Dice, DiceError, Keep
from rules.engine.state import copy_state
from rules.engine.tables import RangeTable

#: The three-way battle's third party, as a figure's ``side`` (p.37); its figures' ids start with ``t``.
#: In a co-op battle the enemy waves are this side (pp.39-41).
THIRD = "third"
#: ``state["mode"]`` of an expanded co-op battle (pp.39-41); a PvP battle's is ``"pvp"``.
COOP = "coop"
PHASES: tuple[str, ...] = ("deploy", "reactions", "quick", "enemy", "slow", "end", "over")
PHASE_NAMES: dict[str, str] = {
    "deploy": "Deployment",
    "reactions": "Reaction rolls",
    "quick": "Quick Actions",
    "enemy": "Enemy Actions (third party)",
    "slow": "Slow Actions",
    "end": "End of the round",
    "over": "Battle over",
}
#: Initiative point uses (p.35) spent with ``spend_point``; the brawl draw is ``draw_if_lost`` on a brawl.
POINT_USES: dict[str, str] = {
    "fire": "Fire: +1 Shot and natural 1s to Hit rerolled (spend before rolling to Hit)",
    "double_speed": "Double Speed for one move",
    "remove_stun": "Remove all Stun markers (a figure selected to act)",
}
#: Figures a player activates at a time in the Quick and Slow Action phases (p.36).
MOST_AT_ONCE = 2
#: Figures placed per turn at deployment (p.36).
DEPLOY_AT_ONCE = 2


def _err(message: str, field: str | None = None) -> TrackerError:
    return TrackerError(message, field=field)


def _is_coop(state: Mapping[str, Any]) -> bool:
    return state.get("mode") == COOP


def _other(side: str) -> str:
    return "guest" if side == "host" else "host"


def _figure_of(raw: Mapping[str, Any], side: str, index: int) -> dict[str, Any]:
    if not isinstance(raw, Mapping) or not str(raw.get("name") or "").strip():
        raise _err(f"figures.{side}[{index}] must be a figure with a name.", f"figures.{side}")
    return {
        "id": f"{side[0]}{index + 1}",
        "side": side,
        "name": str(raw["name"])[:40],
        "ref": str(raw.get("ref") or ""),
        "reactions": int(raw.get("reactions") or 1),
        "speed": int(raw.get("speed") or 4),
        "combat_skill": int(raw.get("combat_skill") or 0),
        "toughness": int(raw.get("toughness") or 3),
        "savvy": int(raw.get("savvy") or 0),
        "save": raw.get("save"),
        "save_kind": raw.get("save_kind") or fp_combat.ARMOR,
        "second_save": raw.get("second_save"),
        "weapons": [dict(w) for w in raw.get("weapons") or () if isinstance(w, Mapping)],
        "bot": bool(raw.get("bot")),
        "kerin": bool(raw.get("kerin")),
        **({"rank": str(raw.get("rank") or "basic"), "kit": [str(k) for k in raw.get("kit") or ()]} if side == THIRD else {}),
        **({"wave": int(raw["wave"]), "ai": str(raw.get("ai") or "")} if side == THIRD and raw.get("wave") else {}),
        "stun": 0,
        "status": "undeployed",
        "die": None,
        "face": None,
        "slot": None,
        "acted": False,
    }


def initial_state(setup: Mapping[str, Any], tables: Mapping[str, RangeTable]) -> dict[str, Any]:
    """The first state from a meeting's set-up: ``card`` (:func:`battles.engine.fp_pvp.generate`
    with ``figures`` per side), ``names`` {side: crew name}, ``players`` {side: [user ids as
    text]}, ``dramatic_combat`` (bool) and ``hit_numbers`` ({open, cover} from the core rulebook,
    needed unless Dramatic Combat is on). Raises :class:`TrackerError` naming the key at fault."""
    card = setup.get("card")
    if not isinstance(card, Mapping) or not isinstance(card.get("figures"), Mapping):
        raise _err("setup.card must be a PvP set-up card with the figures of each side.", "setup")
    dramatic = bool(setup.get("dramatic_combat"))
    hit = setup.get("hit_numbers")
    if not dramatic:
        if not isinstance(hit, Mapping) or not all(isinstance(hit.get(k), int) and 2 <= hit[k] <= 10 for k in ("open", "cover")):
            raise _err(
                "hit_numbers {open, cover} from your core rulebook are needed unless Dramatic Combat is on.", "hit_numbers"
            )
        fp_combat.hit_numbers(
            tables, dramatic=False, core=fp_combat.HitNumbers(open=hit["open"], cover=hit["cover"], source="core")
        )
    figures: list[dict[str, Any]] = []
    sides: dict[str, Any] = {}
    for side in SIDES:
        raws = list(card["figures"].get(side) or ())
        if not raws:
            raise _err(f"The {side} side fields no figures.", "setup")
        figures.extend(_figure_of(raw, side, i) for i, raw in enumerate(raws))
        players = [str(p) for p in (setup.get("players") or {}).get(side) or ()]
        if not players:
            raise _err(f"Nobody plays the {side} side: seat at least one player.", "players")
        sides[side] = {
            "name": str((setup.get("names") or {}).get(side) or side)[:80],
            "players": players,
            "points": int(card.get("initiative_points", {}).get(side, 0)),
            "power_rating": int(card.get("power_rating", {}).get(side, {}).get("total", 0)),
            "reaction_dice": None,
            "objective_done": False,
            "agree_end": False,
            "pick": None,
        }
    coop = card.get("mode") == COOP
    third = card.get("third_party")
    if coop and not (isinstance(third, Mapping) and third.get("figures")):
        raise _err("setup.card: a co-op battle needs its enemy waves (p.40).", "setup")
    if third:
        third = {**dict(third), "gone": False}
        raws = list(third.pop("figures", None) or ())
        figures.extend(_figure_of(raw, THIRD, i) for i, raw in enumerate(raws))
        if third.get("round") is None:
            for fig in figures:
                if fig["side"] == THIRD and (not coop or fig.get("wave") == 1):
                    fig["status"] = "active"
        third["next"] = len(raws) + 1
        if coop:
            third.update(arrived=[1], edges={}, wave3_checks=0)
    if coop:  # no initiative points and no Seize the Initiative; Wave 1 then the crews set up (p.40)
        for fig in figures:
            if fig["side"] != THIRD:
                fig["status"] = "active"
        for own in sides.values():
            own["points"] = 0
    referee = setup.get("referee")
    return {
        "mode": COOP if coop else "pvp",
        "round": 1 if coop else 0,
        "phase": "reactions" if coop else "deploy",
        "turn": None if coop else str(card.get("deploys_first") or "host"),
        "first_player": str(card.get("first_player") or "host"),
        "sides": sides,
        "figures": figures,
        "activation": None,
        "ending": {"last_round": None},
        "third_party": third or None,
        "referee": None if referee in (None, "") else str(referee),
        "dramatic_combat": dramatic,
        "hit_numbers": None if dramatic else {"open": hit["open"], "cover": hit["cover"]},  # type: ignore[index]
        "reason": dict(card.get("reason") or {}),
        "location": dict(card.get("location") or {"where": "neutral", "world": "", "traits": []}),
        "held_field": None,
        "last": {
            "type": "round",
            "text": "Round 1: Wave 1 and both crews are on the table; each player rolls Reactions for their own crew (p.40).",
        }
        if coop
        else None,
    }


# -- who acts ----------------------------------------------------------------------------------


def _seated(state: Mapping[str, Any], action: Action) -> list[str]:
    """The sides the actor sits on (readers sit nowhere)."""
    if action.role == Role.VIEWER:
        return []
    return [side for side in SIDES if action.actor in state["sides"][side]["players"]]


def _is_referee(state: Mapping[str, Any], action: Action) -> bool:
    return action.role != Role.VIEWER and bool(state.get("referee")) and action.actor == state["referee"]


def _runs_third(state: Mapping[str, Any], action: Action) -> bool:
    """Who acts for the third party: the referee when one is seated, else either player."""
    if state.get("referee"):
        return _is_referee(state, action)
    return bool(_seated(state, action))


def _acting(state: Mapping[str, Any], action: Action, side: str, field: str = "figure") -> None:
    if side == THIRD:
        if not _runs_third(state, action):
            raise NotYours("The referee runs the third party." if state.get("referee") else "Only a player runs the third party.")
        return
    if _is_referee(state, action):
        raise _err(f"The referee runs the third party, not the {state['sides'][side]['name']} crew.", "figure")
    if side not in _seated(state, action):
        raise NotYours(f"You do not play the {state['sides'][side]['name']} side.")


def _turn_side(state: Mapping[str, Any], action: Action, what: str) -> str:
    """The side whose turn it is, refusing anyone who does not play it."""
    side = state["turn"]
    if side is None:
        raise _err(f"Nobody has a {what} left in this phase: go on to the next one.", "type")
    _acting(state, action, side)
    return str(side)


def _fig(state: Mapping[str, Any], fid: Any, field: str, *, status: str | None = "active") -> dict[str, Any]:
    for fig in state["figures"]:
        if fig["id"] == str(fid or "").strip():
            if status is not None and fig["status"] != status:
                raise _err(f"{fig['name']} is {fig['status']}.", field)
            return fig  # type: ignore[no-any-return]
    raise _err(f"{field} must be a figure id such as h1 or g2; got {fid!r}.", field)


def _phase(state: Mapping[str, Any], *allowed: str, what: str) -> None:
    if state["phase"] not in allowed:
        names = " or ".join(PHASE_NAMES[p] for p in allowed)
        raise _err(f"{what} happens in {names}; it is now {PHASE_NAMES[state['phase']]}.", "type")


def _on_table(state: Mapping[str, Any], side: str) -> list[dict[str, Any]]:
    return [f for f in state["figures"] if f["side"] == side and f["status"] == "active"]


def _able(state: Mapping[str, Any], side: str) -> list[dict[str, Any]]:
    """The side's figures still to act in this phase."""
    return [f for f in _on_table(state, side) if f["slot"] == state["phase"] and not f["acted"]]


def _pass_turn(state: dict[str, Any], side: str) -> None:
    """After ``side`` acted: the other player if they have figures left, else ``side`` again, else nobody."""
    other = _other(side)
    if state["phase"] == "deploy":
        left = {s: [f for f in state["figures"] if f["side"] == s and f["status"] == "undeployed"] for s in SIDES}
    else:
        left = {s: _able(state, s) for s in SIDES}
    state["turn"] = other if left[other] else side if left[side] else None


# -- deployment and rounds ---------------------------------------------------------------------


def _deploy(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    _phase(state, "deploy", what="Deployment")
    side = _turn_side(state, action, "figure to place")
    waiting = [f for f in state["figures"] if f["side"] == side and f["status"] == "undeployed"]
    picked = [_fig(state, fid, "figures", status="undeployed") for fid in payload_words(action, "figures")]
    need = min(DEPLOY_AT_ONCE, len(waiting))
    if len(picked) != need or len({f["id"] for f in picked}) != need or any(f["side"] != side for f in picked):
        raise _err(f"Place {need} of your figures not yet on the table ({', '.join(f['id'] for f in waiting)}).", "figures")
    for fig in picked:
        fig["status"] = "active"
    _pass_turn(state, side)
    events = [
        Event("deploy", f"{state['sides'][side]['name']} deploys {' and '.join(f['name'] for f in picked)}.", {"side": side})
    ]
    if state["turn"] is None:
        events.extend(_new_round(state, action, dice))
    return events


def _new_round(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Round start: +1 initiative point each (p.35), fresh Reaction dice, First Player rolls
    first; the third party arrives or is reinforced when its D100 row says this round (p.37)."""
    state["round"] += 1
    state["phase"] = "reactions"
    state["activation"] = None
    coop = _is_coop(state)
    for side in SIDES:
        if not coop:
            state["sides"][side]["points"] += 1
        # A co-op crew with nobody left on the table has no dice to roll; the other crew plays on.
        state["sides"][side]["reaction_dice"] = [] if coop and not _on_table(state, side) else None
        state["sides"][side]["agree_end"] = False
    for fig in state["figures"]:
        fig.update(die=None, face=None, slot=None, acted=False)
    state["turn"] = None if coop else state["first_player"]
    if coop:
        return [
            Event("round", f"Round {state['round']}: each player rolls Reactions for their own crew (p.40).", {}),
            *(_wave_arrives(state, action, dice, 2) if state["round"] == coop_rules.WAVE2_ROUND else []),
        ]
    first = state["sides"][state["first_player"]]["name"]
    return [
        Event(
            "round",
            f"Round {state['round']}: each side gains 1 initiative point (p.35); {first} holds the First Player token and rolls Reactions first.",
            {},
        ),
        *_third_arrives(state, action, dice),
    ]


def _third_arrives(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """The third party's arrival at the start of its round, and 1D6 reinforcements (one a
    specialist when 5-6 come) at the start of the round its row names (p.37)."""
    third = state["third_party"]
    if not third or third["gone"]:
        return []
    events: list[Event] = []
    rnd = state["round"]
    if third.get("round") == rnd:
        waiting = [f for f in state["figures"] if f["side"] == THIRD and f["status"] == "undeployed"]
        for fig in waiting:
            fig["status"] = "active"
        events.append(
            Event("third_party", f"The third party arrives from a random neutral edge: {len(waiting)} figures (p.37).", {})
        )
    if third.get("reinforcement_round") == rnd and third.get("reinforcement"):
        faces = payload_faces(action, "reinforcement_faces", 1)
        try:
            record = dice.roll_or_enter(
                str(third.get("reinforcements") or "1D6"), "Third party reinforcements (p.37)", faces=faces
            )
        except DiceError as exc:
            raise _err(str(exc), "reinforcement_faces") from None
        count = int(record.total or 0)
        special = count >= int(third.get("specialist_if_at_least") or 99)
        for n in range(count):
            template = third["reinforcement_specialist"] if special and n == 0 else third["reinforcement"]
            raw = {**template, "name": f"{'Specialist' if special and n == 0 else 'Basic'} +{n + 1} (round {rnd})"}
            fig = _figure_of(raw, THIRD, int(third["next"]) - 1)
            fig["status"] = "active"
            third["next"] = int(third["next"]) + 1
            state["figures"].append(fig)
        data = {"rolls": [record.as_dict()], "roll": record.as_dict()}
        said = " one of them a specialist" if special else ""
        events.append(Event("third_party", f"{count} more third-party figures arrive from its edge,{said} (p.37).", data))
    return events


#: Where a co-op wave arrives on its D6 (p.40): Wave 2's faces 3-4 are the enemy's edge, Wave 3's the crews' own.
EDGES: dict[int, tuple[str, str, str]] = {
    2: ("the left battlefield edge", "the enemy's battlefield edge", "the right battlefield edge"),
    3: ("the left battlefield edge", "the crews' own battlefield edge, behind them", "the right battlefield edge"),
}
OPPOSITE: dict[str, str] = {"left": "right", "right": "left", "enemy": "crews", "crews": "enemy"}


def _wave_arrives(state: dict[str, Any], action: Action, dice: Dice, wave: int) -> list[Event]:
    """Wave 2 at the start of round 3, or Wave 3 when its check calls it (p.40): a D6 (typed
    ``wave_faces``) picks the edge, within 4" of its centre; Wave 3 on Wave 2's edge goes to the
    opposite one."""
    third = state["third_party"]
    try:
        record = dice.roll_or_enter(
            "D6",
            f"Wave {wave} arrives: 1-2 left, 3-4 {'enemy' if wave == 2 else 'crews'} edge, 5-6 right (p.40)",
            faces=payload_faces(action, "wave_faces", 1),
        )
    except DiceError as exc:
        raise _err(str(exc), "wave_faces") from None
    index = (int(record.total or 1) - 1) // 2
    edge = ("left", "enemy" if wave == 2 else "crews", "right")[index]
    where = EDGES[wave][index]
    if wave == 3 and edge == third["edges"].get("2"):
        edge = OPPOSITE[edge]
        where = (
            f"the {'enemy' if edge == 'enemy' else 'crews'} battlefield edge"
            if edge in ("enemy", "crews")
            else f"the {edge} battlefield edge"
        )
        where += ", opposite Wave 2's"
    came = [f for f in state["figures"] if f["side"] == THIRD and f.get("wave") == wave and f["status"] == "undeployed"]
    for fig in came:
        fig["status"] = "active"
    third["arrived"] = [*third["arrived"], wave]
    third["edges"] = {**third["edges"], str(wave): edge}
    data = {"rolls": [record.as_dict()], "roll": record.as_dict(), "wave": wave, "edge": edge}
    text = f'Wave {wave} arrives: {len(came)} figures within 4" of the centre of {where} (p.40).'
    return [Event("wave", text, data)]


def _coop_roller(state: Mapping[str, Any], action: Action) -> str:
    """The crew a co-op player rolls Reactions for: their own, in any order (p.40)."""
    if _is_referee(state, action):
        raise _err("The referee runs the enemy; each player rolls their own crew's Reactions.", "type")
    seated = _seated(state, action)
    if not seated:
        raise NotYours("Only a player of either crew rolls Reactions.")
    wanted = str(action.payload.get("side") or "")
    waiting = [s for s in seated if state["sides"][s]["reaction_dice"] is None and (not wanted or s == wanted)]
    if not waiting:
        raise _err("Your crew has rolled its Reactions this round.", "type")
    return waiting[0]


def _roll_reactions(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    _phase(state, "reactions", what="Rolling Reactions")
    side = _coop_roller(state, action) if _is_coop(state) else _turn_side(state, action, "Reaction roll")
    own = state["sides"][side]
    count = len(_on_table(state, side))
    faces = payload_faces(action, "faces", count)
    try:
        record = dice.roll_or_enter(f"{count}D6", f"Reactions, {own['name']}", faces=faces, keep=Keep.SEPARATE)
    except DiceError as exc:
        raise _err(str(exc), "faces") from None
    own["reaction_dice"] = list(record.faces)
    other = _other(side)
    state["turn"] = other if state["sides"][other]["reaction_dice"] is None and not _is_coop(state) else None
    data = {"rolls": [record.as_dict()], "roll": record.as_dict(), "side": side}
    return [Event("reactions", f"{own['name']} rolls Reactions: {', '.join(map(str, record.faces))}.", data)]


def _assign(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    _phase(state, "reactions", what="Assigning a Reaction die")
    fig = _fig(state, action.payload.get("figure"), "figure")
    _acting(state, action, fig["side"])
    if fig["side"] == THIRD:
        raise _err(f"{fig['name']} rolls no Reaction die: it acts in the Enemy Actions phase.", "figure")
    faces = state["sides"][fig["side"]]["reaction_dice"]
    if faces is None:
        raise _err(f"{state['sides'][fig['side']]['name']} has not rolled Reactions yet.", "die")
    index = payload_int(action, "die", low=1, high=len(faces)) - 1
    holder = next((f for f in state["figures"] if f["side"] == fig["side"] and f["die"] == index and f is not fig), None)
    if holder is not None:
        raise _err(f"Die {index + 1} is {holder['name']}'s; pick a free one.", "die")
    face = faces[index]
    fig.update(die=index, face=face, slot="quick" if face <= fig["reactions"] else "slow")
    when = "Quick Actions" if fig["slot"] == "quick" else "Slow Actions"
    return [
        Event(
            "assign",
            f"{fig['name']} takes die {index + 1} ({face}) against Reactions {fig['reactions']}: {when}.",
            {"figure": fig["id"]},
        )
    ]


def _activate(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    _phase(state, "quick", "enemy", "slow", what="Activating figures")
    enemy = state["phase"] == "enemy"
    if enemy:
        side = THIRD
        _acting(state, action, THIRD, "figures")
    else:
        side = _turn_side(state, action, "figure to activate")
    picked = [_fig(state, fid, "figures") for fid in payload_words(action, "figures")]
    able = {f["id"] for f in _able(state, side)}
    most = len(able) if enemy else 1 if _is_coop(state) else MOST_AT_ONCE
    if not 1 <= len(picked) <= max(1, most) or len({f["id"] for f in picked}) != len(picked):
        count = "one" if most == 1 else "one or two"
        raise _err(f"Pick {count} of your figures able to act now ({', '.join(sorted(able))}).", "figures")
    for fig in picked:
        if fig["id"] not in able:
            raise _err(f"{fig['name']} cannot act now: pick from {', '.join(sorted(able))}.", "figures")
    texts = []
    for fig in picked:
        fig["acted"] = True
        if fig["stun"]:
            fig["stun"] -= 1
            texts.append(f"{fig['name']} removes a Stun marker ({fig['stun']} left).")
    state["activation"] = {"side": side, "figures": [f["id"] for f in picked], "fire": []}
    names = " and ".join(f["name"] for f in picked)
    if enemy:
        who = "The enemy" if _is_coop(state) else "The third party"
        return [Event("activate", " ".join([f"{who} acts with {names} (by its AI).", *texts]), {"side": side})]
    _pass_turn(state, side)
    return [Event("activate", " ".join([f"{state['sides'][side]['name']} acts with {names}.", *texts]), {"side": side})]


def _in_activation(state: Mapping[str, Any], action: Action, fid: Any, field: str) -> dict[str, Any]:
    fig = _fig(state, fid, field)
    _acting(state, action, fig["side"], field)
    current = state["activation"]
    if current is None or fig["id"] not in current["figures"]:
        raise _err(f"{fig['name']} is not acting now: activate it first.", field)
    return fig


def _spend(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    _phase(state, "quick", "slow", what="Spending an initiative point")
    if _is_coop(state):
        raise _err("A co-op battle has no initiative points: they are a PvP rule (p.35).", "use")
    use = str(action.payload.get("use") or "")
    if use not in POINT_USES:
        raise _err(f"use must be one of {', '.join(POINT_USES)} (a brawl draw is draw_if_lost on the brawl); got {use!r}.", "use")
    fig = _in_activation(state, action, action.payload.get("figure"), "figure")
    if fig["side"] == THIRD:
        raise _err("The third party has no initiative points (p.35).", "figure")
    own = state["sides"][fig["side"]]
    if own["points"] < 1:
        raise _err(f"{own['name']} has no initiative point left.", "use")
    if use == "fire":
        if fig["id"] in state["activation"]["fire"]:
            raise _err(f"{fig['name']} already has a Fire point waiting for its shot.", "use")
        state["activation"]["fire"].append(fig["id"])
        said = f"{fig['name']}'s next shot gets +1 Shot and rerolls natural 1s to Hit"
    elif use == "remove_stun":
        if not fig["stun"]:
            raise _err(f"{fig['name']} has no Stun marker to remove.", "use")
        fig["stun"] = 0
        said = f"{fig['name']} removes all Stun markers"
    else:
        said = f'{fig["name"]} moves at double Speed ({fig["speed"] * 2}") for one move'
    own["points"] -= 1
    return [
        Event("point", f"{own['name']} spends an initiative point: {said} (p.35). {own['points']} left.", {"side": fig["side"]})
    ]


def _fighter(fig: Mapping[str, Any]) -> fp_combat.Fighter:
    return fp_combat.Fighter(
        name=fig["name"],
        combat_skill=int(fig["combat_skill"]),
        toughness=int(fig["toughness"]),
        speed=int(fig["speed"]),
        reactions=int(fig["reactions"]),
        savvy=int(fig["savvy"]),
        save=fig["save"],
        save_kind=fig["save_kind"],
        second_save=fig["second_save"],
        bot=fig["bot"],
        kerin=fig["kerin"],
        stun_markers=int(fig["stun"]),
        weapons=tuple(fp_combat.Weapon.from_dict(w) for w in fig["weapons"]),
    )


def _hits(
    state: dict[str, Any], fig: dict[str, Any], after: fp_combat.Fighter, outcomes: Sequence[fp_combat.HitOutcome]
) -> list[str]:
    fig["stun"] = after.stun_markers
    if any(o.result == "casualty" for o in outcomes):
        fig["status"] = "casualty"
        if fig["side"] == THIRD:
            fig["down_round"] = state["round"]  # for its Morale at the round's end
        return [] if any("casualty" in n for o in outcomes for n in o.notes) else [f"{fig['name']} is a casualty."]
    return []


def _resolve(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    _phase(state, "quick", "enemy", "slow", what="An attack")
    attacker = _in_activation(state, action, action.payload.get("attacker"), "attacker")
    target = _fig(state, action.payload.get("target"), "target")
    if _is_coop(state) and THIRD not in (attacker["side"], target["side"]):
        raise _err("The two crews fight as one force (p.40): pick an enemy figure as the target.", "target")
    if target["side"] == attacker["side"]:
        raise _err(
            "The third party treats both crews as one force: pick a crew figure (p.37)."
            if attacker["side"] == THIRD
            else "Pick a figure of the other crew or of the third party as the target.",
            "target",
        )
    mode = str(action.payload.get("mode") or "shot")
    faces = payload_ints(action, "faces") or None
    own = state["sides"].get(attacker["side"]) or {"name": "The third party", "points": 0}
    try:
        if mode == "shot":
            weapon = _weapon_of(attacker, action.payload.get("weapon"), "weapon")
            if weapon is None:
                raise _err(f"{attacker['name']} has no weapon to shoot with.", "weapon")
            fire = attacker["id"] in state["activation"]["fire"]
            core = state["hit_numbers"]
            shot = fp_combat.resolve_shot(
                dice,
                shooter=_fighter(attacker),
                target=_fighter(target),
                weapon=weapon,
                numbers=fp_combat.hit_numbers(
                    tables,
                    dramatic=state["dramatic_combat"],
                    core=None
                    if core is None
                    else fp_combat.HitNumbers(open=core["open"], cover=core["cover"], source="your core rulebook"),
                ),
                range_in=payload_int(action, "range", low=0, high=72, default=12),
                cover=payload_flag(action, "cover"),
                moved=payload_flag(action, "moved"),
                dramatic=state["dramatic_combat"],
                faces=faces,
                tables=tables,
                extra_shots=1 if fire and not weapon.has("area") else 0,
                reroll_ones=fire,
            )
            if fire:
                state["activation"]["fire"].remove(attacker["id"])
            texts = [*shot.lines, *_hits(state, target, shot.target, shot.outcomes)]
            rolls = shot.rolls
        elif mode == "brawl":
            draw = payload_flag(action, "draw_if_lost")
            if draw and own["points"] < 1:
                raise _err(f"{own['name']} has no initiative point to turn a lost brawl into a draw.", "draw_if_lost")
            fight = fp_combat.resolve_brawl(
                dice,
                a=_fighter(attacker),
                b=_fighter(target),
                a_weapon=_weapon_of(attacker, action.payload.get("weapon"), "weapon"),
                b_weapon=_weapon_of(target, action.payload.get("target_weapon"), "target_weapon"),
                faces=faces,
                tables=tables,
                draw_for="a" if draw else None,
            )
            if fight.drawn_by_point:
                own["points"] -= 1
            texts = list(fight.lines)
            for fig, after in ((attacker, fight.a), (target, fight.b)):
                texts.extend(_hits(state, fig, after, [o for o in fight.outcomes if o.target == after.name]))
            rolls = fight.rolls
        else:
            raise _err(f"mode must be shot or brawl; got {mode!r}.", "mode")
    except fp_combat.CombatError as exc:
        raise _err(*exc.in_payload_terms()) from None
    events = [
        Event(
            "resolve",
            " ".join(texts),
            {"attacker": attacker["id"], "target": target["id"], "rolls": [r.as_dict() for r in rolls]},
        )
    ]
    events.extend(_check_wipe(state))
    return events


def _check_wipe(state: dict[str, Any]) -> list[Event]:
    """A side with no figure left on the table has lost; the other Holds the Field."""
    if state["phase"] in ("deploy", "over"):
        return []
    if _is_coop(state):  # the crews are one force (p.40): the enemy's end is checked at the round's end
        if any(_on_table(state, side) for side in SIDES):
            return []
        state.update(phase="over", turn=None, activation=None, held_field="none")
        return [Event("over", "Neither crew has a figure left on the table: the battle is lost (p.40).", {})]
    events = _third_wiped(state)
    gone = [side for side in SIDES if not _on_table(state, side)]
    if not gone:
        return events
    held = "none" if len(gone) == 2 else _other(gone[0])
    state.update(phase="over", turn=None, activation=None, held_field=held)
    if held == "none":
        return [
            *events,
            Event("over", "Neither crew has a figure left on the table: the battle is over and nobody Holds the Field.", {}),
        ]
    return [
        *events,
        Event(
            "over", f"{state['sides'][gone[0]]['name']} has no figure left: {state['sides'][held]['name']} Holds the Field.", {}
        ),
    ]


def _third_wiped(state: dict[str, Any]) -> list[Event]:
    """The third party is gone once every figure of it that came is off the table and no more
    are to come (a later arrival or reinforcements)."""
    third = state["third_party"]
    if not third or third["gone"]:
        return []
    mine = [f for f in state["figures"] if f["side"] == THIRD]
    pending = any(f["status"] == "undeployed" for f in mine) or int(third.get("reinforcement_round") or 0) > state["round"]
    if pending or any(f["status"] == "active" for f in mine):
        return []
    third["gone"] = True
    return [Event("third_party", "The third party has no figure left on the table: it is gone (p.37).", {})]


def _next_phase(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    phase = state["phase"]
    if phase == "enemy":
        if not _runs_third(state, action):
            raise NotYours("The referee ends the third party's phase." if state.get("referee") else "Only a player can move on.")
    elif not _seated(state, action):
        raise NotYours(
            "The referee runs the third party; the players move the battle on."
            if _is_referee(state, action)
            else "Only a player at this battle can move it on."
        )
    if phase in ("deploy", "over"):
        raise _err(
            "Deployment ends by itself with the last figure placed." if phase == "deploy" else "The battle is over.", "type"
        )
    if phase == "reactions":
        unrolled = [state["sides"][s]["name"] for s in SIDES if state["sides"][s]["reaction_dice"] is None]
        unassigned = [f["name"] for s in SIDES for f in _on_table(state, s) if f["die"] is None]
        if unrolled or unassigned:
            raise _err(
                f"Still to do: {'roll Reactions for ' + ', '.join(unrolled) if unrolled else 'a Reaction die for ' + ', '.join(unassigned)}.",
                "type",
            )
        return _enter(state, "quick")
    if phase in ("quick", "slow"):
        left = [f["name"] for s in SIDES for f in _able(state, s)]
        if left:
            raise _err(f"Still to act in this phase: {', '.join(left)}.", "type")
    if phase == "quick":
        third = state["third_party"]
        # A card from before the third party had figures keeps the phase for the players to run it.
        modelled = any(f["side"] == THIRD for f in state["figures"])
        return _enter(state, "enemy" if third and not third["gone"] and (_on_table(state, THIRD) or not modelled) else "slow")
    if phase == "enemy":
        return _enter(state, "slow")
    if phase == "slow":
        return _end_round(state, action, dice)
    return _new_round(state, action, dice)  # from the end of the round


def _enter(state: dict[str, Any], phase: str) -> list[Event]:
    state["phase"] = phase
    state["activation"] = None
    if phase in ("quick", "slow") and _is_coop(state):
        # The player with the fewest figures to use in the phase starts (p.40); the host on a tie.
        able = {side: len(_able(state, side)) for side in SIDES}
        have = [side for side in SIDES if able[side]]
        state["turn"] = min(have, key=lambda side: (able[side], side != state["first_player"])) if have else None
    elif phase in ("quick", "slow"):
        first = state["first_player"]
        state["turn"] = first if _able(state, first) else _other(first) if _able(state, _other(first)) else None
    else:
        state["turn"] = None
    if phase == "enemy":
        for fig in _on_table(state, THIRD):
            fig.update(slot="enemy", acted=False)
    return [Event("phase", f"{PHASE_NAMES[phase]}.", {})]


def _end_round(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Round end (p.36): the battle ends here if the last roll said so; else 2D6 against the
    round number (under it: over at the end of the next round). The First Player token passes."""
    state.update(phase="end", turn=None, activation=None)
    if _is_coop(state):
        return _coop_end_round(state, action, dice)
    rnd = state["round"]
    events: list[Event] = _third_morale(state, action, dice)
    if state["ending"]["last_round"] == rnd:
        state.update(phase="over", held_field=None)
        return [*events, Event("over", f"Round {rnd} was the last: the battle is over; unfinished objectives fail (p.36).", {})]
    faces = payload_faces(action, "end_faces", 2)
    try:
        record = dice.roll_or_enter(
            "2D6", f"End of round {rnd}: under {rnd} ends the battle after the next round (p.36)", faces=faces
        )
    except DiceError as exc:
        raise _err(str(exc), "end_faces") from None
    total = int(record.total or 0)
    data = {"rolls": [record.as_dict()], "roll": record.as_dict()}
    if total < rnd:
        state["ending"]["last_round"] = rnd + 1
        events.append(
            Event("ending", f"End roll {total}, under round {rnd}: the battle ends at the end of round {rnd + 1}.", data)
        )
    else:
        events.append(Event("ending", f"End roll {total} against round {rnd}: the battle goes on.", data))
    state["first_player"] = _other(state["first_player"])
    events.append(Event("token", f"{state['sides'][state['first_player']]['name']} takes the First Player token.", {}))
    return events


#: The order in which a third party's figures flee on failed Morale dice (its lowest ranks first).
FLEE_ORDER = {"basic": 0, "specialist": 1, "lieutenant": 2, "captain": 3, "unique": 4}


def _third_morale(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Morale dice for the third party, the one AI force at the table (p.37), at the round's
    end as for any enemy: one D6 per figure of it that became a casualty this round; each die
    in its Panic range makes one figure flee (basic figures first; a Unique Individual never).
    Typed faces: ``morale_faces``. Fearless (Panic 0): no dice."""
    third = state["third_party"]
    if not third or third["gone"]:
        return []
    fallen = [f for f in state["figures"] if f["side"] == THIRD and f.get("down_round") == state["round"]]
    if not fallen:
        return []
    panic = _panic_top(str(third.get("panic") or "0"))
    if panic <= 0:
        return [Event("morale", "The third party is Fearless: no Morale dice.", {})]
    faces = payload_faces(action, "morale_faces", len(fallen))
    try:
        record = dice.roll_or_enter(f"{len(fallen)}D6", "Third party Morale", faces=faces, keep=Keep.SEPARATE)
    except DiceError as exc:
        raise _err(str(exc), "morale_faces") from None
    failures = sum(1 for face in record.faces if face <= panic)
    able = sorted(
        (f for f in _on_table(state, THIRD) if f.get("rank") != "unique"), key=lambda f: FLEE_ORDER.get(f.get("rank", ""), 0)
    )
    fled = able[:failures]
    for fig in fled:
        fig["status"] = "retreated"
    said = f"{', '.join(f['name'] for f in fled)} flee." if fled else "Nobody flees."
    data = {"rolls": [record.as_dict()], "roll": record.as_dict()}
    text = f"Third party Morale ({len(fallen)} D6, Panic 1-{panic}): {', '.join(map(str, record.faces))}. {said}"
    return [Event("morale", text, data), *_third_wiped(state)]


def _coop_end_round(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """A co-op round's end (pp.40-41): Morale per wave (Tough Fight); from round 3, while Wave 3
    has not come, 2D6 (typed ``end_faces``) under the round number brings it (its edge by
    ``wave_faces``). Checked first: the battle ends, the crews Holding the Field, when no enemy is
    on the table, Wave 2 has come, and Wave 3 has come and gone or this is round 6 or later (Make
    it Quick: no Wave 3 check then)."""
    rnd = state["round"]
    third = state["third_party"]
    events = _waves_morale(state, action, dice)
    if not _on_table(state, THIRD) and 2 in third["arrived"] and (3 in third["arrived"] or rnd >= coop_rules.QUICK_FROM):
        state.update(phase="over", held_field="both")
        why = "Wave 3 came and fell" if 3 in third["arrived"] else f"round {rnd} is round 6 or later (Make it Quick)"
        events.append(Event("over", f"No enemy is left on the table and {why}: both crews Hold the Field (p.40).", {}))
        return events
    if rnd >= coop_rules.WAVE2_ROUND and 3 not in third["arrived"]:
        try:
            record = dice.roll_or_enter(
                "2D6",
                f"End of round {rnd}: Wave 3 check, under {rnd} brings it (p.40)",
                faces=payload_faces(action, "end_faces", 2),
            )
        except DiceError as exc:
            raise _err(str(exc), "end_faces") from None
        third["wave3_checks"] = int(third.get("wave3_checks") or 0) + 1
        total = int(record.total or 0)
        data = {"rolls": [record.as_dict()], "roll": record.as_dict()}
        if total < rnd:
            events.append(Event("ending", f"Wave 3 check {total}, under round {rnd}: the enemy brings more forces.", data))
            events.extend(_wave_arrives(state, action, dice, 3))
        else:
            events.append(Event("ending", f"Wave 3 check {total} against round {rnd}: no more enemies this round.", data))
    return events


def _waves_morale(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Morale per wave (Tough Fight, p.41): one D6 per figure of a wave that fell this round,
    each 1 (the Panic range every wave has) makes one figure of that wave flee, basic figures
    first and never a Unique Individual. Typed ``morale_faces``: all the dice, Wave 1's first."""
    fallen = [f for f in state["figures"] if f["side"] == THIRD and f.get("down_round") == state["round"]]
    if not fallen:
        return []
    faces = payload_faces(action, "morale_faces", len(fallen))
    events: list[Event] = []
    at = 0
    panic = _panic_top(coop_rules.TOUGH_PANIC)
    for wave in sorted({int(f.get("wave") or 1) for f in fallen}):
        count = sum(1 for f in fallen if int(f.get("wave") or 1) == wave)
        typed = faces[at : at + count] if faces else None
        at += count
        try:
            record = dice.roll_or_enter(
                f"{count}D6", f"Morale, Wave {wave} (Tough Fight: Panic 1, p.41)", faces=typed, keep=Keep.SEPARATE
            )
        except DiceError as exc:
            raise _err(str(exc), "morale_faces") from None
        failures = sum(1 for face in record.faces if face <= panic)
        able = sorted(
            (f for f in _on_table(state, THIRD) if f.get("wave") == wave and f.get("rank") != "unique"),
            key=lambda f: FLEE_ORDER.get(f.get("rank", ""), 0),
        )
        fled = able[:failures]
        for fig in fled:
            fig["status"] = "retreated"
        said = f"{', '.join(f['name'] for f in fled)} flee." if fled else "Nobody flees."
        data = {"rolls": [record.as_dict()], "roll": record.as_dict(), "wave": wave}
        events.append(
            Event("morale", f"Wave {wave} Morale ({count} D6, Panic 1): {', '.join(map(str, record.faces))}. {said}", data)
        )
    return events


def _agree_end(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    _phase(state, "end", what="Agreeing to end the battle")
    if _is_coop(state):
        raise _err("A co-op battle ends when the enemy is cleared from the table (p.40); a crew may retreat instead.", "type")
    third = state["third_party"]
    if third and not third["gone"]:
        raise _err(
            "A third party is on the table: the battle cannot end by agreement; retreat off an edge instead (p.37).", "type"
        )
    seated = _seated(state, action)
    if not seated:
        raise NotYours("Only a player at this battle can agree to end it.")
    for side in seated:
        state["sides"][side]["agree_end"] = True
    names = " and ".join(state["sides"][s]["name"] for s in seated)
    if all(state["sides"][s]["agree_end"] for s in SIDES):
        state.update(phase="over", held_field="none")
        return [
            Event(
                "over",
                f"{names} agree{'s' if len(seated) == 1 else ''}: the battle ends by agreement; nobody Holds the Field (p.36).",
                {},
            )
        ]
    return [Event("agree_end", f"{names} offers to end the battle here; the other player must agree.", {})]


def _third_party_gone(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    if not _runs_third(state, action):
        raise NotYours("The referee says when the third party is gone." if state.get("referee") else "Only a player can say so.")
    third = state["third_party"]
    if _is_coop(state):
        raise _err("The enemy waves leave the table as casualties, by Morale or by retreating, one figure at a time.", "type")
    if not third or third["gone"]:
        raise _err("There is no third party on the table.", "type")
    third["gone"] = True
    return [Event("third_party", "The third party is gone from the table.", {})]


def _seat_referee(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A member of the room who plays neither crew takes the referee's seat (the meeting's
    referee joining once the tracker is open: :func:`battles.pvp_services.referee_join`)."""
    if action.role == Role.VIEWER or _seated(state, action):
        raise NotYours("A player of either crew cannot referee this battle.")
    if state.get("referee"):
        raise _err("This battle already has a referee.", "type")
    state["referee"] = action.actor
    return [Event("referee", "A referee takes the third party's seat: from now on only they run it.", {})]


def _unseat_referee(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """The referee leaves their seat, or a host's player frees it (a referee whose device has
    gone): from then on either player runs the third party again (p.37). The meeting's side is
    :func:`battles.pvp_services.referee_leave`."""
    if not state.get("referee"):
        raise _err("This battle has no referee.", "type")
    if not (_is_referee(state, action) or "host" in _seated(state, action)):
        raise NotYours("Only the referee, or the host's players, free the referee's seat.")
    state["referee"] = None
    return [Event("referee", "The referee's seat is free: either player runs the third party again.", {})]


def _retreat(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    _phase(state, "quick", "enemy", "slow", "end", what="Retreating")
    fig = _fig(state, action.payload.get("figure"), "figure")
    _acting(state, action, fig["side"])
    fig["status"] = "retreated"
    return [Event("retreat", f"{fig['name']} retreats off the battlefield edge.", {"figure": fig["id"]}), *_check_wipe(state)]


def _adjust(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    fig = _fig(state, action.payload.get("figure"), "figure", status=None)
    _acting(state, action, fig["side"])
    changes = []
    if action.payload.get("stun") not in (None, ""):
        fig["stun"] = payload_int(action, "stun", low=0, high=9)
        changes.append(f"Stun {fig['stun']}")
    if action.payload.get("status") not in (None, ""):
        status = str(action.payload["status"])
        if status not in ("active", "casualty", "retreated") or fig["status"] == "undeployed":
            raise _err("status must be active, casualty or retreated, for a figure on the table.", "status")
        fig["status"] = status
        if status == "casualty" and fig["side"] == THIRD:
            fig["down_round"] = state["round"]  # it counts for its Morale at the round's end
        changes.append(status)
    if not changes:
        raise _err("Nothing to change: give stun or status.", "stun")
    return [Event("adjust", f"{fig['name']}: {', '.join(changes)}.", {"figure": fig["id"]}), *_check_wipe(state)]


def _objective(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    seated = _seated(state, action)
    side = str(action.payload.get("side") or (seated[0] if len(seated) == 1 else ""))
    if side not in SIDES:
        raise _err("side must be host or guest.", "side")
    _acting(state, action, side)
    if state["phase"] in ("deploy", "over"):
        raise _err("Objectives are completed during the battle.", "type")
    state["sides"][side]["objective_done"] = True
    return [Event("objective", f"{state['sides'][side]['name']} completes its objective.", {"side": side})]


HANDLERS = {
    "deploy": _deploy,
    "roll_reactions": _roll_reactions,
    "assign_reaction": _assign,
    "activate": _activate,
    "spend_point": _spend,
    "resolve": _resolve,
    "next_phase": _next_phase,
    "agree_end": _agree_end,
    "third_party_gone": _third_party_gone,
    "seat_referee": _seat_referee,
    "unseat_referee": _unseat_referee,
    "retreat": _retreat,
    "adjust": _adjust,
    "objective_done": _objective,
}


def apply(
    state: Mapping[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]
) -> tuple[dict[str, Any], list[Event]]:
    """Apply one action (module docstring) to a copy of ``state``; returns the new state and its
    events. Raises :class:`TrackerError` (its subclass ``NotYours`` for a player acting out of
    their seat) naming the payload field; nothing changes then."""
    handler = HANDLERS.get(action.type)
    if handler is None:
        raise _err(f"Unknown action {action.type!r}; choose one of {', '.join(HANDLERS)}.", "type")
    if state["phase"] == "over" and action.type != "adjust":
        raise _err("The battle is over.", "type")
    new: dict[str, Any] = copy_state(dict(state))
    events = handler(new, action, dice, tables)
    new["last"] = {"type": events[-1].type, "text": events[-1].text} if events else new["last"]
    for side in SIDES:
        faces = new["sides"][side]["reaction_dice"]
        new["sides"][side]["pick"] = (
            None if faces is None else reaction_pick(faces, [f for f in new["figures"] if f["side"] == side])
        )
    return new, events


def outcome(state: Mapping[str, Any]) -> dict[str, Any]:
    """Each side's result, for its own campaign (p.37): ``{side: {"won", "held_field",
    "objective_done", "casualties": [{"name", "ref"}], "retreated": [...], "loot_rolls",
    "rivals": 0, "battlefield_finds": False}}`` plus ``rounds``. A side wins by Holding the
    Field; pay is normal with the win bonus for a completed objective; 1 Loot roll each, +1 for
    facing a Power Rating of 5 or more; PvP never makes Rivals."""
    result: dict[str, Any] = {"rounds": state["round"], "held_field": state["held_field"]}
    if _is_coop(state):
        return {**result, "mode": COOP, **{side: _coop_outcome(state, side) for side in SIDES}}
    for side in SIDES:
        other = state["sides"][_other(side)]
        figures = [f for f in state["figures"] if f["side"] == side]
        result[side] = {
            "won": state["held_field"] == side,
            "held_field": state["held_field"] == side,
            "objective_done": state["sides"][side]["objective_done"],
            "casualties": [{"name": f["name"], "ref": f["ref"]} for f in figures if f["status"] == "casualty"],
            "retreated": [{"name": f["name"], "ref": f["ref"]} for f in figures if f["status"] == "retreated"],
            "loot_rolls": 1 + (1 if other["power_rating"] >= 5 else 0),
            "rivals": 0,
            "battlefield_finds": False,
        }
    return result


def _coop_outcome(state: Mapping[str, Any], side: str) -> dict[str, Any]:
    """One crew's aftermath of a co-op battle (p.41): both crews won when either Holds the Field;
    +1 to its credits roll, its own Battlefield Finds, its Loot roll and the shared one, and the
    Invasion check with +1 per wave faced that had the Invasion Threat trait."""
    held = state["held_field"] == "both"
    third = state["third_party"] or {}
    faced = [w for w in third.get("waves") or () if int(w["wave"]) in third.get("arrived", ())]
    invasion = sum(1 for w in faced if w.get("invasion"))
    figures = [f for f in state["figures"] if f["side"] == side]
    return {
        "won": held,
        "held_field": held,
        "objective_done": held,
        "casualties": [{"name": f["name"], "ref": f["ref"]} for f in figures if f["status"] == "casualty"],
        "retreated": [{"name": f["name"], "ref": f["ref"]} for f in figures if f["status"] == "retreated"],
        "loot_rolls": 1 if held else 0,
        "shared_loot": 1 if held else 0,
        "pay_bonus": 1,
        "battlefield_finds": held,
        "invasion": {"check": invasion > 0, "modifier": invasion},
        "waves_faced": [int(w["wave"]) for w in faced],
    }
