"""Every Cypher statement hindsight can send to Neo4j, with the parameters each takes.

The Neo4j store's statements (`GraphStatements` in the Neo4j dialect), the schema it applies
and the analysts' saved queries. CI lints each with Neo4j's own linter
(tests/test_cypher_lint.py); nothing else in the engine needs this list.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.stores.cypher_dialect import NEO4J
from engine.stores.cypher_statements import GraphStatements
from graph_schema import NODES, RELATIONSHIPS, neo4j_schema
from graph_schema.definitions import VERSION_READ, VERSION_WRITE
from graph_schema.saved import saved_queries

__all__ = ["CatalogEntry", "lint_schema", "neo4j_statements"]


@dataclass(frozen=True)
class CatalogEntry:
    name: str
    text: str
    params: tuple[str, ...]


def neo4j_statements() -> list[CatalogEntry]:
    entries = [
        CatalogEntry(f"store.{name}", s.text, tuple(sorted(s.params)))
        for name, s in GraphStatements(NEO4J).every()
    ]
    entries += [CatalogEntry(f"schema.{i}", text, ()) for i, text in enumerate(neo4j_schema())]
    entries += [
        CatalogEntry("schema.version_read", VERSION_READ, ()),
        CatalogEntry("schema.version_write", VERSION_WRITE, ("version",)),
    ]
    entries += [
        CatalogEntry(f"queries/{q.name}.cypher", q.text, q.params) for q in saved_queries().values()
    ]
    return entries


def lint_schema() -> dict[str, object]:
    """The graph's shape as the linter's DbSchema: undeclared labels, types or properties warn."""
    properties = {name for node in NODES for name, _ in node.properties}
    properties |= {name for rel in RELATIONSHIPS for name, _ in rel.properties}
    properties |= {"version"}  # SchemaVersion
    # Keys of the UNWIND rows the store sends (r.a, r.src, ...), read like properties.
    properties |= {"a", "b", "n", "src", "dst", "subject_id", "object_id", "old", "new", "at", "failure_id",
                   "fix_id", "failure", "fix"}
    return {
        "labels": [node.label for node in NODES] + ["SchemaVersion"],
        "relationshipTypes": [rel.name for rel in RELATIONSHIPS],
        "propertyKeys": sorted(properties),
        "graphSchema": [{"from": r.source, "to": r.target, "relType": r.name} for r in RELATIONSHIPS],
    }
