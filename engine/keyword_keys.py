"""Keyword keys: the BM25 vector each episode is indexed under, with its session context.

A conversation answers across turns: "Where did you go?" / "Bali, last spring." The answer
turn alone does not say what it answers. So an episode's keyword key holds its own terms at
full weight and the terms of its neighbours along the session's NEXT chain at
`keyword_context_weight ** distance`, up to `keyword_context_turns` away. The key of an
episode therefore changes when a neighbour arrives, is forgotten, restored or purged; every
such change calls `refresh_around`, and `hindsight doctor --repair` rekeys from the graph.
Only live neighbours count: forgotten text must not keep pulling its neighbours up.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence

from engine.settings import Settings
from engine.stores.base import GraphLookup, WindowRow
from engine.stores.vectors import SparseVector, VectorStore
from engine.text import bm25_document, tokenize

__all__ = [
    "KEY_VERSION", "context_terms", "keys_in_context", "keyword_vector", "refresh_around", "rekey",
]  # fmt: skip

# The recipe of keyword keys; points written under an older one are rekeyed by doctor.
# 1: own terms, plural-only stem. 2: Snowball stems and session context.
KEY_VERSION = 2


def context_terms(
    own: Sequence[str], neighbours: Iterable[tuple[int, Sequence[str]]], *, weight: float, turns: int
) -> dict[str, float]:
    """Weighted term counts: own terms count 1, a neighbour's `weight ** |offset|`.

    >>> context_terms(["bali"], [(-1, ["trip"]), (2, ["trip", "yoga"]), (4, ["far"])],
    ...               weight=0.5, turns=3)
    {'bali': 1.0, 'trip': 0.75, 'yoga': 0.25}
    """
    counts: dict[str, float] = dict(Counter(own))
    for offset, tokens in neighbours:
        if offset == 0 or abs(offset) > turns:
            continue
        share = weight ** abs(offset)
        for token in tokens:
            counts[token] = counts.get(token, 0.0) + share
    return {t: float(c) for t, c in counts.items()}


def keyword_vector(terms: Mapping[str, float], settings: Settings) -> SparseVector:
    """The BM25 document vector of weighted term counts (IDF is applied by the store)."""
    indices, values = bm25_document(terms, settings.bm25_k1, settings.bm25_b, settings.bm25_avg_len)
    return SparseVector(indices=indices, values=values)


def own_key(content: str, settings: Settings) -> SparseVector:
    """The key of an episode outside any session: its own terms."""
    return keyword_vector(dict(Counter(tokenize(content))), settings)


def _keys_from_windows(rows: Sequence[WindowRow], settings: Settings) -> dict[str, SparseVector]:
    by_episode: dict[str, list[WindowRow]] = defaultdict(list)
    for row in rows:
        by_episode[row.episode_id].append(row)
    tokens: dict[str, list[str]] = {}
    keys: dict[str, SparseVector] = {}
    for episode_id, window in by_episode.items():
        own = next((r for r in window if r.offset == 0), None)
        if own is None or not own.live:
            continue  # a forgotten episode is not searched: its key does not matter
        for row in window:
            if row.neighbour_id not in tokens:
                tokens[row.neighbour_id] = tokenize(row.content)
        neighbours = [(r.offset, tokens[r.neighbour_id]) for r in window if r.live and r.offset]
        terms = context_terms(
            tokens[episode_id], neighbours,
            weight=settings.keyword_context_weight, turns=settings.keyword_context_turns,
        )  # fmt: skip
        keys[episode_id] = keyword_vector(terms, settings)
    return keys


def _store_keys(vectors: VectorStore, rows: Sequence[WindowRow], settings: Settings) -> int:
    keys = _keys_from_windows(rows, settings)
    vectors.set_keyword(keys, KEY_VERSION)
    return len(keys)


def _live_neighbours(rows: Sequence[WindowRow], settings: Settings) -> list[str]:
    """The live episodes of these windows within `keyword_context_turns` (offset 0 included)."""
    turns = settings.keyword_context_turns
    return list(dict.fromkeys(r.neighbour_id for r in rows if r.live and abs(r.offset) <= turns))


def rekey(graph: GraphLookup, vectors: VectorStore, namespace: str, ids: Sequence[str],
          settings: Settings) -> int:  # fmt: skip
    """Recompute and store the keys of these episodes; returns how many were rewritten."""
    if not ids:
        return 0
    return _store_keys(vectors, graph.session_windows(namespace, list(dict.fromkeys(ids))), settings)


def window_ids(graph: GraphLookup, namespace: str, ids: Sequence[str], settings: Settings) -> list[str]:
    """The live episodes whose keys may hold the text of these: themselves and their live
    neighbours within `keyword_context_turns`."""
    if not ids:
        return []
    return _live_neighbours(graph.session_windows(namespace, list(ids)), settings)


def keys_in_context(graph: GraphLookup, namespace: str, ids: Sequence[str],
                    settings: Settings) -> tuple[dict[str, SparseVector], list[str]]:  # fmt: skip
    """The keys of these live episodes, and their live neighbours whose keys hold their text.

    One read of the windows of `ids`. A store writes the new points with these keys at once
    and then rekeys only the neighbours, rather than writing every new point twice.
    """
    asked = list(dict.fromkeys(ids))
    if not asked:
        return {}, []
    rows = graph.session_windows(namespace, asked)
    seen = set(asked)
    others = [i for i in _live_neighbours(rows, settings) if i not in seen]
    return _keys_from_windows(rows, settings), others


def refresh_around(graph: GraphLookup, vectors: VectorStore, namespace: str, ids: Sequence[str],
                   settings: Settings) -> int:  # fmt: skip
    """Rekey these episodes and their neighbours (after a forget, restore, archive or purge).

    The windows of `ids` are read once: they key `ids` themselves and name the neighbours,
    whose own windows are the only second read.
    """
    keys, others = keys_in_context(graph, namespace, ids, settings)
    vectors.set_keyword(keys, KEY_VERSION)
    return len(keys) + rekey(graph, vectors, namespace, others, settings)
