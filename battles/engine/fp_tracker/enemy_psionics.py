"""Enemy Psionics in the live battle tracker (Compendium pp.22-23): the powers an enemy Psionic
was given at set-up act while it is on the table, and all of them stop the moment it is not.

Set-up: an enemy group may name its Psionic (``psionic``: ``{rank, powers, toughness?,
weapons?}``, or a Unique Individual's ``powers``); the figure then carries ``psionic`` and
``powers`` (names from enemy-psionic-powers).

What the app applies (enemy-psionic-powers ``trigger`` data):

- Passive, while the Psionic is on the table: Bolster (every enemy is Fearless: no Morale dice,
  and Psionic Scare does nothing), Reflect (a 4+ ward on the Psionic against non-Area ranged
  hits, not negated by Piercing; a 6 deflects the attack, rolled by the shot resolver), Obscure
  (shots at the Psionic hit only on a natural 6 unless the shot says the shooter is within 4"
  of it; shots at another enemy within 4" of it when the shot says so), Psionic Rage (its allies
  reroll a natural 1 on their Brawl die).
- Initiative: Slow (one of the crew's Reaction dice is a 6, the rest are rolled), Paralyze (a
  crew figure whose Reaction die shows 6 takes no action this round: it may not shoot, Brawl or
  use a power, and an enemy Brawling it hits it without a roll).
- Activation, as the Psionic is picked in the Enemy Action phase and before it moves
  (``enemy_act`` with ``psionic_target``: the closest crew figure it can see, blank when none):
  Assail (2D6 against ``psionic_distance`` inches: pushed 1D6" straight back and Stunned),
  Crush (a Damage +0 hit; no Stun when it fails to wound or a save stops it), Dominate (1D6 +
  Savvy, 5+ resists; not Bots or Soulless; a failure fires at its closest ally, or is Stunned
  when ``no_ally_in_sight``), Direct (the closest ally the Psionic can see fires at once).
- Enemy Psionics never Strain (p.23).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from battles.engine import fp_combat
from battles.engine.fp_tracker.base import _err, _need, _roll, _take
from battles.engine.fp_tracker.lookups import _crew, _on_table
from live.engine.tracker import Action, payload_flag, payload_int, payload_ints
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import Entry, RangeTable

POWERS_TABLE = "enemy-psionic-powers"
ACTIVATION_POWERS: tuple[str, ...] = ("Assail", "Crush", "Dominate", "Direct")
MAX_DISTANCE = 72  # inches


def psionics_with(state: Mapping[str, Any], power: str) -> list[dict[str, Any]]:
    """Enemy Psionics on the table with ``power``: the effects last only while one is (p.23)."""
    return [f for f in _on_table(state) if f.get("psionic") and power in (f.get("powers") or ())]


def bolstered(state: Mapping[str, Any]) -> bool:
    """Bolster (p.23): every enemy is Fearless while its Psionic is on the table."""
    return bool(psionics_with(state, "Bolster"))


def paralyzed(state: Mapping[str, Any], fig: Mapping[str, Any]) -> bool:
    """Paralyze (p.23): a crew figure given a 6 for initiative takes no action this round."""
    return fig.get("side") == "crew" and fig.get("face") == 6 and bool(psionics_with(state, "Paralyze"))


def refuse_if_paralyzed(state: Mapping[str, Any], fig: Mapping[str, Any], field: str) -> None:
    """Raise :class:`TrackerError` naming ``field`` when ``fig`` is Paralyzed this round."""
    if paralyzed(state, fig):
        raise _err(f"{fig['name']} is Paralyzed this round (a Reaction die of 6, p.23): it takes no action.", field)


def slowed_dice(state: Mapping[str, Any], count: int) -> int:
    """How many of ``count`` Reaction dice the crew rolls: one fewer under Slow (p.23), whose die
    is set to 6."""
    return count - 1 if count and psionics_with(state, "Slow") else count


def ward_of(fig: Mapping[str, Any], state: Mapping[str, Any]) -> fp_combat.Ward | None:
    """A figure's psionic ward against ranged hits: the enemy Psionic's own Reflect (p.23) or a
    crew Psionic's Barrier on it (p.18), whichever is in force (Reflect first)."""
    if fig.get("side") == "enemy" and fig.get("psionic") and "Reflect" in (fig.get("powers") or ()):
        return fp_combat.Ward(name="Reflect", target=4, area=False, deflect_on=6)
    effects = (state.get("psionics") or {}).get("effects") or ()
    if any(e["power"] == "Barrier" and e["target"] == fig["id"] for e in effects):
        return fp_combat.Ward(name="Barrier", target=4)
    return None


def obscured(state: Mapping[str, Any], target: Mapping[str, Any], action: Action) -> bool:
    """Obscure (p.23): a shot at the Psionic needs a natural 6 unless the payload's ``obscured``
    is off (the shooter is within 4" of it); a shot at another enemy does when ``obscured`` is on
    (it stands within 4" of an Obscure Psionic). Raises :class:`TrackerError` for ``obscured`` on
    with no such Psionic on the table."""
    sources = psionics_with(state, "Obscure")
    if target.get("side") != "enemy":
        return False
    if any(s is target for s in sources):
        return payload_flag(action, "obscured", default=True)
    wanted = payload_flag(action, "obscured")
    if wanted and not sources:
        raise _err("obscured: no enemy Psionic with Obscure is on the table.", "obscured")
    return wanted


