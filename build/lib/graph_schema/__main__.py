"""`python -m graph_schema > graph_schema/schema.cypher`: print the Neo4j schema."""

from graph_schema.neo4j import render_schema_cypher

print(render_schema_cypher(), end="")
