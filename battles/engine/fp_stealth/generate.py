"""A Stealth mission's set-up (Compendium pp.117-122): the objective (D100), the Individual
(D100) when the objective needs one, the crew's arrival edge, the enemy numbers and the
chapter's notes for the set-up card.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from battles.engine.fp_setup import EDGES, SetupError
from rules.engine.dice import Dice, DiceError, RollRecord
from rules.engine.tables import RangeTable, TableError

OBJECTIVES_TABLE = "stealth-mission-objectives"
INDIVIDUALS_TABLE = "stealth-individuals"
RULES_TABLE = "stealth-mission-rules"
SOURCE = "Compendium pp.117-122"

#: Objective keys by the table's result (p.118); the reducer reads them.
OBJECTIVE_KEYS: Mapping[str, str] = {
    "Locate and retrieve": "locate_retrieve",
    "Deliver item": "deliver",
    "Locate and contact": "locate_contact",
    "Rescue individual": "rescue",
    "Transmit message": "transmit",
    "Retrieve package": "retrieve_package",
}
#: Candidates for "Finding the target" at least (p.118).
MIN_CANDIDATES = 3
#: The no-minis question, answered from the text (p.117).
NO_MINIS = (
    "No-minis combat resolution does not apply: a Stealth mission needs the miniatures rules (Field of Vision, "
    "measured spotting distances), and the chapter rules out No-minis Combat Resolution and Grid-based Movement (p.117)."
)
#: What the chapter switches off (p.117).
INTEGRATION: tuple[str, ...] = (
    "Enemy Deployment Variables (p.44) are not used.",
    "Escalating Battles (p.46) do not apply in Stealth rounds or in the first battle round after the alarm.",
)


@dataclass(frozen=True)
class StealthSetup:
    """The Stealth mission for one battle.

    - ``objective``: ``{"key", "name", "effect", "kind": "item" | "individual", "must_locate",
      "contact_range_in"}`` (p.118); ``individual``: ``None`` or ``{"name", "reactions", "speed",
      "combat_skill", "toughness", "savvy"}`` (p.119).
    - ``crew_edge``: the table edge the whole crew walks on from in round 1 (p.120).
    - ``enemy_total``, ``specialists``, ``lieutenants``, ``basic``: the enemy numbers, crew size +1
      (p.122); ``candidates``: places that may hide the target (3 or more; 0 when nothing must be
      located).
    - ``notes``: card lines in our words; ``rolls``: every roll, in order.
    """

    objective: Mapping[str, Any]
    individual: Mapping[str, Any] | None
    crew_edge: str
    enemy_total: int
    specialists: int
    lieutenants: int
    basic: int
    candidates: int
    notes: tuple[str, ...]
    rolls: tuple[RollRecord, ...]

    def lines(self) -> list[str]:
        """The set-up card's Stealth lines."""
        out = [f"Stealth mission ({SOURCE}). Objective: {self.objective['name']}. {self.objective['effect']}"]
        if self.individual:
            out.append(
                f"Individual: {self.individual['name']} (Reactions {self.individual['reactions']}, Speed "
                f'{self.individual["speed"]}", Combat Skill +{self.individual["combat_skill"]}, Toughness '
                f"{self.individual['toughness']}, Savvy +{self.individual['savvy']}; unarmed, moves randomly, p.119)."
            )
        out.append(
            f"Enemy: {self.enemy_total} figures (crew size +1): {self.lieutenants} Lieutenant, {self.specialists} "
            f"Specialist, {self.basic} basic; spread over the table, one in four on raised terrain (p.120)."
        )
        out.append(f"The crew walks on in round 1 from the {self.crew_edge} (p.120).")
        out.extend(self.notes)
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "objective": dict(self.objective),
            "individual": dict(self.individual) if self.individual else None,
            "crew_edge": self.crew_edge,
            "enemy_total": self.enemy_total,
            "specialists": self.specialists,
            "lieutenants": self.lieutenants,
            "basic": self.basic,
            "candidates": self.candidates,
            "notes": list(self.notes),
            "no_minis": NO_MINIS,
            "rolls": [r.as_dict() for r in self.rolls],
            "card": self.lines(),
        }


def _table(tables: Mapping[str, RangeTable], slug: str) -> RangeTable:
    try:
        return tables[slug]
    except KeyError:
        raise SetupError(f"tables must include {slug!r}: run `manage.py load_tables`.", field="tables") from None


