"""The graph's shape, defined once: node labels, relationship types and their properties.

Backends generate their DDL from these definitions (`ladybug_ddl`, `neo4j_schema`);
DESIGN.md section 3 is the prose version of the same thing.
"""

from graph_schema.definitions import NODES, RELATIONSHIPS, SCHEMA_VERSION, NodeType, RelType
from graph_schema.ladybug import ladybug_ddl, ladybug_migrations
from graph_schema.neo4j import neo4j_schema, render_schema_cypher

__all__ = [
    "NODES",
    "RELATIONSHIPS",
    "SCHEMA_VERSION",
    "NodeType",
    "RelType",
    "ladybug_ddl",
    "ladybug_migrations",
    "neo4j_schema",
    "render_schema_cypher",
]
