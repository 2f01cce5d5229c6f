"""`Memory`, the one façade: store, recall, get, list, forget, explain, entity, cypher, stats.

The MCP server, the CLI, the notebooks and the benchmarks all call this class. It is
synchronous and thread-safe: writes are serialised, reads share the stores' own locks.
"""

from __future__ import annotations

import builtins
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from pydantic import ValidationError

from engine.analyst.query import analyst_query
from engine.embed import Embedder, embedder_for
from engine.errors import HindsightError, InvalidInput, NotFound, StoreUnavailable, WriteFailed
from engine.ingest.writer import Writer
from engine.inputs import MAX_OFFSET, RecallRequest, StoreRequest, invalid_input, is_unicode_text
from engine.lifecycle.audit import AuditLog
from engine.lifecycle.methods import Lifecycle
from engine.llm import extractor_for
from engine.lookup import entity_profile, explain_episode, store_health
from engine.models import Episode, MemoryCard, RecallLayer, Stats, StoreResult
from engine.recall.pipeline import card_order, run_recall, within_budget
from engine.recall.query_models import query_models
from engine.recall.working import working_cards
from engine.reflect.run import failed_task_namespaces
from engine.remote import RemoteMemory
from engine.settings import Settings, settings_at
from engine.stores import GraphStore, VectorStore, open_archive, open_stores
from engine.views import CypherResult, EntityProfile, EpisodeExplanation, Health
from engine.working import working_episode

__all__ = ["Memory"]

Progress = Callable[[int], None]

log = logging.getLogger(__name__)