def _face(faces: list[int] | None, field: str) -> int | None:
    if faces is None:
        return None
    if not faces:
        raise SetupError(f"{field} ran out: the Stealth set-up needs more faces.", field=field)
    return faces.pop(0)


def generate(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    *,
    crew_size: int,
    candidates: int = MIN_CANDIDATES,
    ai_type: str | None = None,
    faces: Sequence[int] | None = None,
) -> StealthSetup:
    """Roll a Stealth mission's set-up (pp.117-122).

    ``crew_size``: the campaign crew size (1-8; the enemy has that many +1 figures, p.122).
    ``candidates``: terrain features or markers that may hide a target to be located (3-12,
    p.118). ``faces``: typed dice in roll order: the objective's D100, the Individual's D100 (only
    for an objective with an Individual), the arrival edge's D12. Raises :class:`SetupError`
    naming the field: ``crew_size``, ``candidates``, ``ai_type`` (Rampage AI is rerolled, p.122),
    ``faces``, ``tables``.
    """
    if isinstance(crew_size, bool) or not isinstance(crew_size, int) or not 1 <= crew_size <= 8:
        raise SetupError(f"crew_size must be the campaign crew size, 1 to 8; got {crew_size!r}.", field="crew_size")
    if isinstance(candidates, bool) or not isinstance(candidates, int) or not MIN_CANDIDATES <= candidates <= 12:
        raise SetupError(f"candidates must be from {MIN_CANDIDATES} to 12 (p.118); got {candidates!r}.", field="candidates")
    if ai_type == "rampage":
        raise SetupError("ai_type: enemies with Rampage AI are rerolled for a Stealth mission (p.122).", field="ai_type")
    typed = None if faces is None else [int(f) for f in faces]
    rolls: list[RollRecord] = []
    try:
        picked = _table(tables, OBJECTIVES_TABLE).roll_or_enter(
            dice, value=_face(typed, "faces"), reason="Stealth mission objective (p.118)"
        )
        rolls.append(picked.record)
        entry = picked.entry
        objective = {
            "key": OBJECTIVE_KEYS.get(entry.result, "retrieve_package"),
            "name": entry.result,
            "effect": entry.effect,
            "kind": str(entry.data.get("objective_kind") or "item"),
            "must_locate": bool(entry.data.get("must_locate")),
            "contact_range_in": entry.data.get("contact_range_in"),
        }
        individual = None
        if objective["kind"] == "individual":
            who = _table(tables, INDIVIDUALS_TABLE).roll_or_enter(
                dice, value=_face(typed, "faces"), reason="Stealth mission Individual (p.119)"
            )
            rolls.append(who.record)
            individual = {"name": who.entry.result, **{k: int(v) for k, v in who.entry.data.items()}}
        edge = dice.roll_or_enter(
            "D12", "Stealth mission: the crew's arrival edge (clock face, p.120)", faces=_face(typed, "faces")
        )
    except (TableError, DiceError) as exc:
        raise SetupError(f"faces: {exc}", field="faces") from None
    if typed:
        raise SetupError(f"faces has {len(typed)} face(s) more than the Stealth set-up uses.", field="faces")
    rolls.append(edge)
    rules = {e.result: e for e in _table(tables, RULES_TABLE).entries}
    enemies = rules["Stealth enemies"].data
    total = crew_size + 1
    specialists, lieutenants = int(enemies["specialists"]), int(enemies["lieutenants"])
    notes = [
        "Table: 36\" x 36\", dense terrain; halve distances on a 2' x 2' table. A centre feature must be one figures can "
        "climb or enter (p.117).",
        "Unless it must be found first, the objective sits at the exact centre (p.117).",
        *INTEGRATION,
        "Exfiltration: leave over any table edge; or, when Reactions are rolled, one crew member given a 6 may leave at "
        "once (p.117).",
        NO_MINIS,
    ]
    if objective["must_locate"]:
        notes.insert(
            2,
            f'Finding the target: {candidates} candidate features or markers within 6" of the centre; 1D6+Savvy 6+ within '
            '6" and sight finds it; the last one always has it (p.118).',
        )
    return StealthSetup(
        objective=objective,
        individual=individual,
        crew_edge=EDGES[int(edge.total or 12)],
        enemy_total=total,
        specialists=specialists,
        lieutenants=lieutenants,
        basic=max(0, total - specialists - lieutenants),
        candidates=candidates if objective["must_locate"] else 0,
        notes=tuple(notes),
        rolls=tuple(rolls),
    )
