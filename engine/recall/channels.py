"""Recall channels: each asks one store and returns scored episode ids (and graph paths).

Channels hold only protocol types; all maths beyond a channel's own score is in `fusion`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from engine.models import GraphPath, PathNode
from engine.recall.fusion import Scored, top_in_order
from engine.settings import Settings
from engine.stores.base import EntityLink, RecallGraph
from engine.stores.vectors import DenseSpace, SparseVector, VectorStore
from engine.text import bm25_query
from engine.views import Fact

__all__ = [
    "Seed",
    "entity_channel",
    "graph_channel",
    "hub_degree",
    "keyword_channel",
    "recency_channel",
    "specificity",
    "vector_channel",
]


class Step(NamedTuple):
    """A node on a path being walked. Expansion tries a few hundred paths per query and keeps
    a few: only a kept one becomes a `GraphPath` (validating every tried one cost ~4 ms)."""

    id: str
    label: str
    name: str = ""


@dataclass(frozen=True, slots=True)
class Seed:
    """A starting point of graph expansion, or a place it reached: its weight and the path
    it was reached by."""

    score: float
    nodes: tuple[Step, ...]
    relationships: tuple[str, ...]
    # The nodes' ids: expansion asks whether a path visits a node for every link it tries
    # (~400 a query), and a tuple's `in` answers without a Python loop.
    ids: tuple[str, ...]

    @classmethod
    def along(cls, score: float, path: GraphPath) -> Seed:
        nodes = tuple(Step(n.id, n.label, n.name) for n in path.nodes)
        return cls(score, nodes, tuple(path.relationships), tuple(n.id for n in nodes))

    @classmethod
    def at(cls, score: float, episode_id: str) -> Seed:
        """A path of one episode: where expansion starts from a direct hit."""
        return cls(score, (Step(episode_id, "Episode"),), (), (episode_id,))

    def then(self, score: float, step: Step, relationship: str) -> Seed:
        """This path one step further, to `step`, scoring `score`."""
        return Seed(score, (*self.nodes, step), (*self.relationships, relationship), (*self.ids, step.id))

    def onto(self, episode_id: str) -> Seed:
        """This path (ending at an entity) one MENTIONS step further, onto the episode it
        reached, same score."""
        return self.then(self.score, Step(episode_id, "Episode"), "MENTIONS")

    def path(self) -> GraphPath:
        return GraphPath(
            nodes=[PathNode(id=n.id, label=n.label, name=n.name) for n in self.nodes],
            relationships=list(self.relationships),
        )


def specificity(degree: int) -> float:
    """How much an entity says about an episode that mentions it: 1 / log2(1 + degree).

    An entity mentioned once scores 1; one mentioned by 1,000 episodes scores 0.1.

    >>> specificity(1), round(specificity(1023), 2)
    (1.0, 0.1)
    """
    return 1.0 / math.log2(1 + max(1, degree))


def vector_channel(
    vectors: VectorStore, namespace: str, embedding: Sequence[float], limit: int,
    space: DenseSpace = "dense", within: tuple[float, float] | None = None,
) -> list[Scored]:  # fmt: skip
    """The nearest points. In the dense model's space each point scores the nearest of its
    own vector and its sentences': a sentence inside a long turn is found by what it says."""
    searched: DenseSpace = "sentences" if space == "dense" else space
    hits = vectors.search_dense(namespace, embedding, limit, space=searched, within=within)
    return [Scored(id=h.id, score=h.score) for h in hits]


def keyword_channel(
    vectors: VectorStore, namespace: str, tokens: list[str], limit: int,
    within: tuple[float, float] | None = None,
) -> list[Scored]:  # fmt: skip
    indices, values = bm25_query(tokens)
    sparse = SparseVector(indices=indices, values=values)
    return [Scored(id=h.id, score=h.score) for h in vectors.search_sparse(namespace, sparse, limit, within=within)]


def point_hits(
    store: VectorStore, namespace: str, embedding: Sequence[float], space: DenseSpace, tokens: list[str],
    limit: int,
) -> dict[str, list[Scored]]:  # fmt: skip
    """A side store's points (facts, digests) nearest the question's `embedding` and matching
    its `tokens`, under the channels' names."""
    return {
        "vector": vector_channel(store, namespace, embedding, limit, space),
        "keyword": keyword_channel(store, namespace, tokens, limit),
    }


