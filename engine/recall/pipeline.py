"""Run one recall: analyse, ask every channel, fuse, decay, weigh importance, build cards."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor, Future
from itertools import takewhile
from operator import itemgetter

from engine.embed import Embedder
from engine.embed_multilingual import needs_multilingual
from engine.models import Episode, GraphPath, MemoryCard, RecallRequest, Trace, from_epoch
from engine.recall.channels import (
    Seed,
    entity_channel,
    graph_channel,
    hub_degree,
    keyword_channel,
    recency_channel,
    vector_channel,
)
from engine.recall.comparison import side_channel, sides
from engine.recall.diversity import mmr_order
from engine.recall.facts import fact_cards
from engine.recall.fusion import RankedHit, Scored, competition_ranks, fuse, fused_with, with_hits
from engine.recall.query import QueryTerms, analyze
from engine.recall.replies import reply_channel
from engine.recall.rerank import (
    Candidate,
    Factors,
    RerankContext,
    factor_ceiling,
    reranker_for,
)
from engine.recall.sessions import gathers, spread_by_session
from engine.recall.time_query import searched_window, time_query
from engine.recall.updates import mark_updates
from engine.settings import Settings
from engine.stores.base import DenseSpace, GraphStore, VectorStore
from engine.text import count_tokens

__all__ = [
    "QueryModels", "card_order", "embeds_beside_reads", "query_models", "run_recall", "within_budget",
]  # fmt: skip

# A `max_degree` no entity reaches: every entity of an episode, hubs too.
EVERY_DEGREE = 2**62
# Two products of the same factors, multiplied in another order, differ in the last bits.
_ROUNDING = 1e-9


class QueryModels:
    """What the models make of a query: computed once, whatever the namespaces searched.

    With `beside_reads` the embedding starts at once on `pool`, while the channels that
    need only the query's words (keyword, entity, recency) ask their stores: ONNX Runtime
    leaves the GIL while it computes, so a core the embedding leaves free runs the reads.
    Without, it is computed when first asked for, after those reads (~1 ms), on the calling
    thread: an embedding on every core and reads beside it only slow each other down, and
    recall's p95 is lower that way.
    """

    def __init__(self, query: str, embedder: Embedder, pool: Executor, *, beside_reads: bool) -> None:
        self._query, self._embedder = query, embedder
        second = embedder.multilingual
        # A query in Chinese searches the multilingual space, where MiniLM would read noise.
        self.space: DenseSpace = "multilingual" if second and needs_multilingual(query) else "dense"
        self._searcher = second if second is not None and self.space == "multilingual" else embedder
        self._started: Future[list[list[float]]] | None = (
            pool.submit(self._searcher.embed, [query]) if beside_reads else None
        )
        self._search_vector: list[float] | None = None
        self._embedding: list[float] | None = None
        self.terms: QueryTerms = analyze(query)
        # The two events a question compares in time, searched each on its own.
        self.sides = sides(query)
        self._side_vectors: list[list[float]] | None = None

    @property
    def search_vector(self) -> list[float]:
        """The query's vector in `space`, for the vector channel; computed, or waited for,
        the first time."""
        if self._search_vector is None:
            rows = self._started.result() if self._started is not None else self._searcher.embed([self._query])
            self._search_vector = rows[0]
        return self._search_vector

    @property
    def side_vectors(self) -> list[list[float]]:
        """The vectors of `sides` in `space`, in one batch, the first time asked for."""
        if self._side_vectors is None:
            self._side_vectors = self._searcher.embed(list(self.sides)) if self.sides else []
        return self._side_vectors

    @property
    def embedding(self) -> list[float]:
        """The query's embedding by the main model (working memory compares it)."""
        if self.space == "dense":
            return self.search_vector
        if self._embedding is None:
            self._embedding = self._embedder.embed([self._query])[0]
        return self._embedding


def query_models(query: str, embedder: Embedder, pool: Executor, settings: Settings) -> QueryModels:
    """Analyse the query (tokens, entity names to look up) and embed it on `pool`: at once
    when the embedding leaves a core free for recall's reads, else when first asked for."""
    beside_reads = embeds_beside_reads(settings.embedder_query_threads, os.cpu_count() or 1)
    return QueryModels(query, embedder, pool, beside_reads=beside_reads)


