"""Fusion, decay and importance: pure scoring functions of recall.

Every formula is in the docstring of the function that computes it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter, itemgetter
from typing import NamedTuple, TypeVar

from engine.models import ChannelHit

__all__ = [
    "RankedHit", "Scored", "competition_ranks", "decay_factor", "fuse", "fused_with", "importance_factor",
    "with_hits",
]  # fmt: skip

SECONDS_PER_DAY = 86_400.0
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Scored:
    """An episode id with a channel's raw score (higher is better). A dataclass, not a
    model: recall makes hundreds per query from values its stores already typed."""

    id: str
    score: float


class RankedHit(NamedTuple):
    """One channel's rank (1 = best) and raw score for an episode. Fusion makes hundreds a
    query and keeps tens: only those become `ChannelHit`s (`channel_hit`)."""

    channel: str
    rank: int
    score: float

    def channel_hit(self) -> ChannelHit:
        return ChannelHit.model_validate(self._asdict())


def competition_ranks(hits: Sequence[Scored]) -> list[tuple[Scored, int]]:
    """Hits best first with competition ranks: equal scores share a rank (1, 2, 2, 4).

    Ties must share a rank, or two identical memories would be told apart by chance; ties
    are listed by id, so the order never depends on the order a store returned them in.

    >>> [(h.id, r) for h, r in competition_ranks([Scored(id="c", score=1.0),
    ...     Scored(id="b", score=2.0), Scored(id="a", score=1.0)])]
    [('b', 1), ('a', 2), ('c', 2)]
    """
    ranked: list[tuple[Scored, int]] = []
    rank, previous = 0, math.nan  # nan is close to nothing: the first hit ranks 1
    for position, hit in enumerate(_best_first(hits, attrgetter("id"), attrgetter("score")), start=1):
        if not math.isclose(previous, hit.score, rel_tol=1e-9):
            rank = position
        ranked.append((hit, rank))
        previous = hit.score
    return ranked


def _best_first(items: Iterable[T], by_id: Callable[[T], str], by_score: Callable[[T], float]) -> list[T]:
    """Highest score first, ties by id: two sorts by C-level keys (a sort is stable, also
    reversed), ~3x faster than one by a Python (-score, id) key."""
    ordered = sorted(items, key=by_id)
    ordered.sort(key=by_score, reverse=True)
    return ordered


def top_in_order(scored: Sequence[tuple[str, float]], count: int) -> list[str]:
    """The ids of the `count` best; among equal scores, those listed first.

    For a list whose order means something (graph expansion's: by hop, then newest first),
    so that a tie as long as the list is cut there, not kept whole.

    >>> top_in_order([("a", 1.0), ("b", 2.0), ("c", 2.0), ("d", 2.0)], 2)
    ['b', 'c']
    """
    # A sort is stable, reversed too: equal scores keep the list's order.
    return [i for i, _ in sorted(scored, key=itemgetter(1), reverse=True)[: max(0, count)]]


def with_hits(hits: Sequence[Scored], more: Sequence[Scored]) -> list[Scored]:
    """A channel's hits and `more` of the same search (a narrower filter, same scores), best
    first; an id found by both is kept once.

    >>> [h.id for h in with_hits([Scored("a", 0.9), Scored("b", 0.5)], [Scored("b", 0.5), Scored("c", 0.2)])]
    ['a', 'b', 'c']
    """
    seen = {hit.id for hit in hits}
    return sorted([*hits, *(hit for hit in more if hit.id not in seen)], key=attrgetter("score"), reverse=True)


def fused_with(
    fused: Mapping[str, tuple[float, list[RankedHit]]], more: Mapping[str, tuple[float, list[RankedHit]]]
) -> dict[str, tuple[float, list[RankedHit]]]:
    """Two fusions of disjoint channels under one weight mapping, as one: `fuse` divides by
    the sum of all weights, not of the channels it was given, so the contributions add up.

    >>> one, two = RankedHit("keyword", 1, 2.0), RankedHit("reply", 1, 0.4)
    >>> fused_with({"a": (0.5, [one])}, {"a": (0.25, [two]), "b": (0.25, [two])})
    {'a': (0.75, [RankedHit(channel='keyword', rank=1, score=2.0), RankedHit(channel='reply', rank=1, score=0.4)]), 'b': (0.25, [RankedHit(channel='reply', rank=1, score=0.4)])}
    """
    merged = dict(fused)
    for key, (score, hits) in more.items():
        before, kept = merged.get(key, (0.0, []))
        merged[key] = (before + score, [*kept, *hits])
    return merged


def fuse(
    channels: Mapping[str, Sequence[Scored]],
    weights: Mapping[str, float],
    *,
    rrf_k: int,
    rrf_share: float,
    normalization: str = "max",
    minmax_min_hits: int = 2,
    ceilings: Mapping[str, float] | None = None,
) -> dict[str, tuple[float, list[RankedHit]]]:
    """Reciprocal-rank fusion blended with normalised raw scores, weighted per channel.

    For channel c with weight w_c, an episode at rank r with raw score s contributes
        w_c x (share x (k + 1) / (k + r) + (1 - share) x norm_c(s))
    where norm_c(s) = s / max_c(s) ("max") or (s - min_c) / (max_c - min_c) ("minmax": the
    channel's weakest hit adds nothing, so a channel whose hits all look alike, as dense
    similarity's do, cannot lift its whole list; applied only to a channel with at least
    `minmax_min_hits` hits, since the weakest of a handful is no baseline). The fused score is the sum of
    contributions divided by the sum of all weights, so it lies in 0..1 and equals 1 only for
    the top hit of every channel. A channel with a ceiling in `ceilings` has absolute scores:
    norm_c(s) = min(1, s / ceiling), so its weak hits stay weak however few it found (graph
    expansion: a neighbour of the tenth seed is not the best graph hit's equal).

    >>> fused = fuse({"vector": [Scored(id="a", score=0.9)]}, {"vector": 1.0, "keyword": 1.0},
    ...              rrf_k=60, rrf_share=0.5)
    >>> round(fused["a"][0], 3)
    0.5
    >>> fused = fuse({"vector": [Scored(id="a", score=0.9), Scored(id="b", score=0.6),
    ...     Scored(id="c", score=0.5)]}, {"vector": 1.0}, rrf_k=60, rrf_share=0.0,
    ...     normalization="minmax")
    >>> [round(fused[i][0], 2) for i in "abc"]
    [1.0, 0.25, 0.0]
    """
    total_weight = sum(w for w in weights.values() if w > 0) or 1.0
    # Summed apart and paired at the end: a recall fuses ~230 hits.
    sums: dict[str, float] = {}
    ranked: dict[str, list[RankedHit]] = {}
    for channel, hits in channels.items():
        weight = weights.get(channel, 0.0)
        if weight <= 0 or not hits:
            continue
        ceiling = (ceilings or {}).get(channel)
        top = max(h.score for h in hits) if ceiling is None else ceiling
        floor = (
            min(h.score for h in hits)
            if normalization == "minmax" and len(hits) >= max(2, minmax_min_hits) and ceiling is None
            else 0.0
        )
        span = top - floor
        flat = 1.0 if top > 0 else 0.0  # every hit's normalised score when they are all equal
        for scored, rank in competition_ranks(hits):
            normalised = (scored.score - floor) / span if span > 0 else flat
            if normalised > 1.0:
                normalised = 1.0
            rrf = (rrf_k + 1) / (rrf_k + rank)
            contribution = weight * (rrf_share * rrf + (1 - rrf_share) * normalised)
            hit = RankedHit(channel, rank, scored.score)
            if scored.id in sums:
                sums[scored.id] += contribution / total_weight
                ranked[scored.id].append(hit)
            else:
                sums[scored.id] = contribution / total_weight
                ranked[scored.id] = [hit]
    return {i: (total, ranked[i]) for i, total in sums.items()}


def decay_factor(age_seconds: float, *, half_life_days: float, floor: float) -> float:
    """Exponential time decay with a floor:

        decay = floor + (1 - floor) x 0.5 ^ (age_days / half_life_days)

    A memory from the future of `now` (age < 0) is not boosted: age is clamped at 0.

    >>> decay_factor(30 * 86400, half_life_days=30, floor=0.0)
    0.5
    """
    age_days = max(0.0, age_seconds) / SECONDS_PER_DAY
    return float(floor + (1.0 - floor) * math.pow(0.5, age_days / half_life_days))


def importance_factor(importance: float, *, weight: float) -> float:
    """importance_factor = 1 - weight + weight x importance (1 at importance 1, 1 - weight at 0).

    >>> importance_factor(0.5, weight=0.4)
    0.8
    """
    return 1.0 - weight + weight * importance


def role_factor(memory_roles: Sequence[str | None], asking_role: str | None, *, boost: float) -> float:
    """`boost` when the memory was written by or for the asking role, else 1.

    `memory_roles` are the episode's role and its metadata's `for_role`, when present.

    >>> role_factor(["coder", None], "coder", boost=1.25)
    1.25
    >>> role_factor(["user"], "Coder", boost=1.25), role_factor(["user"], None, boost=1.25)
    (1.0, 1.0)
    """
    if asking_role is None:
        return 1.0
    wanted = asking_role.casefold()
    return boost if any(r is not None and r.casefold() == wanted for r in memory_roles) else 1.0


def capability_factor(
    tool: str | None, capabilities: Sequence[str] | None, *, penalty: float
) -> float:
    """`penalty` when a memory is about using a tool the caller does not have, else 1.

    `tool` is the tool a tool-call episode used (None for other kinds); `capabilities` None
    means the caller did not say, and nothing is penalised.

    >>> capability_factor("web_search", ["calculator"], penalty=0.7)
    0.7
    >>> capability_factor("web_search", ["web_search"], penalty=0.7)
    1.0
    >>> capability_factor(None, [], penalty=0.7), capability_factor("x", None, penalty=0.7)
    (1.0, 1.0)
    """
    if tool is None or capabilities is None:
        return 1.0
    have = {c.casefold() for c in capabilities}
    return 1.0 if tool.casefold() in have else penalty
