"""Read and check rule-table fixture files without a database.

The fixtures under ``fixtures/<system>/*.json`` are Django fixtures with natural keys (see
``fixtures/README.md``). This module reads them into engine :class:`RangeTable` objects, so
that tests, the manifest command and people transcribing tables can check a file in a second:

    python -m rules.fixturefiles fixtures/fiveparsecs/psionics.json

Pure Python; it imports nothing from Django.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rules.engine.tables import Entry, RangeTable, TableError

FIXTURES_DIR = Path(__file__).resolve().parent.parent / "fixtures"
MANIFEST_PATH = FIXTURES_DIR / "manifest.json"
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
SOURCE_RE = re.compile(r"^pp?\.\d+(?:-\d+)?$")
TABLE_FIELDS = {"system", "slug", "title", "die", "book", "chapter", "source", "notes", "columns", "data_keys"}
ENTRY_FIELDS = {"table", "column", "position", "low", "high", "result", "effect", "data"}
SOURCE_HELP = "'p.18' or 'pp.17-24'"
MAX_EFFECT_WORDS = 40


class FixtureError(ValueError):
    """A fixture file that cannot be used; the message names the file and the table.

    ``row`` is the index of the faulty row in the JSON list (``None`` when the whole text is at
    fault), ``field`` the field at fault, ``table`` the slug of the table the row belongs to (when
    known) and ``detail`` the message without its "where" prefix.
    """

    def __init__(
        self,
        message: str,
        *,
        row: int | None = None,
        field: str | None = None,
        table: str | None = None,
        detail: str | None = None,
    ) -> None:
        super().__init__(message)
        self.row = row
        self.field = field
        self.table = table
        self.detail = detail if detail is not None else message


@dataclass
class TableSpec:
    """A table as read from a fixture file: its metadata and the engine table."""

    system: str
    slug: str
    title: str
    die: str
    book: str
    chapter: str
    source: str
    notes: str
    columns: list[str]
    data_keys: list[str]
    path: Path | None = None
    entries: list[Entry] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return "reference" if not self.die else "random"

    def engine(self) -> RangeTable:
        return RangeTable.build(self.slug, self.title, self.die, self.entries, self.columns)

    def manifest_row(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "system": self.system,
            "title": self.title,
            "die": self.die,
            "kind": self.kind,
            "source": self.source,
        }


def fixture_files(root: Path = FIXTURES_DIR) -> list[Path]:
    """Every table fixture under ``root/<system>/``, sorted."""
    return sorted(p for p in root.glob("*/*.json"))


def read_file(path: Path) -> list[TableSpec]:
    """Read one fixture file. Raises :class:`FixtureError` for a malformed file or row."""
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise FixtureError(f"{path}: cannot read JSON: {exc}") from exc
    return read_rows(rows, label=str(path), path=path)


def read_text(
    text: str,
    *,
    label: str = "import",
    max_effect_words: int = MAX_EFFECT_WORDS,
    source_re: re.Pattern[str] = SOURCE_RE,
    source_help: str = SOURCE_HELP,
) -> list[TableSpec]:
    """Read fixture-format JSON ``text`` (an upload, an API body) like :func:`read_file`.

    The tables get no ``path``. Raises :class:`FixtureError` (``field="text"`` for text that is
    not JSON).
    """
    try:
        rows = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FixtureError(f"{label}: cannot read JSON: {exc}", field="text", detail=f"cannot read JSON: {exc}") from exc
    return read_rows(rows, label=label, max_effect_words=max_effect_words, source_re=source_re, source_help=source_help)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def read_rows(
    rows: Any,
    *,
    label: str = "import",
    path: Path | None = None,
    max_effect_words: int = MAX_EFFECT_WORDS,
    source_re: re.Pattern[str] = SOURCE_RE,
    source_help: str = SOURCE_HELP,
) -> list[TableSpec]:
    """Read parsed fixture rows (a list of ``{"model", "fields"}`` dicts) into tables.

    ``label`` starts every error message (a file name, ``"import"``); ``path`` is kept on the
    tables for :func:`problems`. Effects may have at most ``max_effect_words`` words, and sources
    must match ``source_re`` (``source_help`` describes it in errors). Raises
    :class:`FixtureError` naming the row, the table and the field.
    """
    if not isinstance(rows, list):
        raise FixtureError(f"{label}: a fixture is a JSON list of objects.", detail="a fixture is a JSON list of objects.")
    tables: dict[str, TableSpec] = {}

    def fail(index: int, detail: str, *, field: str | None = None, table: str | None = None) -> FixtureError:
        return FixtureError(f"{label} row {index}: {detail}", row=index, field=field, table=table, detail=detail)

    for index, row in enumerate(rows):
        if not isinstance(row, dict) or "model" not in row or not isinstance(row.get("fields"), dict):
            raise fail(index, "each row needs 'model' and 'fields'.")
        model, fields = row["model"], row["fields"]
        if model == "rules.ruletable":
            unknown = set(fields) - TABLE_FIELDS
            missing = {"system", "slug", "title", "die", "source"} - set(fields)
            if unknown or missing:
                raise fail(index, f"unknown fields {sorted(unknown)}, missing fields {sorted(missing)}.")
            slug = fields["slug"]
            if not isinstance(slug, str) or not SLUG_RE.match(slug):
                raise fail(index, f"slug {slug!r} must be lower-case words joined by hyphens.", field="slug")
            if slug in tables:
                raise fail(index, f"table {slug!r} appears twice.", field="slug", table=slug)
            for name in ("title", "die", "source", "book", "chapter", "notes"):
                if not isinstance(fields.get(name, ""), str):
                    raise fail(index, f"{name} must be text.", field=name, table=slug)
            if not source_re.match(fields["source"]):
                raise fail(index, f"source {fields['source']!r} must look like {source_help}.", field="source", table=slug)
            system = fields["system"]
            if not (isinstance(system, list) and len(system) == 1 and isinstance(system[0], str)):
                raise fail(index, 'system is a natural key such as ["fiveparsecs"].', field="system", table=slug)
            for name in ("columns", "data_keys"):
                if not _is_str_list(fields.get(name, [])):
                    raise fail(index, f"{name} must be a list of names.", field=name, table=slug)
            tables[slug] = TableSpec(
                system=system[0],
                slug=slug,
                title=fields["title"],
                die=fields["die"],
                book=fields.get("book", ""),
                chapter=fields.get("chapter", ""),
                source=fields["source"],
                notes=fields.get("notes", ""),
                columns=list(fields.get("columns", [])),
                data_keys=list(fields.get("data_keys", [])),
                path=path,
            )
        elif model == "rules.tableentry":
            unknown = set(fields) - ENTRY_FIELDS
            if unknown or "table" not in fields or "result" not in fields:
                raise fail(index, f"unknown fields {sorted(unknown)}; 'table' and 'result' are required.")
            table_key = fields["table"]
            if not (isinstance(table_key, list) and len(table_key) == 1 and table_key[0] in tables):
                raise fail(index, f"entry names table {table_key!r}, which is not defined earlier in this file.", field="table")
            slug = table_key[0]
            for name in ("result", "effect", "column"):
                if not isinstance(fields.get(name, ""), str):
                    raise fail(index, f"{name} must be text.", field=name, table=slug)
            for name in ("low", "high"):
                if not (fields.get(name) is None or _is_int(fields[name])):
                    raise fail(index, f"{name} must be a whole number or null.", field=name, table=slug)
            if not _is_int(fields.get("position", 0)) or fields.get("position", 0) < 0:
                raise fail(index, "position must be a whole number, 0 or more.", field="position", table=slug)
            effect = fields.get("effect", "")
            if len(effect.split()) > max_effect_words:
                raise fail(
                    index,
                    f"effect of {fields['result']!r} has over {max_effect_words} words; keep it short.",
                    field="effect",
                    table=slug,
                )
            data = fields.get("data", {})
            if not isinstance(data, dict):
                raise fail(index, "data must be a JSON object.", field="data", table=slug)
            tables[slug].entries.append(
                Entry(
                    result=fields["result"],
                    low=fields.get("low"),
                    high=fields.get("high"),
                    effect=effect,
                    data=data,
                    column=fields.get("column", ""),
                    position=int(fields.get("position", 0)),
                )
            )
        else:
            raise fail(index, f"unknown model {model!r}; use rules.ruletable or rules.tableentry.", field="model")
    return list(tables.values())


def read_all(paths: Iterable[Path] | None = None) -> list[TableSpec]:
    """Every table in every fixture file; raises :class:`FixtureError` on a duplicate slug."""
    seen: dict[str, Path] = {}
    specs: list[TableSpec] = []
    for path in paths if paths is not None else fixture_files():
        for spec in read_file(path):
            if spec.slug in seen:
                raise FixtureError(f"Table {spec.slug!r} is in both {seen[spec.slug]} and {path}.")
            seen[spec.slug] = path
            specs.append(spec)
    return specs


def problems(spec: TableSpec) -> Iterator[str]:
    """Every problem with one table: coverage, positions, data keys, system folder (only for a
    table read from a file)."""
    try:
        spec.engine().validate()
    except TableError as exc:
        yield str(exc)
    if spec.path is not None and spec.path.parent.name != spec.system:
        yield f"Table {spec.slug!r} belongs to system {spec.system!r} but lives in {spec.path.parent.name}/."
    positions: set[tuple[str, int]] = set()
    for entry in spec.entries:
        key = (entry.column, entry.position)
        if key in positions:
            yield f"Table {spec.slug!r}: position {entry.position} is used twice in column {entry.column!r}."
        positions.add(key)
        missing = [k for k in spec.data_keys if k not in entry.data]
        if missing:
            yield f"Table {spec.slug!r}: entry {entry.result!r} lacks data keys {missing}."
    if not spec.entries:
        yield f"Table {spec.slug!r} has no entries."


def manifest(specs: Iterable[TableSpec]) -> list[dict[str, Any]]:
    """The manifest rows for ``specs``, sorted by system and slug."""
    return sorted((s.manifest_row() for s in specs), key=lambda r: (r["system"], r["slug"]))


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or fixture_files()
    failures = 0
    try:
        specs = read_all(paths)
    except FixtureError as exc:
        print(exc)
        return 1
    for spec in specs:
        found = list(problems(spec))
        failures += len(found)
        for problem in found:
            print(problem)
    print(f"{len(specs)} tables checked, {failures} problem(s).")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
