"""The analysts' saved queries (`graph_schema/queries/*.cypher`), read with their headers.

Each file starts with `//` comment lines: `name:`, a description, `params:` (the parameters
it takes, the first word of each comma-separated item) and optionally `backends: neo4j` for
a query the embedded backend cannot run. Everything after the comments is the statement.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["QUERY_DIR", "SavedQuery", "saved_queries"]

QUERY_DIR = Path(__file__).parent / "queries"


@dataclass(frozen=True)
class SavedQuery:
    name: str
    description: str
    params: tuple[str, ...]
    backends: tuple[str, ...]
    text: str


def _parse(path: Path) -> SavedQuery:
    header: dict[str, str] = {}
    description: list[str] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    body_start = 0
    for body_start, line in enumerate(lines):  # noqa: B007 (used after the loop)
        if not line.startswith("//"):
            break
        comment = line[2:].strip()
        key, _, value = comment.partition(":")
        if key in {"name", "params", "backends"}:
            header[key] = value.strip()
        else:
            description.append(comment)
    params = tuple(
        item.split()[0] for item in _split_params(header.get("params", "")) if item.strip()
    )
    return SavedQuery(
        name=header.get("name", path.stem),
        description=" ".join(description),
        params=params,
        backends=tuple(header.get("backends", "embedded, neo4j").replace(" ", "").split(",")),
        text="\n".join(lines[body_start:]).strip(),
    )


def _split_params(value: str) -> list[str]:
    """Split on commas outside parentheses: "namespace, entity (a name, lower case)"."""
    items, depth, current = [], 0, ""
    for char in value:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            items.append(current)
            current = ""
        else:
            current += char
    return [*items, current]


def saved_queries() -> dict[str, SavedQuery]:
    """Every saved query by name.

    >>> sorted(saved_queries())[:2]
    ['entity_decisions', 'entity_facts']
    >>> saved_queries()["entity_timeline"].params
    ('namespace', 'entity')
    """
    return {q.name: q for q in (_parse(p) for p in sorted(QUERY_DIR.glob("*.cypher")))}
