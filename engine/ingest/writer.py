"""The write path: from validated requests to episodes in the graph and the vector mirror.

One batch, in order:
  1. redact personal data (before any model or store sees the text);
  2. chunk long content (the whole and its chunks are all episodes);
  3. run NER and the embedder once over every text (and the LLM extractor, when configured);
  4. score importance; `layer="working"`, or a scored importance under the threshold, keeps a
     turn in working memory only (the latter answers `skipped: low_importance`);
  5. find duplicates (content hash, then embedding + same facts) and see them again instead;
  6. resolve entities against the namespace (name, alias, similar name of the same type);
  7. find the active decisions each new decision supersedes;
  8. write the graph and, inside its transaction, the vectors.
The choices are pure functions in `engine/ingest/`, the reads they need are
`engine/ingest/lookups.py`'s; this module runs the steps and writes.
`write_batches` overlaps batches: steps 1-3 of a batch run (its embedding queued on the model
thread) before the batch ahead of it is written (`engine/ingest/batch_models.py`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator, Iterable, Sequence
from concurrent.futures import Executor
from contextlib import suppress
from dataclasses import dataclass, field

from engine.embed import Embedder
from engine.embed.multilingual import multilingual_vectors
from engine.errors import InvalidInput, StoreUnavailable, WriteFailed
from engine.ingest.batch_models import BatchModels
from engine.ingest.batch_texts import BatchText, batch_texts
from engine.ingest.dedup import Duplicate
from engine.ingest.extract import find_decisions, find_numbers, find_todos
from engine.ingest.importance import score_importance, signals_of
from engine.ingest.lookups import BatchLookups, ShortVectors
from engine.ingest.pipeline import prepare, source_of
from engine.ingest.planning import plan_episodes, request_indices
from engine.ingest.redact import compile_patterns
from engine.ingest.sentences import sentences_to_embed
from engine.ingest.work_links import work_links
from engine.inputs import StoreRequest
from engine.keyword_keys import keys_in_context, rekey
from engine.llm import Extractor
from engine.log_text import prose
from engine.models import Entity, StoreResult
from engine.nlp import RawEntity, limit_numpy_blas
from engine.settings import Settings
from engine.stores.base import IngestGraph
from engine.stores.vectors import SparseVector, VectorStore
from engine.text import MAX_NAME_CHARS, canonical_name
from engine.work import WORK_KINDS, episode_signature, stated_signature
from engine.working import WorkingItem, WorkingMemory

__all__ = ["Writer"]

_SHORT_TEXT_CHARS = 300
# A namespace no caller can name (namespaces start with a letter or digit): a rehearsal's
# writes go there and are rolled back or removed.
_REHEARSAL_NAMESPACE = "_rehearsal"
# The turns a rehearsal stores, with their sessions: the second continues a session, the
# third supersedes the second's decision outside any session, as a caller's stores do.
_REHEARSAL = (
    ("Dana met Sam in Berlin on 4 May about the Atlas launch.", "rehearsal"),
    ("We decided to use PostgreSQL for the Atlas backend, budget $4,500.", "rehearsal"),
    ("We decided to use MySQL for the Atlas backend instead.", None),
)


class _RolledBack(Exception):
    """Ends a rehearsal's transaction: nothing it wrote is kept."""


@dataclass
class _Started:
    """A batch redacted and chunked, its models begun (`models`), or what failed first."""

    requests: Sequence[StoreRequest]
    texts: list[BatchText] = field(default_factory=list)
    models: BatchModels | None = None
    error: Exception | None = None


