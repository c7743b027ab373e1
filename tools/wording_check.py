"""Find fixture texts that repeat the source documents word for word.

    uv run python tools/wording_check.py PATH/TO/seeds [--run 8] [--share 0.5]

Effect texts and notes must be our own words; names and numbers are facts. This lists each
fixture string in which a run of ``--run`` or more consecutive words also stands in a source
document and at least ``--share`` of its words lie in such runs. It is a development aid: the
app and its tests never read the source documents.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower().replace("\u2019", "'"))


def strings(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from strings(item, f"{path}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings(item, f"{path}.{key}" if path else key)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("seeds", type=Path)
    parser.add_argument("--run", type=int, default=8)
    parser.add_argument("--share", type=float, default=0.5)
    args = parser.parse_args()
    source = [w for f in sorted(args.seeds.glob("*.txt")) if ".folded" not in f.name for w in words(f.read_text())]
    grams = {tuple(source[i : i + args.run]) for i in range(len(source) - args.run + 1)}
    found = 0
    for fixture in sorted((ROOT / "fixtures").glob("*/*.json")):
        for row in json.loads(fixture.read_text()):
            fields = row["fields"]
            label = fields.get("slug") or f"{fields.get('table', [''])[0]}:{fields.get('result', '')}"
            for where, text in strings(
                {k: v for k, v in fields.items() if k not in {"slug", "title", "result", "system", "table"}}
            ):
                w = words(text)
                covered = [False] * len(w)
                for i in range(len(w) - args.run + 1):
                    if tuple(w[i : i + args.run]) in grams:
                        covered[i : i + args.run] = [True] * args.run
                if w and any(covered) and sum(covered) / len(w) >= args.share:
                    found += 1
                    print(f"{fixture.relative_to(ROOT)} {label} {where}: {text[:140]}")
    print(f"{found} string(s) repeat the sources.")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
