"""The whole engine on each backend choice: what `HINDSIGHT_BACKEND` selects, end to end.

The embedded case runs everywhere; the neo4j case needs NEO4J_URI (and uses QDRANT_URL when
set, else qdrant-client's local mode under the data directory).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Memory, Settings
from engine.errors import StoreUnavailable
from engine.stores.neo4j_graph import Neo4jGraphStore
from tests.backends import BACKENDS, open_settings


@pytest.fixture(params=BACKENDS)
def backend_settings(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    return open_settings(request.param, tmp_path)


def test_store_recall_explain_forget_and_doctor(backend_settings: Settings) -> None:
    with Memory.open(settings=backend_settings) as memory:
        first = memory.store("We decided to use Postgres for Atlas.", session_id="s1", importance=0.9)
        memory.store("Dana owns the Atlas launch checklist.", session_id="s1", importance=0.8)
        memory.store("Lunch is at noon.", namespace="other", importance=0.8)
        cards = memory.recall("which database does Atlas use?", top_k=3)
        assert cards[0].id == first.id and cards[0].trace and cards[0].trace.channels
        assert all(card.id != first.id for card in memory.recall("Atlas", namespace="other"))
        explanation = memory.explain(first.id)
        assert {e.name for e in explanation.entities} >= {"Atlas"}
        assert memory.doctor().ok
        memory.forget(first.id)
        assert all(card.id != first.id for card in memory.recall("Postgres Atlas", top_k=5))
        assert memory.stats(namespace="default").episodes == 1
        assert memory.health().backend == backend_settings.backend


def test_production_settings_read_the_usual_variable_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_BACKEND", "neo4j")
    monkeypatch.setenv("NEO4J_URI", "neo4j://graph:7687")
    monkeypatch.setenv("NEO4J_PASSWORD", "s3cret")
    monkeypatch.setenv("QDRANT_URL", "http://vectors:6333")
    settings = Settings()
    assert (settings.backend, settings.neo4j_uri, settings.qdrant_url) == (
        "neo4j", "neo4j://graph:7687", "http://vectors:6333"
    )
    assert settings.neo4j_password.get_secret_value() == "s3cret" and "s3cret" not in repr(settings)
    monkeypatch.setenv("HINDSIGHT_NEO4J_URI", "bolt://other:7687")
    monkeypatch.delenv("NEO4J_URI")
    assert Settings().neo4j_uri == "bolt://other:7687"


def test_an_unreachable_neo4j_is_a_clear_store_error(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, backend="neo4j", neo4j_uri="bolt://127.0.0.1:9",
                        connect_attempts=2)  # fmt: skip
    with pytest.raises(StoreUnavailable, match="cannot reach Neo4j at bolt://127.0.0.1:9"):
        Memory.open(settings=settings)


def test_an_unreachable_qdrant_is_a_clear_store_error() -> None:
    from qdrant_client import QdrantClient

    from engine.stores.qdrant_server_vectors import QdrantServerVectorStore

    client = QdrantClient(url="http://127.0.0.1:9", check_compatibility=False)
    with pytest.raises(StoreUnavailable, match="Qdrant unavailable after retries"):
        QdrantServerVectorStore(client, "unreachable", 4, attempts=2)


def test_statements_that_change_nothing_are_read_and_every_write_is_a_write() -> None:
    from engine.stores.cypher_dialect import NEO4J
    from engine.stores.cypher_statements import GraphStatements

    q = GraphStatements(NEO4J)
    writes = {name for name, statement in q.every() if statement.writes}
    for read in ("live_episodes", "find_entities", "facts_about", "paths_to_entities",
                 "paths_from_episodes", "get_episodes", "list_episodes", "count_listed", "count_episodes"):  # fmt: skip
        assert read not in writes, read
    for write in ("create_episodes", "merge_entities", "mark_accessed", "mark_accessed_rows",
                  "soft_delete", "create_facts", "links.mentions"):  # fmt: skip
        assert write in writes, write


@pytest.mark.neo4j
def test_neo4j_logs_no_notification_noise_and_writes_marks_after_recall(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = open_settings("neo4j", tmp_path)
    with caplog.at_level("WARNING", logger="neo4j"), Memory.open(settings=settings) as memory:
        stored = memory.store("We decided to use Postgres for Atlas.", importance=0.9)
        cards = memory.recall("Which database for Atlas?", top_k=1)
        assert cards[0].id == stored.id
        assert memory.get(stored.id).access_count == 1  # a read writes the held marks first
        memory.recall("Atlas database", top_k=1)
    with Memory.open(settings=open_settings("neo4j", tmp_path, wipe=False)) as memory:
        assert memory.get(stored.id).access_count == 2  # written by close at the latest
    # A database without `archived_at` yet draws a WARNING per statement unless filtered.
    noise = [r.getMessage() for r in caplog.records if r.name.startswith("neo4j.notifications")]
    assert noise == []


@pytest.mark.neo4j
def test_neo4j_writes_the_marks_of_recalls_in_quick_succession_in_one_transaction(tmp_path: Path) -> None:
    settings = open_settings("neo4j", tmp_path, access_write_seconds=60)
    with Memory.open(settings=settings) as memory:
        atlas = memory.store("We decided to use Postgres for Atlas.", importance=0.9)
        kestrel = memory.store("The Kestrel deploy key lives in the vault.", importance=0.9)
        graph = memory._core.graph
        assert isinstance(graph, Neo4jGraphStore)
        own, transactions = graph._in_own_transaction, []

        def counted(work, write=True):  # type: ignore[no-untyped-def]
            transactions.append(write)
            return own(work, write)

        graph._in_own_transaction = counted  # type: ignore[method-assign]
        for question in ("Which database for Atlas?", "Where is the Kestrel deploy key?", "Atlas database"):
            memory.recall(question, top_k=1)
        assert transactions == []  # held within the delay, not one write a recall
    assert transactions == [True]  # close wrote them all at once
    with Memory.open(settings=open_settings("neo4j", tmp_path, wipe=False)) as memory:
        assert (memory.get(atlas.id).access_count, memory.get(kestrel.id).access_count) == (2, 1)
