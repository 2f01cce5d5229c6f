"""`Memory`, the one façade: store, recall, get, list, forget, explain, explain_fact, entity, cypher, stats.

The MCP server, the CLI, the notebooks and the benchmarks all call this class. It is
synchronous and thread-safe: writes are serialised, reads share the stores' own locks.

It is composed of parts over one `Core` (the open stores, the writer, the audit log): it
writes itself, and forwards recall to `Recaller`, the other reads to `Reader` and the
lifecycle (reflection, forgetting, repair, backup) to `Keeper`.
"""

from __future__ import annotations

import builtins
import functools
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Concatenate, ParamSpec, TypeVar

from pydantic import ValidationError

from engine.arguments import callback
from engine.core import Core
from engine.embed import Embedder, embedder_for
from engine.errors import InvalidInput, WriteFailed
from engine.inputs import MAX_TASK_STEPS, StoreRequest, invalid_input, is_unicode_text, task_steps
from engine.lifecycle.idle_digests import idle_digests
from engine.lifecycle.keeper import Keeper
from engine.models import StoreResult, TaskResult
from engine.reader import Reader
from engine.recall.recaller import Recaller
from engine.reflect.run import learning_events
from engine.remote import RemoteMemory
from engine.settings import Settings, settings_at
from engine.stores import GraphStore, VectorStore, open_stores
from engine.warm import warm_up

__all__ = ["Memory"]

P = ParamSpec("P")
R = TypeVar("R")

Progress = Callable[[int], None]


