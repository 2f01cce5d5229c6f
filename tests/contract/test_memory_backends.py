"""The whole engine on each backend choice: what `HINDSIGHT_BACKEND` selects, end to end.

The embedded case runs everywhere; the neo4j case needs NEO4J_URI (and uses QDRANT_URL when
set, else qdrant-client's local mode under the data directory).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine import Memory, Settings
from engine.errors import StoreUnavailable
from tests.contract.conftest import _live, _wipe_neo4j


@pytest.fixture(params=["embedded", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def backend_settings(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    if request.param == "neo4j":
        _wipe_neo4j(_live("NEO4J_URI", "Neo4j server"))
        collection = f"t{os.getpid()}"
        return Settings(data_dir=tmp_path, backend="neo4j", qdrant_collection_prefix=collection)
    return Settings(data_dir=tmp_path)


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