def embeds_beside_reads(query_threads: int, cores: int) -> bool:
    """Whether a query's embedding leaves a core free for recall's reads (0 threads: all).

    >>> embeds_beside_reads(1, 2), embeds_beside_reads(0, 2), embeds_beside_reads(2, 2)
    (True, False, False)
    """
    return 0 < query_threads < cores


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
    terms = models.terms
    # What needs only the query's words first (its embedding may be computed meanwhile).
    known = graph.find_entities(namespace, terms.entity_names)
    keyword = keyword_channel(vectors, namespace, terms.tokens, limit)
    max_degree = hub_degree(vectors.count(namespace, exact=False), settings)
    by_entity, entity_paths = entity_channel(graph, namespace, known, now, limit, max_degree)
    time = time_query(request.query, now)
    # A question about a named time also searches that time alone: what happened then is a
    # candidate even where other times' turns match its words better.
    span = searched_window(time, settings.time_window_slack_days)
    in_span = settings.time_window_candidates if span is not None else 0
    if in_span:
        keyword = with_hits(keyword, keyword_channel(vectors, namespace, terms.tokens, in_span, span))
    # The latest by the vector mirror's index of occurred_at (the graph has none, and would
    # sort every episode of the namespace); of the time the query names, when it names one.
    recent = recency_channel(
        vectors.recent(namespace, request.session_id, settings.recency_candidates, time.window)
    )
    facts = (
        graph.facts_about(namespace, [e.id for e in known], include_closed=False)
        if request.layer in (None, "semantic") and known
        else []
    )
    weights = settings.weights.model_dump()
    if not (models.sides and settings.side_candidates):
        # Fusion divides by the weights' sum: a channel that cannot run leaves scores alone.
        weights["side"] = 0.0
    if time.wants_latest or (time.broad and time.window is not None):
        weights["recency"] *= settings.time_intent_recency_boost
    context = RerankContext(
        now=now, role=request.role, capabilities=request.capabilities,
        query_names=terms.entity_names, time=time,
    )  # fmt: skip
    reranker = reranker_for(settings)

    # The vector channels' hits are not checked against the graph here but when read below:
    # a dead hit (deleted, expired, or a point whose graph write never committed) expands to
    # nothing, since the graph's own reads keep to live episodes, and is left out then.
    dense = vector_channel(vectors, namespace, models.search_vector, limit, models.space)
    if in_span:
        dense = with_hits(dense, vector_channel(vectors, namespace, models.search_vector, in_span, models.space, span))

    seeds = _seeds(dense, keyword, by_entity, entity_paths, settings.graph_seeds)
    by_graph, reached = graph_channel(graph, namespace, seeds, now, settings, max_degree)
    channels = {"vector": dense, "keyword": keyword, "entity": by_entity, "graph": by_graph, "recency": recent}
    if models.sides and weights["side"] > 0:
        channels["side"] = side_channel(
            vectors, namespace, list(zip(models.sides, models.side_vectors, strict=True)),
            space=models.space, limit=settings.side_candidates,
            fuse=lambda found: {i: f for i, (f, _) in _fuse(found, _of(weights, found), settings).items()},
        )  # fmt: skip
    fused = _fuse(channels, weights, settings)
    # The turns answering the questions that rank high join at those questions' scores.
    replies = (
        reply_channel(graph, namespace, {i: f for i, (f, _) in fused.items()}, settings.reply_candidates, now)
        if weights["reply"] > 0
        else []
    )
    if replies:
        fused = fused_with(fused, _fuse({"reply": replies}, weights, settings))

    def final_score(episode: Episode) -> float:
        return reranker.rerank([Candidate(episode, *fused[episode.id])], context)[0][0]

    # A question that gathers reaches across sessions; one about everything of a date keeps
    # to that date's sessions instead.
    gathering = gathers(request.query) and not (time.broad and time.window is not None)
    # Only episodes that can still reach the top are read (a layer filter, MMR or a spread
    # across sessions may need the others).
    prune = request.layer is None and settings.mmr_lambda >= 1 and not gathering
    episodes = _read_live(
        lambda ids: graph.live_episodes(namespace, ids, now), {i: f for i, (f, _) in fused.items()},
        top_k=request.top_k if prune else None, ceiling=factor_ceiling(context, settings),
        final=final_score,
    )  # fmt: skip
    candidates = [
        Candidate(episodes[i], *fused[i])
        for i in fused
        if i in episodes and (request.layer is None or episodes[i].layer == request.layer)
    ]
    ranked = [
        (final, candidate, factors)
        for final, candidate, factors in reranker.rerank(candidates, context)
        if request.min_score is None or final >= request.min_score
    ]
    if gathering:
        ranked = spread_by_session(ranked, settings.session_repeat_factor)
    shown = _diverse(ranked, vectors, request.top_k, settings)
    paths = {c.episode.id: _path(c.episode.id, reached, entity_paths) for _, c, _ in shown}
    named = _path_episodes(graph, namespace, paths.values(), episodes, now)
    top = [
        (final, candidate.episode,
         _trace(final, candidate, factors, now, paths[candidate.episode.id], named, time.window))
        for final, candidate, factors in shown
    ]  # fmt: skip
    semantic = [
        card
        for card in fact_cards(facts, known, namespace=namespace, now=now, settings=settings)
        if request.min_score is None or card.score >= request.min_score
    ]
    names = _entity_names(graph, namespace, [episode.id for _, episode, _ in top], now)
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
            entities=names.get(episode.id, []),
            related_ids=list(dict.fromkeys(episode.related_ids + _related(trace.path, episode.id))),
            metadata=episode.metadata,
            trace=trace,
        )
        for _, episode, trace in top
    ]
    return sorted(mark_updates(episodic) + semantic, key=card_order)[: request.top_k]


