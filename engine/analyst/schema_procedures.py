"""Schema procedures answered from hindsight's own schema, never from the database.

A database's `db.labels()`, `db.propertyKeys()` or `db.schema.visualization()` describe every
tenant's data: a property key appears once any namespace sets an expiry, a relationship type
once any namespace reflects. So an analyst's schema CALL is answered from `graph_schema`, the
same in every namespace and on both backends, and a schema procedure is only answered alone
(`CALL db.labels()`, optionally `YIELD` some of its columns, or Ladybug's `RETURN *`): inside a
larger query it would have to run on the database.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from engine.errors import InvalidInput
from engine.views import CypherResult
from graph_schema import NODES, RELATIONSHIPS

__all__ = ["SCHEMA_PROCEDURES", "answer_schema_call", "starts_with_schema_call"]

_Rows = tuple[list[str], list[list[Any]]]


def _labels(args: Sequence[str]) -> _Rows:
    return ["label"], [[node.label] for node in NODES]


def _relationship_types(args: Sequence[str]) -> _Rows:
    return ["relationshipType"], [[rel.name] for rel in RELATIONSHIPS]


def _property_keys(args: Sequence[str]) -> _Rows:
    keys = {name for node in NODES for name, _ in node.properties}
    keys |= {name for rel in RELATIONSHIPS for name, _ in rel.properties}
    return ["propertyKey"], [[key] for key in sorted(keys)]


def _visualization(args: Sequence[str]) -> _Rows:
    nodes = [{"name": node.label, "properties": dict(node.properties)} for node in NODES]
    relationships = [
        {"type": rel.name, "start": rel.source, "end": rel.target, "properties": dict(rel.properties)}
        for rel in RELATIONSHIPS
    ]
    return ["nodes", "relationships"], [[nodes, relationships]]


def _show_tables(args: Sequence[str]) -> _Rows:
    rows: list[list[Any]] = [[node.label, "NODE", ""] for node in NODES]
    rows += [[rel.name, "REL", ""] for rel in RELATIONSHIPS]
    return ["name", "type", "comment"], rows


def _table_info(args: Sequence[str]) -> _Rows:
    tables = {node.label: node.properties for node in NODES}
    tables |= {rel.name: rel.properties for rel in RELATIONSHIPS}
    if len(args) != 1 or args[0] not in tables:
        raise InvalidInput("query", f"table_info takes one table name of: {', '.join(tables)}")
    keyed = args[0] in {node.label for node in NODES}
    rows = [[number, name, kind, keyed and name == "id"]
            for number, (name, kind) in enumerate(tables[args[0]])]  # fmt: skip
    return ["property id", "name", "type", "primary key"], rows


def _show_connection(args: Sequence[str]) -> _Rows:
    rels = {rel.name: rel for rel in RELATIONSHIPS}
    if len(args) != 1 or args[0] not in rels:
        raise InvalidInput("query", f"show_connection takes one of: {', '.join(rels)}")
    rel = rels[args[0]]
    return ["source table name", "destination table name"], [[rel.source, rel.target]]


# Keyed by the lower-cased name, as Neo4j matches procedure names without regard to case.
SCHEMA_PROCEDURES: dict[str, Callable[[Sequence[str]], _Rows]] = {
    "db.labels": _labels,
    "db.relationshiptypes": _relationship_types,
    "db.propertykeys": _property_keys,
    "db.schema.visualization": _visualization,
    "show_tables": _show_tables,
    "table_info": _table_info,
    "show_connection": _show_connection,
}

_NAME = r"[A-Za-z_][A-Za-z0-9_.]*"
_LEADING_CALL = re.compile(rf"^\s*CALL\s+({_NAME})\s*\(", re.IGNORECASE)
_ALONE = re.compile(
    rf"""^\s*CALL\s+(?P<name>{_NAME})\s*\(\s*(?P<args>(?:'[^'\\]*'|"[^"\\]*")?)\s*\)
         \s*(?:YIELD\s+(?P<yield>\*|{_NAME}(?:\s*,\s*{_NAME})*))?
         \s*(?P<star>RETURN\s+\*)?\s*$""",
    re.IGNORECASE | re.VERBOSE,
)


def starts_with_schema_call(statement: str) -> bool:
    """Whether the statement begins by calling a schema procedure (one called later in a
    query is refused by the scope check).

    >>> starts_with_schema_call("CALL db.labels() YIELD label RETURN label")
    True
    >>> starts_with_schema_call("MATCH (e:Episode) WHERE e.namespace = $namespace RETURN e")
    False
    """
    leading = _LEADING_CALL.match(statement)
    return leading is not None and leading.group(1).lower() in SCHEMA_PROCEDURES


def answer_schema_call(statement: str) -> CypherResult:
    """The rows of a schema procedure called alone, from `graph_schema`.

    >>> answer_schema_call("CALL db.relationshipTypes() YIELD relationshipType").rows[:2]
    [['MENTIONS'], ['DECIDED']]
    >>> answer_schema_call("CALL db.labels() YIELD label WITH label MATCH (n) RETURN n")
    Traceback (most recent call last):
    engine.errors.InvalidInput: query: a schema procedure is answered from hindsight's schema, so it must be called alone, e.g. CALL db.labels() YIELD label (optionally YIELD some of its columns)

    Raises:
        InvalidInput: the call is part of a larger query, names an unknown table or column.
    """
    alone = _ALONE.match(statement)
    name = alone.group("name").lower() if alone else ""
    if alone is None or name not in SCHEMA_PROCEDURES:
        raise InvalidInput(
            "query",
            "a schema procedure is answered from hindsight's schema, so it must be called "
            "alone, e.g. CALL db.labels() YIELD label (optionally YIELD some of its columns)",
        )
    args = [alone.group("args")[1:-1]] if alone.group("args") else []
    columns, rows = SCHEMA_PROCEDURES[name](args)
    wanted = alone.group("yield")
    if wanted and wanted != "*":
        picked = [column.strip() for column in wanted.split(",")]
        unknown = [column for column in picked if column not in columns]
        if unknown:
            raise InvalidInput(
                "query", f"{name} yields no column {unknown[0]!r} (it yields {', '.join(columns)})"
            )
        positions = [columns.index(column) for column in picked]
        columns, rows = picked, [[row[i] for i in positions] for row in rows]
    return CypherResult(columns=columns, rows=rows, truncated=False)
