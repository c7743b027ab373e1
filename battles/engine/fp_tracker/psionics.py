"""Crew Psionics in the live battle tracker (Compendium pp.17-22): the Psionic Action with its
Projection roll, Strain, the powers' effects, the psionic gear, and the reinforcements a power
can bring on a world where Psionics draw attention.

The set-up gives a crew figure ``psionic`` (on/off), ``powers`` (``{name: enhanced}`` as the
campaign keeps them, or a list of names), ``swift`` (a Swift Psionic strains more safely, p.20),
``shrels`` (Warding Shrels carried, p.27) and ``focus`` (a Psionic Focus, p.27); the battle's
``psionic_legality`` (``outlawed``, ``unusual`` or ``common``, p.20) is the world's.

Rulings:

- A Psionic Action is a bonus action taken as the Psionic activates (p.19): in its own phase,
  before its ``act`` and once per round. The power's target is chosen first, then the
  Projection roll: 2D6, one more D6 for an enhanced power (p.20), +1" with a Psionic Focus
  (p.27). The target's distance in inches is typed (the figures are on the table). A power on
  the Psionic itself works without a roll (p.19).
- A Projection short of the target leaves the choice to the player, after the roll: Strain
  (``psionic_strain`` with ``strain`` on) or let the power fail. The Strain die is read on the
  psionic-strain table (Swift column for a Swift Psionic) and added to the range. Stunned gives
  the Psionic a Stun marker, unless a single Warding Shrel takes it: the effect is avoided and
  the Shrel is spent for the battle; two Shrels cancel each other (p.27).
- Every Psionic Action whose power was projected counts as a power used (the turn's psionic
  detection step reads the count, p.20); one that fails for want of range still counts.
- Psionics draw attention (``unusual``, p.21): two or more 6s among the Projection dice (the
  Strain die is not a Projection die) call reinforcements once per battle. They are rolled
  (three D6 on psionic-reinforcements) and arrive at the end of the next round, at the middle of
  the enemy edge, unless the enemy is gone from the table by then.
- Effects the app applies (psionic-powers data): Shock (+1 Stun marker), Rejuvenate (-1 Stun
  marker; refused before rolling when there is none), Psionic Scare (a Morale D6 for an enemy
  against its group's Panic range now; Fearless figures and Unique Individuals are immune),
  Enrage (a figure that has not acted: it charges its Speed +2" and cannot act later this
  round), Barrier and Predict (persist to the end of the following round, shown on the figure
  card: a Barrier's 4+ is rolled by the shot resolver against each ranged hit on the figure;
  Predict is the player's to use at its next activation), Shroud (a fog wall kept in
  ``psionics.effects`` until the end of the following round). Grab and Lift roll their distance (1D6 / 1D6+1 inches) for the player to
  move the figure; Guide tells which ally may take one Shot at once (resolve it as a shot).
- Robotic targets (Bots, Soulless and cybernetic enemies) cannot be chosen for powers that do
  not affect them (p.18). Lift takes a friendly or neutral figure only: a crew figure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine.fp_tracker.base import _err, _need, _roll, _rolls, _take
from battles.engine.fp_tracker.enemy_psionics import bolstered, refuse_if_paralyzed
from battles.engine.fp_tracker.lookups import _any_figure, _crew, _down, _group, _mine, _on_table, _phase, panic_range
from battles.engine.fp_tracker.setup import _add_enemy, psionics_state
from live.engine.tracker import Action, Event, payload_flag, payload_int, payload_ints
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import Entry, RangeTable

POWERS_TABLE = "psionic-powers"
STRAIN_TABLE = "psionic-strain"
REINFORCEMENTS_TABLE = "psionic-reinforcements"
REINFORCEMENT_DICE = 3  # p.21: three D6, each read on its own
MAX_DISTANCE = 72  # inches: the longest distance a target can be typed at


def _book(state: dict[str, Any]) -> dict[str, Any]:
    """The battle's psionic bookkeeping (a battle made before Psionics were tracked has none yet)."""
    if "psionics" not in state:
        state["psionics"] = psionics_state({})
    return state["psionics"]  # type: ignore[no-any-return]


