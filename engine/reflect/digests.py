"""Session digests written and kept true: read a session's live episodes, compose its digest
(`engine/reflect/digest.py`), replace its Digest node and its point in the digests' vector
store.

A digest is rebuilt from the graph whenever its session changes (`end_session`, `reflect`,
`maintain` once the session is idle, and at once when one of its episodes is forgotten,
restored or purged), so it never keeps the text of an episode that left recall. A session
with no live episode left loses its digest and its point.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Protocol

from engine.embed import Embedder
from engine.embed.multilingual import multilingual_vectors
from engine.fact_text import relation
from engine.keyword_keys import KEY_VERSION, own_key
from engine.llm import Extractor
from engine.models import Entity, Episode, from_epoch
from engine.nlp import content_nouns
from engine.reflect.digest import (
    SessionSentence,
    compose_digest,
    digest_head,
    session_sentences,
    session_topics,
    written_summary_fits,
)
from engine.reflect.roles import is_assistant, is_user
from engine.reflect.sentence_vectors import sentence_vectors
from engine.settings import Settings
from engine.stores.base import DigestGraph, GraphLookup, SessionRow
from engine.stores.vectors import VectorPayload, VectorPoint, VectorStore
from engine.text import has_cjk
from engine.views import Digest, DigestSentence

__all__ = [
    "DigestReader", "digest_id", "refresh_digests", "speaker_name", "stale_sessions", "write_digest_points",
]

_DIGEST_IDS = uuid.UUID("6c1b5c52-6a39-4a8e-9d0a-1f1f0d9e7a10")


class DigestReader(DigestGraph, GraphLookup, Protocol):
    """The graph as digests read and write it."""


def digest_id(namespace: str, session_id: str) -> str:
    """The digest's id, the same every time a session is digested again (its point's too).

    >>> digest_id("a", "s1") == digest_id("a", "s1") != digest_id("b", "s1")
    True
    """
    return str(uuid.uuid5(_DIGEST_IDS, f"{namespace}/{session_id}"))


def speaker_name(role: str | None, chinese: bool) -> str | None:
    """How a digest names who spoke: "User" and "Assistant" for a chat's roles (用户, 助手),
    a person's name as it is.

    >>> speaker_name("user", False), speaker_name("assistant", True), speaker_name("Caroline", False)
    ('User', '助手', 'Caroline')
    """
    if role is None or not role.strip():
        return None
    if is_user(role):
        return "用户" if chinese else "User"
    if is_assistant(role):
        return "助手" if chinese else "Assistant"
    return role


def refresh_digests(
    graph: DigestReader, store: VectorStore, embedder: Embedder, settings: Settings,
    namespace: str, session_ids: Sequence[str], *, episode_vectors: VectorStore, now: float,
    extractor: Extractor | None = None,
) -> list[Digest]:  # fmt: skip
    """Digest these sessions again from their live episodes: their nodes replaced in one
    transaction, then their points written to `store`; a session without a live episode loses
    both. The episodes' sentence vectors are read from their points in `episode_vectors`.
    With an LLM `extractor`, it writes each digest's summary where its answer passes
    `written_summary_fits`; the central sentences stand in otherwise. Returns the digests written."""
    sessions = sorted(set(session_ids))
    if not sessions:
        return []
    built = [
        _digest(graph, embedder, episode_vectors, settings, namespace, session_id, episodes, now, extractor)
        for session_id in sessions
        if (episodes := graph.session_episodes(namespace, session_id, now))
    ]
    graph.replace_digests(namespace, sessions, built)
    # Every old point goes first, removed rather than marked: its vectors are made of the old
    # text's words. Should the new ones fail to write, doctor finds them missing and rebuilds.
    store.delete([digest_id(namespace, s) for s in sessions])
    write_digest_points(store, embedder, built, settings)
    return built


def write_digest_points(store: VectorStore, embedder: Embedder, digests: Sequence[Digest], settings: Settings) -> None:
    """Embed and upsert the points of these digests: its text, found by what a question asks."""
    if not digests:
        return
    texts = [d.text for d in digests]
    dense = embedder.embed(texts)
    second = multilingual_vectors(embedder.multilingual, texts)
    store.upsert([
        VectorPoint(
            id=digest.id, dense=list(vector), multilingual=None if other is None else list(other),
            sparse=own_key(text, settings),
            payload=VectorPayload(
                namespace=digest.namespace, session_id=digest.session_id, kind="digest", layer="episodic",
                importance=1.0, created_at=digest.built_at.timestamp(),
                occurred_at=digest.started_at.timestamp(), entities=[], key_version=KEY_VERSION,
            ),
        )
        for digest, text, vector, other in zip(digests, texts, dense, second, strict=True)
    ])  # fmt: skip


def _digest(
    graph: GraphLookup, embedder: Embedder, store: VectorStore, settings: Settings, namespace: str, session_id: str,
    episodes: list[Episode], now: float, extractor: Extractor | None,
) -> Digest:  # fmt: skip
    chinese = sum(has_cjk(e.content) for e in episodes) * 2 > len(episodes)
    ids = [e.id for e in episodes]
    speakers = {e.id: speaker_name(e.role, chinese) for e in episodes}
    participants = list(dict.fromkeys(name for name in speakers.values() if name))
    found = session_sentences([(e.id, e.role, e.content) for e in episodes])
    vectors = sentence_vectors(embedder, store, episodes, found, chinese)
    sentences = [
        SessionSentence(episode_id, speakers[episode_id], text, vector)
        for (episode_id, _, text), vector in zip(found, vectors, strict=True)
    ]
    entities = graph.entities_of(namespace, ids)
    mentions: Counter[str] = Counter()
    for episode_entities in entities.values():
        mentions.update({entity.name for entity in episode_entities})
    roles = [e.role for e in episodes if e.role]
    nouns = content_nouns([e.content for e in episodes])
    topics = session_topics(mentions, nouns, exclude=participants + roles, limit=5)
    decisions = list(dict.fromkeys(
        d.text for made in graph.decisions_of(namespace, ids).values() for d in made if d.status == "active"
    ))  # fmt: skip
    span = (min(e.occurred_at for e in episodes), max(e.occurred_at for e in episodes))
    draft = compose_digest(
        sentences, span=span, participants=participants, topics=topics, decisions=decisions,
        max_words=settings.digest_words, diversity=settings.digest_diversity, lead=settings.digest_lead,
    )  # fmt: skip
    text, written_by = draft.text, "rules"
    written = _written(extractor, found, speakers, settings.digest_words, chinese) if extractor else None
    if written is not None:
        summary, named = written
        topics, written_by = named or topics, "llm"
        text = digest_head(span, participants, topics, decisions, chinese) + ("" if chinese else " ") + summary
    return Digest(
        id=digest_id(namespace, session_id), namespace=namespace, session_id=session_id, text=text,
        started_at=from_epoch(span[0]), ended_at=from_epoch(span[1]), participants=participants,
        topics=topics, written_by=written_by, decisions=decisions, facts=_stated_facts(graph, namespace, entities, set(ids)),
        sentences=[DigestSentence(episode_id=s.episode_id, speaker=s.speaker, text=s.text) for s in draft.sentences],
        episode_ids=ids, language="zh" if chinese else "en", built_at=from_epoch(now),
    )  # fmt: skip


def _written(
    extractor: Extractor, said: Sequence[tuple[str, str | None, str]], speakers: Mapping[str, str | None],
    words: int, chinese: bool,
) -> tuple[str, list[str]] | None:  # fmt: skip
    """The summary and topics the LLM wrote for the session (its sentences `said`), where
    they pass `written_summary_fits`; None otherwise (the central sentences stand in)."""
    transcript = "\n".join(f"{speakers[i] or 'someone'}: {text}" for i, _, text in said)
    answer = extractor.digest(transcript, words)
    if answer is None or not written_summary_fits(answer.summary, transcript, max_words=words, chinese=chinese):
        return None
    return answer.summary.strip(), [t.strip() for t in answer.topics if t.strip()][:5]


def _stated_facts(graph: GraphLookup, namespace: str, entities: Mapping[str, list[Entity]], ids: set[str]) -> list[str]:
    """The active facts drawn from the session's episodes, in words."""
    about = sorted({entity.id for found in entities.values() for entity in found})
    if not about:
        return []
    facts = graph.facts_about(namespace, about, include_closed=False)
    return list(dict.fromkeys(relation(f) for f in facts if ids & set(f.source_episode_ids)))