class Writer:
    """Writes batches; owns the write lock and working memory."""

    def __init__(
        self,
        *,
        graph: IngestGraph,
        vectors: VectorStore,
        embedder: Embedder,
        settings: Settings,
        model_pool: Executor,
        extractor: Extractor | None = None,
    ) -> None:
        limit_numpy_blas(settings.numpy_blas_threads)  # process-wide: for NER beside the embedder
        self._graph = graph
        self._model_pool = model_pool
        self._vectors = vectors
        self._embedder = embedder
        self._settings = settings
        self._extractor = extractor
        self.lock = threading.Lock()
        self.stored_namespaces: set[str] = set()  # namespaces this process has written to
        # Told (namespace, episode ids) after every batch that stored episodes, promotions
        # included: the façade writes its audit log from it.
        self.on_stored: Callable[[str, list[str]], None] | None = None
        self.working = WorkingMemory(
            capacity=settings.working_capacity,
            key_weight=settings.working_key_weight,
            promote_min=settings.working_promote_min,
        )
        self._short_vectors = ShortVectors(embedder)
        self._lookups = BatchLookups(graph, vectors, self._short_vectors, settings)
        try:
            self._pii = compile_patterns(settings.pii_patterns)
        except ValueError as exc:
            raise InvalidInput("pii_patterns", str(exc)) from None

    def write(self, requests: Sequence[StoreRequest]) -> list[StoreResult]:
        """Store one batch all-or-nothing; one result per request, in order.

        Raises:
            InvalidInput: a related id is not an episode of the namespace; nothing stored.
            WriteFailed: a store failed; nothing of the batch is visible.
        """
        [results] = self.write_batches([requests])
        return results

    def write_batches(self, batches: Iterable[Sequence[StoreRequest]]) -> Generator[list[StoreResult]]:
        """Store batches in order, each all-or-nothing, yielding each one's results once it is
        committed. The next batch starts (its embedding queued, its NER run) before this one
        is embedded to the end and written, so the model thread never waits for the write
        (store_many at 10k: see README).

        Raises:
            as `write`, at the batch that failed; the batches yielded before it are stored.
        """
        pending = iter(batches)
        current, following = self._start(next(pending, None)), None
        try:
            while current is not None:
                following = self._start(next(pending, None))  # its NER while this one embeds
                texts = self._finish(current)
                yield self._commit(current.requests, texts)
                current, following = following, None
        finally:
            for started in (current, following):
                if started is not None and started.models is not None:
                    started.models.abandon()

    def _commit(self, requests: Sequence[StoreRequest], texts: list[BatchText]) -> list[StoreResult]:
        now = time.time()
        results: dict[int, StoreResult] = {}
        promoted: list[WorkingItem] = []
        written: list[str] = []
        with self.lock:
            try:
                with self._graph.transaction():
                    to_working = self._write_locked(texts, now, results, written)
            except StoreUnavailable as exc:
                self._discard(written)
                raise WriteFailed(f"nothing stored: {exc}") from exc
            # Only once the batch is committed: a failed batch leaves working memory as it was.
            for item in to_working:
                promoted += self.working.add(item)
        if self.on_stored is not None:
            stored: dict[str, list[str]] = {}
            for result in results.values():
                if result.status == "stored":
                    stored.setdefault(result.namespace, []).append(result.id)
            for namespace, ids in stored.items():
                self.on_stored(namespace, ids)
        if promoted:
            self.promote(promoted)
        return [results[i] for i in range(len(requests))]

    def rehearse(self) -> None:
        """Write sample batches the whole way, so that the first real store does not pay what
        a store does once per process: the graph preparing its statements, the first vector
        writes, lazy imports. Nothing is kept, and the namespace is one no caller can name.

        On a store that holds data, one batch is written and rolled back. On a new store its
        turns are committed one after the other and then removed: there the first commits
        into each empty table, and the first that update rows an earlier commit wrote, cost
        several times a later one, which a rollback leaves to the caller's first two stores
        (41 and 37 ms against 25 afterwards on Ladybug)."""
        requests = [
            StoreRequest(content=content, session_id=session, occurred_at=1_700_000_000 + i * 60)
            .model_copy(update={"namespace": _REHEARSAL_NAMESPACE})
            for i, (content, session) in enumerate(_REHEARSAL)
        ]  # fmt: skip
        written: list[str] = []
        try:
            if self._vectors.count(None, exact=False) > 0:
                self._rehearse_batch(requests, written, keep=False)
            else:
                for request in requests:
                    self._rehearse_batch([request], written, keep=True)
        finally:
            with self.lock:
                # Also what a rehearsal cut short by a crash left.
                self._graph.remove_namespace(_REHEARSAL_NAMESPACE)
                self._discard(written)
                self.stored_namespaces.discard(_REHEARSAL_NAMESPACE)

    def _rehearse_batch(self, requests: Sequence[StoreRequest], written: list[str], *, keep: bool) -> None:
        started = self._start(requests, ask_llm=False)  # a paid service is not rehearsed
        assert started is not None  # given requests
        texts = self._finish(started)
        with self.lock, suppress(_RolledBack), self._graph.transaction():
            self._write_locked(texts, time.time(), {}, written)
            if not keep:
                raise _RolledBack

    def promote(self, items: Sequence[WorkingItem]) -> list[StoreResult]:
        """Write working-memory items to episodic memory, with the importance they had."""
        requests = [
            i.request.model_copy(update={"layer": "episodic", "importance": i.importance})
            for i in items
        ]
        return self.write(requests) if requests else []

    # -- before the lock: redaction, chunking, models -------------------------------------------
    def _start(self, requests: Sequence[StoreRequest] | None, *, ask_llm: bool = True) -> _Started | None:
        """Redact and chunk a batch, start its embedding and run its NER (and the LLM extractor,
        when configured and `ask_llm`); None past the last batch. A failure here waits for
        the batch's turn: the batches ahead are still written."""
        if requests is None:
            return None
        started = _Started(requests=requests)
        try:
            started.texts = batch_texts(requests, self._settings, self._pii)
            contents = [t.request.content for t in started.texts]
            sentences = [sentences_to_embed(c, self._settings.sentence_vectors_max) for c in contents]
            started.models = BatchModels(
                self._embedder, self._model_pool, contents, self._settings.embed_part_size, sentences,
                embed_whole=self._settings.embed_whole,
            )  # fmt: skip
            started.models.extract(self._extractor if ask_llm else None)
        except Exception as exc:
            started.error = exc
        return started

    def _finish(self, started: _Started) -> list[BatchText]:
        """The batch's texts with what the models found in them."""
        if started.error is not None:
            raise started.error
        assert started.models is not None  # set whenever nothing failed
        found = started.models.finish()
        texts = started.texts
        # Outside the lock and the graph transaction, beside the next batch's models.
        second = multilingual_vectors(self._embedder.multilingual, [t.request.content for t in texts])
        for text, vector in zip(texts, second, strict=True):
            text.multilingual = vector
        for text, entities, vector, whole, answer, of_sentences in zip(
            texts, found.entities, found.vectors, found.whole, found.answers, found.sentence_vectors, strict=True
        ):
            text.embedding = list(vector)
            text.sentences = of_sentences
            if whole and len(text.request.content) <= _SHORT_TEXT_CHARS:
                # A one-sentence turn is often its own decision: supersession reuses this.
                self._short_vectors.remember(text.request.content, vector)
            if answer is not None:  # the LLM replaces the rules where it answered
                entities = [RawEntity(name=e.name, type=e.type) for e in answer.entities]
                text.decisions, text.todos = answer.decisions, answer.todos
                text.llm_importance = answer.importance
            else:
                content = text.request.content
                text.decisions, text.todos = find_decisions(content), find_todos(content)
            # A "name" longer than any a person reads is a run of log noise ("xxxx...", a hash).
            text.entities = [e for e in entities if len(e.name) <= MAX_NAME_CHARS]
            if text.request.kind in WORK_KINDS:
                _read_as_work(text)
            elif text.request.layer == "semantic" and text.chunk_index is None:
                text.signature = stated_signature(text.request.content)
        return texts

    # -- under the lock ---------------------------------------------------------------------------
    def _write_locked(
        self, texts: list[BatchText], now: float, results: dict[int, StoreResult], written: list[str]
    ) -> list[WorkingItem]:
        """Everything under the lock and the graph transaction; returns the items that go to
        working memory once the transaction has committed."""
        settings = self._settings
        self._lookups.check_related([t.request for t in texts if t.chunk_index is None])
        self._lookups.stated_signatures(texts)
        known = self._lookups.known_entities(texts)
        to_working: list[WorkingItem] = []
        kept: list[BatchText] = []
        for text in texts:
            text.importance = self._importance(text, known)
            request = text.request
            if text.chunk_index is not None:
                continue  # a chunk follows its whole
            # A task, or a step of work with an outcome, is a record of what was done, however terse.
            recorded = request.kind == "task" or (request.outcome is not None and request.kind in WORK_KINDS)
            scored_low = request.importance is None and text.importance < settings.importance_threshold and not recorded
            if request.layer == "working" or scored_low:
                to_working.append(
                    WorkingItem(id=text.id, request=request, importance=text.importance,
                                embedding=text.embedding, created_at=now, sequence=0)
                )  # fmt: skip
                results[text.request_index] = self._result(
                    text, "working" if request.layer == "working" else "skipped"
                )
            else:
                kept.append(text)

        # A step of work is an event: the same error again, or the same check passing, happened again.
        events = {t.id for t in kept if t.request.task_id or (t.request.outcome and t.request.kind in WORK_KINDS)}
        duplicates = self._lookups.duplicates([t for t in kept if t.id not in events], now) if settings.dedup else {}
        for text in kept:
            if text.id in duplicates:
                results[text.request_index] = self._result(
                    text, "duplicate", duplicates[text.id].of
                )
        wholes = {t.request_index for t in kept if t.id not in duplicates}
        to_plan = [t for t in texts if t.request_index in wholes and t.request.layer != "working"]
        planned = plan_episodes(to_plan, self._lookups.resolve(to_plan, known))
        self._lookups.supersede(planned, now)
        sessions = {
            (p.request.namespace, p.request.session_id)
            for p in planned
            if p.request.session_id is not None and p.parent_id is None
        }
        tails = {(ns, sid): self._graph.last_episode_in_session(ns, sid) for ns, sid in sessions}
        prepared = prepare(planned, tails, now=now, settings=settings)
        occurred = {e.id: e.occurred_at for e in prepared.batch.episodes}
        links = work_links(self._graph, planned, occurred, now=now, window=settings.resolution_window)
        prepared.batch.steps, prepared.batch.resolutions, prepared.batch.not_held = links
        written.extend(p.id for p in planned)
        self.stored_namespaces.update(p.request.namespace for p in planned)
        self._graph.write(prepared.batch)
        self._touch(kept, duplicates, now)
        # New turns join their sessions' keyword context, both ways (engine/keyword_keys.py):
        # their points are written with it, then the neighbours that now hold their text.
        in_sessions: dict[str, list[str]] = {}
        for item in planned:
            if item.request.session_id is not None and item.parent_id is None:
                in_sessions.setdefault(item.request.namespace, []).append(item.id)
        keys: dict[str, SparseVector] = {}
        neighbours: dict[str, list[str]] = {}
        for namespace, ids in in_sessions.items():
            found, neighbours[namespace] = keys_in_context(self._graph, namespace, ids, settings)
            keys.update(found)
        points = [
            p.model_copy(update={"sparse": keys[p.id]}) if p.id in keys else p
            for p in prepared.points
        ]
        # Inside the graph transaction: if the mirror fails, the graph rolls back.
        self._vectors.upsert(points)
        for namespace, ids in neighbours.items():
            rekey(self._graph, self._vectors, namespace, ids, settings)
        index_of = {p.id: i for p, i in zip(planned, request_indices(planned, texts), strict=True)}
        for result in prepared.results:
            results[index_of[result.id]] = result
        return to_working

    def _importance(self, text: BatchText, known: dict[str, dict[str, Entity]]) -> float:
        """Explicit importance, else the LLM's, else the rule-based score."""
        if text.request.importance is not None:
            return text.request.importance
        if text.llm_importance is not None:
            return text.llm_importance
        seen = known.get(text.request.namespace, {})
        new = {c for e in text.entities if (c := canonical_name(e.name)) and c not in seen}
        signals = signals_of(
            text.request.content,
            new_entities=len(new),
            numbers=len(find_numbers(text.request.content)),
            decisions=len(text.decisions),
            todos=len(text.todos),
            failure=text.signature is not None or text.request.outcome == "failure",
        )
        return score_importance(signals, self._settings.importance)

    def _touch(self, kept: list[BatchText], duplicates: dict[str, Duplicate], now: float) -> None:
        touches: dict[str, list[tuple[str, float, str]]] = {}
        id_of = {t.id: t for t in kept}
        for text_id, duplicate in duplicates.items():
            text = id_of[text_id]
            at = text.request.occurred_at if text.request.occurred_at is not None else now
            touches.setdefault(text.request.namespace, []).append(
                (duplicate.of, at, source_of(text.request))
            )
        for namespace, rows in touches.items():
            self._graph.touch(namespace, rows)

    def _result(self, text: BatchText, status: str, of: str | None = None) -> StoreResult:
        return StoreResult.model_validate(
            {
                "id": of or text.id,
                "status": status,
                "reason": "low_importance" if status == "skipped" else None,
                "namespace": text.request.namespace,
                "importance": text.importance,
                "redacted": text.redacted,
            }
        )

    def _discard(self, ids: list[str]) -> None:
        try:
            self._vectors.delete(ids)
        except StoreUnavailable:
            # Orphan points are never recalled (recall keeps only live graph ids).
            pass


def _read_as_work(text: BatchText) -> None:
    """A tool call or task: its error signature, and of what the models found only what its
    words say (`engine.log_text.prose`): no entity of a stack frame ("Traceback", "File") or
    of the error's own class (its signature stands for it). A tool's output decides nothing
    and asks nothing of anyone ("Switched to context prod-eu"): no decision, no todo."""
    request = text.request
    if text.chunk_index is None:
        text.signature = episode_signature(request.content, kind=request.kind, outcome=request.outcome,
                                           role=request.role, metadata=request.metadata)  # fmt: skip
    said = prose(request.content)
    lowered = said.casefold()
    head = text.signature.head.casefold() if text.signature else None
    text.entities = [e for e in text.entities if e.name.casefold() in lowered and e.name.casefold() != head]
    text.decisions, text.todos = [], []
