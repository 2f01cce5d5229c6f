"""Congruence: the same small corpus, stored the same way, recalls the same cards in the same
order on the embedded default (Ladybug + Qdrant Edge) and on every other pair of stores: Neo4j
(its vectors on the Qdrant server at QDRANT_URL, else in qdrant-client's local mode), and the
embedded graph with qdrant-client's local mode and with a Qdrant server.

Ids differ between two memories (each store makes its own), so cards are compared by their
content, layer and score. Scores agree within 2e-3: each vector engine computes cosine in its
own float kernels, and the last digits move the fused score by less than that."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Memory, MemoryCard
from tests.backends import STORES, open_settings, stores_settings

NOW = 1_800_000_000.0
DAY = 86_400.0
CORPUS = [
    ("kickoff", "user", "We decided to use Postgres for Atlas.", 30),
    ("kickoff", "assistant", "Dana owns the Atlas launch checklist.", 30),
    ("kickoff", "user", "The Atlas launch is on November 20.", 29),
    ("infra", "user", "Redis caches the Atlas session tokens.", 20),
    ("infra", "assistant", "Postgres replication lag alarms page the on-call engineer.", 19),
    ("infra", "user", "We moved the Atlas launch to November 27.", 10),
    ("people", "user", "Dana works at Acme on the billing team.", 8),
    ("people", "assistant", "Mallory reviews every Atlas schema migration.", 5),
    ("周会", "user", "我们决定把预算改成50万。", 4),
    ("周会", "user", "小王负责数据库迁移。", 3),
]
QUERIES = [
    "Which database did we pick for Atlas?",
    "When is the Atlas launch?",
    "Who owns the checklist?",
    "Where does Dana work?",
    "预算是多少？",
    "Redis",
    "schema migration review",
]


def _cards(memory: Memory) -> list[list[tuple[str, str, float]]]:
    for session, role, text, days_ago in CORPUS:
        memory.store(text, session_id=session, role=role, importance=0.8,
                     occurred_at=NOW - days_ago * DAY)  # fmt: skip
    memory.reflect(force=True)

    def card(c: MemoryCard) -> tuple[str, str, float]:
        return (c.content, c.layer, round(c.score, 4))

    return [[card(c) for c in memory.recall(q, top_k=5, now=NOW)] for q in QUERIES]


@pytest.mark.parametrize("stores", [store for store in STORES if store != "embedded"])
def test_every_store_recalls_the_cards_the_embedded_default_does(stores: str, tmp_path: Path) -> None:
    with Memory.open(settings=open_settings("embedded", tmp_path / "embedded")) as memory:
        embedded = _cards(memory)
    with Memory.open(settings=stores_settings(stores, tmp_path / "other")) as memory:
        other = _cards(memory)
    for query, mine, theirs in zip(QUERIES, embedded, other, strict=True):
        assert [c[:2] for c in mine] == [c[:2] for c in theirs], query
        assert [c[2] for c in mine] == pytest.approx([c[2] for c in theirs], abs=2e-3), query
    assert any(embedded), "recall found nothing: the comparison would be empty"