class Memory(Lifecycle):
    """Agent memory over a graph store and a vector mirror.

    Example:
        >>> with Memory.open("/tmp/mem") as memory:                     # doctest: +SKIP
        ...     memory.store("We decided to use Postgres for Atlas.", session_id="s1")
        ...     cards = memory.recall("Which database did we pick?")
    """

    def __init__(
        self,
        *,
        graph: GraphStore,
        vectors: VectorStore,
        embedder: Embedder,
        settings: Settings,
    ) -> None:
        self._graph = graph
        self._vectors = vectors
        self._embedder = embedder
        # One thread runs the embedder beside other work: a query's embedding while recall
        # reads the stores (if it leaves a core free: `QueryModels`), a batch's beside NER.
        self._model_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hindsight-embed")
        self.settings = settings
        self._closed = False
        # Who is acting, for the audit log: the CLI and the MCP server set their own name.
        self.actor = "api"
        self._audit = AuditLog(settings.data_dir / "audit.jsonl")
        self._archive = open_archive(settings)
        # Counted once: afterwards only this process's writes (the writer keeps track) can fill
        # the shared namespace, as one process owns the stores. It saves a count per recall.
        self._shared_had_episodes = vectors.count(settings.shared_namespace) > 0
        if vectors.count(None, exact=False) == 0 and graph.namespaces():
            # A new vector collection (another embedding model or multilingual setting) over
            # an existing graph: recall works on its other channels until the mirror is rebuilt.
            log.warning("the vector mirror is empty but the graph holds episodes: run "
                        "`hindsight doctor --repair` to embed them")  # fmt: skip
        self._extractor = extractor_for(settings)
        self._writer = Writer(
            graph=graph,
            vectors=vectors,
            embedder=embedder,
            settings=settings,
            extractor=self._extractor,
            model_pool=self._model_pool,
        )
        self._writer.on_stored = lambda namespace, ids: self._log("store", namespace, ids)

    @classmethod
    def open(cls, path: str | Path | None = None, settings: Settings | None = None, *,
             vectors_aside: Path | None = None) -> Memory:  # fmt: skip
        """Open (or create) the memory stored under `path` (default: settings.data_dir).

        Args:
            path: data directory; overrides `settings.data_dir` when given.
            settings: configuration; read from `HINDSIGHT_*` environment variables when None.
            vectors_aside: move the embedded vector store there first, and start an empty
                one (`engine.rebuild.rebuild_vectors` then rebuilds it from the graph).
        Returns:
            An open `Memory`; close it with `close()` or use it as a context manager.
        Raises:
            StoreUnavailable: a store cannot be opened (locked by another process, corrupt).
        """
        settings = settings_at(path, settings)
        embedder = embedder_for(
            settings.embedder,
            settings.embedder_precision,
            settings.embedder_threads,
            settings.model_cache_dir,
            settings.embedder_query_threads,
            settings.multilingual_embedder,
        )
        second = embedder.multilingual
        graph, vectors = open_stores(
            settings, model=embedder.name, dimension=embedder.dimension,
            multilingual=(second.name, second.dimension) if second else None,
            vectors_aside=vectors_aside,
        )  # fmt: skip
        return cls(graph=graph, vectors=vectors, embedder=embedder, settings=settings)

    @staticmethod
    def connect(
        url: str, *, token: str | None = None, namespace: str = "default", timeout: float = 60.0
    ) -> RemoteMemory:
        """A client of the hindsight server at `url` with the methods of `Memory`, whose
        `namespace` arguments default to `namespace` (`engine.remote`).

        Example:
            >>> memory = Memory.connect("http://127.0.0.1:8765", token="...")  # doctest: +SKIP
        """
        return RemoteMemory(url, token=token, namespace=namespace, timeout=timeout)

    # -- writing --------------------------------------------------------------------------
    def store(
        self,
        content: str,
        *,
        namespace: str = "default",
        session_id: str | None = None,
        role: str | None = None,
        kind: str = "message",
        layer: str = "episodic",
        importance: float | str | None = None,
        occurred_at: datetime | str | float | None = None,
        metadata: Mapping[str, Any] | None = None,
        related_ids: Iterable[str] | None = None,
        expires_at: datetime | str | float | None = None,
    ) -> StoreResult:
        """Store one episode: extract entities and decisions, write graph and vectors together.

        Args:
            content: the text of the turn, tool call, task outcome, observation or document.
            namespace: the agent's namespace; nothing is read across namespaces.
            session_id: groups episodes of one conversation (linked by NEXT edges).
            role: who spoke ("user", "assistant", a tool name...).
            kind: message, tool_call, task, observation or document.
            layer: episodic (kept across sessions) or working (this session's scratch).
            importance: 0..1 or high/medium/low; scored from the content when None.
            occurred_at: when it happened (datetime, ISO 8601 or epoch seconds); default now.
            metadata: a JSON object returned unchanged with the memory.
            related_ids: ids of episodes of the same namespace this one refers to.
            expires_at: when it leaves recall (TTL); default settings.ttl_days for the kind.
        Returns:
            `StoreResult` with the episode id, importance, entities and decisions found.
        Raises:
            InvalidInput: a value is wrong (`.field` names it), or a related id is not an
                episode of the namespace; nothing was stored.
            WriteFailed: a store failed; nothing of the episode is visible.

        Example:
            >>> memory.store("预算改成50万", namespace="agent-a", importance="high")  # doctest: +SKIP
        """
        item = {
            "content": content,
            "namespace": namespace,
            "session_id": session_id,
            "role": role,
            "kind": kind,
            "layer": layer,
            "importance": importance,
            "occurred_at": occurred_at,
            "metadata": metadata,
            "related_ids": _listed(related_ids),
            "expires_at": expires_at,
        }
        request = self._validate(item, "")
        self._check_open()
        results = self._writer.write([request])
        self._reflect_on_failed_tasks([request], results)
        return results[0]

    def store_many(
        self, items: Iterable[Mapping[str, Any]], *, progress: Progress | None = None
    ) -> list[StoreResult]:
        """Store many episodes: one embedding batch and one graph transaction per batch.

        Every item is validated before anything is written. Each batch of
        `settings.store_batch_size` is all-or-nothing.

        Args:
            items: mappings with the keyword arguments of `store`.
            progress: called with the number of episodes stored after each batch.
        Returns:
            One `StoreResult` per item, in order.
        Raises:
            InvalidInput: an item is wrong (`.field` is like `items[3].importance`); nothing
                was stored.
            WriteFailed: a batch failed; the batches before it are stored (the message says
                how many episodes), nothing of the failed batch is visible.
        """
        requests = []
        for index, item in enumerate(items):
            if not isinstance(item, Mapping):
                raise InvalidInput(f"items[{index}]", "must be a mapping of store arguments")
            requests.append(self._validate(dict(item), f"items[{index}]."))
        results: list[StoreResult] = []
        size = self.settings.store_batch_size
        batches = [requests[start : start + size] for start in range(0, len(requests), size)]
        self._check_open()
        written = self._writer.write_batches(batches)
        try:
            for batch, batch_results in zip(batches, written, strict=True):
                results.extend(batch_results)
                self._reflect_on_failed_tasks(batch, batch_results)
                if progress is not None:
                    progress(len(results))
        except WriteFailed as exc:
            raise WriteFailed(f"{exc} ({len(results)} episodes before it are stored)") from exc
        finally:
            written.close()  # a raising callback: the batch embedding ahead is dropped
        if sum(r.status == "stored" for r in results) >= self.settings.index_after_episodes:
            self.optimize()
        return results

    def _validate(self, item: dict[str, Any], prefix: str) -> StoreRequest:
        context = {
            "max_content_chars": self.settings.max_content_chars,
            "max_metadata_bytes": self.settings.max_metadata_bytes,
        }
        try:
            return StoreRequest.model_validate(item, context=context)
        except ValidationError as exc:
            raise invalid_input(exc, prefix) from None

    def _reflect_on_failed_tasks(self, requests: list[StoreRequest], results: list[StoreResult]) -> None:
        for namespace in failed_task_namespaces(requests, results):
            self.reflect(namespace=namespace)

    # -- reading --------------------------------------------------------------------------
    def recall(
        self,
        query: str,
        *,
        namespace: str = "default",
        top_k: int = 5,
        min_score: float | None = None,
        session_id: str | None = None,
        layer: RecallLayer | None = None,
        role: str | None = None,
        capabilities: Iterable[str] | None = None,
        include_shared: bool = True,
        include_working: bool = True,
        now: datetime | str | float | None = None,
        max_tokens: int | None = None,
    ) -> list[MemoryCard]:
        """Recall the memories that answer a query, each with the trace of why.

        Args:
            query: a question or topic, in English or Chinese.
            namespace: whose memories to search.
            top_k: how many cards at most (1..200).
            min_score: drop cards whose final score is below this.
            session_id: prefer the latest episodes of this session in the recency channel.
            layer: only working, episodic or semantic memories; all when None.
            role: who is asking; memories by or for that role rank higher.
            capabilities: tool names the caller has; tool-call memories of other tools rank
                lower. None means unknown: nothing is lowered.
            include_shared: also search the shared namespace (`settings.shared_namespace`).
            include_working: with a session_id, also rank that session's working memory.
            now: the moment the question is asked (decay is measured from it); default now.
            max_tokens: a budget for the cards' content (words plus CJK characters, as
                `count_tokens`): cards are taken best first, and one that does not fit is
                left out while smaller ones after it may still fit. None: no budget.
        Returns:
            Cards, best first: content, citations (`id`, `related_ids`), `namespace` and `trace`.
        Raises:
            InvalidInput: a value is wrong.

        Example:
            >>> memory.recall("what did we decide about the database?", top_k=3)  # doctest: +SKIP
        """
        self._check_open()
        try:
            request = RecallRequest(
                query=query,
                namespace=namespace,
                top_k=top_k,
                min_score=min_score,
                session_id=session_id,
                layer=layer,
                role=role,
                capabilities=None if capabilities is None else _strings(capabilities),
                include_shared=include_shared,
                now=now,
                max_tokens=max_tokens,
            )
        except ValidationError as exc:
            raise invalid_input(exc, "") from None
        at = request.now if request.now is not None else time.time()
        models = query_models(request.query, at, self._embedder, self._model_pool, self.settings)
        cards: list[MemoryCard] = []
        if request.layer in (None, "working") and (include_working or request.layer == "working"):
            # The session's scratchpad; with layer="working" and no session, the namespace's.
            if request.session_id is not None or request.layer == "working":
                items = self._writer.working.items(request.namespace, request.session_id)
                if items:
                    cards += [
                        card
                        for card in working_cards(
                            models.embedding, items, now=at, settings=self.settings
                        )
                        if request.min_score is None or card.score >= request.min_score
                    ]
        readable = [] if request.layer == "working" else self._readable(
            request.namespace, request.include_shared
        )
        for namespace_read in readable:
            cards += run_recall(
                request.model_copy(update={"namespace": namespace_read}),
                now=at,
                graph=self._graph,
                vectors=self._vectors,
                models=models,
                settings=self.settings,
            )
        cards.sort(key=card_order)
        top = within_budget(cards[: request.top_k], request.max_tokens)
        if self.settings.track_access:
            self._mark_accessed(top, time.time())
        return top

    def _mark_accessed(self, cards: builtins.list[MemoryCard], at: float) -> None:
        by_namespace: dict[str, builtins.list[str]] = {}
        for card in cards:
            if card.layer == "episodic":
                by_namespace.setdefault(card.namespace, []).append(card.id)
        # No write lock: the graph store serialises this with any open transaction itself.
        for namespace, ids in by_namespace.items():
            try:
                self._graph.mark_accessed(namespace, ids, at)
            except StoreUnavailable:
                pass  # bookkeeping only: a recall never fails for it

    def _readable(self, namespace: str, include_shared: bool) -> list[str]:
        """The namespace, then the shared one when asked for and it holds anything."""
        shared = self.settings.shared_namespace
        has_episodes = self._shared_had_episodes or shared in self._writer.stored_namespaces
        if not include_shared or namespace == shared or not has_episodes:
            return [namespace]
        return [namespace, shared]

    def explain(self, id: str, *, namespace: str = "default") -> EpisodeExplanation:
        """Why a memory exists: its entities, decisions, session neighbours, the episodes that
        share its entities, and one sentence on where it came from.

        Raises:
            NotFound: no episode has that id in the namespace or the shared one.
        """
        owner, _ = self._owner(id, namespace)
        return explain_episode(self._graph, owner, id, now=time.time(), settings=self.settings)

    def entity(
        self, name: str, *, namespace: str = "default", include_shared: bool = True
    ) -> EntityProfile:
        """Entity-aware recall: the entity with this name or alias, its aliases, active facts,
        the decisions about it and its latest episodes.

        Raises:
            InvalidInput: the name is empty.
            NotFound: no entity has that name or alias in the namespace (or the shared one).
        """
        self._scope(namespace)
        if not is_unicode_text(name) or not name.strip():
            raise InvalidInput("name", "must be a non-empty entity name of valid Unicode text")
        readable = [namespace]
        if include_shared:
            readable = list(dict.fromkeys([namespace, self.settings.shared_namespace]))
        for owner in readable:
            try:
                return entity_profile(
                    self._graph, owner, name, now=time.time(), settings=self.settings
                )
            except NotFound:
                continue
        raise NotFound("entity", name)

    def cypher(
        self,
        query: str,
        params: Mapping[str, Any] | None = None,
        *,
        namespace: str = "default",
    ) -> CypherResult:
        """Run a read-only Cypher query for analysis; `$namespace` is bound to `namespace`.

        A schema procedure called alone (`CALL db.labels()`, `db.relationshipTypes`,
        `db.propertyKeys`, `db.schema.visualization`, Ladybug's `show_tables`, `table_info`,
        `show_connection`) is answered from hindsight's schema, the same in every namespace
        and on every backend. Any other query must filter on `$namespace`: every
        pattern of every clause and subquery must be tied to it (`engine.analyst.scope`, on
        Neo4j's Cypher grammar), so that no count, EXISTS or property of another namespace
        leaks; and every node it returns must belong to that namespace or the shared one.

        Raises:
            ReadOnlyViolation: the query writes, or is more than one statement.
            InvalidInput: `params` is not a JSON object of named values, names `namespace`,
                the query does not use `$namespace`, or it returned another namespace's nodes.
            StoreUnavailable: the graph rejected the query (syntax, timeout).

        Example:
            >>> memory.cypher("MATCH (e:Entity) WHERE e.namespace = $namespace "  # doctest: +SKIP
            ...               "RETURN e.name ORDER BY e.mention_count DESC LIMIT 5")
        """
        self._scope(namespace)
        return analyst_query(self._graph, query, params, namespace=namespace, settings=self.settings)

    def list(
        self,
        *,
        namespace: str = "default",
        session_id: str | None = None,
        layer: str | None = None,
        limit: int = 20,
        offset: int = 0,
        include_deleted: bool = False,
    ) -> list[Episode]:
        """Episodes newest first, optionally of one session or one layer (working, episodic).

        Raises:
            InvalidInput: limit outside 1..1000 or offset outside 0..MAX_OFFSET.
        """
        self._scope(namespace)
        if not 1 <= limit <= 1000:
            raise InvalidInput("limit", f"must be within 1..1000, got {limit}")
        if not 0 <= offset <= MAX_OFFSET:
            raise InvalidInput("offset", f"must be within 0..{MAX_OFFSET}, got {offset}")
        if layer not in (None, "working", "episodic", "semantic"):
            raise InvalidInput("layer", f"must be working, episodic or semantic, got {layer!r}")
        if layer == "semantic":
            return []  # semantic memory is facts, not episodes: see `entity()`
        if layer == "working":
            items = self._writer.working.items(namespace, session_id)[::-1]  # newest first
            return [working_episode(item) for item in items][offset : offset + limit]
        return self._graph.list_episodes(
            namespace,
            session_id=session_id,
            layer=layer,
            limit=limit,
            offset=offset,
            include_deleted=include_deleted,
        )

    def stats(self, *, namespace: str | None = None) -> Stats:
        """Counts of live episodes, entities, active decisions and facts."""
        self._check_open()
        if namespace is not None:
            self._scope(namespace)
        return self._graph.stats(namespace, time.time())

    def end_session(
        self, session_id: str, *, namespace: str = "default"
    ) -> builtins.list[StoreResult]:
        """Close a session's working memory: items worth keeping (weight at least
        `working_promote_min`) become episodes, the rest are dropped.

        Returns:
            A StoreResult per promoted item.
        """
        self._scope(namespace)
        return self._writer.promote(self._writer.working.drain(namespace, session_id))

    def health(self, *, namespaces: builtins.list[str] | None = None) -> Health:
        """Whether both stores answer, with their counts over `namespaces` (None: every
        namespace); never raises."""
        return store_health(self._graph, self._vectors, self.settings.backend, namespaces)

    # -- lifecycle ------------------------------------------------------------------------
    def close(self) -> None:
        """Flush and close both stores. Safe to call twice."""
        if self._closed:
            return
        try:
            # Working memory lives in process: keep what is worth keeping before it goes.
            self._writer.promote(self._writer.working.drain())
        except HindsightError:
            pass  # closing must not fail; the stores are closed below either way
        with self._writer.lock:
            self._closed = True
            try:
                self._model_pool.shutdown(wait=True)
                if self._extractor is not None:
                    self._extractor.close()
                self._vectors.close()
            finally:
                self._graph.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _listed(values: Any) -> Any:
    """An iterable of ids as a list; anything else as given, for the validator to name."""
    if isinstance(values, Iterable) and not isinstance(values, (str, bytes, Mapping)):
        return list(values)
    return values


def _strings(values: Iterable[str]) -> list[str]:
    if isinstance(values, str):
        raise InvalidInput("capabilities", "must be a list of tool names, not one string")
    listed = list(values)
    if not all(isinstance(v, str) for v in listed):
        raise InvalidInput("capabilities", "must be a list of tool names (strings)")
    return listed

