"""Dice: every random number in Dropship comes from here.

A :class:`Dice` wraps an injectable, seedable :class:`random.Random`. Tests pass a seed;
play uses a fresh seed that the caller stores. Every roll returns a :class:`RollRecord`
saying what was rolled, why, the faces, the modifier and the total. A physical roll typed
in by the player goes through :meth:`Dice.enter` and makes the same record, marked
``entered=True``.

Notation accepted by :func:`parse`: ``D6``, ``1D6+2``, ``2D6``, ``D100``, ``1D3+1``, ``2D3+1``,
``3D6-1`` and a plain integer such as ``4``. Die sizes are 3, 6, 10, 12, 20 and 100.
D100 is rolled as two D10 (tens and units); "00" with "0" reads as 100.

This module is pure Python: it imports nothing from Django.
"""

from __future__ import annotations

import random
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache

from rules.engine.errors import RuleError

ALLOWED_SIDES: tuple[int, ...] = (3, 6, 10, 12, 20, 100)

_NOTATION = re.compile(r"^\s*(?P<count>\d*)\s*[dD]\s*(?P<sides>\d+)\s*(?:(?P<sign>[+-])\s*(?P<mod>\d+))?\s*$")
_CONSTANT = re.compile(r"^\s*(?P<value>-?\d+)\s*$")

NOTATION_HELP = (
    "use dice notation such as D6, 2D6, 1D6+2, 1D3+1, 2D3+1 or D100 "
    f"(die sizes {', '.join(f'D{s}' for s in ALLOWED_SIDES)}; 1 to 100 dice), or a whole number"
)


class DiceError(RuleError):
    """Bad notation, a bad entered face, or an impossible request. The message says what is allowed."""


class Keep(StrEnum):
    """How several dice become one number."""

    SUM = "sum"
    HIGHEST = "highest"
    LOWEST = "lowest"
    SEPARATE = "separate"


@dataclass(frozen=True)
class Notation:
    """Parsed dice notation: ``count`` dice of ``sides`` faces plus ``modifier``.

    ``count == 0`` means a constant (``modifier`` alone), as in a table that says "4".
    """

    count: int
    sides: int
    modifier: int = 0

    @property
    def minimum(self) -> int:
        """Lowest possible total (every die shows 1)."""
        return self.count + self.modifier

    @property
    def maximum(self) -> int:
        """Highest possible total (every die shows its top face)."""
        return self.count * self.sides + self.modifier

    def __str__(self) -> str:
        if self.count == 0:
            return str(self.modifier)
        base = f"{self.count}D{self.sides}" if self.count != 1 else f"D{self.sides}"
        if self.modifier:
            return f"{base}{self.modifier:+d}"
        return base


def parse(notation: str) -> Notation:
    """Parse dice notation such as ``2D6`` or ``1D3+1``.

    Raises :class:`DiceError` naming what is allowed when the notation is not understood.
    """
    if not isinstance(notation, str):
        raise DiceError(f"Dice notation must be text: {NOTATION_HELP}.")
    return _parse_text(notation)


@lru_cache(maxsize=256)
def _parse_text(notation: str) -> Notation:
    # Every roll names its dice as text ("D6"); the few notations there are parse once.
    constant = _CONSTANT.match(notation)
    if constant:
        return Notation(count=0, sides=0, modifier=int(constant["value"]))
    match = _NOTATION.match(notation)
    if not match:
        raise DiceError(f"Cannot read dice notation {notation!r}: {NOTATION_HELP}.")
    count = int(match["count"]) if match["count"] else 1
    sides = int(match["sides"])
    if sides not in ALLOWED_SIDES:
        raise DiceError(f"Cannot roll a D{sides} in {notation!r}: {NOTATION_HELP}.")
    if not 1 <= count <= 100:
        raise DiceError(f"Cannot roll {count} dice in {notation!r}: {NOTATION_HELP}.")
    modifier = int(match["mod"] or 0) * (-1 if match["sign"] == "-" else 1)
    return Notation(count=count, sides=sides, modifier=modifier)


