"""Numbers of the combat system that Five Parsecs from Home and Bug Hunt share.

Five Parsecs' Compendium combat (Dramatic Combat, casualty tables, pp.87-100) runs on the game
system printed in Bug Hunt's main rules (pp.177-178): the to-hit roll, Brawls, saving throws,
Damage against Toughness, Stun markers and knock back. The numbers both games read live here, so
that one game's engine never imports the other's. They are the book's values; each game's tests
tie them to its shipped tables (``bh-hit-results``, ``bh-brawling-modifiers``).

Distances in inches, modifiers as added to a D6 roll. Pure Python: no Django imports.
"""

from __future__ import annotations

KNOCKBACK_IN = 1
"""Bug Hunt p.178: a hit that is saved, or that fails against Toughness, knocks the figure back 1"."""

KNOCKOUT_MARKERS = 3
"""Bug Hunt p.178: the third Stun marker knocks the figure out (a casualty)."""

STUNNED_BRAWL = -1
"""Bug Hunt p.178: a Stunned figure fights a Brawl at -1."""

RESPREAD_IN = 3
"""Bug Hunt p.177: Shots left over after the target falls may go to a figure within 3" of it."""

BRAWL_WIN_MOVE_IN = 2
"""Bug Hunt p.178: the winner of a Brawl who removes its opponent may move 2" at once."""
