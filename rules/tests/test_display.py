"""How rolls and table data read for players (rules.display)."""

from __future__ import annotations

from dataclasses import replace

from rules import display
from rules.engine.dice import Dice
from rules.engine.tables import Entry, RangeTable

TABLE = RangeTable(
    slug="fights",
    title="Fights",
    die="2D6",
    entries=(Entry("Calm", 2, 6, position=1), Entry("Brawl", 7, 11, position=2), Entry("Riot", 12, 12, position=3)),
)


def test_a_roll_made_by_the_app_shows_its_dice_and_total() -> None:
    outcome = TABLE.resolve(Dice.enter("2D6", [3, 4], "Fights"))
    # Entered faces are the player's; the app's own roll reads the same way but says who rolled.
    assert display.roll_lead(outcome, "2D6") == "You rolled 3 + 4 = 7 on 2D6"
    rolled = TABLE.roll(Dice(seed=5))
    assert display.roll_lead(rolled, "2D6").startswith("Dropship rolled ")


def test_a_typed_total_with_a_modifier_past_the_table_reads_as_kept() -> None:
    record = Dice.enter_total("2D6", 12, "Fights")
    outcome = TABLE.resolve(replace(record, modifier=2, total=14))
    assert display.roll_lead(outcome, "2D6") == "You rolled 12 + 2 = 14 on 2D6, read as 12"


def test_data_values_read_as_words() -> None:
    words = display.data_words(
        {"ai": "T", "ranges_in": [6, 12], "skill": None, "arrival_edge": {"1-2": "left"}, "mod": -1},
        {"elite-criminal-elements": "Elite Criminal Elements"},
    )
    assert words == 'AI: T · Ranges: 6", 12" · Skill: none · Arrival edge: 1-2 left · Mod: -1'
    assert display.data_words({"enemy_table_slug": "elite-criminal-elements"}, {"elite-criminal-elements": "Elite"}) == (
        "Enemy table: Elite"
    )
    assert display.prose_words("See salvage-setup; extra_action moves.", {"salvage-setup": "Salvage set-up"}) == (
        "See Salvage set-up; extra action moves."
    )
