"""Fixes in recall: the `fix` channel, and the cards of fixes put above their failures.

For a question after a fix or a lesson, or one that pastes an error (`QueryAnalysis.about_work`),
the channel starts from the error signatures the question names (its pasted error, or a class
or status it names) and those the best hits of the direct channels show, takes every failure
that showed one of them, and the best hits themselves, and walks each failure's `RESOLVED_BY`
edge to its fix:

    fix score = seed x (1 if the fix held, else not_held) x newest^(its rank among the fixes of one error)

a signature named by the whole pasted error seeding 1, a shorter part of it `partial`, its class
or status alone `alias`; a direct hit the sum of w_c / r_c over the direct channels c that
found it at rank r_c, w_c their fusion weights over the weights' sum, and a signature it shows
as much. The trace's path is the walk (hit) -MENTIONS- (signature) -MENTIONS- (failure)
-RESOLVED_BY- (fix).

Then (`fixes_first`), among the cards shown, a fix stands above the failure it fixed, the newest
fix of an error above the older ones, and an older fix that differs from the newest
(`engine.reflect.lessons.same_fix`) is marked replaced by it (`superseded_by`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engine.models import GraphPath, MemoryCard, PathNode, Resolution
from engine.recall.fusion import Scored, competition_ranks
from engine.recall.stages import Hits, RecallContext
from engine.reflect.lessons import same_fix
from engine.signatures import ENTITY_TYPE

__all__ = ["FixSearch", "Reached", "fixes_first"]

_EXACT, _PARTIAL, _ALIAS = 1.0, 0.8, 0.5
_NOT_HELD = 0.5
_NEWEST = 0.9
_ABOVE = 1 + 1e-4  # a fix raised over its failure stands just above it (after rounding to 6 places)


@dataclass(frozen=True)
class Reached:
    """A fix the channel reached: the failures it fixed, whether it held, the error it is of."""

    failures: tuple[str, ...]
    held: bool
    at: float
    group: str  # the signature's id, else the first failure's: the fixes of one error


@dataclass(frozen=True)
class FixHits(Hits):
    reached_fixes: Mapping[str, Reached] = field(default_factory=dict)


def _signatures(c: RecallContext) -> dict[str, tuple[float, str]]:
    """The SIGNATURE entities the question names, with their seed weight and name."""
    keys = c.models.analysis.signature_keys
    found: dict[str, tuple[float, str]] = {}
    for entity in c.graph.find_entities(c.request.namespace, list(keys)) if keys else []:
        if entity.type != ENTITY_TYPE:
            continue
        weight = _EXACT if entity.canonical == keys[0] else _PARTIAL if entity.canonical in keys else _ALIAS
        found[entity.id] = (max(weight, found.get(entity.id, (0.0, ""))[0]), entity.name)
    for entity in c.named.entities:
        if entity.type == ENTITY_TYPE and entity.id not in found:
            found[entity.id] = (_ALIAS, entity.name)
    return found


_DIRECT = ("vector", "keyword", "entity")


def _direct_seeds(c: RecallContext) -> dict[str, float]:
    """The direct channels' best hits, each weighted by its 1/rank in every channel that found
    it, as fusion weighs those channels: what the question is about, found several ways."""
    weights = {channel: c.weights.get(channel, 0.0) for channel in _DIRECT}
    total = sum(weights.values()) or 1.0
    seeds: dict[str, float] = {}
    for channel in _DIRECT:
        for hit, rank in competition_ranks(c.hits(channel)):
            if rank > c.settings.graph_seeds:
                break
            seeds[hit.id] = seeds.get(hit.id, 0.0) + weights[channel] / total / rank
    return seeds


class FixSearch:
    """The fixes of the failures a question about an agent's work names."""

    name = "fix"

    def run(self, c: RecallContext) -> Hits:
        if not c.models.analysis.about_work or c.weights.get("fix", 0.0) <= 0:
            return FixHits([])
        namespace = c.request.namespace
        direct = _direct_seeds(c)
        # The errors the question names, and those its best hits show (seeded as they are):
        # every occurrence of such an error leads to its fix, the newest first.
        signatures: dict[str, tuple[float, str, str | None]] = {s: (w, n, None) for s, (w, n) in _signatures(c).items()}
        for episode_id, entities in c.graph.entities_of(namespace, list(direct)).items() if direct else ():
            for entity in entities:
                if entity.type == ENTITY_TYPE and direct[episode_id] > signatures.get(entity.id, (0.0,))[0]:
                    signatures[entity.id] = (direct[episode_id], entity.name, episode_id)
        seeds: dict[str, tuple[float, list[PathNode], list[str]]] = {}
        errors: dict[str, str] = {}  # a failure -> the signature it shows
        links = c.graph.episodes_mentioning(namespace, list(signatures), c.now, c.settings.channel_candidates) if signatures else []
        for link in links:
            weight, name, via = signatures[link.entity_id]
            errors.setdefault(link.episode_id, link.entity_id)
            start: list[PathNode] = [PathNode(id=via, label="Episode")] if via is not None and via != link.episode_id else []
            nodes = [*start, PathNode(id=link.entity_id, label="Entity", name=name), PathNode(id=link.episode_id, label="Episode")]
            if weight > seeds.get(link.episode_id, (0.0,))[0]:
                seeds[link.episode_id] = (weight, nodes, ["MENTIONS"] * (len(nodes) - 1))
        for hit_id, weight in direct.items():
            if weight > seeds.get(hit_id, (0.0,))[0]:
                seeds[hit_id] = (weight, [PathNode(id=hit_id, label="Episode")], [])
        if not seeds:
            return FixHits([])
        edges = [r for r in c.graph.resolutions(namespace, list(seeds)) if r.failure_id in seeds]
        return _fix_hits(edges, seeds, errors)