def stale_sessions(
    sessions: Sequence[SessionRow], digests: Sequence[Digest], *, now: float, idle_seconds: float | None
) -> list[str]:
    """The sessions whose digest is missing or older than their latest episode; with
    `idle_seconds`, only those whose latest episode was stored at least that long ago (a
    conversation still going is digested when it pauses).

    >>> rows = [SessionRow(session_id=s, started_at=0, ended_at=0, episodes=1, last_created_at=t)
    ...         for s, t in (("a", 100.0), ("b", 500.0), ("c", 900.0))]
    >>> built = [Digest(id="x", namespace="n", session_id="b", text="", started_at=0, ended_at=0,
    ...                 participants=[], topics=[], decisions=[], facts=[], sentences=[],
    ...                 episode_ids=[], language="en", built_at=600.0)]
    >>> stale_sessions(rows, built, now=1000.0, idle_seconds=None), stale_sessions(rows, built, now=1000.0, idle_seconds=300)
    (['a', 'c'], ['a'])
    """
    built = {d.session_id: d.built_at.timestamp() for d in digests}
    return [
        row.session_id for row in sessions
        if built.get(row.session_id, -1.0) < row.last_created_at
        and (idle_seconds is None or now - row.last_created_at >= idle_seconds)
    ]  # fmt: skip
