"""Support and loadout as the book gives them (Bug Hunt pp.187-189): what each granted Support
option puts on the table, figure by figure, and the player's choices (the Sarge's arms, who
carries Weapons support and Grenades).

A combat team is a list of figures, each with its own weapons: a Soulless Recon Team is two
figures with one Carbine and one Sniper Rifle between them (``figure_weapons`` in
``bh-support``), a Fire team four figures with a Combat Rifle each. Figures are named as the
mission tracker names them: a main character by name, a team's figures ``"<team> <n>"``
(``"Fire team 2"``, ``"Sarge 1"``). Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rules.engine.errors import RuleError

GRENADES = "Grenades"
LAUNCHER = "Mounted launcher"


class SupportError(RuleError):
    """A Support choice the rules do not allow; ``field`` names the input (``extras``, ``arms``)."""

    default_field = "extras"


def arms_label(weapons: Sequence[str]) -> str:
    """``["Shot gun", "Boarding sword"]`` -> ``"Shot gun + Boarding sword"`` (how a choice of
    arms is shown and sent)."""
    return " + ".join(weapons)


def arms_options(data: Mapping[str, Any]) -> list[str]:
    """The choices of arms a Support option offers (p.188: the Sarge carries a Shotgun and
    Boarding Sword, or a Service Pistol and Power Claw), as labels; empty when it offers none."""
    return [arms_label(option) for option in data.get("weapon_options") or []]


def team_weapons(data: Mapping[str, Any], *, arms: str | None = None) -> list[list[str]]:
    """The weapons of each figure of a granted Support team (pp.188-189), one list per figure.

    ``figure_weapons`` in the row lists them figure by figure (Soulless Recon Team: one Carbine,
    one Sniper Rifle); otherwise every figure carries the row's ``weapons``. ``arms`` picks one
    of :func:`arms_options` (the Sarge); without it the first option is used.

    Raises :class:`SupportError` (field ``arms``) for arms the option does not offer.
    """
    figures = int(data.get("figures") or 1)
    options = [list(o) for o in data.get("weapon_options") or []]
    if arms not in (None, ""):
        labels = [arms_label(o) for o in options]
        if arms not in labels:
            allowed = ", ".join(labels) if labels else "none (this option has no choice of arms)"
            raise SupportError(f"arms must be one of: {allowed}; got {arms!r}.", field="arms")
        return [list(options[labels.index(str(arms))]) for _ in range(figures)]
    if options:
        return [list(options[0]) for _ in range(figures)]
    per_figure = data.get("figure_weapons")
    if per_figure:
        return [list(w) for w in per_figure]
    return [list(data.get("weapons") or []) for _ in range(figures)]


def figure_labels(team: str, figures: int) -> list[str]:
    """The names the tracker gives a team's figures: ``"<team> 1"`` to ``"<team> <figures>"``."""
    return [f"{team} {n}" for n in range(1, figures + 1)]


@dataclass(frozen=True)
class Outfit:
    """One figure given Support weapons: its name and the weapons it gains."""

    figure: str
    weapons: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"figure": self.figure, "weapons": list(self.weapons)}


def _parse(text: str) -> tuple[str, list[str]]:
    figure, sep, rest = str(text).partition(":")
    weapons = [w.strip() for w in rest.split("+") if w.strip()]
    if not sep or not figure.strip() or not weapons:
        raise SupportError(
            f"Each assignment reads '<figure>: <weapon>' (a launcher: '<figure>: {LAUNCHER} + Frag grenade'); got {text!r}."
        )
    return figure.strip(), weapons


def _known(figure: str, figures: Sequence[str], option: str) -> None:
    if figure not in figures:
        raise SupportError(f"{option}: {figure!r} is not taking the field; figures: {', '.join(figures)}.")


