"""Benchmark: undo on a Five Parsecs battle room after 10, 100, 1,000 and 5,000 actions, against
one action on the same room. Not a test: it prints numbers and ratios.

    uv run python benchmarks/room_undo.py
    DATABASE_URL=postgres://postgres@127.0.0.1/postgres uv run python benchmarks/room_undo.py

Each log is written straight into the database (the states the engine gives, each action with
its state before, as ``room_act`` stores them), so building 5,000 actions takes seconds. One
action is ``room_act`` (a Stun marker on an enemy, the kind's reducer and its tables included);
an undo is ``room_undo``; each is the median of ``REPEATS`` in a row. With ``BENCH_REPLAY_UPTO``
(default 100) it also times undo of a log stored without states before (rooms played before
they were kept, and every room before this change): that undo replays the whole log.

It creates and drops its own test database (test_<name>), like the test suite.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test.utils import setup_databases, teardown_databases  # noqa: E402

from battles import fiveparsecs_kind  # noqa: E402
from battles.engine import fp_tracker  # noqa: E402
from campaigns.selectors import fiveparsecs_tables  # noqa: E402
from live import services  # noqa: E402
from live.engine.tracker import Action, Role  # noqa: E402
from live.models import Room, RoomAction  # noqa: E402
from rules.engine.dice import Dice  # noqa: E402
from tests.tables import load_system_tables  # noqa: E402

LENGTHS = (10, 100, 1_000, 5_000)
REPEATS = 5
UNDO_TARGET = 2.0  # undo after the longest log / one action, at most (issue "One tracker kernel ...")
PROFILE = {"speed": 4, "combat_skill": 0, "toughness": 3}
SETUP = {
    "crew": [
        {"name": f"Crew {i}", "reactions": 2, "speed": 5, "combat_skill": 1, "toughness": 4, "weapons": ["Military rifle"]}
        for i in range(5)
    ],
    "enemies": [{"name": "Punks", "count": 5, "profile": PROFILE, "weapons": ["Scrap pistol"], "panic": "1-2"}],
    "options": {"dramatic_combat": True},
    "seize_dice": "2D6",
    "seize_target": 10,
    "ai": "tactical",
}


def nth_action(n: int) -> dict[str, Any]:
    """A legal action for any n: a Stun marker on and off the enemies in turn."""
    return {"enemy": f"e{1 + (n // 2) % 5}", "stun_change": 1 if n % 2 == 0 else -1}


def room_with_log(user: Any, length: int, *, keep_states: bool = True) -> Room:
    room = services.room_create(
        user=user, kind=fiveparsecs_kind.KIND, title=f"{length} actions", options={"setup": SETUP}, unlisted=True
    )
    tables = fiveparsecs_tables()
    state, rows = room.state, []
    for n in range(length):
        action = Action("adjust", nth_action(n), actor=str(user.pk), role=Role.OWNER)
        after, events = fp_tracker.apply(state, action, Dice(seed=n), tables)
        rows.append(
            RoomAction(
                room=room,
                version=n + 1,
                actor=user,
                role="owner",
                type="adjust",
                payload=dict(action.payload),
                seed=n,
                events=[e.as_dict() for e in events],
                state_before=state if keep_states else None,
            )
        )
        state = after
    RoomAction.objects.bulk_create(rows, batch_size=500)
    Room.objects.filter(pk=room.pk).update(state=state, version=length)
    room.refresh_from_db()
    return room


def median_of(call: Callable[[int], object], room: Room) -> float:
    spent = []
    for _ in range(REPEATS):
        version = Room.objects.values_list("version", flat=True).get(pk=room.pk)
        started = time.perf_counter()
        call(version)
        spent.append(time.perf_counter() - started)
    return statistics.median(spent)


def undo_on(user: Any, room: Room) -> Callable[[int], object]:
    return lambda version: services.room_undo(user=user, room_id=room.pk, version=version)


def main() -> None:
    from django.contrib.auth import get_user_model

    replay_upto = int(os.environ.get("BENCH_REPLAY_UPTO", "100"))
    old = setup_databases(verbosity=0, interactive=False)
    try:
        load_system_tables("fiveparsecs")
        user = get_user_model().objects.create_user("bench", password="bench-password-1")
        one_room = room_with_log(user, 10)
        counter = iter(range(10, 10_000))

        def one_action(version: int) -> object:
            payload = nth_action(next(counter))
            return services.room_act(user=user, room_id=one_room.pk, type="adjust", payload=payload, version=version)

        one = median_of(one_action, one_room)
        size = len(json.dumps(one_room.state))
        print(f"one action on a Five Parsecs battle room (5 crew, 5 enemies, state {size:,} bytes): {one * 1000:.1f} ms")
        undos = {}
        for length in LENGTHS:
            room = room_with_log(user, length)
            undos[length] = median_of(undo_on(user, room), room)
            print(
                f"undo after {length:>5,} actions: {undos[length] * 1000:8.1f} ms; ratio to one action {undos[length] / one:6.2f}x"
            )
        print(f"undo after {LENGTHS[-1]:,} against undo after {LENGTHS[0]}: {undos[LENGTHS[-1]] / undos[LENGTHS[0]]:.2f}x")
        longest = undos[LENGTHS[-1]] / one
        print(
            f"undo after {LENGTHS[-1]:,} / one action: {longest:.2f}x (target <= {UNDO_TARGET:.0f}x) "
            f"{'MET' if longest <= UNDO_TARGET else 'MISSED'}"
        )
        for length in (n for n in LENGTHS if n <= replay_upto):
            room = room_with_log(user, length, keep_states=False)
            undo = median_of(undo_on(user, room), room)
            print(
                f"undo by replay (no states kept) after {length:>5,} actions: {undo * 1000:8.1f} ms; "
                f"ratio to one action {undo / one:6.2f}x"
            )
        print(f"({connection.vendor}; medians of {REPEATS})")
    finally:
        connection.close()
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
