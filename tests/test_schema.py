"""graph_schema: one definition, rendered for Ladybug (DDL, migrations) and Neo4j (schema.cypher)."""

from __future__ import annotations

from pathlib import Path

from engine.stores.ladybug_graph import LadybugGraphStore
from graph_schema import NODES, neo4j_schema, render_schema_cypher
from graph_schema.neo4j import apply

SCHEMA_FILE = Path(__file__).parent.parent / "graph_schema" / "schema.cypher"


def test_schema_cypher_is_the_rendered_definitions() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == render_schema_cypher(), (
        "graph_schema/schema.cypher is stale: run `python -m graph_schema > graph_schema/schema.cypher`"
    )


def test_neo4j_schema_has_a_unique_id_per_label_and_the_fulltext_index() -> None:
    statements = neo4j_schema()
    for node in NODES:
        assert f"FOR (n:{node.label}) REQUIRE n.id IS UNIQUE" in "\n".join(statements)
    assert any("FULLTEXT INDEX" in s and "n.content, n.summary" in s for s in statements)
    assert all("IF NOT EXISTS" in s for s in statements)


def test_apply_creates_then_migrates_from_the_recorded_version() -> None:
    ran: list[str] = []
    recorded: list[int] = []

    def run(statement: str, params: object) -> list[list[object]]:
        ran.append(statement)
        if statement.startswith("MERGE (v:SchemaVersion"):
            recorded.append(params["version"])  # type: ignore[index]
        if statement.startswith("MATCH (v:SchemaVersion"):
            return [[recorded[-1]]] if recorded else []
        return []

    assert apply(run) == 0  # a new graph
    assert apply(run) == recorded[0]  # the second run finds the version the first recorded
    assert ran.count(neo4j_schema()[0]) == 2


def test_missing_columns_are_added_on_open(tmp_path: Path) -> None:
    import ladybug

    path = tmp_path / "g"
    db = ladybug.Database(str(path))
    conn = ladybug.Connection(db)
    conn.execute(
        "CREATE NODE TABLE Episode(id STRING, namespace STRING, content STRING, "
        "occurred_at DOUBLE, created_at DOUBLE, PRIMARY KEY (id))"
    )
    conn.execute(
        "CREATE (:Episode {id: 'old', namespace: 'ns', content: 'from schema 1', "
        "occurred_at: 1.0, created_at: 1.0})"
    )
    conn.close()
    db.close()
    graph = LadybugGraphStore(path)
    [old] = graph.get_episodes("ns", ["old"])
    assert old.content == "from schema 1" and old.related_ids == [] and old.kind == "message"
    graph.close()