def _power(tables: Mapping[str, RangeTable], fig: Mapping[str, Any], raw: Any) -> tuple[str, Entry, bool]:
    """(power name, its psionic-powers row, enhanced) for one of ``fig``'s powers."""
    known = fig.get("powers") or {}
    wanted = str(raw or "").strip().lower()
    for name, enhanced in known.items():
        if name.lower() == wanted:
            for entry in _need(tables, POWERS_TABLE).entries:
                if entry.result.lower() == wanted:
                    return name, entry, bool(enhanced)
            raise _err(f"The {POWERS_TABLE} table has no power {name!r}.", "power")
    listed = ", ".join(known) or "none"
    raise _err(f"power must be one of {fig['name']}'s powers ({listed}); got {raw!r}.", "power")


def _robotic(fig: Mapping[str, Any]) -> bool:
    return bool(fig.get("bot") or fig.get("soulless")) or fig.get("kind") == "cybernetic"


def _target(state: dict[str, Any], psionic: dict[str, Any], name: str, entry: Entry, raw: Any) -> dict[str, Any]:
    """The power's target: the Psionic itself for a blank target or ``self``, else a figure on the
    table that the power may take (p.18)."""
    data = entry.data
    target = psionic if raw in (None, "", "self") else _any_figure(state, raw, "target")
    if target is psionic and not data.get("target_self"):
        raise _err(f"{name} cannot target the Psionic itself (p.18); choose another figure.", "target")
    if _robotic(target) and not data.get("affects_robotic"):
        raise _err(f"{name} does not affect robotic figures (p.18); {target['name']} is one.", "target")
    if name == "Lift" and target["side"] != "crew":
        raise _err("Lift takes a friendly or neutral figure (p.18): choose a crew figure.", "target")
    if name == "Enrage" and target["acted"]:
        raise _err(f"Enrage needs a figure that has not acted this round; {target['name']} has.", "target")
    if name == "Rejuvenate" and not target["stun"]:
        raise _err(f"{target['name']} has no Stun marker for Rejuvenate to remove.", "target")
    if name == "Psionic Scare" and target["side"] != "enemy":
        raise _err("Psionic Scare makes an enemy check Morale (p.18): choose an enemy figure.", "target")
    return target