def recency_channel(latest: Sequence[str]) -> list[Scored]:
    """The latest episodes, newest first, scored 1/rank (newest = 1).

    >>> [hit.score for hit in recency_channel(["c", "b", "a"])]
    [1.0, 0.5, 0.3333333333333333]
    """
    return [Scored(id=i, score=1.0 / rank) for rank, i in enumerate(latest, start=1)]


def _entity_node(link: EntityLink) -> PathNode:
    return PathNode(id=link.entity_id, label="Entity", name=link.entity_name)


def _episode_node(link: EntityLink) -> PathNode:
    return PathNode(id=link.episode_id, label="Episode")


def hub_degree(episodes: int, settings: Settings) -> int:
    """The mention count above which an entity is a hub: it links everything, means nothing.

    >>> from engine.settings import Settings
    >>> hub_degree(600, Settings()), hub_degree(100_000, Settings())
    (30, 200)
    """
    share = max(settings.entity_hub_min_degree, int(settings.entity_hub_share * episodes))
    return min(settings.graph_max_entity_degree, share)


def entity_channel(links: Sequence[EntityLink]) -> tuple[list[Scored], dict[str, GraphPath]]:
    """Episodes that mention the query's entities (hubs left out: `NamedRows.mentions`),
    scored by the sum of their specificity."""
    scores: dict[str, float] = {}
    counted: set[tuple[str, str]] = set()
    paths: dict[str, GraphPath] = {}
    for link in links:
        if (link.episode_id, link.entity_id) in counted:
            continue
        counted.add((link.episode_id, link.entity_id))
        scores[link.episode_id] = scores.get(link.episode_id, 0.0) + specificity(link.degree)
        if link.episode_id not in paths:
            paths[link.episode_id] = GraphPath(
                nodes=[_entity_node(link), _episode_node(link)], relationships=["MENTIONS"]
            )
    return [Scored(id=i, score=s) for i, s in scores.items()], paths


def _across_facts(facts: Sequence[Fact], via: Mapping[str, list[Seed]], settings: Settings) -> dict[str, list[Seed]]:
    """Entities one active FACT edge away from the reached ones: the fact is a path too.

    The far entity scores  near score x confidence x hop_decay.
    """
    found: dict[str, list[Seed]] = {}
    for fact in facts:
        for near, far, far_name in (
            (fact.subject_id, fact.object_id, fact.object),
            (fact.object_id, fact.subject_id, fact.subject),
        ):
            if near not in via or far in via:
                continue
            for origin in via[near]:
                seed = origin.then(
                    origin.score * fact.confidence * settings.graph_hop_decay,
                    Step(far, "Entity", far_name),
                    "FACT",
                )
                _keep_best(found, far, seed)
    return found


def _keep_best(best: dict[str, list[Seed]], key: str, seed: Seed) -> None:
    """Keep every seed of the best score under `key` (ties together, lower scores out)."""
    if _loses(best, key, seed.score):
        return
    current = best.get(key)
    if current and math.isclose(seed.score, current[0].score):
        current.append(seed)
    else:
        best[key] = [seed]


def _below(score: float, than: float) -> bool:
    """Lower and not tied: equal products of factors multiplied in another order differ in
    their last bits."""
    return score < than and not math.isclose(score, than)


def _loses(best: dict[str, list[Seed]], key: str, score: float) -> bool:
    """Whether a seed of `score` is below the best under `key`, not tied: then it is not kept,
    and need not be made."""
    current = best.get(key)
    return current is not None and _below(score, current[0].score)


def _path_key(seed: Seed) -> tuple[str, ...]:
    """A content order on paths, so the one shown in a trace does not depend on store order."""
    return tuple(node.name or node.label for node in seed.nodes)


def _beats(seed: Seed, kept: Seed) -> bool:
    """Whether `seed` replaces `kept` as an episode's path: a higher score, or a tie (two
    entities of one degree) that comes first by content. Neo4j returns an episode's tied
    mentions in storage order, which differs from one database to the next."""
    if math.isclose(seed.score, kept.score):
        return _path_key(seed) < _path_key(kept)
    return seed.score > kept.score


