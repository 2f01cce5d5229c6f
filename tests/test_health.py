"""/health costs a stranger's request nothing per namespace, and a caller's at most a capped number.

The app is the one `hindsight serve` runs, in process over a real embedded memory with an admin
token; every store request the check makes is counted at the stores themselves.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from engine import Memory, Settings
from engine.stores.cypher_graph import CypherGraphStore
from engine.stores.qdrant_edge_vectors import QdrantEdgeVectorStore
from mcp_server.http import MAX_HEALTH_NAMESPACES
from tests.serving import in_process

ADMIN = "admin-token-0123456789"


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    settings = Settings(data_dir=tmp_path_factory.mktemp("health"), api_token=ADMIN)
    with Memory.open(settings=settings) as opened:
        for namespace in ("a", "b"):
            opened.store(f"Namespace {namespace} keeps its own notes.", namespace=namespace)
        yield opened


@pytest.fixture(scope="module")
def client(memory: Memory) -> Iterator[TestClient]:
    with in_process(memory) as test_client:
        yield test_client


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[str, Any]]:
    """Each graph stats and vector count the stores answer, by namespace."""
    seen: Counter[tuple[str, Any]] = Counter()
    stats, count = CypherGraphStore.stats, QdrantEdgeVectorStore.count

    def counted_stats(self: CypherGraphStore, namespace: str | None, now: float) -> Any:
        seen["graph", namespace] += 1
        return stats(self, namespace, now)

    def counted_count(self: QdrantEdgeVectorStore, namespace: str | None, **kwargs: Any) -> int:
        seen["vectors", namespace] += 1
        return count(self, namespace, **kwargs)

    monkeypatch.setattr(CypherGraphStore, "stats", counted_stats)
    monkeypatch.setattr(QdrantEdgeVectorStore, "count", counted_count)
    return seen


def _namespaces(count: int) -> str:
    return "?" + "&".join(f"namespace=n{i}" for i in range(count))


@pytest.mark.parametrize("query", ["", "?namespace=a", _namespaces(2000)])
def test_a_stranger_gets_one_request_to_each_store_whatever_it_asks(
    client: TestClient, lookups: Counter[tuple[str, Any]], query: str
) -> None:
    answer = client.get(f"/health{query}")
    assert answer.status_code == 200, answer.text
    report = answer.json()
    assert report["status"] == "ok" and report["graph"] == "ok" and report["vectors"] == "ok"
    assert report.get("episodes") is None and report.get("vector_points") is None
    assert lookups == Counter({("graph", ""): 1, ("vectors", ""): 1})


def test_a_token_counts_what_it_names_up_to_the_cap(client: TestClient, lookups: Counter[tuple[str, Any]]) -> None:
    auth = {"Authorization": f"Bearer {ADMIN}"}
    both = client.get("/health?namespace=a&namespace=b", headers=auth).json()
    assert both["episodes"] == 2 and both["vector_points"] == 2
    assert lookups == Counter({("graph", "a"): 1, ("graph", "b"): 1, ("vectors", "a"): 1, ("vectors", "b"): 1})
    lookups.clear()
    too_many = client.get(f"/health{_namespaces(MAX_HEALTH_NAMESPACES + 1)}", headers=auth)
    assert too_many.status_code == 400
    assert too_many.json()["field"] == "namespace" and lookups == Counter()
    assert client.get(f"/health{_namespaces(MAX_HEALTH_NAMESPACES)}", headers=auth).json()["episodes"] == 0


def test_the_library_checks_the_stores_without_counting(memory: Memory, lookups: Counter[tuple[str, Any]]) -> None:
    report = memory.health(namespaces=[])
    assert report.status == "ok" and report.episodes is None and report.vector_points is None
    assert lookups == Counter({("graph", ""): 1, ("vectors", ""): 1})
    assert memory.health(namespaces=["a"]).episodes == 1
