"""Rule systems, rule tables and their entries, and the log of rolls.

Tables ship as fixtures (``fixtures/<system>/``) keyed by natural keys, so loading them twice
changes nothing. Models convert to the pure engine with :meth:`RuleTable.to_engine`.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from rules.engine.dice import RollRecord
from rules.engine.tables import Entry, RangeTable


class RuleSystemManager(models.Manager["RuleSystem"]):
    def get_by_natural_key(self, slug: str) -> RuleSystem:
        return self.get(slug=slug)


class RuleSystem(models.Model):
    """A body of rules: Five Parsecs from Home, Bug Hunt, or one of the table-tool modules."""

    slug = models.SlugField(unique=True)
    title = models.CharField(max_length=120)
    description = models.TextField(blank=True)
    position = models.PositiveSmallIntegerField(default=0)

    objects = RuleSystemManager()

    class Meta:
        ordering = ["position", "title"]

    def __str__(self) -> str:
        return self.title

    def natural_key(self) -> tuple[str]:
        return (self.slug,)


class RuleTableManager(models.Manager["RuleTable"]):
    def get_by_natural_key(self, slug: str) -> RuleTable:
        """The book table ``slug`` (natural keys are the fixtures'; users' tables have none)."""
        return self.get(slug=slug, owner__isnull=True)


class RuleTable(models.Model):
    """A table from a rule book: random (it has a die) or reference (rows a rule reads).

    ``columns`` names the columns of a table with one column per kind (empty for one column);
    ``data_keys`` lists the keys every entry's ``data`` carries. ``owner`` is set on tables a
    user made; fixture tables have none.

    A book table's slug is unique among book tables; a user's among that user's tables (and it
    may not be a book table's), so one user's slugs never reveal or block another's.
    """

    system = models.ForeignKey(RuleSystem, on_delete=models.PROTECT, related_name="tables")
    slug = models.SlugField(max_length=120)
    title = models.CharField(max_length=200)
    die = models.CharField(
        max_length=20, blank=True, help_text="Dice notation such as D6, 2D6 or D100; empty for a reference table."
    )
    book = models.CharField(max_length=120, blank=True)
    chapter = models.CharField(max_length=200, blank=True)
    source = models.CharField(max_length=40, help_text="Book page, e.g. p.18.")
    notes = models.TextField(blank=True)
    columns = models.JSONField(default=list, blank=True)
    data_keys = models.JSONField(default=list, blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="rule_tables"
    )

    objects = RuleTableManager()

    class Meta:
        ordering = ["system__position", "book", "chapter", "title"]
        constraints = [
            models.UniqueConstraint(fields=["slug"], condition=models.Q(owner__isnull=True), name="unique_book_table_slug"),
            models.UniqueConstraint(fields=["owner", "slug"], name="unique_user_table_slug"),
        ]

    def __str__(self) -> str:
        return f"{self.title} ({self.source})"

    def natural_key(self) -> tuple[str]:
        return (self.slug,)

    natural_key.dependencies = ["rules.rulesystem"]  # type: ignore[attr-defined]

    @property
    def is_random(self) -> bool:
        return bool(self.die)

    @property
    def kind(self) -> str:
        return "random" if self.die else "reference"

    def to_engine(self, entries: list[TableEntry] | None = None) -> RangeTable:
        """The pure engine table. Pass ``entries`` when they are already loaded."""
        rows = entries if entries is not None else list(self.entries.all())
        return RangeTable.build(self.slug, self.title, self.die, (e.to_engine() for e in rows), self.columns)


class TableEntryManager(models.Manager["TableEntry"]):
    def get_by_natural_key(self, table_slug: str, column: str, position: int) -> TableEntry:
        return self.get(table__slug=table_slug, table__owner__isnull=True, column=column, position=position)


class TableEntry(models.Model):
    """One row of a table: ``low..high`` (inclusive; null for reference rows), the result's
    name, a short effect in our own words, and structured ``data`` for the engines."""

    table = models.ForeignKey(RuleTable, on_delete=models.CASCADE, related_name="entries")
    column = models.CharField(max_length=80, blank=True, default="")
    position = models.PositiveIntegerField()
    low = models.IntegerField(null=True, blank=True)
    high = models.IntegerField(null=True, blank=True)
    result = models.CharField(max_length=200)
    effect = models.TextField(blank=True)
    data = models.JSONField(default=dict, blank=True)

    objects = TableEntryManager()

    class Meta:
        ordering = ["table", "column", "low", "position"]
        constraints = [models.UniqueConstraint(fields=["table", "column", "position"], name="unique_entry_position")]
        verbose_name_plural = "table entries"

    def __str__(self) -> str:
        return f"{self.range_label} {self.result}".strip()

    def natural_key(self) -> tuple[str, str, int]:
        return (self.table.slug, self.column, self.position)

    natural_key.dependencies = ["rules.ruletable"]  # type: ignore[attr-defined]

    @property
    def range_label(self) -> str:
        return self.to_engine().range_label

    @classmethod
    def from_engine(cls, table: RuleTable, entry: Entry) -> TableEntry:
        """An unsaved row of ``table`` from an engine entry (for bulk writes)."""
        return cls(
            table=table,
            column=entry.column,
            position=entry.position,
            low=entry.low,
            high=entry.high,
            result=entry.result,
            effect=entry.effect,
            data=dict(entry.data),
        )

    def to_engine(self) -> Entry:
        return Entry(
            result=self.result,
            low=self.low,
            high=self.high,
            effect=self.effect,
            data=self.data,
            column=self.column,
            position=self.position,
        )


class Roll(models.Model):
    """One roll, rolled by the app or entered from physical dice, with its reason and result.

    ``record`` is a :class:`rules.engine.dice.RollRecord` as a dict. ``user`` is empty for a
    guest, whose rolls are kept against the browser session instead.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="rolls")
    session_key = models.CharField(max_length=64, blank=True, db_index=True)
    table = models.ForeignKey(RuleTable, null=True, blank=True, on_delete=models.SET_NULL, related_name="rolls")
    column = models.CharField(max_length=80, blank=True, default="")
    value = models.IntegerField(null=True, blank=True, help_text="The number looked up on the table, after clamping.")
    result = models.CharField(max_length=300, blank=True)
    entry = models.ForeignKey(TableEntry, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    record = models.JSONField()
    seed = models.BigIntegerField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [models.Index(fields=["user", "-created"])]

    def __str__(self) -> str:
        return self.roll_record.describe()

    @property
    def roll_record(self) -> RollRecord:
        return RollRecord.from_dict(self.record)

    @property
    def reason(self) -> str:
        value = self.record.get("reason", "")
        return str(value)

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "record": self.record, "value": self.value, "result": self.result, "created": self.created}


