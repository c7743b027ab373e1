"""The Stealth tracker's first state: the battle tracker's with a ``stealth`` part (pp.117-122)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine import fp_tracker
from battles.engine.fp_stealth.generate import MIN_CANDIDATES, OBJECTIVE_KEYS
from battles.engine.fp_stealth.tracker.base import STEPS, _now
from battles.engine.fp_tracker.base import _err
from rules.engine.tables import RangeTable


def initial_state(setup: Mapping[str, Any], tables: Mapping[str, RangeTable]) -> dict[str, Any]:
    """The battle tracker's first state (:func:`fp_tracker.initial_state`, the same ``setup``)
    with the mission's ``stealth`` part from ``setup["stealth"]`` (``StealthSetup.as_dict()``:
    ``objective``, ``individual``, ``candidates``). Enemy Deployment Variables and Grid-based
    Movement are switched off (p.117); Escalating Battles wait until the second battle round
    after the alarm. Raises :class:`TrackerError` naming the key at fault."""
    raw = setup.get("stealth")
    if not isinstance(raw, Mapping) or not isinstance(raw.get("objective"), Mapping):
        raise _err("stealth is required: the Stealth mission set-up (objective, individual, candidates).", "stealth")
    objective = raw["objective"]
    key = str(objective.get("key") or OBJECTIVE_KEYS.get(str(objective.get("name")), ""))
    if key not in STEPS:
        raise _err(f"stealth.objective.key must be one of {', '.join(STEPS)}; got {key!r}.", "stealth.objective.key")
    options = dict(setup.get("options") or {})
    wanted = bool(options.get("escalating_battles"))
    options.pop("grid", None)
    options["deployment_variables"] = False
    state = fp_tracker.initial_state({**setup, "options": options}, tables)
    state["options"]["deployment_variables"] = False  # progressive difficulty may not switch it on (p.117)
    state["options"]["escalating_battles"] = False
    individual = raw.get("individual")
    must_locate = bool(objective.get("must_locate"))
    state["stealth"] = {
        "alarm": False,
        "alarm_round": None,
        "alarm_cause": "",
        "reinforcement_edge": None,
        "first_battle_round": None,
        "escalating_battles": wanted,
        "objective": {
            "key": key,
            "name": str(objective.get("name") or key)[:40],
            "effect": str(objective.get("effect") or "")[:200],
            "must_locate": must_locate,
            "located": not must_locate,
            "candidates": max(MIN_CANDIDATES, int(raw.get("candidates") or MIN_CANDIDATES)) if must_locate else 0,
            "searched": 0,
            "carrier": "c1" if key == "deliver" else None,
            "achieved": False,
            "failed": False,
        },
        "individual": (
            {
                "name": str(individual.get("name") or "Individual")[:40],
                "profile": {k: int(individual.get(k) or 0) for k in ("reactions", "speed", "combat_skill", "toughness", "savvy")},
                "joined": None,
                "gone": False,
            }
            if isinstance(individual, Mapping)
            else None
        ),
        "exfiltrated_round": None,
        "handed_round": None,
        "patrolled_round": None,
        "sentry": None,
        "blocked": [],
        "stay_down": {},
        "distracted": [],
        "suspicious": None,
        "finished": None,
    }
    state["now"] = _now(state)
    return state