@dataclass(frozen=True)
class RollRecord:
    """The record of one roll, rolled by the app or entered from physical dice.

    - ``notation``: what was rolled, e.g. ``"2D6"``.
    - ``reason``: why, in words ("Seize the Initiative").
    - ``faces``: the natural faces, one per die (a D100 is one face, 1-100).
    - ``kept``: the faces that made the result (all of them when summed; one for highest/lowest;
      all of them, separately, for ``Keep.SEPARATE``).
    - ``natural``: the result before the modifier (sum or kept face); ``None`` for separate dice.
    - ``modifier``: added to the natural result.
    - ``total``: natural + modifier; ``None`` for separate dice.
    - ``entered``: True when the faces were typed in from physical dice.
    - ``rerolled``: faces that were replaced by a reroll, in order.
    """

    notation: str
    reason: str
    faces: tuple[int, ...]
    kept: tuple[int, ...]
    natural: int | None
    modifier: int
    total: int | None
    keep: Keep = Keep.SUM
    entered: bool = False
    rerolled: tuple[int, ...] = ()

    def as_dict(self) -> dict[str, object]:
        """JSON-ready form, as stored in action logs and returned by the API."""
        return {
            "notation": self.notation,
            "reason": self.reason,
            "faces": list(self.faces),
            "kept": list(self.kept),
            "natural": self.natural,
            "modifier": self.modifier,
            "total": self.total,
            "keep": _KEEP_TEXT.get(self.keep) or self.keep.value,
            "entered": self.entered,
            "rerolled": list(self.rerolled),
        }

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> RollRecord:
        """Inverse of :meth:`as_dict`."""

        def ints(key: str) -> tuple[int, ...]:
            value = data.get(key) or []
            assert isinstance(value, list)
            return tuple(int(v) for v in value)

        natural = data.get("natural")
        total = data.get("total")
        return cls(
            notation=str(data["notation"]),
            reason=str(data.get("reason", "")),
            faces=ints("faces"),
            kept=ints("kept"),
            natural=None if natural is None else int(str(natural)),
            modifier=int(str(data.get("modifier", 0))),
            total=None if total is None else int(str(total)),
            keep=Keep(str(data.get("keep", Keep.SUM.value))),
            entered=bool(data.get("entered", False)),
            rerolled=ints("rerolled"),
        )

    def describe(self) -> str:
        """One line for a result card: ``2D6+1 (Seize the Initiative): 4 + 3 + 1 = 8``."""
        faces = " + ".join(str(f) for f in self.kept) if self.keep == Keep.SUM else ", ".join(map(str, self.faces))
        how = "entered" if self.entered else "rolled"
        if self.total is None:
            return f"{self.notation} ({self.reason}), {how}: {faces}"
        mod = f" {'+' if self.modifier >= 0 else '-'} {abs(self.modifier)}" if self.modifier else ""
        if self.keep in (Keep.HIGHEST, Keep.LOWEST):
            faces = f"{self.keep.value} of {', '.join(map(str, self.faces))}"
        return f"{self.notation} ({self.reason}), {how}: {faces}{mod} = {self.total}"


