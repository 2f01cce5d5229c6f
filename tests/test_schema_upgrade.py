"""A store written before schema 8 (no Episode.outcome, no RESOLVED_BY or STEP_OF, no
FACT.rule) opens on each graph backend, keeps what it held and gains the new parts: a task
run's steps, failures joined to their fixes, lessons that name their rule."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine import Memory, Settings
from graph_schema.definitions import SCHEMA_VERSION
from tests.backends import BACKENDS, open_settings

NS = "upgrade"


_DOWNGRADE = {  # the graph as schema 7 left it: what 8 added, dropped
    "embedded": ("ALTER TABLE Episode DROP outcome", "ALTER TABLE FACT DROP rule", "DROP TABLE RESOLVED_BY",
                 "DROP TABLE STEP_OF", "MATCH (v:SchemaVersion) SET v.version = 7"),
    "neo4j": ("MATCH (e:Episode) REMOVE e.outcome", "MATCH ()-[f:FACT]->() REMOVE f.rule",
              "MATCH ()-[r:RESOLVED_BY|STEP_OF]->() DELETE r", "MATCH (v:SchemaVersion) SET v.version = 7"),
}  # fmt: skip
_VERSION = "MATCH (v:SchemaVersion) RETURN max(v.version)"


def _run_on_graph(backend: str, settings: Settings, statements: tuple[str, ...]) -> list[list[object]]:
    """Run statements on the graph itself, outside hindsight; the last one's rows."""
    rows: list[list[object]] = []
    if backend == "embedded":
        import ladybug

        db = ladybug.Database(str(settings.graph_path))
        conn = ladybug.Connection(db)
        for statement in statements:
            result = conn.execute(statement)
            rows = [list(row) for row in result.get_all()]  # type: ignore[union-attr]
        conn.close()
        db.close()
        return rows
    import neo4j

    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    with neo4j.GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        for statement in statements:
            records = driver.execute_query(statement, database_=os.environ.get("NEO4J_DATABASE", "neo4j")).records
            rows = [list(record.values()) for record in records]
    return rows


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_schema_7_store_opens_and_gains_tasks_fixes_and_rules(backend: str, tmp_path: Path) -> None:
    settings = open_settings(backend, tmp_path / "data")
    with Memory.open(settings=settings) as memory:
        memory.store("My favourite board game is Azul.", role="user", namespace=NS, importance=0.8,
                     occurred_at="2026-01-05T10:00:00Z")  # fmt: skip
        memory.reflect(namespace=NS)
    _run_on_graph(backend, settings, _DOWNGRADE[backend])

    reopened = open_settings(backend, tmp_path / "data", wipe=False)
    with Memory.open(settings=reopened) as memory:
        # What schema 7 held reads as before; its fact names no rule.
        [fact] = memory.entity("Azul", namespace=NS).facts
        assert fact.predicate.startswith("favorite") and fact.rule is None
        # The new parts: a task run with a failed step and its fix, then its lesson.
        run = memory.store_task("Publish the docs site", [
            {"content": "python build_docs.py\nModuleNotFoundError: No module named 'yaml'",
             "role": "python", "outcome": "failure"},
            {"content": "pip install pyyaml, then python build_docs.py ran clean",
             "role": "python", "outcome": "success"},
        ], outcome="success", namespace=NS, occurred_at="2026-02-01T09:00:00Z")  # fmt: skip
        failure, fix = (step.id for step in run.steps)
        resolved = memory.cypher("MATCH (a:Episode)-[:RESOLVED_BY]->(b:Episode) WHERE a.namespace = $namespace "
                                 "RETURN a.id, b.id", namespace=NS)  # fmt: skip
        assert [list(row) for row in resolved.rows] == [[failure, fix]]
        steps = memory.cypher("MATCH (s:Episode)-[:STEP_OF]->(t:Episode) WHERE t.namespace = $namespace "
                              "RETURN count(s)", namespace=NS)  # fmt: skip
        assert steps.rows[0][0] == 2
        assert memory.explain(failure, namespace=NS).episode.outcome == "failure"
        while memory.reflect(namespace=NS).status != "nothing_new":
            pass
        rules = memory.cypher("MATCH (a:Entity)-[f:FACT]->() WHERE a.namespace = $namespace AND f.rule IS NOT NULL "
                              "RETURN f.rule", namespace=NS).rows  # fmt: skip
        assert ["lesson"] in [list(row) for row in rules]
    assert _run_on_graph(backend, reopened, (_VERSION,)) == [[SCHEMA_VERSION]]
