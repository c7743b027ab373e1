"""The stress-dice tracker kind's initial state from options (the kind is in :mod:`tabletools.kinds`).

The panic effects table is not in the source document; the group supplies it as a user table.
The ``panic_table`` option is a ``table`` option: opening a room refuses a slug that is neither a
book table nor the opener's own, and the named table's rows are copied into the state here (the
engine stays pure). Without one, results show the bare panic value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from live.engine.tracker import TrackerError
from rules.selectors import visible_tables
from tabletools.engine import stress


def panic_rows(slug: str, user: Any = None) -> list[dict[str, Any]]:
    """The ranged rows ``{low, high, result, effect, lasts}`` of the rule table ``slug``, in die
    order; empty when there is no such table. ``lasts`` is read from an entry's
    ``data["lasts"]`` when the group recorded it (immediate, round or until_aid).

    Only a table ``user`` may use is read (their own, else a book table; a book table alone
    without a user): another user's table reads as missing."""
    table = visible_tables(user=user, slugs=[slug]).get(slug)
    if table is None:
        return []
    return [
        {"low": e.low, "high": e.high, "result": e.result, "effect": e.effect, "lasts": (e.data or {}).get("lasts")}
        for e in table.entries.order_by("low", "position")
        if e.low is not None and e.high is not None
    ]


def stress_initial_state(options: Mapping[str, Any], user: Any = None) -> dict[str, Any]:
    """A new table opened by ``user``. ``options``: ``extreme_modifier`` (-6..0, default -3:
    base dice at Extreme range, not printed in the document) and ``panic_table`` (the slug of
    a table ``user`` may use, optional).

    Raises :class:`TrackerError` naming the option at fault."""
    raw = options.get("extreme_modifier", stress.DEFAULT_EXTREME)
    try:
        extreme = int(raw if raw not in (None, "") else stress.DEFAULT_EXTREME)
    except (TypeError, ValueError):
        raise TrackerError("extreme_modifier must be a whole number from -6 to 0.", field="extreme_modifier") from None
    slug = str(options.get("panic_table", "") or "").strip()
    return stress.initial_state(
        extreme_modifier=extreme, panic_table=panic_rows(slug, user) if slug else (), panic_table_slug=slug
    )