def _psionic(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A Psionic Action (pp.19-20). Payload: ``figure`` (the crew Psionic), ``power`` (one of its
    powers), ``target`` (a figure id; blank or ``self`` for the Psionic), ``distance`` (inches to
    the target, 0-72; not needed on itself), ``faces`` (the Projection dice typed: two, three for an
    enhanced power), ``effect_faces`` (dice a power rolls: Grab, Lift, the Scare's Morale die),
    ``reinforcement_faces`` (the three D6 when reinforcements are called), ``pull`` (Grab pulls
    instead of pushing). Raises :class:`TrackerError` naming the field; changes nothing then."""
    book = _book(state)
    fig = _crew(state, action.payload.get("figure"))
    _mine(action, fig)
    _phase(state, "quick", "slow", what="A Psionic Action")
    if not fig.get("psionic") or not fig.get("powers"):
        raise _err(f"{fig['name']} is not a Psionic with powers.", "figure")
    if book["pending"] is not None:
        raise _err("First say whether the last Psionic Strains or lets the power fail (psionic_strain).", "type")
    if fig["slot"] != state["phase"] or fig["acted"]:
        raise _err(f"{fig['name']} takes a Psionic Action as it activates in its own phase, before it acts (p.19).", "figure")
    if fig.get("psionic_round") == state["round"]:
        raise _err(f"{fig['name']} has taken its Psionic Action this round.", "figure")
    refuse_if_paralyzed(state, fig, "figure")
    name, entry, enhanced = _power(tables, fig, action.payload.get("power"))
    target = _target(state, fig, name, entry, action.payload.get("target"))
    fig["psionic_round"] = state["round"]
    book["uses"] += 1
    effect_faces = payload_ints(action, "effect_faces")
    pull = payload_flag(action, "pull")
    if target is fig:
        said, made = _effect(state, fig, target, name, entry, dice, effect_faces, tables, pull=pull)
        return [
            Event("psionic", f"{fig['name']} uses {name} on itself: it works at once (p.19). {' '.join(said)}", _rolls(*made))
        ]
    distance = payload_int(action, "distance", low=0, high=MAX_DISTANCE)
    notation = "3D6" if enhanced else "2D6"
    typed = payload_ints(action, "faces") or None
    projection = _roll(dice, notation, f"{fig['name']}: Projection for {name}", typed)
    focus = 1 if fig.get("focus") else 0
    reach = int(projection.total or 0) + focus
    texts = [f'{fig["name"]} projects {name} at {target["name"]} ({distance}"): {notation} {projection.total}']
    if focus:
        texts[0] += ' +1" Psionic Focus'
    texts[0] += f' = {reach}".'
    rolls: list[RollRecord] = [projection]
    more, extra = _attention(state, projection, action, dice, tables)
    texts.extend(more)
    rolls.extend(extra)
    if reach >= distance:
        done, used = _effect(state, fig, target, name, entry, dice, effect_faces, tables, pull=pull)
        return [Event("psionic", " ".join([*texts, *done]), _rolls(*rolls, *used))]
    book["pending"] = {
        "figure": fig["id"],
        "power": name,
        "target": target["id"],
        "distance": distance,
        "reach": reach,
        "pull": pull,
    }
    texts.append(f'Short by {distance - reach}": Strain (one more D6, with its risk) or let {name} fail.')
    return [Event("psionic", " ".join(texts), {**_rolls(*rolls), "pending": True})]


def _psionic_strain(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """The choice after a short Projection (p.20). Payload: ``figure`` (the Psionic), ``strain``
    (on: roll the Strain die; off: the power fails), ``faces`` (the Strain die typed),
    ``effect_faces`` (dice the power then rolls). Raises :class:`TrackerError`."""
    book = _book(state)
    pending = book["pending"]
    if pending is None:
        raise _err("No Psionic is waiting to Strain.", "type")
    fig = _crew(state, action.payload.get("figure"))
    _mine(action, fig)
    if fig["id"] != pending["figure"]:
        raise _err(f"It is {_crew(state, pending['figure'], active=False)['name']} who must choose.", "figure")
    book["pending"] = None
    name = pending["power"]
    if not payload_flag(action, "strain"):
        return [Event("psionic", f"{fig['name']} does not Strain: {name} fails.", {})]
    column = "Swift" if fig.get("swift") else "Standard"
    typed = payload_ints(action, "faces")
    rolled = _need(tables, STRAIN_TABLE).roll_or_enter(
        dice, value=typed[0] if typed else None, column=column, reason=f"{fig['name']}: Strain for {name}"
    )
    reach = int(pending["reach"]) + rolled.value
    texts = [f'{fig["name"]} Strains: D6 {rolled.value}, range {reach}" for {pending["distance"]}". {rolled.entry.result}.']
    rolls: list[RollRecord] = [rolled.record]
    fails, notes = strain_toll(fig, rolled.entry.data)
    texts.extend(notes)
    if fails or reach < int(pending["distance"]):
        texts.append(f"{name} fails.")
        return [Event("psionic", " ".join(texts), _rolls(*rolls))]
    target = _any_figure(state, pending["target"], "target")
    _, entry, _ = _power(tables, fig, name)
    faces = payload_ints(action, "effect_faces")
    done, used = _effect(state, fig, target, name, entry, dice, faces, tables, pull=bool(pending.get("pull")))
    return [Event("psionic", " ".join([*texts, *done]), _rolls(*rolls, *used))]


def strain_toll(fig: dict[str, Any], data: Mapping[str, Any]) -> tuple[bool, list[str]]:
    """What the Strain die's psionic-strain row ``data`` (``stunned``, ``power_fails``) does to
    the Psionic ``fig`` (pp.20, 27): a Stun marker (``fig["stun"]`` + 1), unless its single
    Warding Shrel takes it (the effect avoided, ``shrel_spent`` set); two Shrels cancel each
    other. Shared by the tracker and no-minis play. Returns ``(power fails, lines to log)``."""
    fails = bool(data.get("power_fails"))
    if not data.get("stunned"):
        return fails, []
    if fig.get("shrels") == 1 and not fig.get("shrel_spent"):
        fig["shrel_spent"] = True
        return False, ["The Warding Shrel takes the Strain and shuts down for the rest of the battle (p.27)."]
    fig["stun"] += 1
    return fails, ["Two Warding Shrels cancel each other (p.27)."] if fig.get("shrels") == 2 else []


def _effect(
    state: dict[str, Any],
    psionic: dict[str, Any],
    target: dict[str, Any],
    name: str,
    entry: Entry,
    dice: Dice,
    faces: list[int],
    tables: Mapping[str, RangeTable],
    *,
    pull: bool = False,
) -> tuple[list[str], list[RollRecord]]:
    """Apply power ``name`` on ``target`` (psionic-powers data, p.18); ``pull``: Grab pulls the
    target toward the Psionic instead of pushing it away. Returns the lines and rolls."""
    data = entry.data
    rnd = state["round"]
    who = target["name"]
    if name == "Shock":
        target["stun"] += int(data.get("stun_markers") or 1)
        return [f"{who} takes a Stun marker ({target['stun']} now)."], []
    if name == "Rejuvenate":
        target["stun"] = max(0, target["stun"] - int(data.get("stun_markers_removed") or 1))
        return [f"{who} loses a Stun marker ({target['stun']} left)."], []
    if name == "Enrage":
        target["acted"] = True
        return [
            f'{who} charges {int(target["speed"]) + int(data.get("move_bonus_in") or 2)}" at the nearest opponent it can see '
            "and Brawls if it reaches it; it cannot act later this round."
        ], []
    if name in ("Grab", "Lift"):
        notation = str(data.get("move_in") or "1D6").upper()
        record = _roll(dice, notation, f"{psionic['name']}: {name} distance", _take(faces, 1))
        if name == "Lift":
            how = f'{who} is lifted {record.total}" ({notation}) any way and set down safely'
        else:
            way = "pulled straight toward" if pull else "pushed straight away from"
            how = f'{who} is {way} {psionic["name"]} {record.total}" ({notation})'
        return [f"{how}; stop half an inch short of any figure or terrain."], [record]
    if name == "Psionic Scare":
        return _scare(state, target, dice, faces, tables)
    if name == "Guide":
        return [
            f"{who} may take one Shot at once with a non-Area weapon at a target {psionic['name']} can see, in range or not; "
            "resolve it as a shot. It still acts as usual."
        ], []
    until = rnd + 1
    if name in ("Barrier", "Predict"):
        target.setdefault("notes", []).append(f"{name} from {psionic['name']} until the end of round {until}")
        _book(state)["effects"].append({"power": name, "target": target["id"], "until": until})
        meaning = {
            "Barrier": "each ranged hit on it is negated on a D6 4+, with no Stun marker",
            "Predict": "at its next activation it may roll one action twice and keep the better",
        }[name]
        return [f"{who}: {name} until the end of round {until}: {meaning}."], []
    if name == "Shroud":
        _book(state)["effects"].append({"power": name, "target": psionic["id"], "until": until})
        return [
            f'A fog wall 3" wide and 1" thick stands within range until the end of round {until}: it blocks sight '
            "and psionics, and figures in it cannot fire and count as in Cover."
        ], []
    return [f"{name} takes effect on {who}: {entry.effect}"], []  # pragma: no cover - every power is named above


def _scare(
    state: dict[str, Any], target: dict[str, Any], dice: Dice, faces: list[int], tables: Mapping[str, RangeTable]
) -> tuple[list[str], list[RollRecord]]:
    """Psionic Scare (p.18): one Morale D6 for ``target`` against its group's Panic range now."""
    if target.get("fearless") or target.get("rank") == "unique" or bolstered(state):
        return [f"{target['name']} is immune to Morale: the Scare does nothing."], []
    group = _group(state, target["group"])
    panic = panic_range(state, group, tables)
    if panic <= 0:
        return [f"{target['name']}'s group is Fearless: the Scare does nothing."], []
    record = _roll(dice, "D6", f"Psionic Scare: Morale for {target['name']}", _take(faces, 1))
    if int(record.total or 0) <= panic:
        _down(target, "fled", state["round"])
        return [f"Morale D6 {record.total}, within Panic 1-{panic}: {target['name']} flees."], [record]
    return [f"Morale D6 {record.total}, above Panic 1-{panic}: {target['name']} holds."], [record]


def _attention(
    state: dict[str, Any], projection: RollRecord, action: Action, dice: Dice, tables: Mapping[str, RangeTable]
) -> tuple[list[str], list[RollRecord]]:
    """Psionics draw attention (p.21): two or more 6s on the Projection dice call reinforcements,
    once per battle, rolled now and arriving at the end of the next round."""
    book = _book(state)
    if book["legality"] != "unusual" or book["reinforcements"] is not None:
        return [], []
    if sum(1 for face in projection.faces if face == 6) < 2:
        return [], []
    table = _need(tables, REINFORCEMENTS_TABLE)
    typed = payload_ints(action, "reinforcement_faces")
    basic = specialists = 0
    rolls: list[RollRecord] = []
    for n in range(REINFORCEMENT_DICE):
        rolled = table.roll_or_enter(
            dice, value=typed[n] if len(typed) > n else None, reason=f"Psionic reinforcements, die {n + 1}"
        )
        rolls.append(rolled.record)
        basic += int(rolled.entry.data.get("basic_enemies") or 0)
        specialists += int(rolled.entry.data.get("specialists") or 0)
    due = state["round"] + 1
    book["reinforcements"] = {"due": due, "basic": basic, "specialists": specialists, "arrived": False}
    faces = ", ".join(str(r.total) for r in rolls)
    if basic + specialists == 0:
        return [f"Two 6s: the power draws attention, but the dice ({faces}) bring nobody (p.21)."], rolls
    return [
        f"Two 6s: the power draws attention (p.21). Dice {faces}: {basic} basic enem{'y' if basic == 1 else 'ies'} and "
        f"{specialists} Specialist{'' if specialists == 1 else 's'} arrive at the end of round {due} unless the table is clear."
    ], rolls


def lapse_pending(state: dict[str, Any]) -> list[Event]:
    """A Strain choice left open when the phase moves on: the power fails (the choice belongs to
    the Psionic's activation, p.20)."""
    book = state.get("psionics") or {}
    pending = book.get("pending")
    if not pending:
        return []
    book["pending"] = None
    fig = _crew(state, pending["figure"], active=False)
    return [Event("psionic", f"{fig['name']} did not choose to Strain: {pending['power']} fails.", {})]


def refuse_while_choosing(state: Mapping[str, Any], fig: Mapping[str, Any]) -> None:
    """Raise :class:`TrackerError` while ``fig`` must still choose whether to Strain."""
    pending = (state.get("psionics") or {}).get("pending")
    if pending and pending["figure"] == fig["id"]:
        raise _err(f"{fig['name']} must first choose: Strain, or let {pending['power']} fail.", "figure")


def psionic_round_end(state: dict[str, Any]) -> list[Event]:
    """At the End phase: reinforcements due this round arrive (p.21) if any enemy is still on the
    table, at the middle of the enemy edge; persisting powers that end this round lapse."""
    book = state.get("psionics")
    if not book:
        return []
    rnd = state["round"]
    events: list[Event] = []
    coming = book.get("reinforcements")
    if coming and not coming["arrived"] and coming["due"] == rnd:
        coming["arrived"] = True
        if _on_table(state) and coming["basic"] + coming["specialists"]:
            group = state["groups"][0]
            figs = [_add_enemy(state, group, "basic", note="Psionic reinforcements (p.21)") for _ in range(coming["basic"])]
            figs += [
                _add_enemy(state, group, "specialist", note="Psionic reinforcements (p.21)") for _ in range(coming["specialists"])
            ]
            names = ", ".join(f["name"] for f in figs)
            events.append(Event("arrival", f"Drawn by the Psionic: {names} arrive at the middle of the enemy edge.", {}))
        elif coming["basic"] + coming["specialists"]:
            events.append(Event("arrival", "The table is clear: the Psionic's reinforcements stay away.", {}))
    lapsed = [e for e in book.get("effects", []) if e["until"] <= rnd]
    if lapsed:
        book["effects"] = [e for e in book["effects"] if e["until"] > rnd]
        for effect in lapsed:
            fig = _any_figure(state, effect["target"], "target", active=False)
            fig["notes"] = [n for n in fig.get("notes", []) if not n.startswith(f"{effect['power']} from ")]
        events.append(Event("psionic", "Ends: " + ", ".join(sorted({e["power"] for e in lapsed})) + ".", {}))
    return events


def psionic_uses(state: Mapping[str, Any]) -> int:
    """How many Psionic Actions the crew took this battle (for the detection step, p.20)."""
    return int((state.get("psionics") or {}).get("uses") or 0)
