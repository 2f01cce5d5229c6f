"""Read-only Cypher: every write form is refused by the text check, with comment, case and
spacing tricks, and the store's read-only transaction refuses what slips past the text."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine import Memory, Settings
from engine.errors import ReadOnlyViolation, StoreUnavailable

SCOPE = "MATCH (e:Episode) WHERE e.namespace = $namespace "
WRITES = [
    "CREATE (:Episode {id: 'x', namespace: $namespace})",
    SCOPE + "CREATE (e)-[:NEXT]->(e)",
    "MERGE (s:Session {id: $namespace})",
    SCOPE + "SET e.importance = 1",
    SCOPE + "SET e += {importance: 1}",
    SCOPE + "DELETE e",
    SCOPE + "DETACH DELETE e",
    SCOPE + "REMOVE e.summary",
    SCOPE + "FOREACH (x IN [1] | SET e.importance = x)",
    "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row",
    SCOPE + "CALL { WITH e SET e.importance = 1 } IN TRANSACTIONS OF 10 ROWS",
    "CALL apoc.create.node(['Episode'], {namespace: $namespace}) YIELD node RETURN node",
    "CALL db.createLabel('Leak')",
    "CALL dbms.setConfigValue('db.logs.query.enabled', 'off')",
    "CALL create_fts_index('Episode', 'i', ['content'])",
    "COPY Episode FROM '/tmp/episodes.csv'",
    "COPY (" + SCOPE + "RETURN e.content) TO '/tmp/leak.csv'",
    "DROP TABLE Episode",
    "ALTER TABLE Episode ADD leak STRING",
    "INSTALL httpfs",
    "LOAD EXTENSION json",
    "ATTACH '/tmp/other' AS other (dbtype lbug)",
    "CHECKPOINT",
    "BEGIN TRANSACTION",
    SCOPE + "RETURN e; CREATE (:Session {id: 'y'})",
    # case, comments, whitespace and line breaks around the keyword
    "match (e:Episode) where e.namespace = $namespace sEt e.importance = 1",
    SCOPE + "/* harmless */ DETACH /* really */ DELETE e",
    SCOPE + "// a comment\nSET e.importance = 1",
    SCOPE + "\tSET\te.importance=1",
    SCOPE + "WITH e SET e.importance = 1 RETURN e",
    "CREATE/**/(:Session {id: 'z'})",
    "USE system CREATE DATABASE leak",
    "GRANT ROLE admin TO leak",
    "RETURN 1 UNION CREATE (:Session {id: 'w'}) RETURN 1",
]


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    with Memory.open(settings=Settings(data_dir=tmp_path_factory.mktemp("ro"))) as opened:
        opened.store("Atlas uses Postgres; CREATE and SET are only words here.", importance=0.8)
        yield opened


@pytest.mark.parametrize("query", WRITES)
def test_every_write_form_is_refused(memory: Memory, query: str) -> None:
    before = memory.stats()
    with pytest.raises(ReadOnlyViolation):
        memory.cypher(query)
    assert memory.stats() == before


@pytest.mark.parametrize(
    "query",
    [
        SCOPE + "AND e.content CONTAINS 'CREATE' RETURN count(e)",  # a keyword inside a string
        SCOPE + "RETURN e.content AS `SET`",  # a keyword as a quoted name
        SCOPE + "RETURN e.content // SET in a comment",
    ],
)
def test_reads_that_merely_mention_a_keyword_run(memory: Memory, query: str) -> None:
    assert memory.cypher(query).rows


@pytest.mark.parametrize(
    "query",
    ["CREATE (:Session {id: 'past-the-text-check'})",
     "MATCH (e:Episode) SET e.importance = 0.0",
     "MATCH (e:Episode) DETACH DELETE e"],
)  # fmt: skip
def test_the_store_refuses_writes_that_skip_the_text_check(memory: Memory, query: str) -> None:
    before = memory.stats()
    with pytest.raises(StoreUnavailable, match="read-only"):
        memory._core.graph.read_cypher(query, {}, max_rows=10, timeout_ms=5000)
    assert memory.stats() == before
