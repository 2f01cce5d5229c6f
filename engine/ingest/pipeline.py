"""Turn planned episodes into one graph batch and its vector points. Pure.

The writer (`engine/ingest/writer.py`) runs the models and the lookups (`lookups.py`: known
entities, duplicates, decisions to supersede) and hands over `PlannedEpisode`s (`planning.py`);
`prepare` only shapes them into nodes, edges and points.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from pydantic import BaseModel, Field

from engine.embed import Embedder
from engine.embed.multilingual import multilingual_vectors
from engine.ingest.dedup import content_hash
from engine.ingest.sentences import by_text, mean_vector, sentences_to_embed
from engine.inputs import StoreRequest
from engine.keyword_keys import KEY_VERSION, own_key
from engine.models import (
    Decision,
    Entity,
    Episode,
    Layer,
    NumberMention,
    Session,
    StoreResult,
    session_node_id,
)
from engine.settings import Settings
from engine.stores.base import GraphBatch
from engine.stores.vectors import VectorPayload, VectorPoint
from engine.text import count_tokens, normalize, split_sentences

__all__ = [
    "EpisodeVectors",
    "PlannedDecision",
    "PlannedEntity",
    "PlannedEpisode",
    "Prepared",
    "about_entities",
    "entity_id",
    "episode_vectors",
    "prepare",
    "source_of",
    "vector_point",
]

_ENTITY_NS = uuid.UUID("5b1d5f2e-6a57-4c1e-9a43-3f2b6d1c9e10")
_SUMMARY_CHARS = 200


class PlannedEntity(BaseModel):
    """An entity mention, resolved: `id` is a stored entity's or a new one's."""

    id: str
    name: str  # as written in this episode
    canonical: str
    type: str
    alias: str | None = None  # a new canonical form to add to a stored entity's aliases


class PlannedDecision(BaseModel):
    id: str
    text: str
    about: list[str]  # entity ids
    subjects: list[str]
    supersedes: list[str] = Field(default_factory=list)  # ids of earlier active decisions


class PlannedEpisode(BaseModel):
    """One episode to write, with every choice made."""

    id: str
    request: StoreRequest
    importance: float
    embedding: list[float]
    multilingual: list[float] | None = None  # CJK text's vector in the second space
    sentences: list[list[float]] = []  # its sentences' vectors (engine/ingest/sentences.py)
    entities: list[PlannedEntity]
    decisions: list[PlannedDecision]
    numbers: list[NumberMention]
    todos: list[str]
    redacted: dict[str, int] = Field(default_factory=dict)
    parent_id: str | None = None  # set on a chunk
    chunk_index: int | None = None
    chunk_ids: list[str] = Field(default_factory=list)  # set on a chunked whole


class Prepared(BaseModel):
    batch: GraphBatch
    points: list[VectorPoint]
    results: list[StoreResult]  # one per whole episode (not per chunk), in planning order


def entity_id(namespace: str, canonical: str) -> str:
    """Entities are keyed by namespace and canonical name, so mentions merge on write."""
    return str(uuid.uuid5(_ENTITY_NS, f"{namespace}\x1f{canonical}"))


def about_entities(decision: str, entities: Sequence[PlannedEntity]) -> list[str]:
    """Ids of the entities a decision sentence names.

    >>> e = PlannedEntity(id="e1", name="Postgres", canonical="postgres", type="ORG")
    >>> about_entities("We decided to use postgres.", [e]), about_entities("Fine.", [e])
    (['e1'], [])
    """
    lowered = normalize(decision)
    return list(dict.fromkeys(e.id for e in entities if normalize(e.name) in lowered))


_STAMP_STEP = 1e-6


def prepare(
    planned: Sequence[PlannedEpisode],
    session_tails: Mapping[tuple[str, str], str | None],
    *,
    now: float,
    settings: Settings,
) -> Prepared:
    """Build the graph batch, vector points and store results.

    `session_tails` maps (namespace, session_id) to the latest stored episode of that session,
    so NEXT edges continue the chain across calls. Chunks are not part of the session chain:
    their whole is.
    """
    batch = GraphBatch()
    points: list[VectorPoint] = []
    merged: dict[str, Entity] = {}
    sessions: dict[str, Session] = {}
    tails = dict(session_tails)

    for rank, item in enumerate(sorted(planned, key=lambda p: (_occurred(p, now), p.chunk_index or 0))):
        request = item.request
        occurred = _occurred(item, now)
        # A microsecond apart, in the order they occurred: reflection pages by (created_at, id),
        # and one stamp for the batch would leave its order to the random ids, so the same
        # conversation stored twice would be read in other runs and give other facts.
        stamped = now + rank * _STAMP_STEP
        episode = _episode(item, occurred, stamped, settings)
        batch.episodes.append(episode)
        for planned_entity in item.entities:
            merged[planned_entity.id] = _merge_entity(
                merged.get(planned_entity.id), planned_entity, request.namespace, occurred, now
            )
        batch.mentions.extend((item.id, e.id, 1) for e in item.entities)
        for decision in item.decisions:
            batch.decisions.append(
                Decision(
                    id=decision.id,
                    namespace=request.namespace,
                    text=decision.text,
                    decided_at=occurred,
                    created_at=now,
                    subjects=decision.subjects,
                )
            )
            batch.decided.append((item.id, decision.id))
            batch.about.extend((decision.id, entity) for entity in decision.about)
            batch.supersedes.extend((decision.id, old) for old in decision.supersedes)
        if item.parent_id is not None:
            batch.part_of.append((item.id, item.parent_id, item.chunk_index or 0))
        elif request.session_id is not None:
            node = session_node_id(request.namespace, request.session_id)
            sessions.setdefault(
                node,
                Session(
                    id=node,
                    namespace=request.namespace,
                    name=request.session_id,
                    started_at=occurred,
                    created_at=now,
                ),
            )
            batch.in_session.append((item.id, node))
            tail_key = (request.namespace, request.session_id)
            previous = tails.get(tail_key)
            if previous is not None:
                batch.next.append((previous, item.id))
            tails[tail_key] = item.id
        points.append(_point(item, occurred, stamped, settings))

    batch.entities = list(merged.values())
    batch.sessions = list(sessions.values())
    results = [_result(item) for item in planned if item.parent_id is None]
    return Prepared(batch=batch, points=points, results=results)


def _occurred(item: PlannedEpisode, now: float) -> float:
    return item.request.occurred_at if item.request.occurred_at is not None else now


def _episode(item: PlannedEpisode, occurred: float, now: float, settings: Settings) -> Episode:
    request = item.request
    related = list(request.related_ids)
    if item.parent_id is not None:
        related = [item.parent_id, *related]
    return Episode(
        id=item.id,
        namespace=request.namespace,
        content=request.content,
        summary=_summary(request.content),
        kind=request.kind,
        session_id=request.session_id,
        role=request.role,
        importance=item.importance,
        layer=_stored_layer(request),
        token_count=count_tokens(request.content),
        content_hash=content_hash(request.content),
        occurred_at=occurred,
        created_at=now,
        metadata=request.metadata,
        numbers=item.numbers,
        todos=item.todos,
        related_ids=related + item.chunk_ids,
        redactions=sum(item.redacted.values()),
        sources=[source_of(request)],
        expires_at=_expiry(request, occurred, settings),
        outcome=request.outcome,
    )


def _stored_layer(request: StoreRequest) -> Layer:
    """A stated lesson keeps its layer; working memory promoted, or any other, is episodic."""
    return "semantic" if request.layer == "semantic" else "episodic"


def _expiry(request: StoreRequest, occurred: float, settings: Settings) -> float | None:
    """`expires_at` as given, else occurred + the kind's default TTL, else never."""
    if request.expires_at is not None:
        return request.expires_at
    days = settings.ttl_days.get(request.kind)
    return None if days is None else occurred + days * 86_400.0


