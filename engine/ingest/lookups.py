"""What a batch needs to know of what is stored, read inside the write transaction.

Related ids that must exist, entities already known by name or alias, duplicates (by hash,
then by embedding), the stored entity an unknown name means, the active decisions a new one
supersedes. Each lookup reads the graph or the vector mirror; the choices themselves are the
pure functions of `engine/ingest/` (`dedup`, `resolve`, `supersede`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from engine.embed import Embedder
from engine.errors import InvalidInput
from engine.ingest.batch_texts import BatchText
from engine.ingest.dedup import Duplicate, content_hash, duplicates_in_batch, near_duplicate
from engine.ingest.pipeline import PlannedDecision, PlannedEntity, PlannedEpisode, entity_id
from engine.ingest.resolve import Candidate, candidate_prefix, resolve_name
from engine.ingest.supersede import DecisionView, choose_supersessions
from engine.inputs import StoreRequest
from engine.models import Entity
from engine.settings import Settings
from engine.signatures import ENTITY_TYPE as SIGNATURE
from engine.stores.base import IngestGraph
from engine.stores.vectors import VectorStore
from engine.text import canonical_name

__all__ = ["BatchLookups", "ShortVectors"]

# The words of its message a stated lesson shares with a stored signature to be about it.
_STATED_WORDS = 3
# Entries in the short-text vector cache: 10k x 384 float32 is about 15 MB.
SHORT_VECTOR_CACHE = 10_000


class ShortVectors:
    """Embeddings of short texts (entity names, decisions), kept because they repeat: the
    same names and decisions are compared again at every batch. Bounded, oldest out."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()

    def remember(self, text: str, vector: Sequence[float]) -> None:
        """Keep a vector computed elsewhere (a one-sentence turn is often its own decision)."""
        self._vectors[text] = np.asarray(vector, dtype=np.float32)

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Embeddings of short texts (names, decisions), from the cache where known."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            for text, vector in zip(missing, self._embedder.embed(missing), strict=True):
                self._vectors[text] = np.asarray(vector, dtype=np.float32)
        for text in texts:
            self._vectors.move_to_end(text)
        vectors = [self._vectors[t].tolist() for t in texts]
        # Only now: the oldest entries may be texts of this call (an old decision, say).
        while len(self._vectors) > SHORT_VECTOR_CACHE:
            self._vectors.popitem(last=False)
        return vectors