def raging(state: Mapping[str, Any], fig: Mapping[str, Any]) -> bool:
    """Psionic Rage (p.23): the Psionic's allies (not itself) reroll 1s when Brawling."""
    return fig.get("side") == "enemy" and any(s is not fig for s in psionics_with(state, "Psionic Rage"))


def _row(tables: Mapping[str, RangeTable], power: str) -> Entry:
    for entry in _need(tables, POWERS_TABLE).entries:
        if entry.result == power:
            return entry
    raise _err(f"The {POWERS_TABLE} table has no power {power!r}.", "tables")  # pragma: no cover - shipped


def on_activation(
    state: dict[str, Any],
    fig: dict[str, Any],
    action: Action,
    dice: Dice,
    tables: Mapping[str, RangeTable],
    fighter: Callable[[Mapping[str, Any]], fp_combat.Fighter],
    settle: Callable[[dict[str, Any], fp_combat.Fighter, list[fp_combat.HitOutcome]], tuple[list[str], list[RollRecord]]],
) -> tuple[list[str], list[RollRecord]]:
    """The enemy Psionic ``fig``'s activation powers (p.23), before it moves. ``fighter`` turns a
    figure into a :class:`fp_combat.Fighter` and ``settle`` applies hit outcomes to a figure (the
    casualty tables when on), both the tracker's. ``psionic_faces``: Assail's 2D6 then its push
    D6, Dominate's D6, Crush's save die (if any) then its Damage die. Returns lines and rolls."""
    powers = [p for p in (fig.get("powers") or ()) if p in ACTIVATION_POWERS] if fig.get("psionic") else []
    if not powers:
        return [], []
    faces = payload_ints(action, "psionic_faces")
    raw = action.payload.get("psionic_target")
    target = None if raw in (None, "", "none") else _crew(state, raw, field="psionic_target")
    texts: list[str] = []
    rolls: list[RollRecord] = []
    for power in powers:
        data = _row(tables, power).data
        if power == "Direct":
            texts.append(f"{fig['name']} uses Direct: the closest ally it can see fires at once with all its Shots (p.23).")
            continue
        if target is None:
            texts.append(f"{fig['name']} uses {power}: no crew figure in sight, nothing happens.")
            continue
        who = target["name"]
        if power == "Assail":
            distance = payload_int(action, "psionic_distance", low=0, high=MAX_DISTANCE)
            record = _roll(dice, str(data.get("range_roll") or "2D6"), f"{fig['name']}: Assail on {who}", _take(faces, 2))
            rolls.append(record)
            if int(record.total or 0) < distance:
                texts.append(f'{fig["name"]} uses Assail: 2D6 {record.total} falls short of {who} ({distance}").')
                continue
            push = _roll(dice, str(data.get("push_in") or "1D6"), f"Assail: {who} pushed back", _take(faces, 1))
            rolls.append(push)
            target["stun"] += 1
            texts.append(
                f'{fig["name"]} uses Assail: 2D6 {record.total} reaches {who} ({distance}"): pushed {push.total}" '
                f"straight back and Stunned ({target['stun']} Stun markers)."
            )
        elif power == "Dominate":
            if target.get("bot") or target.get("soulless"):
                texts.append(f"{fig['name']} uses Dominate: {who} is a Bot or Soulless and cannot be Dominated.")
                continue
            savvy = int(target.get("savvy") or 0)
            record = _roll(dice, "1D6", f"{who} resists Dominate", _take(faces, 1))
            rolls.append(record)
            total = int(record.total or 0) + savvy
            if total >= int(data.get("target") or 5):
                texts.append(f"{fig['name']} uses Dominate: {who} rolls {record.total} + Savvy {savvy} = {total} and resists.")
            elif payload_flag(action, "no_ally_in_sight"):
                target["stun"] += 1
                texts.append(f"{fig['name']} Dominates {who} ({total}), who has no ally in sight and is Stunned.")
            else:
                texts.append(
                    f"{fig['name']} Dominates {who} ({total}): it fires all its Shots at its closest visible ally at once "
                    "(resolve them as shots); it still acts as usual."
                )
        elif power == "Crush":
            before = fighter(target)
            needed = 2 if before.save is not None else 1
            outcome, after = fp_combat.resolve_hit(
                dice,
                target=before,
                damage=int(data.get("damage") or 0),
                source=f"{fig['name']}'s Crush",
                faces=_take(faces, needed),
            )
            rolls.extend(outcome.rolls)
            if outcome.result == "casualty":
                more, extra = settle(target, after, [outcome])
                texts.append(f"{fig['name']} uses Crush on {who}: " + " ".join([*outcome.notes, *more]))
                rolls.extend(extra)
            else:  # p.23: a Crush that does not wound, or that a save stops, does not Stun
                kept = [n for n in outcome.notes if "Stunned" not in n and "knocked back" not in n]
                texts.append(f"{fig['name']} uses Crush on {who}: " + " ".join([*kept, "No Stun (p.23)."]))
    return texts, rolls