def source_of(request: StoreRequest) -> str:
    """Where a store came from, as recorded on the episode: metadata `source`, else session."""
    source = request.metadata.get("source")
    if isinstance(source, str) and source:
        return source
    return f"session:{request.session_id}" if request.session_id else "store"


def _point(item: PlannedEpisode, occurred: float, now: float, settings: Settings) -> VectorPoint:
    request = item.request
    return vector_point(
        item.id,
        request.content,
        item.embedding,
        VectorPayload(
            namespace=request.namespace,
            session_id=request.session_id,
            kind=request.kind,
            layer=_stored_layer(request),
            importance=item.importance,
            created_at=now,
            occurred_at=occurred,
            entities=sorted({e.canonical for e in item.entities}),
        ),
        settings,
        multilingual=item.multilingual,
        sentences=item.sentences,
    )


def vector_point(
    episode_id: str,
    content: str,
    embedding: Sequence[float],
    payload: VectorPayload,
    settings: Settings,
    multilingual: Sequence[float] | None = None,
    sentences: Sequence[Sequence[float]] = (),
) -> VectorPoint:
    """The mirror of an episode: its dense vector (and its multilingual one, for CJK text;
    its sentences', for content of several), its own BM25 terms and its payload.

    The writer replaces the key with one holding the session context
    (`keyword_keys.keys_in_context`) once the episode's NEXT links are in the graph.
    """
    return VectorPoint(
        id=episode_id,
        dense=list(embedding),
        multilingual=None if multilingual is None else list(multilingual),
        sentences=[list(v) for v in sentences] or None,
        sparse=own_key(content, settings),
        payload=payload.model_copy(update={"key_version": KEY_VERSION}),
    )


