"""Turn validated store requests into one graph batch and its vector points. Pure.

The façade runs the models (NER, embeddings) and reads the session tails from the graph, then
calls `prepare`; the result is written in one graph transaction with the vector upsert inside it.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Mapping, Sequence

from pydantic import BaseModel

from engine.ingest.extract import find_decisions, find_numbers, find_todos
from engine.ingest.importance import score_importance
from engine.models import (
    Decision,
    Entity,
    Episode,
    Session,
    StoreRequest,
    StoreResult,
    session_node_id,
)
from engine.nlp import RawEntity
from engine.settings import Settings
from engine.stores.base import GraphBatch, SparseVector, VectorPayload, VectorPoint
from engine.text import bm25_document, canonical_name, normalize, split_sentences, tokenize

__all__ = ["Prepared", "entity_id", "prepare"]

_ENTITY_NS = uuid.UUID("5b1d5f2e-6a57-4c1e-9a43-3f2b6d1c9e10")
_SUMMARY_CHARS = 200
_WORDISH = re.compile(r"[\u3400-\u9fff]|[^\W_]+")


class Prepared(BaseModel):
    batch: GraphBatch
    points: list[VectorPoint]
    results: list[StoreResult]


def entity_id(namespace: str, canonical: str) -> str:
    """Entities are keyed by namespace and canonical name, so mentions merge on write."""
    return str(uuid.uuid5(_ENTITY_NS, f"{namespace}\x1f{canonical}"))


def prepare(
    requests: Sequence[StoreRequest],
    entities: Sequence[Sequence[RawEntity]],
    embeddings: Sequence[Sequence[float]],
    session_tails: Mapping[tuple[str, str], str | None],
    *,
    now: float,
    settings: Settings,
    redacted: Sequence[Mapping[str, int]] | None = None,
) -> Prepared:
    """Build the graph batch, vector points and store results for a batch of requests.

    `redacted` holds, per request, the counts of personal data already replaced in it.

    `session_tails` maps (namespace, session_id) to the latest stored episode of that session,
    so NEXT edges continue the chain across calls.
    """
    batch = GraphBatch()
    points: list[VectorPoint] = []
    results: list[StoreResult] = []
    merged: dict[str, Entity] = {}
    sessions: dict[str, Session] = {}
    tails = dict(session_tails)

    order = sorted(range(len(requests)), key=lambda i: requests[i].occurred_at or now)
    episodes: dict[int, Episode] = {}
    for i in order:
        request = requests[i]
        occurred = request.occurred_at if request.occurred_at is not None else now
        episode_id = str(uuid.uuid4())
        decisions = find_decisions(request.content)
        numbers = find_numbers(request.content)
        todos = find_todos(request.content)
        found = [e for e in entities[i] if canonical_name(e.name)]
        importance = request.importance
        if importance is None:
            importance = score_importance(
                request.content,
                entities=len(found),
                decisions=len(decisions),
                numbers=len(numbers),
                todos=len(todos),
                base=settings.default_importance,
            )
        episode = Episode(
            id=episode_id,
            namespace=request.namespace,
            content=request.content,
            summary=_summary(request.content),
            kind=request.kind,
            session_id=request.session_id,
            role=request.role,
            importance=importance,
            layer=request.layer,
            token_count=len(_WORDISH.findall(request.content)),
            content_hash=hashlib.sha256(normalize(request.content).encode()).hexdigest(),
            occurred_at=occurred,
            created_at=now,
            metadata=request.metadata,
            numbers=numbers,
            todos=todos,
            related_ids=request.related_ids,
            redactions=sum(redacted[i].values()) if redacted else 0,
        )
        episodes[i] = episode
        batch.episodes.append(episode)

        mentioned: dict[str, Entity] = {}
        for raw in found:
            canonical = canonical_name(raw.name)
            key = entity_id(request.namespace, canonical)
            mentioned[key] = _merge_entity(
                merged.get(key), key, raw, canonical, request.namespace, occurred, now
            )
            merged[key] = mentioned[key]
        batch.mentions.extend((episode_id, key, 1) for key in mentioned)

        decision_texts = []
        for text in decisions:
            decision = Decision(
                id=str(uuid.uuid4()),
                namespace=request.namespace,
                text=text,
                decided_at=occurred,
                created_at=now,
            )
            batch.decisions.append(decision)
            batch.decided.append((episode_id, decision.id))
            lowered = normalize(text)
            batch.about.extend(
                (decision.id, key) for key, e in mentioned.items() if normalize(e.name) in lowered
            )
            decision_texts.append(text)

        if request.session_id is not None:
            node = session_node_id(request.namespace, request.session_id)
            if node not in sessions:
                sessions[node] = Session(
                    id=node,
                    namespace=request.namespace,
                    name=request.session_id,
                    started_at=occurred,
                    created_at=now,
                )
            batch.in_session.append((episode_id, node))
            tail_key = (request.namespace, request.session_id)
            previous = tails.get(tail_key)
            if previous is not None:
                batch.next.append((previous, episode_id))
            tails[tail_key] = episode_id

        sparse = bm25_document(
            tokenize(request.content), settings.bm25_k1, settings.bm25_b, settings.bm25_avg_len
        )
        points.append(
            VectorPoint(
                id=episode_id,
                dense=list(embeddings[i]),
                sparse=SparseVector(indices=sparse[0], values=sparse[1]),
                payload=VectorPayload(
                    namespace=request.namespace,
                    session_id=request.session_id,
                    kind=request.kind,
                    layer=request.layer,
                    importance=importance,
                    created_at=now,
                    occurred_at=occurred,
                    entities=sorted(e.canonical for e in mentioned.values()),
                ),
            )
        )
        results.append(
            StoreResult(
                id=episode_id,
                namespace=request.namespace,
                importance=importance,
                entities=[e.name for e in mentioned.values()],
                decisions=decision_texts,
                redacted=dict(redacted[i]) if redacted else {},
            )
        )

    batch.entities = list(merged.values())
    batch.sessions = list(sessions.values())
    # Results in the caller's order, not the time order used for NEXT edges.
    by_id = {r.id: r for r in results}
    ordered = [by_id[episodes[i].id] for i in range(len(requests))]
    return Prepared(batch=batch, points=points, results=ordered)


def _merge_entity(
    existing: Entity | None,
    key: str,
    raw: RawEntity,
    canonical: str,
    namespace: str,
    occurred: float,
    now: float,
) -> Entity:
    if existing is None:
        return Entity(
            id=key,
            namespace=namespace,
            name=raw.name,
            canonical=canonical,
            type=raw.type,
            first_seen=occurred,
            last_seen=occurred,
            mention_count=1,
            created_at=now,
        )
    return existing.model_copy(
        update={
            "first_seen": min(existing.first_seen, occurred),
            "last_seen": max(existing.last_seen, occurred),
            "mention_count": existing.mention_count + 1,
        }
    )


def _summary(content: str) -> str:
    sentences = split_sentences(content)
    first = sentences[0] if sentences else content.strip()
    return first if len(first) <= _SUMMARY_CHARS else first[: _SUMMARY_CHARS - 1] + "…"