def outfit(option: str, data: Mapping[str, Any], assignments: Sequence[str] | str, figures: Sequence[str]) -> list[Outfit]:
    """Check who carries a granted weapons option (p.188) and return the outfits.

    - Weapons support: one figure (``figures_equipped``), any figure taking the field, main
      character or grunt, gets one weapon of the row's list (Light Machine Gun, Incinerator,
      Power Claw, Hyper Blaster or Plasma Rifle).
    - Grenades: up to four different figures (``figures_equipped``) each get Frag or Flash
      grenades, or one figure (``launcher_figures``) gets a Mounted Launcher and Frag or Flash
      grenades. Reading: each of the four may take either grenade type; fewer than four may be
      outfitted when fewer take the field or the player wants fewer.

    ``assignments`` are texts ``"<figure>: <weapon>"`` (``"Fire team 2: Mounted launcher + Frag
    grenade"``), or one text with several joined by ``;``. ``figures`` names every figure taking
    the field. Raises :class:`SupportError` (field ``extras``) saying what is allowed.
    """
    texts = [assignments] if isinstance(assignments, str) else list(assignments)
    items = [part.strip() for text in texts for part in str(text).split(";") if part.strip()]
    if not items:
        raise SupportError(f"{option}: name who carries it, as '<figure>: <weapon>'.")
    parsed = [_parse(item) for item in items]
    for figure, _ in parsed:
        _known(figure, figures, option)
    named = [figure for figure, _ in parsed]
    if len(set(named)) != len(named):
        raise SupportError(
            f"{option}: each figure is outfitted once; {', '.join(sorted({n for n in named if named.count(n) > 1}))} is named twice."
        )
    listed = [str(w) for w in data.get("weapons") or []]
    most = int(data.get("figures_equipped") or 1)
    if option == GRENADES or LAUNCHER in listed:
        grenades = [w for w in listed if w != LAUNCHER]
        launchers = [p for p in parsed if LAUNCHER in p[1]]
        if launchers:
            limit = int(data.get("launcher_figures") or 1)
            weapons = launchers[0][1]
            others = [w for w in weapons if w != LAUNCHER]
            if len(parsed) > limit or len(weapons) != 2 or len(others) != 1 or others[0] not in grenades:
                raise SupportError(
                    f"{option}: a {LAUNCHER} goes to {limit} figure only, with one of {' or '.join(grenades)} "
                    f"(as '<figure>: {LAUNCHER} + {grenades[0]}'), instead of grenades for {most} figures."
                )
            return [Outfit(parsed[0][0], (LAUNCHER, others[0]))]
        if len(parsed) > most:
            raise SupportError(f"{option}: grenades for {most} figures at most; got {len(parsed)}.")
        for figure, weapons in parsed:
            if len(weapons) != 1 or weapons[0] not in grenades:
                raise SupportError(f"{option}: {figure} takes one of {' or '.join(grenades)}; got {' + '.join(weapons)}.")
        return [Outfit(figure, (weapons[0],)) for figure, weapons in parsed]
    if len(parsed) > most:
        raise SupportError(f"{option} outfits {most} figure; got {len(parsed)}.")
    for figure, weapons in parsed:
        if len(weapons) != 1 or weapons[0] not in listed:
            raise SupportError(f"{option}: {figure} takes one of {', '.join(listed)}; got {' + '.join(weapons)}.")
    return [Outfit(figure, (weapons[0],)) for figure, weapons in parsed]


def choices(data: Mapping[str, Any], figures: Sequence[str]) -> tuple[list[str], int]:
    """What a screen offers for a granted weapons option (p.188): every ``"<figure>: <weapon>"``
    :func:`outfit` accepts for one figure, and how many figures may be outfitted (four with
    grenades, one with Weapons support)."""
    listed = [str(w) for w in data.get("weapons") or []]
    if LAUNCHER in listed:
        grenades = [w for w in listed if w != LAUNCHER]
        per_figure = [*grenades, *(f"{LAUNCHER} + {g}" for g in grenades)]
    else:
        per_figure = listed
    return [f"{figure}: {w}" for figure in figures for w in per_figure], int(data.get("figures_equipped") or 1)
