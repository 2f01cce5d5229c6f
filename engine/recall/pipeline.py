"""Run one recall: analyse, ask every channel, fuse, decay, weigh importance, build cards."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from engine.embed import Embedder
from engine.models import Episode, GraphPath, MemoryCard, PathNode, RecallRequest, Trace, from_epoch
from engine.nlp import find_entities
from engine.recall.channels import (
    Seed,
    entity_channel,
    graph_channel,
    hub_degree,
    keyword_channel,
    recency_channel,
    vector_channel,
)
from engine.recall.facts import fact_cards
from engine.recall.fusion import (
    Scored,
    capability_factor,
    competition_ranks,
    decay_factor,
    fuse,
    importance_factor,
    role_factor,
)
from engine.recall.query import QueryTerms, analyze
from engine.settings import Settings
from engine.stores.base import GraphStore, VectorStore

__all__ = ["QueryModels", "card_order", "query_models", "run_recall"]


class QueryModels(BaseModel):
    """What the models make of a query: computed once, whatever the namespaces searched."""

    embedding: list[float]
    terms: QueryTerms


def query_models(query: str, embedder: Embedder) -> QueryModels:
    """Embed the query and analyse it (NER, tokens, time intent)."""
    return QueryModels(
        embedding=list(embedder.embed([query])[0]),
        terms=analyze(query, find_entities([query])[0]),
    )


def run_recall(
    request: RecallRequest,
    *,
    now: float,
    graph: GraphStore,
    vectors: VectorStore,
    models: QueryModels,
    settings: Settings,
) -> list[MemoryCard]:
    namespace, limit = request.namespace, settings.channel_candidates
    terms, embedding = models.terms, models.embedding
    known = graph.find_entities(namespace, terms.entity_names)

    # The vector mirror may hold points the graph never committed (a crash mid-write) or has
    # since deleted: only ids that are live episodes in the graph count.
    dense = vector_channel(vectors, namespace, embedding, limit)
    keyword = keyword_channel(vectors, namespace, terms.tokens, limit)
    live = graph.live_episode_ids(namespace, [h.id for h in dense + keyword], now)
    dense = [h for h in dense if h.id in live]
    keyword = [h for h in keyword if h.id in live]
    max_degree = hub_degree(vectors.count(namespace), settings)
    by_entity, entity_paths = entity_channel(graph, namespace, known, now, limit, max_degree)
    recent = recency_channel(
        graph, namespace, request.session_id, now, settings.recency_candidates
    )

    seeds = _seeds(dense, keyword, by_entity, entity_paths, settings.graph_seeds)
    by_graph, graph_paths = graph_channel(graph, namespace, seeds, now, settings, max_degree)

    weights = settings.weights.model_dump()
    if terms.time_intent:
        weights["recency"] *= settings.time_intent_recency_boost
    fused = fuse(
        {
            "vector": dense,
            "keyword": keyword,
            "entity": by_entity,
            "graph": by_graph,
            "recency": recent,
        },
        weights,
        rrf_k=settings.rrf_k,
        rrf_share=settings.rrf_share,
    )
    episodes = {e.id: e for e in graph.get_episodes(namespace, list(fused))}
    scored: list[tuple[float, Episode, Trace]] = []
    for episode_id, (fused_score, hits) in fused.items():
        episode = episodes.get(episode_id)
        if episode is None or (request.layer is not None and episode.layer != request.layer):
            continue
        decay = decay_factor(
            now - episode.occurred_at,
            half_life_days=settings.decay_half_life_days,
            floor=settings.decay_floor,
        )
        by_role = role_factor(
            [episode.role, _text(episode.metadata.get("for_role"))],
            request.role,
            boost=settings.role_boost,
        )
        by_capability = capability_factor(
            _tool_of(episode), request.capabilities, penalty=settings.missing_capability_factor
        )
        final = (
            fused_score
            * decay
            * importance_factor(episode.importance, weight=settings.importance_weight)
            * by_role
            * by_capability
        )
        if request.min_score is not None and final < request.min_score:
            continue
        trace = Trace(
            channels=sorted(hits, key=lambda h: h.rank),
            path=_named(graph_paths.get(episode_id) or entity_paths.get(episode_id), episodes),
            fused=round(fused_score, 6),
            decay=round(decay, 6),
            age_days=round(max(0.0, now - episode.occurred_at) / 86_400.0, 3),
            importance=episode.importance,
            role_factor=by_role,
            capability_factor=by_capability,
            final=round(final, 6),
        )
        scored.append((final, episode, trace))
    scored.sort(key=lambda item: (-item[0], -item[1].occurred_at, item[1].id))
    top = scored[: request.top_k]
    semantic: list[MemoryCard] = []
    if request.layer in (None, "semantic") and known:
        facts = graph.facts_about(namespace, [e.id for e in known], include_closed=False)
        semantic = [
            card
            for card in fact_cards(facts, known, namespace=namespace, now=now, settings=settings)
            if request.min_score is None or card.score >= request.min_score
        ]
    names = graph.entities_of(namespace, [episode.id for _, episode, _ in top])
    episodic = [
        MemoryCard(
            id=episode.id,
            namespace=episode.namespace,
            content=episode.content,
            score=trace.final,
            occurred_at=from_epoch(episode.occurred_at),
            created_at=from_epoch(episode.created_at),
            session_id=episode.session_id,
            role=episode.role,
            kind=episode.kind,
            layer=episode.layer,
            importance=episode.importance,
            entities=[e.name for e in names.get(episode.id, [])],
            related_ids=list(dict.fromkeys(episode.related_ids + _related(trace.path, episode.id))),
            metadata=episode.metadata,
            trace=trace,
        )
        for _, episode, trace in top
    ]
    return sorted(episodic + semantic, key=card_order)[: request.top_k]


def card_order(card: MemoryCard) -> tuple[float, float, str]:
    """Best score first; ties by the newer memory, then by id, so equal runs give equal lists."""
    return (-card.score, -card.occurred_at.timestamp(), card.id)


def _seeds(
    dense: Sequence[Scored],
    keyword: Sequence[Scored],
    by_entity: Sequence[Scored],
    entity_paths: dict[str, GraphPath],
    count: int,
) -> dict[str, Seed]:
    """The top hits of the direct channels, weighted 1/rank, start graph expansion."""
    seeds: dict[str, Seed] = {}
    for hits in (by_entity, dense, keyword):
        # Competition ranks: equal hits are equal seeds, whatever order the store gave them.
        for hit, rank in competition_ranks(hits):
            if rank > count:
                break  # ranks are shared by ties: every hit tied within the count is a seed
            weight = 1.0 / rank
            if hit.id in seeds and seeds[hit.id].score >= weight:
                continue
            path = entity_paths.get(hit.id) or GraphPath(
                nodes=[PathNode(id=hit.id, label="Episode")], relationships=[]
            )
            seeds[hit.id] = Seed(score=weight, path=path)
    return seeds


def _named(path: GraphPath | None, episodes: dict[str, Episode]) -> GraphPath | None:
    """Give the path's episode nodes their summaries, so a trace reads without lookups."""
    if path is None:
        return None
    nodes = [
        node.model_copy(update={"name": episodes[node.id].summary})
        if node.label == "Episode" and node.id in episodes
        else node
        for node in path.nodes
    ]
    return path.model_copy(update={"nodes": nodes})


def _related(path: GraphPath | None, own_id: str) -> list[str]:
    """Episodes on the graph path that led to a card: its citations besides itself."""
    if path is None:
        return []
    return [n.id for n in path.nodes if n.label == "Episode" and n.id != own_id]


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _tool_of(episode: Episode) -> str | None:
    """The tool a tool-call episode used: metadata `tool`, else its role."""
    if episode.kind != "tool_call":
        return None
    return _text(episode.metadata.get("tool")) or episode.role