def _fix_hits(
    edges: Sequence[Resolution], seeds: Mapping[str, tuple[float, list[PathNode], list[str]]],
    errors: Mapping[str, str],
) -> FixHits:  # fmt: skip
    """Each fix at its best failure's seed, newest first within one error's fixes."""
    best: dict[str, tuple[float, Resolution]] = {}
    failures: dict[str, list[str]] = {}
    for edge in edges:
        score = seeds[edge.failure_id][0] * (1.0 if edge.held else _NOT_HELD)
        failures.setdefault(edge.fix_id, []).append(edge.failure_id)
        if score > best.get(edge.fix_id, (-1.0,))[0]:
            best[edge.fix_id] = (score, edge)
    groups: dict[str, list[str]] = {}
    for fix_id, (_, edge) in best.items():
        groups.setdefault(errors.get(edge.failure_id, edge.failure_id), []).append(fix_id)
    found: list[Scored] = []
    paths: dict[str, GraphPath] = {}
    reached: dict[str, Reached] = {}
    for group, fixes in groups.items():
        for rank, fix_id in enumerate(sorted(fixes, key=lambda f: -best[f][1].at)):
            score, edge = best[fix_id]
            found.append(Scored(id=fix_id, score=score * _NEWEST**rank))
            _, nodes, relationships = seeds[edge.failure_id]
            paths[fix_id] = GraphPath(nodes=[*nodes, PathNode(id=fix_id, label="Episode")],
                                      relationships=[*relationships, "RESOLVED_BY"])  # fmt: skip
            reached[fix_id] = Reached(tuple(failures[fix_id]), edge.held, edge.at, group)
    found.sort(key=lambda s: (-s.score, s.id))
    return FixHits(found, entity_paths=paths, reached_fixes=reached)


def fixes_first(cards: Sequence[MemoryCard], reached: Mapping[str, Reached]) -> list[MemoryCard]:
    """The cards with each fix just above the best card of a failure it fixed, the newest fix
    of an error above its older ones, and the older ones that differ marked replaced by it."""
    shown = {card.id: card for card in cards if card.layer != "semantic" and card.trace is not None}
    scores = {i: card.score for i, card in shown.items()}
    fixes = [i for i in shown if i in reached]
    for fix_id in sorted(fixes, key=lambda f: reached[f].at):
        above = [scores[f] for f in reached[fix_id].failures if f in scores]
        if above:
            scores[fix_id] = max(scores[fix_id], max(above) * _ABOVE)
    replaced: dict[str, str] = {}
    by_group: dict[str, list[str]] = {}
    for fix_id in fixes:
        by_group.setdefault(reached[fix_id].group, []).append(fix_id)
    for group in by_group.values():
        held = [f for f in group if reached[f].held]
        if not held:
            continue
        newest = max(held, key=lambda f: reached[f].at)
        scores[newest] = max(scores[newest], max(scores[f] for f in group) * _ABOVE)
        for older in group:
            if older != newest and not same_fix(shown[older].content, shown[newest].content):
                replaced[older] = newest
    return [_marked(card, scores, reached, replaced) for card in cards]


def _marked(card: MemoryCard, scores: Mapping[str, float], reached: Mapping[str, Reached],
            replaced: Mapping[str, str]) -> MemoryCard:  # fmt: skip
    fix = reached.get(card.id)
    if fix is None or card.trace is None:
        return card
    newer = [older for older, by in replaced.items() if by == card.id]
    score = round(scores.get(card.id, card.score), 6)
    trace = card.trace.model_copy(update={
        "resolves": list(fix.failures), "held": fix.held, "final": score,
        "superseded_by": replaced.get(card.id, card.trace.superseded_by),
        "supersedes": list(dict.fromkeys([*card.trace.supersedes, *newer])),
    })  # fmt: skip
    return card.model_copy(update={"score": score, "trace": trace})
