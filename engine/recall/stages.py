"""The channels of recall: small objects behind one protocol, `run(context) -> Hits`.

Each reads what it needs from the `RecallContext` of one recall: the request, the query's
models and time, the entities it names, and what the channels before it found. The order of
`CHANNEL_STAGES` is the order they run in: the ones that need only the query's words first
(its embedding may be computed meanwhile), then the vector search, then graph expansion from
the direct channels' best hits, then the two sides of a comparison, then the sessions a
question asks about as wholes. `Replies` runs after fusion, from the fused candidates
(`engine.recall.pipeline`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from engine.inputs import RecallRequest
from engine.models import Entity, GraphPath
from engine.recall.channels import (
    Seed,
    entity_channel,
    graph_channel,
    keyword_channel,
    point_hits,
    recency_channel,
    vector_channel,
)
from engine.recall.comparison import side_channel
from engine.recall.fusion import RankedHit, Scored, competition_ranks, fuse, with_hits
from engine.recall.plan import RecallPlan
from engine.recall.query_models import QueryModels
from engine.recall.reads import RecallReads
from engine.recall.replies import reply_channel
from engine.recall.time_query import TimeQuery
from engine.settings import Settings
from engine.stores.base import NamedRows, RecallGraph
from engine.stores.vectors import VectorStore
from engine.views import Digest

__all__ = [
    "CHANNEL_STAGES", "Channel", "Fused", "Hits", "RecallContext", "Replies", "SessionEpisodes", "fuse_for",
    "side_points",
]  # fmt: skip

Fused = dict[str, tuple[float, list[RankedHit]]]


@dataclass(frozen=True)
class Hits:
    """What a channel found, best first where it has an order, with what explains its hits:
    the entity channel's paths (entity -> episode) and graph expansion's best seeds."""

    found: list[Scored]
    entity_paths: Mapping[str, GraphPath] = field(default_factory=dict)
    reached: Mapping[str, Seed] = field(default_factory=dict)


@dataclass
class RecallContext:
    """One recall in one namespace as every stage sees it. Fixed before the channels run but
    for `found` (each channel's hits, by name, as it finishes) and `fused`."""

    request: RecallRequest
    now: float
    graph: RecallGraph
    vectors: VectorStore  # the episodes'
    facts: VectorStore  # the active facts' points (engine/fact_points.py)
    digests: VectorStore  # the session digests' points (engine/reflect/digests.py)
    models: QueryModels
    settings: Settings
    plan: RecallPlan
    time: TimeQuery
    # The entities the query names as the graph knows them, the episodes that mention them
    # (hubs left out) and their facts, closed ones too: one read (`RecallGraph.named_rows`).
    named: NamedRows
    max_degree: int  # the mention count above which an entity is a hub
    span: tuple[float, float] | None  # the named date's window searched on its own, if any
    weights: dict[str, float]
    reads: RecallReads  # what it reads after the channels, each thing once
    # The sessions asked about as wholes (`engine.recall.digest_cards.asked_sessions`), and
    # those of their digests that are built, by session id.
    asked: list[str] = field(default_factory=list)
    asked_digests: dict[str, Digest] = field(default_factory=dict)
    found: dict[str, Hits] = field(default_factory=dict)
    fused: Fused = field(default_factory=dict)
    # The fact and digest points the question finds (`side_points`), when it will show them.
    fact_points: dict[str, list[Scored]] = field(default_factory=dict)
    digest_points: dict[str, list[Scored]] = field(default_factory=dict)

    @property
    def known(self) -> list[Entity]:
        return self.named.entities

    def hits(self, channel: str) -> list[Scored]:
        """A channel's hits so far; none when it did not run."""
        return self.found[channel].found if channel in self.found else []



class Channel(Protocol):
    """One way of finding candidates. `name` is its key in weights, plans and traces."""

    name: str

    def run(self, context: RecallContext) -> Hits: ...


def side_points(c: RecallContext, store: VectorStore) -> dict[str, list[Scored]]:
    """The points of a side store (facts, digests) nearest the question and matching its
    words, `fact_candidates` of each."""
    limit = c.settings.fact_candidates
    if limit == 0:
        return {}
    return point_hits(store, c.request.namespace, c.models.search_vector, c.models.space, c.models.analysis.tokens, limit)


def fuse_for(channels: Mapping[str, Sequence[Scored]], weights: Mapping[str, float], settings: Settings) -> Fused:
    """`fuse` with the settings' constants: its formula is in `engine.recall.fusion.fuse`."""
    return fuse(
        channels, weights, rrf_k=settings.rrf_k, rrf_share=settings.rrf_share,
        normalization=settings.fusion_normalization, minmax_min_hits=settings.minmax_min_hits,
        # A graph hit one hop from the top seed through a one-episode entity scores hop_decay.
        ceilings={"graph": settings.graph_hop_decay} if settings.graph_absolute else None,
    )  # fmt: skip


class KeywordSearch:
    """BM25 over the episodes' keyword keys; inside a named date as well, when there is one."""

    name = "keyword"

    def run(self, c: RecallContext) -> Hits:
        tokens, namespace = c.models.analysis.tokens, c.request.namespace
        hits = keyword_channel(c.vectors, namespace, tokens, c.settings.channel_candidates)
        if c.span is not None and c.settings.time_window_candidates:
            inside = keyword_channel(c.vectors, namespace, tokens, c.settings.time_window_candidates, c.span)
            hits = with_hits(hits, inside)
        return Hits(hits)


class EntityLinks:
    """Episodes that mention an entity the query names (hubs left out)."""

    name = "entity"

    def run(self, c: RecallContext) -> Hits:
        found, paths = entity_channel(c.named.mentions)
        return Hits(found, entity_paths=paths)


class Latest:
    """The latest episodes (of the session asked about, of the named date), newest first,
    by the vector mirror's index of occurred_at: the graph has none."""

    name = "recency"

    def run(self, c: RecallContext) -> Hits:
        latest = c.vectors.recent(c.request.namespace, c.request.session_id,
                                  c.settings.recency_candidates, c.time.window)  # fmt: skip
        return Hits(recency_channel(latest))


class VectorSearch:
    """The nearest points to the query's embedding; inside a named date as well.

    Its hits are not checked against the graph here: a dead hit (deleted, expired, or a point
    whose graph write never committed) expands to nothing and is left out when read."""

    name = "vector"

    def run(self, c: RecallContext) -> Hits:
        vector, space, namespace = c.models.search_vector, c.models.space, c.request.namespace
        hits = vector_channel(c.vectors, namespace, vector, c.settings.channel_candidates, space)
        if c.span is not None and c.settings.time_window_candidates:
            inside = vector_channel(c.vectors, namespace, vector, c.settings.time_window_candidates, space, c.span)
            hits = with_hits(hits, inside)
        return Hits(hits)


class GraphExpansion:
    """Episodes one or two hops from the direct channels' best hits, through shared entities
    (`engine.recall.channels.graph_channel` has the scoring)."""

    name = "graph"

    def run(self, c: RecallContext) -> Hits:
        entity_paths = c.found["entity"].entity_paths if "entity" in c.found else {}
        seeds = _seeds(c.hits("vector"), c.hits("keyword"), c.hits("entity"), entity_paths, c.settings.graph_seeds)
        found, reached = graph_channel(c.graph, c.request.namespace, seeds, c.now, c.settings, c.max_degree)
        return Hits(found, reached=reached)


class SideSearches:
    """For a question comparing two events in time, each event searched on its own."""

    name = "side"

    def run(self, c: RecallContext) -> Hits:
        if not (c.models.analysis.sides and c.weights["side"] > 0):
            return Hits([])

        def fused(found: Mapping[str, list[Scored]]) -> dict[str, float]:
            # The sides' own channels alone: a fusion of them scores 0..1 by itself.
            weights = {name: c.weights[name] for name in found}
            return {i: score for i, (score, _) in fuse_for(found, weights, c.settings).items()}

        compared = list(zip(c.models.analysis.sides, c.models.side_vectors, strict=True))
        return Hits(side_channel(c.vectors, c.request.namespace, compared, space=c.models.space,
                                 limit=c.settings.side_candidates, fuse=fused))  # fmt: skip


class Replies:
    """The turn after a question turn among the best fused candidates, at its score: it runs
    on `fused`, so after fusion, and its contribution is added under the same weights."""

    name = "reply"

    def run(self, c: RecallContext) -> Hits:
        if c.weights["reply"] <= 0:
            return Hits([])
        fused = {i: score for i, (score, _) in c.fused.items()}
        return Hits(reply_channel(c.reads.live_episodes, c.reads.next_turns, fused, c.settings.reply_candidates))


class SessionEpisodes:
    """The live episodes of the sessions asked about, each digest's central ones first."""

    name = "session"

    def run(self, c: RecallContext) -> Hits:
        if not c.asked or c.weights["session"] <= 0:
            return Hits([])
        found: list[Scored] = []
        for session_id in c.asked:
            digest = c.asked_digests.get(session_id)
            central = [s.episode_id for s in digest.sentences] if digest else []
            episodes = [e.id for e in c.graph.session_episodes(c.request.namespace, session_id, c.now)]
            live = set(episodes)
            ordered = list(dict.fromkeys([i for i in central if i in live] + episodes))
            # Every turn of the session is what was asked about: all score alike, central first.
            found += [Scored(id=i, score=1.0 - 0.01 * rank) for rank, i in enumerate(ordered)]
        return Hits(found)


# In the order they run (not the order of fusion, which `RecallPlan` keeps).
CHANNEL_STAGES: tuple[Channel, ...] = (
    KeywordSearch(), EntityLinks(), Latest(), VectorSearch(), GraphExpansion(), SideSearches(), SessionEpisodes(),
)  # fmt: skip


def _seeds(
    dense: Sequence[Scored],
    keyword: Sequence[Scored],
    by_entity: Sequence[Scored],
    entity_paths: Mapping[str, GraphPath],
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
