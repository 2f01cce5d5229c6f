"""The reranking stage: fused candidates in, final scores and their factors out.

`Reranker` is the interface; `FactorReranker` (the default, offline, no model) scores

    final = fused x decay x importance x role x capability x author x time

    decay       floor + (1 - floor) x 0.5 ^ (age_days / half_life)          (`decay_factor`)
    importance  1 - w + w x importance                                      (`importance_factor`)
    role        role_boost when the memory was written by or for the asking role
    capability  missing_capability_factor when it needs a tool the caller lacks
    author      author_boost when the query names the memory's author (its role): "What did
                Caroline say about ..." prefers Caroline's own turns
    time        time_answer_boost when the query asks "when" and the memory carries a time
                ("last Friday", "2019", "去年"), x time_window_boost when the memory happened
                within a date the query names (up to time_window_slack_days after it: people
                tell of a day after it), x time_event_boost when it also tells of a time
                inside that date ("last Friday", said on the Sunday after it)

Each factor is 1 when its condition does not hold, and every one is in the trace.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Protocol

from pydantic import BaseModel

from engine.models import Episode
from engine.recall.fusion import (
    RankedHit,
    capability_factor,
    decay_factor,
    importance_factor,
    role_factor,
)
from engine.recall.memo import EpisodeMemo
from engine.recall.time_query import TimeQuery, has_time_expression, searched_window
from engine.settings import Settings
from engine.text import canonical_name
from engine.time_phrases import relative_span

__all__ = [
    "Candidate", "FactorReranker", "Factors", "RerankContext", "Reranker", "factor_ceiling",
    "reranker_for",
]  # fmt: skip



@dataclass(frozen=True, slots=True)
class Candidate:
    """A fused episode: what the channels found and how strongly, before reranking. A
    dataclass, not a model, as `Factors`: a recall makes one per episode it reads (tens),
    of values already typed, and only the cards shown turn their hits into `ChannelHit`s."""

    episode: Episode
    fused: float
    hits: Sequence[RankedHit]


class RerankContext(BaseModel):
    """What the reranker knows of the request."""

    now: float
    role: str | None
    capabilities: list[str] | None
    query_names: list[str]  # canonical word n-grams of the query (engine/recall/query.py)
    time: TimeQuery


@dataclass(frozen=True, slots=True)
class Factors:
    decay: float
    importance: float
    role: float
    capability: float
    author: float
    time: float
    session: float = 1.0  # a repeat of a session for a gathering question (recall/sessions.py)

    def product(self) -> float:
        return self.decay * self.importance * self.role * self.capability * self.author * self.time


class Reranker(Protocol):
    """Scores fused candidates; returns (final, candidate, factors), best first."""

    def rerank(
        self, candidates: Sequence[Candidate], context: RerankContext
    ) -> list[tuple[float, Candidate, Factors]]: ...


def author_factor(author: str | None, query_names: Sequence[str], *, boost: float) -> float:
    """`boost` when the query names the memory's author, else 1.

    >>> author_factor("Caroline", ["what", "caroline", "research"], boost=1.3)
    1.3
    >>> author_factor("Melanie", ["caroline"], boost=1.3), author_factor(None, ["x"], boost=1.3)
    (1.0, 1.0)
    """
    if not author:
        return 1.0
    return boost if canonical_name(author) in set(query_names) else 1.0


Span = tuple[float, float]


def time_factor(
    episode_text: str, occurred_at: float, time: TimeQuery, settings: Settings,
    told: Callable[[str, float], Span | None] = relative_span,
    tells_time: Callable[[str], bool] = has_time_expression,
) -> float:  # fmt: skip
    """`time_answer_boost` for a memory carrying a time when the query asks "when", times
    `time_window_boost` for one that happened within the date the query names (a question
    about everything of that date: `time_window_outside` for one that did not), times
    `time_event_boost` for one of those that tells of a time inside the date itself (`told`:
    the relative time a text names, counted back from when it was said).

    >>> from engine.settings import Settings
    >>> asks = TimeQuery(asks_when=True, wants_latest=False)
    >>> time_factor("we met last Friday", 0.0, asks, Settings()) > 1.0
    True
    >>> time_factor("we met", 0.0, asks, Settings())
    1.0
    >>> from datetime import datetime, UTC
    >>> friday, sunday = (datetime(2023, 10, d, 15, tzinfo=UTC).timestamp() for d in (6, 8))
    >>> on_friday = TimeQuery(asks_when=False, wants_latest=False, window=(friday - 15 * 3600, friday + 9 * 3600))
    >>> [time_factor(text, sunday, on_friday, Settings()) for text in
    ...  ("Last Friday I went to the car show", "我前天去看了车展", "I love car shows")]
    [5.0, 5.0, 2.5]
    """
    factor = 1.0
    if time.asks_when and tells_time(episode_text):
        factor *= settings.time_answer_boost
    span = searched_window(time, settings.time_window_slack_days)
    if span is not None and time.window is not None:
        if span[0] <= occurred_at < span[1]:
            factor *= settings.time_window_boost
            if not time.broad and _overlaps(told(episode_text, occurred_at), time.window):
                factor *= settings.time_event_boost
        elif time.broad:  # everything of that date: only what happened on it
            factor *= settings.time_window_outside
    return factor


# What each candidate's text tells, once per episode (engine/recall/memo.py).
_TOLD: EpisodeMemo[Span | None] = EpisodeMemo(relative_span)
_TELLS_TIME: EpisodeMemo[bool] = EpisodeMemo(has_time_expression)


def _overlaps(span: Span | None, window: Span) -> bool:
    return span is not None and span[0] < window[1] and window[0] < span[1]


class FactorReranker:
    """The default reranker: fused score times the factors of the module docstring."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings

    def rerank(
        self, candidates: Sequence[Candidate], context: RerankContext
    ) -> list[tuple[float, Candidate, Factors]]:
        settings = self._settings
        scored = []
        for candidate in candidates:
            episode = candidate.episode
            factors = Factors(
                decay=decay_factor(
                    context.now - episode.occurred_at,
                    half_life_days=settings.decay_half_life_days,
                    floor=settings.decay_floor,
                ),
                importance=importance_factor(episode.importance, weight=settings.importance_weight),
                role=role_factor(
                    [episode.role, _text(episode.metadata.get("for_role"))],
                    context.role,
                    boost=settings.role_boost,
                ),
                capability=capability_factor(
                    _tool_of(episode), context.capabilities,
                    penalty=settings.missing_capability_factor,
                ),  # fmt: skip
                author=author_factor(episode.role, context.query_names, boost=settings.author_boost),
                time=time_factor(
                    episode.content, episode.occurred_at, context.time, settings,
                    partial(_TOLD, episode.id), partial(_TELLS_TIME, episode.id),
                ),  # fmt: skip
            )
            scored.append((candidate.fused * factors.product(), candidate, factors))
        scored.sort(key=lambda item: (-item[0], -item[1].episode.occurred_at, item[1].episode.id))
        return scored


