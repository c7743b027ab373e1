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
MAX_EFFECT_WORDS = 40


class FixtureError(ValueError):
    """A fixture file that cannot be used; the message names the file and the table."""


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
    path: Path
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
    if not isinstance(rows, list):
        raise FixtureError(f"{path}: a fixture is a JSON list of objects.")
    tables: dict[str, TableSpec] = {}
    for index, row in enumerate(rows):
        where = f"{path} row {index}"
        if not isinstance(row, dict) or "model" not in row or not isinstance(row.get("fields"), dict):
            raise FixtureError(f"{where}: each row needs 'model' and 'fields'.")
        model, fields = row["model"], row["fields"]
        if model == "rules.ruletable":
            unknown = set(fields) - TABLE_FIELDS
            missing = {"system", "slug", "title", "die", "source"} - set(fields)
            if unknown or missing:
                raise FixtureError(f"{where}: unknown fields {sorted(unknown)}, missing fields {sorted(missing)}.")
            slug = fields["slug"]
            if not SLUG_RE.match(slug):
                raise FixtureError(f"{where}: slug {slug!r} must be lower-case words joined by hyphens.")
            if slug in tables:
                raise FixtureError(f"{where}: table {slug!r} appears twice.")
            if not SOURCE_RE.match(fields["source"]):
                raise FixtureError(f"{where}: source {fields['source']!r} must look like 'p.18' or 'pp.17-24'.")
            system = fields["system"]
            if not (isinstance(system, list) and len(system) == 1):
                raise FixtureError(f'{where}: system is a natural key such as ["fiveparsecs"].')
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
                raise FixtureError(f"{where}: unknown fields {sorted(unknown)}; 'table' and 'result' are required.")
            table_key = fields["table"]
            if not (isinstance(table_key, list) and len(table_key) == 1 and table_key[0] in tables):
                raise FixtureError(f"{where}: entry names table {table_key!r}, which is not defined earlier in this file.")
            effect = fields.get("effect", "")
            if len(effect.split()) > MAX_EFFECT_WORDS:
                raise FixtureError(f"{where}: effect of {fields['result']!r} has over {MAX_EFFECT_WORDS} words; keep it short.")
            data = fields.get("data", {})
            if not isinstance(data, dict):
                raise FixtureError(f"{where}: data must be a JSON object.")
            tables[table_key[0]].entries.append(
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
            raise FixtureError(f"{where}: unknown model {model!r}; use rules.ruletable or rules.tableentry.")
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
    """Every problem with one table: coverage, positions, data keys, system folder."""
    try:
        spec.engine().validate()
    except TableError as exc:
        yield str(exc)
    if spec.path.parent.name != spec.system:
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