class BatchLookups:
    """The reads of the write path, over the graph and the vector mirror of one `Memory`."""

    def __init__(
        self, graph: IngestGraph, vectors: VectorStore, short: ShortVectors, settings: Settings
    ) -> None:
        self._graph = graph
        self._vectors = vectors
        self._short = short
        self._settings = settings

    def check_related(self, requests: list[StoreRequest]) -> None:
        """Every episode a request names is one of its namespace: each related id and each
        failure it resolves is stored; its task is a stored task or this batch's."""
        wanted: dict[str, set[str]] = {}
        for request in requests:
            named = [*request.related_ids, *request.resolves, *([request.task_id] if request.task_id else [])]
            wanted.setdefault(request.namespace, set()).update(named)
        batch_tasks = {r.episode_id for r in requests if r.episode_id and r.kind == "task"}
        for namespace, ids in wanted.items():
            stored = {e.id: e for e in self._graph.get_episodes(namespace, sorted(ids - batch_tasks))}
            for request in (r for r in requests if r.namespace == namespace):
                for field in ("related_ids", "resolves"):
                    missing = [i for i in getattr(request, field) if i not in stored]
                    if missing:
                        raise InvalidInput(field, f"no episode {missing[0]!r} in {namespace!r}")
                task = request.task_id
                if task is not None and task not in batch_tasks:
                    if task not in stored:
                        raise InvalidInput("task_id", f"no episode {task!r} in {namespace!r}")
                    if stored[task].kind != "task":
                        raise InvalidInput("task_id", f"episode {task!r} is a {stored[task].kind}, not a task")

    def stated_signatures(self, texts: Sequence[BatchText]) -> None:
        """Set on each stated lesson the stored SIGNATURE entity its error names, if any: of
        those that begin as its error does (its head and first words), the one that shares the
        most of its words, then the most seen. A lesson names less of an error than the tool
        printed, or runs on into its advice."""
        for text in texts:
            if text.request.layer != "semantic" or text.signature is None:
                continue
            key = text.signature.key
            words = key.split()
            start = " ".join(words[: len(text.signature.head.split()) + _STATED_WORDS])
            found = [e for e in self._graph.entities_with_prefix(text.request.namespace, [start]) if e.type == SIGNATURE]
            if found:
                text.signature_entity = max(found, key=lambda e: (_shared_words(e.canonical, key), e.mention_count, e.id))

    def known_entities(self, texts: Sequence[BatchText]) -> dict[str, dict[str, Entity]]:
        """Per namespace, canonical name or alias -> the stored entity it names."""
        wanted: dict[str, set[str]] = {}
        for text in texts:
            names = {canonical_name(e.name) for e in text.entities} - {""}
            wanted.setdefault(text.request.namespace, set()).update(names)
        known: dict[str, dict[str, Entity]] = {}
        for namespace, names in wanted.items():
            by_name: dict[str, Entity] = {}
            for entity in self._graph.find_entities(namespace, sorted(names)):
                for name in [entity.canonical, *entity.aliases]:
                    if name in names:
                        by_name.setdefault(name, entity)
            known[namespace] = by_name
        return known

    def duplicates(self, kept: list[BatchText], now: float) -> dict[str, Duplicate]:
        """Text id -> the episode it repeats: stored (hash, then near) or earlier in the batch."""
        found: dict[str, Duplicate] = {}
        by_namespace: dict[str, list[BatchText]] = {}
        for text in kept:
            by_namespace.setdefault(text.request.namespace, []).append(text)
        threshold = self._settings.dedup_similarity
        for namespace, group in by_namespace.items():
            hashes = self._graph.find_by_hash(
                namespace, [content_hash(t.request.content) for t in group], now
            )
            for text in group:
                existing = hashes.get(content_hash(text.request.content))
                if existing is not None:
                    found[text.id] = Duplicate(of=existing, exact=True)
            rest = [t for t in group if t.id not in found]
            hits = self._vectors.search_dense_batch(namespace, [t.embedding for t in rest], 1)
            candidates = [h[0].id for h in hits if h and h[0].score >= threshold]
            stored = {e.id: e for e in self._graph.get_episodes(namespace, candidates)}
            for text, top in zip(rest, hits, strict=True):
                match = near_duplicate(text.request.content, top, stored, threshold)
                if match is not None:
                    found[text.id] = match
            rest = [t for t in rest if t.id not in found]
            found.update(
                duplicates_in_batch(
                    [(t.id, t.request.content, t.embedding) for t in rest], threshold
                )
            )
        return found

    def resolve(
        self, texts: list[BatchText], known: dict[str, dict[str, Entity]]
    ) -> dict[str, dict[str, PlannedEntity]]:
        """Per namespace, canonical name -> the entity it becomes (stored, similar, or new)."""
        names: dict[str, dict[str, str]] = {}  # namespace -> canonical -> type
        for text in texts:
            for raw in text.entities:
                canonical = canonical_name(raw.name)
                if canonical:
                    names.setdefault(text.request.namespace, {}).setdefault(canonical, raw.type)
        resolved: dict[str, dict[str, PlannedEntity]] = {}
        for namespace, types in names.items():
            seen = known.get(namespace, {})
            unknown = sorted(c for c in types if c not in seen)
            similar = self._similar_entities(namespace, unknown, types)
            table: dict[str, PlannedEntity] = {}
            for canonical, kind in types.items():
                stored = seen.get(canonical)
                alias = None
                if stored is None and canonical in similar:
                    stored, alias = similar[canonical], canonical
                table[canonical] = PlannedEntity(
                    id=stored.id if stored else entity_id(namespace, canonical),
                    name=stored.name if stored else canonical,
                    canonical=stored.canonical if stored else canonical,
                    type=stored.type if stored else kind,
                    alias=alias,
                )
            resolved[namespace] = table
        return resolved

    def _similar_entities(
        self, namespace: str, unknown: list[str], types: dict[str, str]
    ) -> dict[str, Entity]:
        """Unknown names that mean one stored entity of the same type (`resolve_name`)."""
        if not unknown:
            return {}
        stored = self._graph.entities_with_prefix(namespace, [candidate_prefix(c) for c in unknown])
        stored = [e for e in stored if e.canonical not in unknown]
        if not stored:
            return {}
        vectors = self._short.embed(unknown + [e.canonical for e in stored])
        candidates = [
            Candidate(entity=e, vector=list(v))
            for e, v in zip(stored, vectors[len(unknown) :], strict=True)
        ]
        found = {}
        for canonical, vector in zip(unknown, vectors, strict=False):
            prefix = candidate_prefix(canonical)
            match = resolve_name(
                canonical,
                types[canonical],
                vector,
                [c for c in candidates if c.entity.canonical.startswith(prefix)],
                threshold=self._settings.entity_merge_similarity,
            )
            if match is not None:
                found[canonical] = match
        return found

    def supersede(self, planned: list[PlannedEpisode], now: float) -> None:
        """Mark on each new decision the active decisions it supersedes."""
        by_namespace: dict[str, list[tuple[PlannedDecision, float]]] = {}
        for episode in planned:
            at = episode.request.occurred_at if episode.request.occurred_at is not None else now
            for decision in episode.decisions:
                if decision.subjects:
                    by_namespace.setdefault(episode.request.namespace, []).append((decision, at))
        for namespace, new in by_namespace.items():
            subjects = sorted({s for d, _ in new for s in d.subjects})
            active = self._graph.active_decisions(namespace, subjects)
            vectors = self._short.embed([d.text for d, _ in new] + [d.text for d in active])
            views = [
                DecisionView(id=d.id, subjects=d.subjects, at=at, vector=list(v))
                for (d, at), v in zip(new, vectors, strict=False)
            ]
            stored = [
                DecisionView(id=d.id, subjects=d.subjects, at=d.decided_at, vector=list(v))
                for d, v in zip(active, vectors[len(new) :], strict=True)
            ]
            by_id = {d.id: d for d, _ in new}
            pairs = choose_supersessions(
                views, stored, threshold=self._settings.supersede_similarity
            )
            for new_id, old_id in pairs:
                by_id[new_id].supersedes.append(old_id)


def _shared_words(a: str, b: str) -> int:
    """How many leading words two keys share.

    >>> _shared_words("http 503 pool exhausted", "http 503 pool closed")
    3
    """
    count = 0
    for x, y in zip(a.split(), b.split(), strict=False):
        if x != y:
            break
        count += 1
    return count
