"""Rules the service layer's turn steps call: paying Upkeep when the crew is short (core p.76,
Money is Tight p.32) and who earns XP (core rules; Bots improve through upgrades, p.26).

Pure Python: no Django imports.
"""

from __future__ import annotations

from typing import Any

from campaigns.engine.turn.steps import TurnError

#: Upkeep and Ship Repairs, the rule that asks for the payment (core rulebook p.76).
UPKEEP_RULE = "Upkeep and Ship Repairs (core p.76)"
#: Character kinds that earn no XP: Bots improve through Bot upgrades bought with credits
#: instead (core rules; Compendium p.26 adds new upgrades). Soulless earn XP as usual.
NO_XP_KINDS: tuple[str, ...] = ("bot",)


def upkeep_payment(cost: int, credits: int, paid: Any = None) -> int:
    """Credits paid of an Upkeep of ``cost`` credits by a crew holding ``credits``.

    ``paid`` (the player's ``upkeep_paid``) is needed only when the crew cannot pay it all: it
    must be a whole number from 0 to the smaller of ``cost`` and ``credits``. A crew that can
    pay pays the whole upkeep (``paid`` may only repeat ``cost``). Raises :class:`TurnError` (field ``upkeep_paid``)
    naming :data:`UPKEEP_RULE` when the crew is short and ``paid`` is not given, or when ``paid``
    is out of range.
    """
    most = max(0, min(cost, credits))
    if paid in (None, ""):
        if cost <= credits:
            return cost
        raise TurnError(
            f"upkeep_paid: Upkeep is {cost} credits and the crew has {max(credits, 0)}. {UPKEEP_RULE} wants it paid; "
            f"say what the crew pays (upkeep_paid, 0 to {most}) and settle the rest by the core rules on unpaid upkeep.",
            field="upkeep_paid",
        )
    text = str(paid).strip()
    if cost <= credits and text != str(cost):
        raise TurnError(
            f"upkeep_paid: the crew has {credits} credits and pays the whole Upkeep of {cost} ({UPKEEP_RULE}); got {paid!r}.",
            field="upkeep_paid",
        )
    if isinstance(paid, bool) or not text.isdecimal() or int(text) > most:
        raise TurnError(
            f"upkeep_paid must be a whole number from 0 to {most} (Upkeep {cost} credits, the crew has {max(credits, 0)}); "
            f"got {paid!r}.",
            field="upkeep_paid",
        )
    return int(text)


def xp_refusal(name: str, kind: str, amount: int, field: str) -> None:
    """Refuse XP for a character who earns none: Bots (kinds in :data:`NO_XP_KINDS`) improve
    through Bot upgrades (p.26), never XP. ``amount`` 0 is no award and passes. Raises
    :class:`TurnError` naming ``field``."""
    if amount and kind in NO_XP_KINDS:
        raise TurnError(
            f"{field}: {name} is a Bot; Bots earn no XP (core rules) and improve through Bot upgrades (p.26). "
            f"Leave it out or send 0; got {amount}.",
            field=field,
        )
