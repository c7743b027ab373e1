"""Tables in the middle of a game night for the phone screen tests: a Bug Hunt mission and a
Five Parsecs battle with five figures a side, a referee and a player who plays two of them,
in the Quick Action phase (the phase with the most buttons on a figure)."""

from __future__ import annotations

import json
from typing import Any

from live import services
from live.models import Room

PUNK = {"speed": 4, "combat_skill": 0, "toughness": 3}


def _act(user: Any, room: Room, type_: str, **payload: Any) -> None:
    room.refresh_from_db()
    services.room_act(user=user, room_id=room.pk, type=type_, payload=payload, version=room.version, seed=7)


def _seat(room: Room, player: Any) -> None:
    code = services.room_code(room)
    assert code is not None
    services.room_join(user=player, code=code.code)


def bughunt_mission(owner: Any, player: Any) -> tuple[Room, list[str]]:
    """A standalone mission with five main characters and at least five enemies on the table,
    in round 1's Quick Action phase. ``player`` plays Hudson and Drake (the third and fourth
    units). Returns the room and the player's figure ids. Needs the Bug Hunt tables."""
    room = services.room_create(
        user=owner,
        kind="bughunt-mission",
        title="Phone mission",
        options={"priority": "4", "main_characters": "Vasquez, Hicks, Hudson, Drake, Frost"},
        unlisted=True,
    )
    _seat(room, player)
    units = room.state["units"]
    for unit in units[2:4]:
        _act(owner, room, "set_player", unit=unit["id"], player=str(player.pk))
    # Contacts are Detected until five enemies stand on the table (each face of the Contact table in turn).
    for where in ("north door", "east corridor", "south vent", "west hatch"):
        _act(owner, room, "add_contact", where=where)
    for face in (6, 5, 4, 3, 2, 1) * 3:
        room.refresh_from_db()
        enemies = sum(len(g["figures"]) for g in room.state["groups"])
        if enemies >= 5 or not room.state["contacts"]:
            break
        _act(owner, room, "detect", contact=room.state["contacts"][0]["id"], band="open", faces=str(face))
    room.refresh_from_db()
    if not room.state["beep_done"]:
        _act(owner, room, "beep_sir", faces="1, 1, 1, 1, 1, 1")
    _act(owner, room, "roll_reactions")
    room.refresh_from_db()
    for unit in room.state["units"]:
        free = [d["die"] for d in room.state["reaction_pick"]["dice"] if d["holder"] is None]
        if free:
            _act(owner, room, "assign_reaction", unit=unit["id"], die=free[0], reassign="on")
            room.refresh_from_db()
    _act(owner, room, "next_phase")
    room.refresh_from_db()
    mine = [f["id"] for u in room.state["units"] if u.get("owner") == str(player.pk) for f in u["figures"]]
    return room, mine


def fiveparsecs_battle(owner: Any, player: Any) -> tuple[Room, list[str]]:
    """A battle with five crew and five Punks in round 1's Quick Action phase; ``player`` plays
    Kit and Zed (the third and fourth crew). Returns the room and the player's figure ids.
    Needs the Five Parsecs tables and the kind registered."""
    crew = [
        {"name": n, "reactions": r, "speed": 4, "combat_skill": 1, "toughness": 4, "weapons": ["Military rifle"]}
        for n, r in (("Ria", 2), ("Bo", 1), ("Kit", 1), ("Zed", 2), ("Mo", 1))
    ]
    setup = {
        "crew": crew,
        "enemies": [{"name": "Punks", "count": 5, "profile": PUNK, "weapons": ["Scrap pistol"], "panic": "1-2"}],
        "options": {"dramatic_combat": True},
        "seize_dice": "2D6",
        "seize_target": 10,
        "ai": "tactical",
    }
    room = services.room_create(
        user=owner, kind="fiveparsecs-battle", title="Phone battle", options={"setup": json.dumps(setup)}, unlisted=True
    )
    _seat(room, player)
    for figure in room.state["crew"][2:4]:
        _act(owner, room, "set_player", figure=figure["id"], player=str(player.pk))
    _act(owner, room, "seize", faces="1, 1")
    _act(owner, room, "next_phase")
    _act(owner, room, "roll_reactions", faces="1, 1, 1, 1, 1")
    room.refresh_from_db()
    for figure in room.state["crew"]:
        free = [d["die"] for d in room.state["reaction_pick"]["dice"] if d["holder"] is None]
        if free:
            _act(owner, room, "assign_reaction", figure=figure["id"], die=free[0], reassign="on")
            room.refresh_from_db()
    _act(owner, room, "next_phase")
    room.refresh_from_db()
    mine = [f["id"] for f in room.state["crew"] if f.get("owner") == str(player.pk)]
    return room, mine