def factor_ceiling(context: RerankContext, settings: Settings) -> float:
    """The highest product `FactorReranker`'s factors can reach for this request: a
    candidate whose fused score times it stays below a final score already known cannot
    outrank it, and need not be read.

    >>> from engine.recall.time_query import TimeQuery
    >>> context = RerankContext(now=0.0, role="coder", capabilities=None, query_names=[],
    ...                         time=TimeQuery(asks_when=False, wants_latest=False))
    >>> round(factor_ceiling(context, Settings()), 6)  # author_boost x role_boost
    1.5
    """
    highest = settings.author_boost * (settings.role_boost if context.role else 1.0)
    if context.time.asks_when:
        highest *= settings.time_answer_boost
    if context.time.window is not None:
        highest *= settings.time_window_boost
        if not context.time.broad:
            highest *= settings.time_event_boost
    return highest


def reranker_for(settings: Settings) -> Reranker:
    """The reranker the settings name."""
    if settings.reranker == "factors":
        return FactorReranker(settings)
    raise ValueError(f"unknown reranker: {settings.reranker}")


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _tool_of(episode: Episode) -> str | None:
    """The tool a tool-call episode used: metadata `tool`, else its role."""
    if episode.kind != "tool_call":
        return None
    return _text(episode.metadata.get("tool")) or episode.role