class TablesVersion(models.Model):
    """The version of the rule tables: one row whose ``token`` changes with every change to a
    table or its entries (``load_tables``, a user's table made, edited, imported or deleted).

    Every process keeps the tables it read in memory under the token it read them at, and
    reads them again only when the token differs (one cheap query per read). The token is
    random rather than counted so that a bump in a rolled-back transaction is never reused
    for other contents."""

    token = models.CharField(max_length=32)

    def __str__(self) -> str:
        return self.token


class TransferJob(models.Model):
    """What an export or import job of a game's campaign keeps (``rules.jobs.Transfers`` runs it):
    ``progress`` 0-100 and the result (the export document) or the reason it failed.
    ``heartbeat`` is written as the job makes progress, so that a job whose worker died is found
    and ended (``rules.jobs.sweep``). Each app adds its owner and the campaign the job is about."""

    KINDS = [("export", "Export"), ("import", "Import")]
    STATES = [(s, s) for s in ("pending", "running", "done", "failed")]

    kind = models.CharField(max_length=6, choices=KINDS)
    state = models.CharField(max_length=8, choices=STATES, default="pending")
    progress = models.PositiveSmallIntegerField(default=0)
    message = models.TextField(blank=True)
    document = models.JSONField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    heartbeat = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.kind} {self.state}"
