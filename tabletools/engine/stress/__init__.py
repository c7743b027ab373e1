"""Stress-dice skill checks with panic (the "Stress dice skill checks" module, p.1).

A skill check rolls base D6 (attribute + skill; the attribute alone when the skill is untrained,
changed by gear, conditions, helpers, range and aim, each +1/-1 adding or removing a base die)
and one stress D6 per stress level. Any 6 on either kind succeeds; extra 6s boost it. A 1 on a
stress die forces a panic roll and forbids pushing. Pushing, once per check, rerolls every die
that is not a 6, raises stress by 1 and adds a stress die; androids cannot push. A panic roll is
1D6 + stress: 7+ is a lasting panic effect, 10+ cancels the action of the check that caused it
even after a success; a new panic while panicked replaces the old effect, one step worse when
the new roll is lower. In combat each character has one slow and one fast action per round.

The panic effects table is not part of the document: the group supplies it as a user table
(``panic_table`` rows ``{low, high, result, effect, lasts}``); until then results show the panic
value. ``lasts`` is ``immediate``, ``round`` or ``until_aid`` (until a Command check by someone
else, being Broken, or a Turn passing).

State (JSON-ready dict)::

    {"round": 1, "settings": {"extreme_modifier": -3},
     "panic_table_slug": "", "panic_table": [{"low": 7, "high": 7, "result": "...", "effect": "...",
                                              "lasts": None | "immediate" | "round" | "until_aid"}],
     "characters": [{"id": "c1", "name": "Ripley", "owner": "7" | None, "android": False,
                     "attributes": {"strength": 3, "agility": 4, "wits": 4, "empathy": 3},
                     "skills": [{"key": "ranged_combat", "name": "Ranged Combat",
                                 "attribute": "agility", "level": 2}, ... all twelve],
                     "stress": 0, "conditions": [{"name": "Starving", "modifier": 0,
                                                  "blocks_relief": True}],
                     "items": [{"id": "i1", "name": "Pulse rifle", "weight": "heavy", "slots": 2}],
                     "load": 2, "capacity": 6, "over_encumbered": False,
                     "signature": "", "signature_used": False, "broken": False,
                     "slow_used": False, "fast_used": False, "aimed": False,
                     "helpers": [{"id": "c2", "action": "slow"}],
                     "check": None | {...the open check, see _check},
                     "pending_panic": None | {"trigger": "stress_die", "from_check": True},
                     "panic": None | {"value": 8, "roll": 8, "result": "", "effect": "",
                                      "lasts": "until_aid", "trigger": "pinned"}}],
     "last": None | {...the last result card}, "next_id": 2, "next_item": 1}

Actions (``id`` is a character id; numbers may arrive as numeric strings; ``faces`` and
``stress_faces`` are lists or comma-separated text of D6 faces typed from physical dice):

- set-up, owner only: ``add_character`` {name, owner?, android?, strength, agility, wits,
  empathy, <skill key>?..., stress?, signature?}, ``edit_character`` {id, same fields},
  ``remove_character`` {id}, ``set_setting`` {name: extreme_modifier, value},
  ``set_panic_lasts`` {id, lasts}, ``new_round``, ``turn_passes``, ``new_act``.
- play, owner or the character's player: ``check`` {id, skill, action: slow|fast|block|free,
  gear?, modifier?, range?, defenceless?, calm?, faces?, stress_faces?}, ``push`` {id, faces?,
  stress_faces?}, ``panic_roll`` {id, trigger?, faces?}, ``help`` {id, target, action},
  ``withdraw_help`` {id}, ``aim`` {id}, ``take_action`` {id, action: slow|fast, name?},
  ``stress_up`` {id, reason, amount?}, ``stress_down`` {id, reason}, ``add_condition`` {id, name,
  modifier?, blocks_relief?}, ``remove_condition`` {id, name}, ``add_item`` {id, name, weight,
  slots?}, ``remove_item`` {id, item}, ``set_broken`` {id, broken}.

The package along the document's sections: ``constants`` (the numbers and lists), ``state`` (a
new table, sixes, panic rows, range modifiers), ``payload`` (reading actions, the words of a
result), ``setup``, ``roll`` (check, push, panic roll), ``round_actions`` and ``reducer``
(``apply``). This module re-exports the public names.
"""

from __future__ import annotations

from tabletools.engine.stress.constants import (
    ACTION_KINDS,
    AIM_BONUS,
    ATTRIBUTES,
    CAPACITY_PER_STRENGTH,
    DEFAULT_EXTREME,
    DEFENCELESS_BONUS,
    LASTS,
    MAX_HELPERS,
    PANIC_CANCELS,
    PANIC_FACE,
    PANIC_LASTING,
    PANIC_TRIGGERS,
    PUSH_STRESS,
    RANGE_MODIFIERS,
    RANGES,
    SETTINGS,
    SKILLS,
    SOURCE,
    STRESS_DOWN,
    STRESS_UP,
    SUCCESS_FACE,
    WEIGHTS,
)
from tabletools.engine.stress.reducer import apply
from tabletools.engine.stress.setup import release
from tabletools.engine.stress.state import clean_panic_table, initial_state, one_step_worse, panic_row, range_modifier, sixes

__all__ = [
    "ACTION_KINDS",
    "AIM_BONUS",
    "ATTRIBUTES",
    "CAPACITY_PER_STRENGTH",
    "DEFAULT_EXTREME",
    "DEFENCELESS_BONUS",
    "LASTS",
    "MAX_HELPERS",
    "PANIC_CANCELS",
    "PANIC_FACE",
    "PANIC_LASTING",
    "PANIC_TRIGGERS",
    "PUSH_STRESS",
    "RANGES",
    "RANGE_MODIFIERS",
    "SETTINGS",
    "SKILLS",
    "SOURCE",
    "STRESS_DOWN",
    "STRESS_UP",
    "SUCCESS_FACE",
    "WEIGHTS",
    "apply",
    "clean_panic_table",
    "initial_state",
    "one_step_worse",
    "panic_row",
    "range_modifier",
    "release",
    "sixes",
]