def graph_channel(
    graph: RecallGraph,
    namespace: str,
    seeds: Mapping[str, Seed],
    now: float,
    settings: Settings,
    max_degree: int,
) -> tuple[list[Scored], dict[str, Seed]]:
    """Expand 1..max_hops from seed episodes through shared entities (and active facts).

    A hop goes episode -> entity (-> entity along an active FACT) -> another episode (a seed
    may be reached from another seed: that link is evidence too). The reached episode scores
        parent score x specificity(entity) x hop_decay
    per hop, keeping its best path; hub entities (degree over the limit) are not crossed.

    Returns the hits and, per hit, its best path up to the entity it was reached through:
    `Seed.onto(episode_id)` takes the last step, for the few cards shown.

    At most `graph_seeds` of a hop's episodes are the next hop's frontier, and at most
    `channel_candidates` are hits: equal scores are cut in the order reached, by hop, then
    newest first (the order the mention reads return, whose own limit cuts so, as the entity
    channel's does). Kept whole, a tie was as long as an entity's mentions: on the speed
    bench ~190 hits, and a second-hop frontier of ~190, from one entity.
    """
    frontier = dict(seeds)
    expanded = set(seeds)
    # Each episode reached, by the best path to the entity it was reached through (same
    # score), in the order first reached: the step onto the episode is taken only for those
    # kept (a hop reaches ~110-190 on the speed bench).
    found: dict[str, Seed] = {}
    for hop in range(1, settings.graph_max_hops + 1):
        if not frontier:
            break
        # The seeds' paths end at their episodes; a later frontier's end at the entity each
        # episode was reached through, and step onto it only for a link that is followed
        # (most of its links lead back to that entity).
        onto = hop > 1
        # Per entity, every origin path of the best score: which tied path is kept must not
        # decide what can be reached (a path may not walk back to its own start).
        via: dict[str, list[Seed]] = {}
        # The hop's links, facts and mentions in one read (`HopRows`): the store reaches the
        # same entities as below, every link but one onto its own path.
        rows = graph.hop_rows(namespace, {i: seed.ids for i, seed in frontier.items()}, now, max_degree,
                              settings.channel_candidates * 4)  # fmt: skip
        for link in rows.links:
            parent = frontier[link.episode_id]
            if link.entity_id in parent.ids:  # an entity's id is never an episode's
                continue
            score = parent.score * specificity(link.degree) * settings.graph_hop_decay
            if _loses(via, link.entity_id, score):
                continue
            if onto:
                parent = parent.onto(link.episode_id)
            out = parent.then(score, Step(link.entity_id, "Entity", link.entity_name), "MENTIONS")
            _keep_best(via, link.entity_id, out)
        if not via:
            break
        for entity_id, seeds_across in _across_facts(rows.facts, via, settings).items():
            for seed in seeds_across:
                _keep_best(via, entity_id, seed)
        reached: dict[str, Seed] = {}  # as `found`, this hop
        # One read serves every entity of the hop, so it takes more rows than a channel keeps.
        for link in rows.mentions:
            # The origins of an entity are tied: check the score before their paths.
            current = reached.get(link.episode_id)
            origins = via[link.entity_id]
            if current is not None and _below(origins[0].score, current.score):
                continue
            if len(origins) == 1:  # most entities: one path, and no list made per link
                origin = origins[0] if link.episode_id not in origins[0].ids else None
            else:  # no walking back to where it came from
                open_paths = [o for o in origins if link.episode_id not in o.ids]
                origin = min(open_paths, key=_path_key) if open_paths else None
            if origin is not None and (current is None or _beats(origin, current)):
                reached[link.episode_id] = origin
        for episode_id, origin in reached.items():
            if episode_id not in found or found[episode_id].score < origin.score:
                found[episode_id] = origin
        if hop == settings.graph_max_hops:
            break  # no hop follows: a frontier (one path per tied episode) would go unused
        fresh = [item for item in reached.items() if item[0] not in expanded]
        keep = top_in_order([(i, origin.score) for i, origin in fresh], max(1, settings.graph_seeds))
        frontier = {i: reached[i] for i in keep}
        expanded.update(frontier)
    kept = top_in_order([(i, origin.score) for i, origin in found.items()], settings.channel_candidates)
    return [Scored(id=i, score=found[i].score) for i in kept], {i: found[i] for i in kept}