def _fuse(
    channels: Mapping[str, list[Scored]], weights: dict[str, float], settings: Settings
) -> dict[str, tuple[float, list[RankedHit]]]:
    return fuse(
        channels, weights, rrf_k=settings.rrf_k, rrf_share=settings.rrf_share,
        normalization=settings.fusion_normalization, minmax_min_hits=settings.minmax_min_hits,
        # A graph hit one hop from the top seed through a one-episode entity scores hop_decay.
        ceilings={"graph": settings.graph_hop_decay} if settings.graph_absolute else None,
    )  # fmt: skip


def _of(weights: dict[str, float], channels: Mapping[str, object]) -> dict[str, float]:
    """The weights of these channels alone: a fusion of them scores 0..1 by themselves."""
    return {name: weights[name] for name in channels}


def _entity_names(graph: GraphStore, namespace: str, ids: list[str], now: float) -> dict[str, list[str]]:
    """The names of the entities each (live) episode mentions, in name order. Through
    `entity_links`, which the embedded store answers from memory."""
    names: dict[str, list[str]] = {}
    for link in graph.entity_links(namespace, ids, now, max_degree=EVERY_DEGREE):
        names.setdefault(link.episode_id, []).append(link.entity_name)
    return {episode_id: sorted(set(found)) for episode_id, found in names.items()}


def _read_live(
    read: Callable[[list[str]], list[Episode]],
    fused: dict[str, float],
    *,
    top_k: int | None,
    ceiling: float,
    final: Callable[[Episode], float],
) -> dict[str, Episode]:
    """The live episodes (`read` returns those of some ids) among the fused candidates that
    can still reach the top `top_k` (all of them when None), by id.

    Best fused first, in two reads (exact, not a heuristic): the best until `top_k` of them
    are live (a dead one lets the next in), whose `final` scores set a floor; then every
    other whose fused score times `ceiling` (no factor product is higher) still reaches the
    floor. Bounding both sides instead (the top_k-th fused score times the lowest product)
    read ~19 episodes a single-hop recall at 100k where this reads ~12 (~1.0 ms of
    statements and conversion against ~1.4 when none is held).
    """
    if top_k is None:
        return {e.id: e for e in read(list(fused))}
    best_first = sorted(fused, key=fused.__getitem__, reverse=True)
    episodes: dict[str, Episode] = {}
    position = 0
    while len(episodes) < top_k and position < len(best_first):
        batch = best_first[position : position + top_k - len(episodes)]
        position += len(batch)
        episodes.update((e.id, e) for e in read(batch))
    if position == len(best_first):
        return episodes
    floor = sorted(map(final, episodes.values()), reverse=True)[top_k - 1]
    # A final equal to the floor may still win on the tie-break: reach it, rounding aside.
    reaches = floor * (1 - _ROUNDING)
    rest = list(takewhile(lambda i: fused[i] * ceiling >= reaches, best_first[position:]))
    if rest:
        episodes.update((e.id, e) for e in read(rest))
    return episodes


