"""The battle a turn records: what a finished battle decided for the turn's "Record the battle"
step (p.9), in words, and the step's inputs merged with it.

A :class:`BattleRecord` is the finished battle's result in the step's own terms (won, held the
field, casualties as crew ids, enemies killed where the battle counted them, Psionic power
uses, the enemy). :func:`record_inputs` fills the step from it: the battle decides those inputs
and the player answers only the others (roving threat, Faction job ...).

Our ruling on a contradiction: an input typed for the step that differs from what the finished
battle recorded is refused (:class:`TurnError` naming the input and saying what the battle
recorded), unless the player says ``override_battle: yes``; the service then logs that the
record was typed over the battle's.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from campaigns.engine.turn.resolving import _yes_no
from campaigns.engine.turn.steps import TurnError
from campaigns.engine.wording import plural

#: The "Record the battle" inputs a finished battle decides (in the step's names).
DECIDED: tuple[str, ...] = ("won", "held_field", "casualties", "kills", "psionic_uses", "enemy", "elite")
#: The ``mission_type`` of a battle against another player's crew (pp.35-37).
PVP = "pvp"
#: The ``mission_type`` of an expanded co-op battle fought with another player's crew (pp.39-41).
COOP = "coop"
#: The input that lets the player record something other than the finished battle's result.
OVERRIDE = "override_battle"


@dataclass(frozen=True)
class BattleRecord:
    """A finished battle's result for the turn (p.9, "Record the battle").

    ``battle_id``/``title`` name the battle; ``casualties`` are crew ids (as text); ``kills`` the
    enemies killed, ``None`` when the battle was not counted (played at the table and typed in);
    ``psionic_uses`` how many times the crew's Psionics used a power (pp.17-24); ``enemy`` the
    enemy's name or category; ``elite`` an elite-level force (p.48); ``mission_type`` a special
    mission type's id (p.116) or ``pvp`` for a battle against another player's crew (pp.35-37:
    no Rivals, no Battlefield Finds); ``salvage`` what a Salvage job pays (:mod:`.salvage`);
    ``bonus_loot`` the extra Loot rolls a PvP battle earned (an opponent of Power Rating 5+, p.37)
    or the shared Loot roll of a co-op battle (``coop``, p.41); ``pay_bonus`` what a co-op battle
    adds to the credits roll (+1, p.41); ``invasion_modifier`` what it adds to the Invasion check
    (+1 per wave faced with the Invasion Threat trait, p.41).
    """

    battle_id: int
    title: str
    won: bool
    held_field: bool
    casualties: tuple[str, ...] = ()
    kills: int | None = None
    psionic_uses: int = 0
    enemy: str = ""
    elite: bool = False
    mission_type: str = ""
    salvage: Mapping[str, Any] | None = None
    bonus_loot: int = 0
    pay_bonus: int = 0
    invasion_modifier: int = 0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready (casualties as a list); ``mission_type``, ``salvage`` and ``bonus_loot`` only when set."""
        extra: dict[str, Any] = {"mission_type": self.mission_type} if self.mission_type else {}
        if self.salvage is not None:
            extra["salvage"] = dict(self.salvage)
        if self.bonus_loot:
            extra["bonus_loot"] = self.bonus_loot
        if self.pay_bonus:
            extra["pay_bonus"] = self.pay_bonus
        if self.invasion_modifier:
            extra["invasion_modifier"] = self.invasion_modifier
        return {
            **extra,
            "battle_id": self.battle_id,
            "title": self.title,
            "won": self.won,
            "held_field": self.held_field,
            "casualties": list(self.casualties),
            "kills": self.kills,
            "psionic_uses": self.psionic_uses,
            "enemy": self.enemy,
            "elite": self.elite,
        }

    def facts(self) -> dict[str, Any]:
        """The turn facts this battle sets for the post-battle steps: ``pvp`` and ``bonus_loot``
        for a PvP battle (pp.35-37); ``coop``, ``bonus_loot``, ``pay_bonus`` and
        ``invasion_modifier`` for a co-op battle (p.41); nothing otherwise."""
        if self.mission_type == PVP:
            return {"pvp": True, "bonus_loot": self.bonus_loot}
        if self.mission_type == COOP:
            return {
                "coop": True,
                "bonus_loot": self.bonus_loot,
                "pay_bonus": self.pay_bonus,
                "invasion_modifier": self.invasion_modifier,
            }
        return {}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BattleRecord:
        """Read :meth:`as_dict`'s shape back. Raises :class:`TurnError` (field ``battle``) when a
        key is missing or has the wrong type."""
        try:
            kills = data.get("kills")
            return cls(
                battle_id=int(data["battle_id"]),
                title=str(data.get("title") or ""),
                won=bool(data["won"]),
                held_field=bool(data["held_field"]),
                casualties=tuple(str(c) for c in data.get("casualties") or ()),
                kills=None if kills is None else int(kills),
                psionic_uses=int(data.get("psionic_uses") or 0),
                enemy=str(data.get("enemy") or ""),
                elite=bool(data.get("elite")),
                mission_type=str(data.get("mission_type") or ""),
                salvage=dict(data["salvage"]) if isinstance(data.get("salvage"), Mapping) else None,
                bonus_loot=int(data.get("bonus_loot") or 0),
                pay_bonus=int(data.get("pay_bonus") or 0),
                invasion_modifier=int(data.get("invasion_modifier") or 0),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise TurnError(f"The battle's record is not readable ({exc}).", field="battle") from None

    def inputs(self) -> dict[str, Any]:
        """The step inputs this battle decides, as the step takes them."""
        out: dict[str, Any] = {
            "won": _word(self.won),
            "held_field": _word(self.held_field),
            "casualties": list(self.casualties),
            "psionic_uses": self.psionic_uses,
            "elite": _word(self.elite),
        }
        if self.kills is not None:
            out["kills"] = self.kills
        if self.enemy:
            out["enemy"] = self.enemy
        return out


def _word(flag: bool) -> str:
    return "yes" if flag else "no"


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


def record_words(record: BattleRecord, names: Mapping[str, str] | None = None) -> str:
    """The record in words, e.g. ``"won, held the field, 1 casualty (Bo), 3 enemies killed"``.
    ``names`` maps crew ids to names (ids without one are left out of the brackets)."""
    names = names or {}
    said = ["won" if record.won else "lost", "held the field" if record.held_field else "did not hold the field"]
    count = len(record.casualties)
    fallen = [names[c] for c in record.casualties if c in names]
    said.append(
        (plural(count, "casualty", "casualties") + (f" ({', '.join(fallen)})" if fallen else "")) if count else "no casualties"
    )
    if record.kills is not None:
        said.append(plural(record.kills, "enemy", "enemies") + " killed")
    if record.psionic_uses:
        said.append(f"Psionic powers used {_times(record.psionic_uses)}")
    return ", ".join(said)


def _same(name: str, given: Any, decided: Any) -> bool:
    """Whether a typed input says what the battle decided (``decided`` in :meth:`BattleRecord.inputs` form)."""
    if name in ("won", "held_field", "elite"):
        return _yes_no(name, given) == (decided == "yes")
    if name == "casualties":
        items = [given] if isinstance(given, (str, int)) else list(given)
        return {str(i) for i in items} == {str(i) for i in decided}
    if name in ("kills", "psionic_uses"):
        try:
            return int(given) == int(decided)
        except (TypeError, ValueError):
            raise TurnError(f"{name} must be a whole number, 0 or more; got {given!r}.", field=name) from None
    return str(given).strip().lower() == str(decided).strip().lower()


def wants_override(inputs: Mapping[str, Any]) -> bool:
    """Whether ``inputs`` say ``override_battle: yes``. Raises :class:`TurnError` for a value
    other than yes or no."""
    raw = inputs.get(OVERRIDE)
    return False if raw in (None, "") else _yes_no(OVERRIDE, raw)


def record_inputs(
    record: BattleRecord, given: Mapping[str, Any], *, names: Mapping[str, str] | None = None
) -> tuple[dict[str, Any], list[str]]:
    """The "Record the battle" inputs: what ``record`` decided, with ``given`` for the rest.

    Returns ``(inputs, overridden)``: ``overridden`` lists the decided inputs the player typed
    differently under ``override_battle: yes`` (their values are then the player's). Without the
    override a typed input that contradicts the battle raises :class:`TurnError` naming it and
    saying what the battle recorded. ``override_battle`` itself is not in the returned inputs.
    """
    override = wants_override(given)
    decided = record.inputs()
    merged = {k: v for k, v in given.items() if k != OVERRIDE}
    overridden: list[str] = []
    for name in DECIDED:
        if name not in decided:
            continue
        if name in merged and merged[name] not in (None, "", []) and not _same(name, merged[name], decided[name]):
            if not override:
                raise TurnError(
                    f"{name}: the battle {record.title} is finished and recorded {record_words(record, names)}. "
                    f"Confirm that, or send {OVERRIDE}: yes to record yours instead (it is logged).",
                    field=name,
                )
            overridden.append(name)
            continue
        merged[name] = decided[name]
    return merged, overridden
