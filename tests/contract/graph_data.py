"""Records the graph contract tests write: episodes, entities, decisions, facts, a base batch."""

from __future__ import annotations

from engine.models import Decision, Entity, Episode
from engine.stores.base import GraphBatch
from engine.views import Fact

T = 1_700_000_000.0


def episode(episode_id: str, at: float, namespace: str = "ns", **fields: object) -> Episode:
    return Episode.model_validate(
        {"id": episode_id, "namespace": namespace, "content": f"episode {episode_id}",
         "occurred_at": at, "created_at": at, **fields}
    )  # fmt: skip


def entity(entity_id: str, name: str, namespace: str = "ns", **fields: object) -> Entity:
    return Entity.model_validate(
        {"id": entity_id, "namespace": namespace, "name": name, "canonical": name.lower(),
         "type": "THING", "first_seen": T, "last_seen": T, "created_at": T, **fields}
    )  # fmt: skip


def decision(decision_id: str, text: str, at: float = T, **fields: object) -> Decision:
    return Decision.model_validate(
        {"id": decision_id, "namespace": "ns", "text": text, "decided_at": at, "created_at": at,
         **fields}
    )  # fmt: skip


def fact(fact_id: str, statement: str, confidence: float, **fields: object) -> Fact:
    return Fact.model_validate(
        {"id": fact_id, "subject": "Atlas", "subject_id": "atlas", "predicate": "uses",
         "object": "PostgreSQL", "object_id": "pg", "statement": statement,
         "confidence": confidence, "support": 1, "valid_from": T, **fields}
    )  # fmt: skip


def base_batch() -> GraphBatch:
    return GraphBatch(
        episodes=[episode("e1", T), episode("e2", T + 10), episode("e3", T + 20)],
        entities=[entity("atlas", "Atlas"), entity("pg", "PostgreSQL")],
        decisions=[decision("d1", "use PostgreSQL", subjects=["entity:pg"])],
        mentions=[("e1", "atlas", 1), ("e2", "atlas", 1), ("e3", "pg", 1)],
        decided=[("e2", "d1")],
        about=[("d1", "pg")],
        next=[("e1", "e2"), ("e2", "e3")],
    )


