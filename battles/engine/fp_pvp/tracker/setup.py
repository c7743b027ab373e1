"""The live PvP battle's first state from the set-up card (pp.35-37; the co-op mode, pp.39-41)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine import fp_combat
from battles.engine.fp_pvp.setup import SIDES
from battles.engine.fp_pvp.tracker.base import COOP, THIRD, _err
from rules.engine.tables import RangeTable


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
