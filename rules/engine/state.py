"""Copying a tracker's state: the one helper every reducer uses.

A reducer never changes the state it is given (undo and the log keep it); it works on a copy.
States are JSON-ready documents (dicts, lists, text, numbers, booleans, None), so they copy
through :mod:`marshal`, in C, about ten times faster than :func:`copy.deepcopy`, keeping shared
parts shared as ``deepcopy`` does. A state holding anything marshal refuses (a dataclass, a set
of objects) falls back to :func:`copy.deepcopy`. Pure Python: no Django imports.
"""

from __future__ import annotations

import copy
import marshal
from typing import Any


def copy_state[T](state: T) -> T:
    """A deep copy of ``state`` (any JSON-ready value; other values through ``deepcopy``)."""
    try:
        copied: Any = marshal.loads(marshal.dumps(state))  # type: ignore[arg-type]
    except ValueError:
        return copy.deepcopy(state)
    return copied  # type: ignore[no-any-return]