class EpisodeVectors(NamedTuple):
    """What ingest stores for one episode's content beside its keyword terms and payload."""

    dense: list[float]
    sentences: list[list[float]]
    multilingual: list[float] | None


def episode_vectors(
    contents: Sequence[str], embedder: Embedder, settings: Settings,
    known: Mapping[int, Sequence[float]] | None = None,
) -> list[EpisodeVectors]:  # fmt: skip
    """The vectors ingest makes for each of `contents` (stored episodes that doctor, import and
    restore embed again), in one batch: the sentences of content of several; the content's
    own pass only where their mean is not its dense vector (one sentence, or `embed_whole`);
    for CJK text, its vector in the embedder's multilingual space. `known` holds dense vectors
    already at hand (an export's), by index, used where the mean does not replace them."""
    known = known or {}
    sentences = [sentences_to_embed(text, settings.sentence_vectors_max) for text in contents]
    own = [i for i, of in enumerate(sentences) if (settings.embed_whole or not of) and i not in known]
    flat = [sentence for of_text in sentences for sentence in of_text]
    embedded = embedder.embed([contents[i] for i in own] + flat) if own or flat else []
    wholes = dict(zip(own, embedded[: len(own)], strict=True))
    grouped = by_text(embedded[len(own) :], [len(s) for s in sentences])
    second = multilingual_vectors(embedder.multilingual, list(contents))

    def dense(i: int, of_text: Sequence[Sequence[float]]) -> list[float]:
        if of_text and not settings.embed_whole:
            return mean_vector(of_text)
        return list(wholes[i] if i in wholes else known[i])

    return [
        EpisodeVectors(dense(i, of_text), [list(v) for v in of_text], multilingual)
        for i, (of_text, multilingual) in enumerate(zip(grouped, second, strict=True))
    ]


def _result(item: PlannedEpisode) -> StoreResult:
    return StoreResult(
        id=item.id,
        namespace=item.request.namespace,
        importance=item.importance,
        entities=list(dict.fromkeys(e.name for e in item.entities)),
        decisions=[d.text for d in item.decisions],
        redacted=item.redacted,
        chunk_ids=item.chunk_ids,
        superseded=[old for d in item.decisions for old in d.supersedes],
    )


def _merge_entity(
    existing: Entity | None, planned: PlannedEntity, namespace: str, occurred: float, now: float
) -> Entity:
    """The entity row of a batch: a stored entity merges it (mention count, times, aliases)."""
    aliases = [planned.alias] if planned.alias else []
    if existing is None:
        return Entity(
            id=planned.id,
            namespace=namespace,
            name=planned.name,
            canonical=planned.canonical,
            type=planned.type,
            aliases=aliases,
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
            "aliases": list(dict.fromkeys(existing.aliases + aliases)),
        }
    )


def _summary(content: str) -> str:
    sentences = split_sentences(content)
    first = sentences[0] if sentences else content.strip()
    return first if len(first) <= _SUMMARY_CHARS else first[: _SUMMARY_CHARS - 1] + "…"
