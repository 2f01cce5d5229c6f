"""`RemoteMemory`: the methods of `Memory`, answered by a `hindsight serve` over its REST API.

Code moves from an embedded memory to a shared server by one line:

    memory = Memory.open("./hindsight-data")
    memory = Memory.connect("http://memory:8765", token="...", namespace="agent-a")

The same arguments, the same return models, the same exceptions (`InvalidInput` naming the
field, `NotFound`, `StoreUnavailable`, plus `AccessDenied` for a refused token). `namespace`
defaults to the one given to `connect` instead of "default".
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar
from urllib.parse import quote

import httpx2 as httpx
from pydantic import TypeAdapter, ValidationError

from engine.errors import (
    AccessDenied,
    HindsightError,
    InvalidInput,
    NotFound,
    ReadOnlyViolation,
    StoreUnavailable,
    WriteFailed,
)
from engine.inputs import StoreRequest, invalid_input, task_steps
from engine.lifecycle.audit import AuditEntry
from engine.models import Episode, MemoryCard, RecallLayer, Stats, StoreResult, TaskResult
from engine.views import (
    BackupSummary,
    CypherResult,
    EntityProfile,
    EpisodeExplanation,
    FactExplanation,
    Health,
    ReflectionSummary,
    SessionView,
)

__all__ = ["RemoteMemory"]

_T = TypeVar("_T")
_STORE_RESULTS = TypeAdapter(list[StoreResult])
_CARDS = TypeAdapter(list[MemoryCard])
_EPISODES = TypeAdapter(list[Episode])
_SESSIONS = TypeAdapter(list[SessionView])
_SESSION = TypeAdapter(SessionView)
_AUDIT = TypeAdapter(list[AuditEntry])
_NAMES = TypeAdapter(list[str])


_STORE_RESULT = TypeAdapter(StoreResult)
_TASK_RESULT = TypeAdapter(TaskResult)
_EPISODE = TypeAdapter(Episode)
_REFLECTION = TypeAdapter(ReflectionSummary)
_EXPLANATION = TypeAdapter(EpisodeExplanation)
_FACT_EXPLANATION = TypeAdapter(FactExplanation)
_PROFILE = TypeAdapter(EntityProfile)
_ROWS = TypeAdapter(CypherResult)
_STATS = TypeAdapter(Stats)
Progress = Callable[[int], None]
# Items of `store_many` per request: the server's limit. Every item is checked here first,
# so that a wrong item stores nothing, as locally.
_BATCH = 10_000


class RemoteMemory:
    """A client of one hindsight server. Thread-safe (one HTTP connection pool)."""

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        namespace: str = "default",
        timeout: float = 60.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.namespace = namespace
        self._client = httpx.Client(
            base_url=url.rstrip("/"), headers=headers, timeout=timeout, transport=transport
        )

    # -- writing --------------------------------------------------------------------------
    def store(
        self,
        content: str,
        *,
        namespace: str | None = None,
        session_id: str | None = None,
        role: str | None = None,
        kind: str = "message",
        layer: str = "episodic",
        importance: float | str | None = None,
        occurred_at: datetime | str | float | None = None,
        metadata: dict[str, Any] | None = None,
        related_ids: Iterable[str] | None = None,
        expires_at: datetime | str | float | None = None,
        outcome: str | None = None,
        resolves: Iterable[str] | None = None,
        task_id: str | None = None,
    ) -> StoreResult:
        """`Memory.store` on the server."""
        item = _episode({
            "content": content, "session_id": session_id, "role": role, "kind": kind,
            "layer": layer, "importance": importance, "occurred_at": occurred_at,
            "metadata": metadata, "expires_at": expires_at, "outcome": outcome, "task_id": task_id,
            "related_ids": None if related_ids is None else list(related_ids),
            "resolves": None if resolves is None else list(resolves),
        })  # fmt: skip
        return self._call("POST", self._at(namespace, "episodes"), _STORE_RESULT, json=item)

    def store_task(
        self,
        task: str,
        steps: Iterable[Mapping[str, Any]],
        *,
        outcome: str | None = None,
        namespace: str | None = None,
        session_id: str | None = None,
        role: str | None = None,
        importance: float | str | None = None,
        occurred_at: datetime | str | float | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> TaskResult:
        """`Memory.store_task` on the server."""
        listed = task_steps(steps)
        body = _episode({
            "task": task, "outcome": outcome, "session_id": session_id, "role": role, "importance": importance,
            "occurred_at": occurred_at, "metadata": None if metadata is None else dict(metadata),
            "steps": [_episode(step) for step in listed],
        })  # fmt: skip
        return self._call("POST", self._at(namespace, "tasks"), _TASK_RESULT, json=body)

    def store_many(
        self, items: Iterable[Mapping[str, Any]], *, progress: Progress | None = None
    ) -> builtins.list[StoreResult]:
        """`Memory.store_many` on the server, `_BATCH` items a request; items name their
        namespace as locally (default: this client's)."""
        by_namespace: builtins.list[tuple[str, dict[str, Any]]] = []
        for index, item in enumerate(items):
            if not isinstance(item, Mapping):
                raise InvalidInput(f"items[{index}]", "must be a mapping of store arguments")
            fields = {"namespace": self.namespace, **item}
            try:
                StoreRequest.model_validate(fields)
            except ValidationError as exc:
                raise invalid_input(exc, f"items[{index}].") from None
            by_namespace.append((fields.pop("namespace"), _episode(fields)))
        results: builtins.list[StoreResult] = []
        start = 0
        while start < len(by_namespace):
            namespace = by_namespace[start][0]
            end = start
            while (end < len(by_namespace) and end - start < _BATCH
                   and by_namespace[end][0] == namespace):  # fmt: skip
                end += 1
            body = {"items": [fields for _, fields in by_namespace[start:end]]}
            try:
                path = self._at(namespace, "episodes", "batch")
                stored: builtins.list[StoreResult] = self._call(
                    "POST", path, _STORE_RESULTS, json=body
                )
                results.extend(stored)
            except InvalidInput as exc:
                raise InvalidInput(_offset(exc.field, start), exc.reason) from None
            except WriteFailed as exc:
                raise WriteFailed(f"{exc} ({len(results)} episodes before it are stored)") from exc
            if progress is not None:
                progress(len(results))
            start = end
        return results

    def forget(self, id: str, *, namespace: str | None = None) -> Episode:
        return self._call("DELETE", self._at(namespace, "episodes", id), _EPISODE)

    def restore(self, id: str, *, namespace: str | None = None) -> Episode:
        return self._call("POST", self._at(namespace, "episodes", id, "restore"), _EPISODE)

    def reflect(self, *, namespace: str | None = None, force: bool = False) -> ReflectionSummary:
        return self._call("POST", self._at(namespace, "reflect"), _REFLECTION,
                          json={"force": force})  # fmt: skip

    def end_session(
        self, session_id: str, *, namespace: str | None = None
    ) -> builtins.list[StoreResult]:
        return self._call("POST", self._at(namespace, "sessions", session_id, "end"),
                          _STORE_RESULTS)  # fmt: skip

    # -- reading --------------------------------------------------------------------------
    def recall(
        self,
        query: str,
        *,
        namespace: str | None = None,
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
    ) -> builtins.list[MemoryCard]:
        """`Memory.recall` on the server."""
        if isinstance(capabilities, str):
            raise InvalidInput("capabilities", "must be a list of tool names, not one string")
        body = {
            "query": query, "top_k": top_k, "min_score": min_score, "session_id": session_id,
            "layer": layer, "role": role, "include_shared": include_shared,
            "include_working": include_working, "now": _moment(now), "max_tokens": max_tokens,
            "capabilities": None if capabilities is None else list(capabilities),
        }  # fmt: skip
        return self._call("POST", self._at(namespace, "recall"),
                          _CARDS, json=body)  # fmt: skip

    def get(self, id: str, *, namespace: str | None = None) -> Episode:
        return self._call("GET", self._at(namespace, "episodes", id), _EPISODE)

    def list(
        self,
        *,
        namespace: str | None = None,
        session_id: str | None = None,
        layer: str | None = None,
        limit: int = 20,
        offset: int = 0,
        include_deleted: bool = False,
    ) -> builtins.list[Episode]:
        params: dict[str, Any] = {
            "limit": limit, "offset": offset, "include_deleted": include_deleted
        }  # fmt: skip
        params |= {k: v for k, v in (("session_id", session_id), ("layer", layer)) if v}
        return self._call("GET", self._at(namespace, "episodes"),
                          _EPISODES, params=params)  # fmt: skip

    def sessions(
        self, *, namespace: str | None = None, limit: int = 20, offset: int = 0
    ) -> builtins.list[SessionView]:
        return self._call("GET", self._at(namespace, "sessions"), _SESSIONS,
                          params={"limit": limit, "offset": offset})  # fmt: skip

    def session(self, session_id: str, *, namespace: str | None = None) -> SessionView:
        return self._call("GET", self._at(namespace, "sessions", session_id), _SESSION)

    def explain(self, id: str, *, namespace: str | None = None) -> EpisodeExplanation:
        return self._call("GET", self._at(namespace, "episodes", id, "explanation"),
                          _EXPLANATION)  # fmt: skip

    def explain_fact(self, id: str, *, namespace: str | None = None) -> FactExplanation:
        return self._call("GET", self._at(namespace, "facts", id, "explanation"), _FACT_EXPLANATION)

    def entity(
        self, name: str, *, namespace: str | None = None, include_shared: bool = True
    ) -> EntityProfile:
        if not isinstance(name, str) or not name.strip():
            raise InvalidInput("name", "must be a non-empty entity name")
        return self._call("GET", self._at(namespace, "entities", name), _PROFILE,
                          params={"include_shared": include_shared})  # fmt: skip

    def cypher(
        self, query: str, params: Mapping[str, Any] | None = None, *,
        namespace: str | None = None,
    ) -> CypherResult:  # fmt: skip
        body = {"query": query, "params": None if params is None else dict(params)}
        return self._call("POST", self._at(namespace, "cypher"), _ROWS, json=body)

    def stats(self, *, namespace: str | None = None) -> Stats:
        """Counts of one namespace; with no namespace, of every one (as `Memory.stats()`:
        that needs a token for every namespace)."""
        path = "/v1/stats" if namespace is None else self._at(namespace, "stats")
        return self._call("GET", path, _STATS)

    def audit(self, *, namespace: str | None = None, limit: int = 100) -> builtins.list[AuditEntry]:
        path = "/v1/audit" if namespace is None else self._at(namespace, "audit")
        return self._call("GET", path, _AUDIT,
                          params={"limit": limit})  # fmt: skip

    def export(
        self, path: str | Path, *, with_embeddings: bool = False,
        namespaces: Iterable[str] | None = None,
    ) -> BackupSummary:  # fmt: skip
        """`Memory.export` on the server, written to `path` here: the namespaces named, or
        every one the token may use."""
        if isinstance(namespaces, str):
            raise InvalidInput("namespaces", "must be a list of namespace names, not one string")
        params: dict[str, Any] = {"with_embeddings": with_embeddings}
        if namespaces is not None:
            params["namespace"] = list(namespaces)
        target = Path(path)
        scratch = target.with_suffix(target.suffix + ".tmp")
        kinds: builtins.list[str] = []
        try:
            with self._client.stream("GET", "/v1/export", params=params) as response:
                if response.status_code >= 400:
                    response.read()
                    raise _error(response)
                with scratch.open("wb") as out:
                    for line in response.iter_lines():
                        if line.strip():
                            out.write(line.encode("utf-8") + b"\n")
                            kinds.append(str(json.loads(line)["kind"]))
            scratch.replace(target)
        except httpx.HTTPError as exc:
            raise StoreUnavailable(f"hindsight server unreachable: {exc}") from exc
        finally:
            scratch.unlink(missing_ok=True)  # gone already when the export was written
        return BackupSummary.of_kinds(kinds)

    def namespaces(self) -> builtins.list[str]:
        """The namespaces holding episodes, of those the token may use."""
        return self._call("GET", "/v1/namespaces", _NAMES)

    def health(self, *, namespaces: builtins.list[str] | None = None) -> Health:
        """The server's /health, counted over `namespaces` (None: every one the token may
        use). A server that does not answer, or answers with no report, reports unreachable.

        Raises:
            AccessDenied: the token may not use a namespace named; InvalidInput: one is not a
                namespace name (the server answers, and says why).
        """
        params = {} if namespaces is None else {"namespace": list(namespaces)}
        try:
            response = self._client.get("/health", params=params)
        except httpx.HTTPError as exc:
            return _unreachable(f"server unreachable: {exc}")
        if response.status_code in (401, 403, 422):  # a refusal of the request, not of a store
            raise _error(response)
        try:
            return Health.model_validate_json(response.content)
        except ValidationError as exc:
            return _unreachable(f"the server answered /health with HTTP {response.status_code} and no report: {exc}")

    # -- plumbing -------------------------------------------------------------------------
    def _at(self, namespace: str | None, *parts: str) -> str:
        named = self.namespace if namespace is None else namespace
        if not isinstance(named, str) or not named:
            raise InvalidInput("namespace", "must be a namespace name")
        return "/v1/namespaces/" + "/".join(quote(p, safe="") for p in (named, *parts))

    def _call(self, method: str, path: str, shape: TypeAdapter[_T], **kwargs: Any) -> _T:
        try:
            response = self._client.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise StoreUnavailable(f"hindsight server unreachable: {exc}") from exc
        if response.status_code >= 400:
            raise _error(response)
        try:
            return shape.validate_json(response.content)
        except ValidationError as exc:
            raise StoreUnavailable(f"the server answered {method} {path} with {exc}") from exc

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> RemoteMemory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _moment(value: datetime | str | float | None) -> str | float | None:
    return value.isoformat() if isinstance(value, datetime) else value


def _episode(fields: dict[str, Any]) -> dict[str, Any]:
    """An item as the API's JSON: datetimes as ISO 8601, unset fields left out."""
    return {key: _moment(value) for key, value in fields.items() if value is not None}


def _offset(field: str, start: int) -> str:
    """`items[2].content` of a request that began at item `start` of the caller's list."""
    if field.startswith("items[") and start:
        index, rest = field[len("items[") :].split("]", 1)
        return f"items[{int(index) + start}]{rest}"
    return field


def _unreachable(detail: str) -> Health:
    return Health(status="degraded", backend="remote", graph="unreachable", vectors="unreachable", detail=detail)


def _error(response: httpx.Response) -> HindsightError:
    """The engine's exception for a problem answer (`mcp_server.problems`)."""
    try:
        problem = response.json()
    except ValueError:
        problem = {}
    if not isinstance(problem, dict):
        problem = {}
    detail = str(problem.get("detail") or response.text or response.reason_phrase)
    kind = str(problem.get("type", ""))
    status = response.status_code
    if kind.endswith(":invalid-input"):
        return InvalidInput(str(problem.get("field", "input")), str(problem.get("reason", detail)))
    if kind.endswith(":read-only"):
        return ReadOnlyViolation(detail)
    if kind.endswith(":not-found"):
        return NotFound(str(problem.get("what", "record")), str(problem.get("key", "")))
    if status in (401, 403):
        return AccessDenied(detail)
    if kind.endswith(":write-failed"):
        return WriteFailed(detail)
    if status == 400:
        return InvalidInput("input", detail)
    if status == 404:
        return NotFound("resource", response.request.url.path)
    return StoreUnavailable(f"hindsight server answered {status}: {detail}")
