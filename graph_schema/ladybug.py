"""Ladybug (embedded Cypher) DDL generated from the schema definitions."""

from __future__ import annotations

from graph_schema.definitions import NODES, RELATIONSHIPS


def ladybug_ddl() -> list[str]:
    """`CREATE ... IF NOT EXISTS` statements for every node and relationship table.

    >>> ladybug_ddl()[0].startswith("CREATE NODE TABLE IF NOT EXISTS Episode(")
    True
    """
    statements = []
    for node in NODES:
        columns = ", ".join(f"`{name}` {kind}" for name, kind in node.properties)
        statements.append(
            f"CREATE NODE TABLE IF NOT EXISTS {node.label}({columns}, PRIMARY KEY (id))"
        )
    for rel in RELATIONSHIPS:
        columns = "".join(f", `{name}` {kind}" for name, kind in rel.properties)
        statements.append(
            f"CREATE REL TABLE IF NOT EXISTS {rel.name}(FROM {rel.source} TO {rel.target}{columns})"
        )
    statements.append(
        "CREATE NODE TABLE IF NOT EXISTS SchemaVersion(id STRING, version INT64, PRIMARY KEY (id))"
    )
    return statements
