"""A PvP battle's set-up (Compendium pp.35-37).

What the chapter fixes before the first round, as pure functions over the chapter's tables
(``fixtures/fiveparsecs/options-pvp.json``):

- :func:`power_rating`: each side's Power Rating from the figures it fields (p.35), with every
  factor shown per figure;
- :func:`crew_count`: how many figures each side brings (the smaller campaign crew size unless
  both players agree on another number, p.35);
- :func:`generate`: the set-up card: the battle reason (D100 or picked), both ratings, the
  outgunned side's extra initiative points by the difference (p.36) or the cinematic option
  (3 each), Seize the Initiative for each side (a success is one more initiative point, p.36;
  both may succeed), who deploys first (the lower rating, two figures at a time; random when
  equal), who holds the First Player token in round 1 (random, p.36), and the optional third
  party of the three-way battle (p.37: D100 arrival, +1 basic enemy and +1 specialist, a Unique
  Individual unless the force is a Roving Threat).

Every die is rolled or typed (``*_face`` arguments) and kept in ``rolls`` with its reason.
Raises :class:`rules.engine.errors.RuleError` naming the field at fault.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rules.engine.dice import Dice, DiceError, RollRecord, parse
from rules.engine.errors import RuleError
from rules.engine.tables import RangeTable, TableError

REASONS = "pvp-battle-reason"
POWER = "pvp-power-rating"
BY_DIFFERENCE = "pvp-initiative-by-power-difference"
RULES = "pvp-battle-rules"
THIRD_PARTY = "pvp-third-party"
THREE_WAY = "pvp-three-way-battle"

#: The two sides of a PvP battle: the player who invited (``host``) and the one who accepted.
SIDES: tuple[str, str] = ("host", "guest")

#: Largest crew a side may bring when both players agree on more (the campaign crew sizes stop at 6; 8 leaves room for a house rule).
MOST_CREW = 8


class PvpError(RuleError):
    """A PvP set-up the chapter does not allow (pp.35-38)."""


def _need(tables: Mapping[str, RangeTable], slug: str) -> RangeTable:
    try:
        return tables[slug]
    except KeyError:
        raise PvpError(f"The {slug} table is not loaded: run `manage.py load_tables`.", field="tables") from None


def _rule(tables: Mapping[str, RangeTable], table: str, rule: str) -> Mapping[str, Any]:
    for entry in _need(tables, table).entries:
        if entry.data.get("rule") == rule:
            return entry.data
    raise PvpError(f"The {table} table has no {rule!r} row: reload the tables.", field="tables")


# -- Power Rating (p.35) -----------------------------------------------------------------------


@dataclass(frozen=True)
class Rating:
    """A side's Power Rating: ``total`` and one ``lines`` entry per fielded figure
    (``{"name", "points", "factors": [words]}``)."""

    total: int
    lines: tuple[Mapping[str, Any], ...]

    def as_dict(self) -> dict[str, Any]:
        return {"total": self.total, "figures": [dict(line) for line in self.lines]}


def _weapon_names(figure: Mapping[str, Any]) -> set[str]:
    names: set[str] = set()
    for weapon in figure.get("weapons") or ():
        name = weapon.get("name") if isinstance(weapon, Mapping) else weapon
        if name:
            names.add(str(name).strip().lower())
    return names


def power_rating(figures: Sequence[Mapping[str, Any]], tables: Mapping[str, RangeTable]) -> Rating:
    """The Power Rating of the ``figures`` a side fields (p.35): every factor of the table that a
    figure meets adds its points (1 per figure; 1 more for Combat Skill +2 or above; 1 more for a
    Rattle Gun or Hyper Blaster; 1 more for a Saving Throw of 5+ or better). A figure is a mapping
    with ``name``, ``combat_skill`` (a bonus, e.g. 2 for +2), ``weapons`` (names or
    ``{"name"}`` mappings) and ``save`` (the number needed, 2-6, or ``None``)."""
    factors = _need(tables, POWER).entries
    lines: list[Mapping[str, Any]] = []
    for figure in figures:
        points = 0
        said: list[str] = []
        weapons = _weapon_names(figure)
        save = figure.get("save")
        for factor in factors:
            data = factor.data
            met = True
            if "combat_skill_min" in data:
                met = int(figure.get("combat_skill") or 0) >= int(data["combat_skill_min"])
            elif "weapons" in data:
                met = bool(weapons & {str(w).lower() for w in data["weapons"]})
            elif "saving_throw" in data:
                met = save not in (None, "", 0) and int(save) <= int(data["saving_throw"])
            if met:
                points += int(data.get("power_rating", 1))
                said.append(factor.result)
        lines.append({"name": str(figure.get("name") or "?"), "points": points, "factors": said})
    return Rating(sum(int(line["points"]) for line in lines), tuple(lines))


def initiative_for_difference(difference: int, tables: Mapping[str, RangeTable]) -> int:
    """Extra initiative points the outgunned side starts with for a Power Rating ``difference``
    (p.36): 0 when equal, 1 for 1-2 up to 5 for 9 or more."""
    if difference <= 0:
        return 0
    for entry in _need(tables, BY_DIFFERENCE).entries:
        low = int(entry.data["difference_min"])
        high = entry.data.get("difference_max")
        if difference >= low and (high is None or difference <= int(high)):
            return int(entry.data["initiative_points"])
    return 0


def crew_count(host_crew_size: int, guest_crew_size: int, agreed: int | None = None) -> int:
    """How many figures each side brings (p.35): the smaller of the two campaigns' crew sizes,
    or ``agreed`` when both players agreed on another number (1 to :data:`MOST_CREW`). Raises
    :class:`PvpError` on ``agreed`` outside that range."""
    if agreed is not None:
        if not 1 <= int(agreed) <= MOST_CREW:
            raise PvpError(f"agreed_crew must be from 1 to {MOST_CREW} figures; got {agreed}.", field="agreed_crew")
        return int(agreed)
    return min(int(host_crew_size), int(guest_crew_size))


# -- the set-up card (pp.35-37) ------------------------------------------------------------------


@dataclass(frozen=True)
class Seize:
    """One side's Seize the Initiative roll: the core rulebook's ``dice`` (notation) and
    ``target`` (the total needed), the side's ``modifier`` and the player's typed ``faces``."""

    dice: str
    target: int
    modifier: int = 0
    faces: Sequence[int] | None = None


def _d100(dice: Dice, table: RangeTable, reason: str, face: int | None, field: str) -> tuple[Any, RollRecord]:
    try:
        rolled = table.roll_or_enter(dice, value=face, reason=reason)
    except TableError as exc:
        raise PvpError(str(exc), field=field) from None
    return rolled.entry, rolled.record


def _die(dice: Dice, notation: str, reason: str, faces: Sequence[int] | int | None, field: str) -> RollRecord:
    try:
        return dice.roll_or_enter(notation, reason, faces=faces)
    except DiceError as exc:
        raise PvpError(f"{field}: {exc}", field=field) from None


def _reason(
    dice: Dice, tables: Mapping[str, RangeTable], picked: str | None, face: int | None, rolls: list[RollRecord]
) -> dict[str, Any]:
    table = _need(tables, REASONS)
    if picked:
        for entry in table.entries:
            if entry.data.get("reason") == picked:
                return {"reason": picked, "result": entry.result, "effect": entry.effect, "picked": True}
        allowed = ", ".join(str(e.data.get("reason")) for e in table.entries)
        raise PvpError(f"reason must be one of {allowed}; got {picked!r}.", field="reason")
    entry, record = _d100(dice, table, "PvP battle reason (p.35)", face, "reason_face")
    rolls.append(record)
    return {"reason": entry.data.get("reason"), "result": entry.result, "effect": entry.effect, "picked": False}


def _seize(dice: Dice, side: str, seize: Seize | None, rolls: list[RollRecord]) -> dict[str, Any] | None:
    if seize is None:
        return None
    field = f"{side}.seize"
    try:
        parse(seize.dice)
    except DiceError as exc:
        raise PvpError(f"{field}.dice: {exc}", field=f"{field}.dice") from None
    if not 2 <= int(seize.target) <= 30:
        raise PvpError(f"{field}.target must be from 2 to 30; got {seize.target}.", field=f"{field}.target")
    record = _die(dice, seize.dice, f"Seize the Initiative, {side} (p.36)", seize.faces, f"{field}.faces")
    rolls.append(record)
    total = int(record.total or 0) + int(seize.modifier)
    return {"total": total, "target": int(seize.target), "seized": total >= int(seize.target)}


def _third_party(
    dice: Dice, tables: Mapping[str, RangeTable], face: int | None, delay_face: int | None, rolls: list[RollRecord]
) -> dict[str, Any]:
    """The three-way battle's third party (p.37): how it arrives (D100) and what it adds."""
    entry, record = _d100(dice, _need(tables, THIRD_PARTY), "PvP third party arrival (p.37)", face, "third_party_face")
    rolls.append(record)
    data = dict(entry.data)
    numbers = _rule(tables, THREE_WAY, "numbers")
    unique = _rule(tables, THREE_WAY, "unique_individual")
    card: dict[str, Any] = {
        "arrival": data.get("arrival"),
        "result": entry.result,
        "effect": entry.effect,
        "basic_enemies": int(numbers.get("basic_enemies", 0)),
        "specialists": int(numbers.get("specialists", 0)) + int(data.get("specialists", 0)),
        "lieutenants": int(data.get("lieutenants", 0)),
        "unique_individuals": int(unique.get("unique_individuals", 0)),
        "unique_unless": unique.get("except_table"),
        "min_distance_in": int(_rule(tables, THREE_WAY, "deployment").get("min_distance_in", 12)),
        "round": None,
    }
    when = data.get("round")
    if when == "1D6":
        delay = _die(dice, "D6", "PvP third party: the round it arrives (p.37)", delay_face, "third_party_round_face")
        rolls.append(delay)
        card["round"] = int(delay.total or 1)
    elif when is not None:
        card["round"] = int(when)
    if data.get("reinforcement_round") is not None:
        card["reinforcement_round"] = int(data["reinforcement_round"])
        card["reinforcements"] = str(data.get("reinforcements") or "")
        card["specialist_if_at_least"] = int(data.get("specialist_if_at_least") or 0)
    return card