def _forwarded(method: Callable[Concatenate[Any, P], R], part: str) -> Callable[Concatenate[Any, P], R]:
    """`method` of one of the façade's parts as a method of `Memory`, with its signature and
    docstring (for `help`, `inspect` and type checkers), calling it on `self.<part>`."""
    name = method.__name__

    @functools.wraps(method)
    def forward(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return getattr(getattr(self, part), name)(*args, **kwargs)  # type: ignore[no-any-return]

    return forward


class Memory:
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
        facts: VectorStore,
        digests: VectorStore,
        embedder: Embedder,
        settings: Settings,
    ) -> None:
        self._core = Core(graph=graph, vectors=vectors, facts=facts, digests=digests, embedder=embedder,
                          settings=settings)  # fmt: skip
        self._recaller = Recaller(self._core)
        self._reader = Reader(self._core)
        self._keeper = Keeper(self._core)
        self._idle_digests = idle_digests(self._keeper.digest_idle, settings.digest_idle_minutes * 60)
        self._idle_digests.start()

    @property
    def settings(self) -> Settings:
        """The configuration this memory was opened with."""
        return self._core.settings

    @property
    def actor(self) -> str:
        """Who is acting, for the audit log ("api"; the CLI and the MCP server set theirs)."""
        return self._core.audit.actor

    @actor.setter
    def actor(self, name: str) -> None:
        self._core.audit.actor = name

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
            settings.embedder_bf16_min_texts,
        )
        second = embedder.multilingual
        stores = open_stores(
            settings, model=embedder.name, dimension=embedder.dimension,
            multilingual=(second.name, second.dimension) if second else None,
            vectors_aside=vectors_aside,
        )  # fmt: skip
        return cls(graph=stores.graph, vectors=stores.vectors, facts=stores.facts, digests=stores.digests,
                   embedder=embedder, settings=settings)  # fmt: skip

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
        outcome: str | None = None,
        resolves: Iterable[str] | None = None,
        task_id: str | None = None,
    ) -> StoreResult:
        """Store one episode: extract entities and decisions, write graph and vectors together.

        Args:
            content: the text of the turn, tool call, task outcome, observation or document.
            namespace: the agent's namespace; nothing is read across namespaces.
            session_id: groups episodes of one conversation (linked by NEXT edges).
            role: who spoke ("user", "assistant", a tool name...).
            kind: message, tool_call, task, observation or document.
            layer: episodic (kept across sessions), working (this session's scratch), or
                semantic: a lesson the agent states ("on HTTP 429 from the embeddings API, back
                off"), kept as an episode and, where it names an error, as that error's lesson.
            importance: 0..1 or high/medium/low; scored from the content when None.
            occurred_at: when it happened (datetime, ISO 8601 or epoch seconds); default now.
            metadata: a JSON object returned unchanged with the memory.
            related_ids: ids of episodes of the same namespace this one refers to.
            expires_at: when it leaves recall (TTL); default settings.ttl_days for the kind.
            outcome: how a tool call or task ended, success or failure (None for a chat turn).
                A failure's error becomes a SIGNATURE entity; a later success in its task run or
                session on the same tool, target or error is linked as its fix (RESOLVED_BY).
            resolves: ids of earlier failures of the namespace this episode fixed.
            task_id: the stored task (kind task) this episode is a step of (`store_task`
                stores a task and its steps in one call).
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
            "outcome": outcome,
            "resolves": _listed(resolves),
            "task_id": task_id,
        }
        request = self._validate(item, "")
        self._core.check_open()
        results = self._core.writer.write([request])
        self._reflect_on_events([request], results)
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
        if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable):
            raise InvalidInput("items", "must be a list of mappings of store arguments")
        progress = callback("progress", progress)
        requests = []
        for index, item in enumerate(items):
            if not isinstance(item, Mapping):
                raise InvalidInput(f"items[{index}]", "must be a mapping of store arguments")
            requests.append(self._validate(dict(item), f"items[{index}]."))
        results: list[StoreResult] = []
        size = self.settings.store_batch_size
        batches = [requests[start : start + size] for start in range(0, len(requests), size)]
        self._core.check_open()
        written = self._core.writer.write_batches(batches)
        try:
            for batch, batch_results in zip(batches, written, strict=True):
                results.extend(batch_results)
                self._reflect_on_events(batch, batch_results)
                if progress is not None:
                    progress(len(results))
        except WriteFailed as exc:
            raise WriteFailed(f"{exc} ({len(results)} episodes before it are stored)") from exc
        finally:
            written.close()  # a raising callback: the batch embedding ahead is dropped
        if sum(r.status == "stored" for r in results) >= self.settings.index_after_episodes:
            self._keeper.optimize()
        return results

    def store_task(
        self,
        task: str,
        steps: Iterable[Mapping[str, Any]],
        *,
        outcome: str | None = None,
        namespace: str = "default",
        session_id: str | None = None,
        role: str | None = None,
        importance: float | str | None = None,
        occurred_at: datetime | str | float | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> TaskResult:
        """Store a task run in one call: the task (an episode of kind task), its steps in the
        order they ran, each linked STEP_OF it, and how it ended; all or nothing.

        Args:
            task: what the task was.
            steps: mappings with the keyword arguments of `store` (a step is a tool call
                unless its `kind` says otherwise; `role` or `metadata.tool` names its tool;
                give each its `outcome`). A step without `occurred_at` follows the one before
                it by a millisecond. Steps share the task's namespace and session.
            outcome: how the task ended: success, failure or None.
            namespace, session_id, role, importance, occurred_at, metadata: the task's, as in
                `store`.
        Returns:
            `TaskResult`: the task's `StoreResult` and each step's, in order.
        Raises:
            InvalidInput: a value is wrong (`.field` is like `steps[2].outcome`); nothing was
                stored.
            WriteFailed: a store failed; nothing of the task is visible.

        Example:
            >>> memory.store_task("Deploy billing-api to staging", [  # doctest: +SKIP
            ...     {"content": "kubectl apply -f billing.yaml: error: ...", "role": "kubectl", "outcome": "failure"},
            ...     {"content": "kubectl config use-context staging", "role": "kubectl", "outcome": "success"},
            ...     {"content": "kubectl apply -f billing.yaml: deployment configured", "role": "kubectl",
            ...      "outcome": "success"}], outcome="success", session_id="deploys")
        """
        head = self._validate({"content": task, "namespace": namespace, "kind": "task", "outcome": outcome,
                               "session_id": session_id, "role": role, "importance": importance,
                               "occurred_at": occurred_at, "metadata": metadata}, "", rename={"content": "task"})  # fmt: skip
        task_id = str(uuid.uuid4())
        requests = [head.with_id(task_id)]
        at = head.occurred_at if head.occurred_at is not None else time.time()
        for index, step in enumerate(task_steps(steps)):
            prefix = f"steps[{index}]."
            for field in ("namespace", "task_id"):
                if step.get(field) is not None:
                    raise InvalidInput(prefix + field, "is the task's: leave it out")
            if step.get("session_id") not in (None, head.session_id):
                raise InvalidInput(prefix + "session_id", "must be the task's session (or left out)")
            if step.get("layer") not in (None, "episodic"):
                raise InvalidInput(prefix + "layer", "a step of a task run is episodic memory (or left out)")
            request = self._validate({"kind": "tool_call", "occurred_at": at + 0.001, **step, "namespace": namespace,
                                      "session_id": head.session_id, "task_id": task_id}, prefix)  # fmt: skip
            at = request.occurred_at if request.occurred_at is not None else at
            requests.append(request)
        if len(requests) == 1:
            raise InvalidInput("steps", "a task run needs at least one step")
        if len(requests) > MAX_TASK_STEPS + 1:
            raise InvalidInput("steps", f"at most {MAX_TASK_STEPS} steps are stored in one call")
        self._core.check_open()
        results = self._core.writer.write(requests)
        self._reflect_on_events(requests, results)
        return TaskResult(task=results[0], steps=results[1:])

    def _validate(self, item: dict[str, Any], prefix: str, rename: Mapping[str, str] | None = None) -> StoreRequest:
        context = {
            "max_content_chars": self.settings.max_content_chars,
            "max_metadata_bytes": self.settings.max_metadata_bytes,
        }
        try:
            return StoreRequest.model_validate(item, context=context)
        except ValidationError as exc:
            error = invalid_input(exc, prefix)
            field = (rename or {}).get(error.field.removeprefix(prefix))
            raise (error if field is None else InvalidInput(prefix + field, error.reason)) from None

    def _reflect_on_events(
        self, requests: builtins.list[StoreRequest], results: builtins.list[StoreResult]
    ) -> None:
        """A failed task or a stated lesson is learned from at once (`learning_events`)."""
        for namespace in learning_events(requests, results):
            self._keeper.reflect(namespace=namespace)

    def end_session(
        self, session_id: str, *, namespace: str = "default"
    ) -> builtins.list[StoreResult]:
        """Close a session: items of its working memory worth keeping (weight at least
        `working_promote_min`) become episodes, the rest are dropped; then the session is
        digested (`Memory.sessions` shows the digest, recall finds it).

        Returns:
            A StoreResult per promoted item.
        """
        self._core.scope(namespace)
        if not is_unicode_text(session_id) or not session_id.strip():
            raise InvalidInput("session_id", "must be non-empty text")
        results = self._core.writer.promote(self._core.writer.working.drain(namespace, session_id))
        with self._core.writer.lock:
            self._keeper.redigest(namespace, [session_id])
        return results

    # -- reading (engine/recall/recaller.py, engine/reader.py) -------------------------------
    recall = _forwarded(Recaller.recall, "_recaller")
    get = _forwarded(Reader.get, "_reader")
    explain = _forwarded(Reader.explain, "_reader")
    explain_fact = _forwarded(Reader.explain_fact, "_reader")
    entity = _forwarded(Reader.entity, "_reader")
    cypher = _forwarded(Reader.cypher, "_reader")
    list = _forwarded(Reader.list, "_reader")
    sessions = _forwarded(Reader.sessions, "_reader")
    session = _forwarded(Reader.session, "_reader")
    stats = _forwarded(Reader.stats, "_reader")
    health = _forwarded(Reader.health, "_reader")

    # -- keeping (engine/lifecycle/keeper.py) ---------------------------------------------
    reflect = _forwarded(Keeper.reflect, "_keeper")
    maintain = _forwarded(Keeper.maintain, "_keeper")
    forget = _forwarded(Keeper.forget, "_keeper")
    restore = _forwarded(Keeper.restore, "_keeper")
    purge = _forwarded(Keeper.purge, "_keeper")
    namespaces = _forwarded(Keeper.namespaces, "_keeper")
    archived = _forwarded(Keeper.archived, "_keeper")
    audit = _forwarded(Keeper.audit, "_keeper")
    optimize = _forwarded(Keeper.optimize, "_keeper")
    doctor = _forwarded(Keeper.doctor, "_keeper")
    export = _forwarded(Keeper.export, "_keeper")
    import_ = _forwarded(Keeper.import_, "_keeper")
    merge_entities = _forwarded(Keeper.merge_entities, "_keeper")
    add_alias = _forwarded(Keeper.add_alias, "_keeper")

    # -- lifecycle ------------------------------------------------------------------------
    def warm(self) -> None:
        """Load every model the first store, recall or reflection would otherwise wait for
        (`engine.warm.warm_up`) and rehearse stores (`Writer.rehearse`: nothing is kept), so
        that the first call is as fast as the next. `hindsight serve` calls it in the
        background as it starts; safe beside other calls."""
        self._core.check_open()
        warm_up(self._core.embedder, self._core.writer.rehearse)

    def close(self) -> None:
        """Keep what working memory holds worth keeping, then flush and close both stores.
        Safe to call twice."""
        self._idle_digests.stop()
        self._core.close()

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

