"""Ladybug (embedded Cypher) DDL generated from the schema definitions."""

from __future__ import annotations

from collections.abc import Mapping, Set

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


def ladybug_migrations(existing: Mapping[str, Set[str]]) -> list[str]:
    """`ALTER TABLE ... ADD` for every defined property a table on disk lacks.

    `existing` maps a table name to the columns it has (from `CALL table_info`). Adding a
    property to the definitions is therefore a migration by itself; old rows read NULL.

    >>> ladybug_migrations({"Episode": {"id", "namespace"}})[:1]
    ['ALTER TABLE Episode ADD `created_at` DOUBLE']
    """
    tables = [(n.label, n.properties) for n in NODES] + [(r.name, r.properties) for r in RELATIONSHIPS]
    return [
        f"ALTER TABLE {table} ADD `{name}` {kind}"
        for table, properties in tables
        if table in existing
        for name, kind in properties
        if name not in existing[table]
    ]