def generate(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    *,
    figures: Mapping[str, Sequence[Mapping[str, Any]]],
    reason: str | None = None,
    reason_face: int | None = None,
    cinematic: bool = False,
    seize: Mapping[str, Seize | None] | None = None,
    first_deploy_face: int | None = None,
    first_player_face: int | None = None,
    third_party: bool = False,
    third_party_face: int | None = None,
    third_party_round_face: int | None = None,
) -> dict[str, Any]:
    """The PvP set-up card (pp.35-37).

    - ``figures``: ``{"host": [...], "guest": [...]}``, the figures each side fields (see
      :func:`power_rating`), at least one each.
    - ``reason``: a picked battle reason key, or ``None`` to roll D100 (``reason_face`` typed).
    - ``cinematic``: both sides start with 3 initiative points instead of the outgunned side's
      bonus (p.36).
    - ``seize``: per side, its Seize the Initiative numbers (:class:`Seize`) or ``None`` to skip
      it; a success is 1 more initiative point at the start (p.36).
    - ``first_deploy_face`` (D6: 1-3 host, 4-6 guest) when the ratings are equal;
      ``first_player_face`` (D6: 1-3 host, 4-6 guest) for the First Player token of round 1.
    - ``third_party``: add the three-way battle's third party (D100 ``third_party_face``, and a
      D6 ``third_party_round_face`` when it arrives on a rolled round).

    Returns ``{"reason", "power_rating": {side: {"total", "figures"}}, "outgunned",
    "initiative_points": {side: n}, "initiative_from": {side: [words]}, "seize": {side},
    "deploys_first", "first_player", "per_round_points", "figures_per_deployment",
    "no_deployment_conditions", "third_party", "rolls"}``. Raises :class:`PvpError` naming the
    field: an empty side (``figures.<side>``), an unknown reason, a face the die cannot show.
    """
    rolls: list[RollRecord] = []
    for side in SIDES:
        if not figures.get(side):
            raise PvpError(f"The {side} side fields no figures: pick at least one.", field=f"figures.{side}")
    card_reason = _reason(dice, tables, reason, reason_face, rolls)
    ratings = {side: power_rating(figures[side], tables) for side in SIDES}
    host, guest = ratings["host"].total, ratings["guest"].total
    outgunned = None if host == guest else ("host" if host < guest else "guest")
    points = dict.fromkeys(SIDES, 0)
    why: dict[str, list[str]] = {side: [] for side in SIDES}
    initiative = _rule(tables, RULES, "initiative_points")
    if cinematic:
        start = int(initiative.get("cinematic_start", 3))
        for side in SIDES:
            points[side] += start
            why[side].append(f"cinematic option: {start} (p.36)")
    elif outgunned is not None:
        bonus = initiative_for_difference(abs(host - guest), tables)
        points[outgunned] += bonus
        why[outgunned].append(f"outgunned by {abs(host - guest)} Power Rating: {bonus} (p.36)")
    seized: dict[str, Any] = {}
    seize_points = int(_rule(tables, RULES, "seize_initiative").get("initiative_points", 1))
    for side in SIDES:
        seized[side] = _seize(dice, side, (seize or {}).get(side), rolls)
        if seized[side] and seized[side]["seized"]:
            points[side] += seize_points
            why[side].append(f"seized the initiative: {seize_points} (p.36)")
    if outgunned is not None:
        deploys_first = outgunned
    else:
        record = _die(
            dice, "D6", "PvP: equal ratings, who deploys first (1-3 host, 4-6 guest)", first_deploy_face, "first_deploy_face"
        )
        rolls.append(record)
        deploys_first = "host" if int(record.total or 1) <= 3 else "guest"
    token = _die(dice, "D6", "PvP: First Player token in round 1 (1-3 host, 4-6 guest)", first_player_face, "first_player_face")
    rolls.append(token)
    deployment = _rule(tables, RULES, "deployment")
    return {
        "reason": card_reason,
        "power_rating": {side: ratings[side].as_dict() for side in SIDES},
        "outgunned": outgunned,
        "initiative_points": points,
        "initiative_from": why,
        "seize": seized,
        "deploys_first": deploys_first,
        "first_player": "host" if int(token.total or 1) <= 3 else "guest",
        "per_round_points": int(initiative.get("per_round", 1)),
        "figures_per_deployment": int(deployment.get("figures_per_turn", 2)),
        "no_deployment_conditions": not bool(_rule(tables, RULES, "setup").get("deployment_conditions", False)),
        "third_party": _third_party(dice, tables, third_party_face, third_party_round_face, rolls) if third_party else None,
        "rolls": [record.as_dict() for record in rolls],
    }
