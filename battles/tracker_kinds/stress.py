"""The stress-dice tracker kind: registration and the initial state from options.

The panic effects table is not in the source document; the group supplies it as a user table.
The ``panic_table`` option is a ``table`` option: opening a room refuses a slug that is neither a
book table nor the opener's own, and the named table's rows are copied into the state here (the
engine stays pure). Without one, results show the bare panic value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine import stress
from live import registry
from live.engine.tracker import TrackerError
from live.registry import OptionField, TrackerKind, without_tables
from rules.selectors import visible_tables


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


def register() -> None:
    """Register the ``stress`` kind with the live app (calling it twice is harmless)."""
    registry.register(
        TrackerKind(
            kind="stress",
            title="Stress dice skill checks",
            app="battles",
            reducer=without_tables(stress.apply),
            release=stress.release,
            initial_state=stress_initial_state,
            template="battles/stress.html",
            takes_user=True,
            description="Base and stress dice, pushing, panic rolls, slow and fast actions, encumbrance.",
            options=(
                OptionField(
                    "extreme_modifier",
                    "Extreme range modifier (not printed; -6 to 0)",
                    "int",
                    stress.DEFAULT_EXTREME,
                    minimum=-6,
                    maximum=0,
                ),
                OptionField(
                    "panic_table",
                    "Panic table (slug of your table)",
                    "table",
                    "",
                    help="The panic effects table is not in our sources: add it as your own table and name it here.",
                ),
            ),
        )
    )