def _path_episodes(
    graph: GraphStore,
    namespace: str,
    paths: Iterable[GraphPath | None],
    episodes: dict[str, Episode],
    now: float,
) -> dict[str, Episode]:
    """`episodes` and the live ones on the paths shown that recall did not read (a seed of
    graph expansion that could not reach the top itself), to name them in the traces."""
    wanted = {n.id for path in paths if path is not None for n in path.nodes if n.label == "Episode"}
    missing = sorted(wanted - episodes.keys())
    if not missing:
        return episodes
    return episodes | {e.id: e for e in graph.live_episodes(namespace, missing, now)}


def _trace(
    final: float,
    candidate: Candidate,
    factors: Factors,
    now: float,
    path: GraphPath | None,
    episodes: dict[str, Episode],
    window: tuple[float, float] | None,
) -> Trace:
    """Why a card was recalled: its channel hits, its graph path and every factor."""
    episode = candidate.episode
    return Trace(
        channels=[hit.channel_hit() for hit in sorted(candidate.hits, key=itemgetter(1))],
        path=_named(path, episodes),
        fused=round(candidate.fused, 6),
        decay=round(factors.decay, 6),
        age_days=round(max(0.0, now - episode.occurred_at) / 86_400.0, 3),
        importance=episode.importance,
        role_factor=factors.role,
        capability_factor=factors.capability,
        author_factor=factors.author,
        time_factor=round(factors.time, 6),
        session_factor=round(factors.session, 6),
        final=round(final, 6),
        time_window=None if window is None else (from_epoch(window[0]), from_epoch(window[1])),
    )


Ranked = tuple[float, Candidate, Factors]


def _diverse(ranked: list[Ranked], vectors: VectorStore, count: int, settings: Settings) -> list[Ranked]:
    """The `count` best, or with mmr_lambda < 1 the MMR picks among the best mmr_candidates."""
    if settings.mmr_lambda >= 1 or len(ranked) <= 1:
        return ranked[:count]
    pool = ranked[: max(count, settings.mmr_candidates)]
    ids = [candidate.episode.id for _, candidate, _ in pool]
    picks = mmr_order(
        [(i, final) for i, (final, _, _) in zip(ids, pool, strict=True)],
        vectors.dense(ids),
        lam=settings.mmr_lambda,
        count=count,
    )
    by_id = dict(zip(ids, pool, strict=True))
    return [by_id[i] for i in picks]


def within_budget(cards: Sequence[MemoryCard], max_tokens: int | None) -> list[MemoryCard]:
    """Cards in order while their content fits the budget; one too long is skipped."""
    if max_tokens is None:
        return list(cards)
    kept, used = [], 0
    for card in cards:
        size = count_tokens(card.content)
        if used + size <= max_tokens:
            kept.append(card)
            used += size
    return kept


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
            path = entity_paths.get(hit.id)
            seeds[hit.id] = Seed.along(weight, path) if path is not None else Seed.at(weight, hit.id)
    return seeds


def _path(episode_id: str, reached: dict[str, Seed], entity_paths: dict[str, GraphPath]) -> GraphPath | None:
    """How the graph linked an episode to the query: a graph path explains more than an
    entity's. Made only for the cards shown: expansion reaches many more."""
    origin = reached.get(episode_id)
    return origin.onto(episode_id).path() if origin is not None else entity_paths.get(episode_id)


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