@dataclass
class Dice:
    """A source of rolls. Pass ``seed`` for repeatable rolls (tests, replays).

    ``seed`` is kept so that a stored game can be replayed. Without one a fresh random seed
    is drawn from the operating system.
    """

    seed: int | None = None
    rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.seed is None:
            self.seed = secrets.randbits(63)
        self.rng = random.Random(self.seed)

    # -- single faces -------------------------------------------------------------------

    def face(self, sides: int) -> int:
        """One natural face of a die with ``sides`` faces (D100 via two D10, 00+0 = 100)."""
        if sides not in _SIDES:
            raise DiceError(f"Cannot roll a D{sides}: {NOTATION_HELP}.")
        rng = self.rng
        if sides != 100 and type(rng) is random.Random:
            return 1 + rng._randbelow(sides)  # type: ignore[attr-defined]  # randint(1, sides): see roll
        if sides == 100:
            tens = self.rng.randint(0, 9)
            units = self.rng.randint(0, 9)
            value = tens * 10 + units
            return 100 if value == 0 else value
        return self.rng.randint(1, sides)

    # -- whole rolls --------------------------------------------------------------------

    def roll(self, notation: str | Notation, reason: str = "", *, modifier: int = 0, keep: Keep = Keep.SUM) -> RollRecord:
        """Roll ``notation`` (plus an extra ``modifier``) and return its record.

        ``keep`` chooses sum (default), highest or lowest face, or separate faces
        ("roll three D6 and check each"). Raises :class:`DiceError` on bad notation.
        """
        if type(notation) is str:
            parsed, text = _parsed(notation)
        else:
            parsed = parse(notation) if isinstance(notation, str) else notation
            text = _notation_text(parsed)
        faces = self.faces(parsed.count, parsed.sides)
        return _record(parsed, reason, faces, parsed.modifier + modifier, keep, entered=False, text=text)

    def faces(self, count: int, sides: int) -> tuple[int, ...]:
        """``count`` faces of a D``sides``, drawn in order as :meth:`face` draws them."""
        if sides == 100 or type(self).face is not _PLAIN_FACE or type(self.rng) is not random.Random:
            return tuple(self.face(sides) for _ in range(count))
        # A plain D3-D20 face is randint(1, sides), which is 1 + _randbelow(sides) on a
        # random.Random: the same draw from the same generator, without randint's argument
        # checks (test_dice compares the two ways).
        below = self.rng._randbelow  # type: ignore[attr-defined]
        return (1 + below(sides),) if count == 1 else tuple(1 + below(sides) for _ in range(count))

    def d3(self, reason: str = "") -> RollRecord:
        return self.roll("D3", reason)

    def d6(self, reason: str = "") -> RollRecord:
        return self.roll("D6", reason)

    def d10(self, reason: str = "") -> RollRecord:
        return self.roll("D10", reason)

    def d12(self, reason: str = "") -> RollRecord:
        return self.roll("D12", reason)

    def d100(self, reason: str = "") -> RollRecord:
        return self.roll("D100", reason)

    def highest(self, count: int, sides: int, reason: str = "", *, modifier: int = 0) -> RollRecord:
        """Roll ``count`` dice and keep the highest face."""
        return self.roll(Notation(count, sides), reason, modifier=modifier, keep=Keep.HIGHEST)

    def lowest(self, count: int, sides: int, reason: str = "", *, modifier: int = 0) -> RollRecord:
        """Roll ``count`` dice and keep the lowest face (Bug Hunt Priority: lower of 2D6)."""
        return self.roll(Notation(count, sides), reason, modifier=modifier, keep=Keep.LOWEST)

    def separate(self, count: int, sides: int, reason: str = "") -> RollRecord:
        """Roll ``count`` dice and keep each face on its own (``total`` is ``None``)."""
        return self.roll(Notation(count, sides), reason, keep=Keep.SEPARATE)

    def reroll(self, record: RollRecord, indices: Sequence[int], reason: str | None = None) -> RollRecord:
        """Reroll the faces at ``indices`` of ``record``; returns a new record.

        The replaced faces are listed in ``rerolled``. Raises :class:`DiceError` for an index
        that is not a face of the roll.
        """
        parsed = parse(record.notation)
        faces = list(record.faces)
        replaced: list[int] = []
        for index in indices:
            if not 0 <= index < len(faces):
                raise DiceError(f"Cannot reroll die {index + 1}: the roll has {len(faces)} dice.")
            replaced.append(faces[index])
            faces[index] = self.face(parsed.sides)
        return _record(
            parsed,
            reason if reason is not None else record.reason,
            tuple(faces),
            record.modifier,
            record.keep,
            entered=False,
            rerolled=record.rerolled + tuple(replaced),
        )

    def roll_or_enter(
        self,
        notation: str | Notation,
        reason: str = "",
        *,
        faces: Sequence[int] | int | None = None,
        modifier: int = 0,
        keep: Keep = Keep.SUM,
    ) -> RollRecord:
        """Roll ``notation``, or record the player's physical ``faces`` when given.

        ``faces`` is one value per die, or a single int for a one-die roll. Raises
        :class:`DiceError` (see :meth:`enter`) for faces the dice cannot show.
        """
        if faces is None:
            return self.roll(notation, reason, modifier=modifier, keep=keep)
        values = (faces,) if isinstance(faces, int) else tuple(faces)
        return self.enter(notation, values, reason, modifier=modifier, keep=keep)

    @staticmethod
    def enter(
        notation: str | Notation,
        faces: Sequence[int],
        reason: str = "",
        *,
        modifier: int = 0,
        keep: Keep = Keep.SUM,
    ) -> RollRecord:
        """Record faces the player rolled on physical dice.

        ``faces`` has one value per die (a D100 is one value, 1-100). Raises
        :class:`DiceError` when the count of faces or a face is impossible for the notation.
        """
        parsed = parse(notation) if isinstance(notation, str) else notation
        values = tuple(int(f) for f in faces)
        if len(values) != parsed.count:
            raise DiceError(f"{parsed} needs {parsed.count} face(s); got {len(values)}.")
        for value in values:
            if not 1 <= value <= parsed.sides:
                raise DiceError(f"A D{parsed.sides} shows 1 to {parsed.sides}; got {value}.")
        return _record(parsed, reason, values, parsed.modifier + modifier, keep, entered=True)

    @staticmethod
    def enter_total(notation: str | Notation, total: int, reason: str = "") -> RollRecord:
        """Record a physical roll given only as its natural total (the player's dice sum).

        Raises :class:`DiceError` when ``total`` cannot come from the dice; the message
        names the possible range.
        """
        parsed = parse(notation) if isinstance(notation, str) else notation
        low, high = parsed.count, parsed.count * parsed.sides
        if not low <= total <= high:
            raise DiceError(f"{parsed} without modifiers rolls {low} to {high}; got {total}.")
        return RollRecord(
            notation=str(parsed),
            reason=reason,
            faces=(),
            kept=(),
            natural=total,
            modifier=parsed.modifier,
            total=total + parsed.modifier,
            entered=True,
        )


class FedDice(Dice):
    """Dice fed with the player's own ``faces``: every roll takes its faces from them in order and
    is recorded as typed (``entered=True``), so an engine step made of several rolls, some of
    them only asked for by earlier results, runs on the player's dice without a parameter of its
    own for each roll.

    ``field`` names the input the faces came from: a roll that finds too few faces left, or a
    face its die cannot show, raises :class:`DiceError` naming ``field``, the roll asked for and
    the faces it allows; :meth:`check_used` refuses faces left over once the step is done.
    ``label`` begins those messages (default ``field``), e.g. ``character_faces['Hicks']``."""

    def __init__(self, faces: Sequence[int], *, field: str = "faces", label: str | None = None) -> None:
        super().__init__(seed=0)
        self.typed = tuple(int(f) for f in faces)
        self.used = 0
        self.field = field
        self.label = label or field

    def roll(self, notation: str | Notation, reason: str = "", *, modifier: int = 0, keep: Keep = Keep.SUM) -> RollRecord:
        parsed = parse(notation) if isinstance(notation, str) else notation
        what = f"{parsed} ({reason})" if reason else str(parsed)
        if self.used + parsed.count > len(self.typed):
            left = len(self.typed) - self.used
            raise DiceError(
                f"{self.label}: {len(self.typed)} face(s) typed, too few: {what} needs {parsed.count} face(s) of "
                f"1-{parsed.sides} and {left} {'is' if left == 1 else 'are'} left.",
                field=self.field,
            )
        faces = self.typed[self.used : self.used + parsed.count]
        try:
            record = Dice.enter(parsed, faces, reason, modifier=modifier, keep=keep)
        except DiceError as exc:
            raise DiceError(f"{self.label}: {what}: {exc.message}", field=self.field) from exc
        self.used += parsed.count
        return record

    def face(self, sides: int) -> int:
        return int(self.roll(f"D{sides}").faces[0])

    def check_used(self) -> None:
        """Raise :class:`DiceError` naming ``field`` when typed faces were left unused."""
        if self.used != len(self.typed):
            raise DiceError(
                f"{self.label}: {len(self.typed)} face(s) typed, too many: these rolls took {self.used}.", field=self.field
            )


def fed(dice: Dice, faces: Sequence[int] | None, *, field: str, label: str | None = None) -> Dice:
    """``dice`` when ``faces`` is ``None`` (the app rolls), else a :class:`FedDice` of them."""
    return dice if faces is None else FedDice(faces, field=field, label=label)


_PLAIN_FACE = Dice.face
_KEEP_TEXT: dict[object, str] = {keep: keep.value for keep in Keep}
_SIDES: frozenset[int] = frozenset(ALLOWED_SIDES)


@lru_cache(maxsize=256)
def _notation_text(parsed: Notation) -> str:
    # Every record names its dice as text; the few notations there are are written out once.
    return str(parsed)


@lru_cache(maxsize=256)
def _parsed(notation: str) -> tuple[Notation, str]:
    # A roll's notation and its text in the record, worked out once per notation.
    parsed = _parse_text(notation)
    return parsed, _notation_text(parsed)


_NEW = object.__new__
_SET = object.__setattr__


def _record(
    parsed: Notation,
    reason: str,
    faces: tuple[int, ...],
    modifier: int,
    keep: Keep,
    *,
    entered: bool,
    rerolled: tuple[int, ...] = (),
    text: str | None = None,
) -> RollRecord:
    """The :class:`RollRecord` of ``faces``, equal to the one its constructor makes. Most rolls of a
    battle come here: the frozen record's fields are set at once rather than one frozen
    ``__setattr__`` at a time. ``text``: the notation's text when the caller has it."""
    natural: int | None
    if keep is Keep.SUM or keep == Keep.SUM:  # a plain "sum" string keeps working
        kept, natural = faces, sum(faces)
    elif keep == Keep.HIGHEST:
        kept = (max(faces),)
        natural = kept[0]
    elif keep == Keep.LOWEST:
        kept = (min(faces),)
        natural = kept[0]
    else:
        kept, natural = faces, None
    record = _NEW(RollRecord)
    _SET(
        record,
        "__dict__",
        {
            "notation": _notation_text(parsed) if text is None else text,
            "reason": reason,
            "faces": faces,
            "kept": kept,
            "natural": natural,
            "modifier": modifier,
            "total": None if natural is None else natural + modifier,
            "keep": keep,
            "entered": entered,
            "rerolled": rerolled,
        },
    )
    return record
