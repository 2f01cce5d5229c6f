"""The REST API under `/v1`: the façade's methods as resources, with the same names and fields.

Each handler is one call into `engine.Memory`; its request and response bodies are the engine's
own pydantic models, so `/openapi.json` describes exactly what the Python API takes and returns.
The namespace is part of every path; `mcp_server.auth` has checked the token may use it.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Query, Request
from fastapi import Path as PathParam
from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from starlette.background import BackgroundTask
from starlette.responses import FileResponse

from engine import Memory
from engine.errors import AccessDenied
from engine.inputs import (
    MAX_OFFSET,
    NAMESPACE_PATTERN,
    NOT_BLANK_PATTERN,
    SESSION_ID_PATTERN,
    SESSION_PATTERN,
    RecallQuery,
)
from engine.lifecycle.audit import AuditEntry
from engine.models import Episode, MemoryCard, Stats, StoreResult, TaskResult
from engine.views import (
    CypherResult,
    EntityProfile,
    EpisodeExplanation,
    FactExplanation,
    ReflectionSummary,
    SessionView,
)
from mcp_server.auth import grant_of
from mcp_server.rest_bodies import EpisodeInput, TaskInput
from mcp_server.rest_bodies import RecallQuery as RecallBody

__all__ = ["EXPORT_MEDIA_TYPE", "CypherQuery", "ExportQuery", "ReflectOptions", "StoreMany", "rest_router"]

EXPORT_MEDIA_TYPE = "application/jsonl"

NamespacePath = Annotated[
    str,
    PathParam(pattern=NAMESPACE_PATTERN, description="Whose memory"),
]
EpisodeId = Annotated[str, PathParam(min_length=1, max_length=128, description="An episode id")]
FactId = Annotated[str, PathParam(min_length=1, max_length=128, description="A fact id (a semantic card's id)")]


class StoreMany(BaseModel):
    """`store_many`: episodes stored in batches, each batch all-or-nothing."""

    model_config = ConfigDict(extra="forbid", strict=True)

    items: list[EpisodeInput] = Field(min_length=1, max_length=10_000)


class ReflectOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    force: bool = Field(False, description="Start again from the first episode, not after the last run; "
                        "the calls after it go on from there")


class CypherQuery(BaseModel):
    """A read-only Cypher query; `$namespace` is bound to the path's namespace."""

    model_config = ConfigDict(extra="forbid", strict=True)

    query: str = Field(min_length=1, max_length=20_000)
    params: dict[str, Any] | None = None


class ListQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session_id: str | None = Field(None, pattern=SESSION_PATTERN)
    layer: Literal["working", "episodic", "semantic"] | None = None
    limit: int = Field(20, ge=1, le=1000)
    offset: int = Field(0, ge=0, le=MAX_OFFSET)
    include_deleted: bool = False


class PageQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    limit: int = Field(20, ge=1, le=1000)
    offset: int = Field(0, ge=0, le=MAX_OFFSET)


class EntityQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    include_shared: bool = Field(True, description="Also look in the shared namespace")


class AuditQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    limit: int = Field(100, ge=1, le=10_000)


class ExportQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    namespace: list[Annotated[str, StringConstraints(pattern=NAMESPACE_PATTERN)]] | None = Field(
        None, description="Only these namespaces (repeat the parameter); default: every one "
        "the token may use",
    )  # fmt: skip
    with_embeddings: bool = Field(False, description="Include the dense vectors")


def _every_namespace(request: Request) -> None:
    """Reads across namespaces need a token bound to all of them."""
    if grant_of(request).namespaces is not None:
        raise AccessDenied("this token may not read across namespaces")


def rest_router(memory: Memory) -> APIRouter:
    """The /v1 routes over `memory`. Handlers are plain functions: FastAPI runs them on its
    thread pool, as `Memory` is synchronous and thread-safe."""
    router = APIRouter(prefix="/v1")
    episodes = "/namespaces/{namespace}/episodes"

    @router.post(episodes, tags=["episodes"], operation_id="store")
    def store(namespace: NamespacePath, episode: EpisodeInput) -> StoreResult:
        """Store one episode: a turn, tool call, task outcome, observation or document."""
        return memory.store(namespace=namespace, **episode.model_dump(exclude_unset=True))

    @router.post("/namespaces/{namespace}/tasks", tags=["episodes"], operation_id="store_task")
    def store_task(namespace: NamespacePath, body: TaskInput) -> TaskResult:
        """Store a task run in one call: the task, its steps in order (each linked STEP_OF it)
        and how it ended; all or nothing."""
        fields = body.model_dump(exclude_unset=True)
        fields["steps"] = [step.model_dump(exclude_unset=True) for step in body.steps]
        return memory.store_task(namespace=namespace, **fields)

    @router.post(f"{episodes}/batch", tags=["episodes"], operation_id="store_many")
    def store_many(namespace: NamespacePath, body: StoreMany) -> list[StoreResult]:
        """Store many episodes; every item is validated before anything is written."""
        items = [{**item.model_dump(exclude_unset=True), "namespace": namespace}
                 for item in body.items]  # fmt: skip
        return memory.store_many(items)

    @router.get(episodes, tags=["episodes"], operation_id="list")
    def list_(namespace: NamespacePath, query: Annotated[ListQuery, Query()]) -> list[Episode]:
        """Episodes newest first, optionally of one session or layer, with paging."""
        return memory.list(namespace=namespace, **query.model_dump())

    @router.get(f"{episodes}/{{id}}", tags=["episodes"], operation_id="get")
    def get(namespace: NamespacePath, id: EpisodeId) -> Episode:
        """One episode in any state (a forgotten one shows `deleted_at`)."""
        return memory.get(id, namespace=namespace)

    @router.delete(f"{episodes}/{{id}}", tags=["episodes"], operation_id="forget")
    def forget(namespace: NamespacePath, id: EpisodeId) -> Episode:
        """Forget an episode: soft-deleted, kept for audit, never recalled again."""
        return memory.forget(id, namespace=namespace)

    @router.post(f"{episodes}/{{id}}/restore", tags=["episodes"], operation_id="restore")
    def restore(namespace: NamespacePath, id: EpisodeId) -> Episode:
        """Undo forget, or bring an archived episode back."""
        return memory.restore(id, namespace=namespace)

    @router.get(f"{episodes}/{{id}}/explanation", tags=["episodes"], operation_id="explain")
    def explain(namespace: NamespacePath, id: EpisodeId) -> EpisodeExplanation:
        """Why a memory exists: its entities, decisions and neighbours."""
        return memory.explain(id, namespace=namespace)

    @router.get("/namespaces/{namespace}/facts/{id}/explanation", tags=["recall"], operation_id="explain_fact")
    def explain_fact(namespace: NamespacePath, id: FactId) -> FactExplanation:
        """Why the memory believes a fact: the rule that read it and what it read in each source."""
        return memory.explain_fact(id, namespace=namespace)

    @router.post("/namespaces/{namespace}/recall", tags=["recall"], operation_id="recall")
    def recall(namespace: NamespacePath, query: RecallBody) -> list[MemoryCard]:
        """Recall the memories that answer a query, best first, each with its trace."""
        return _recall(namespace, query)

    @router.get("/namespaces/{namespace}/recall", tags=["recall"], operation_id="recall_get")
    def recall_get(
        namespace: NamespacePath, query: Annotated[RecallQuery, Query()]
    ) -> list[MemoryCard]:
        """The same recall with its arguments in the query string, for curl and browsers."""
        return _recall(namespace, query)

    def _recall(namespace: str, query: RecallQuery) -> list[MemoryCard]:
        return memory.recall(namespace=namespace, **query.model_dump(exclude_unset=True))

    @router.get("/namespaces/{namespace}/entities/{name}", tags=["graph"], operation_id="entity")
    def entity(
        namespace: NamespacePath,
        name: Annotated[str, PathParam(min_length=1, max_length=512, pattern=NOT_BLANK_PATTERN)],
        query: Annotated[EntityQuery, Query()],
    ) -> EntityProfile:
        """An entity by name or alias: its facts, decisions and latest episodes."""
        return memory.entity(name, namespace=namespace, include_shared=query.include_shared)

    @router.post("/namespaces/{namespace}/reflect", tags=["graph"], operation_id="reflect")
    def reflect(
        namespace: NamespacePath, options: Annotated[ReflectOptions | None, Body()] = None
    ) -> ReflectionSummary:
        """Derive semantic facts from the episodes stored since the last reflection: one
        bounded run (`reflection_batch_size` episodes); call again while `status` is "done"."""
        return memory.reflect(namespace=namespace, force=bool(options and options.force))

    @router.post("/namespaces/{namespace}/cypher", tags=["graph"], operation_id="cypher")
    def cypher(namespace: NamespacePath, body: CypherQuery) -> CypherResult:
        """A read-only Cypher query, scoped to the namespace."""
        return memory.cypher(body.query, body.params, namespace=namespace)

    @router.get("/namespaces/{namespace}/sessions", tags=["sessions"], operation_id="sessions")
    def sessions(namespace: NamespacePath, query: Annotated[PageQuery, Query()]) -> list[SessionView]:
        """The sessions, the latest first, each with its digest (None until one is built)."""
        return memory.sessions(namespace=namespace, **query.model_dump())

    @router.get("/namespaces/{namespace}/sessions/{session_id}", tags=["sessions"], operation_id="session")
    def session(
        namespace: NamespacePath, session_id: Annotated[str, PathParam(max_length=128, pattern=SESSION_ID_PATTERN)]
    ) -> SessionView:
        """One session and its digest."""
        return memory.session(session_id, namespace=namespace)

    @router.post(
        "/namespaces/{namespace}/sessions/{session_id}/end",
        tags=["episodes"], operation_id="end_session",
    )  # fmt: skip
    def end_session(
        namespace: NamespacePath,
        session_id: Annotated[str, PathParam(max_length=128, pattern=SESSION_ID_PATTERN)],
    ) -> list[StoreResult]:
        """Close a session: what its working memory holds worth keeping becomes episodes, and
        the session is digested."""
        return memory.end_session(session_id, namespace=namespace)

    @router.get("/namespaces/{namespace}/stats", tags=["admin"], operation_id="stats")
    def stats(namespace: NamespacePath) -> Stats:
        """Counts of the namespace's live episodes, entities, decisions and facts."""
        return memory.stats(namespace=namespace)

    @router.get("/namespaces/{namespace}/audit", tags=["admin"], operation_id="audit")
    def audit(namespace: NamespacePath, query: Annotated[AuditQuery, Query()]) -> list[AuditEntry]:
        """The namespace's latest changes of state, newest first."""
        return memory.audit(namespace=namespace, limit=query.limit)

    @router.get("/namespaces", tags=["admin"], operation_id="namespaces")
    def namespaces(request: Request) -> list[str]:
        """The namespaces that hold episodes, of those this token may use."""
        grant = grant_of(request)
        return [name for name in memory.namespaces() if grant.allows(name)]

    @router.get("/stats", tags=["admin"], operation_id="stats_all")
    def stats_all(request: Request) -> Stats:
        """Counts over every namespace (needs a token for every namespace)."""
        _every_namespace(request)
        return memory.stats()

    @router.get("/audit", tags=["admin"], operation_id="audit_all")
    def audit_all(request: Request, query: Annotated[AuditQuery, Query()]) -> list[AuditEntry]:
        """The latest changes of state in every namespace (needs a token for all)."""
        _every_namespace(request)
        return memory.audit(limit=query.limit)

    @router.get("/export", tags=["admin"], operation_id="export",
                response_class=FileResponse,
                responses={200: {"content": {EXPORT_MEDIA_TYPE: {}},
                                 "description": "The export as JSON Lines (`hindsight import` reads it)"}})  # fmt: skip
    def export(request: Request, query: Annotated[ExportQuery, Query()]) -> FileResponse:
        """The memory of this token's namespaces as JSON Lines: the named ones, or by default
        every one it may use (the whole store for a token of every namespace)."""
        grant = grant_of(request)
        named = query.namespace if query.namespace is not None else grant.namespaces
        if named is not None and not all(grant.allows(name) for name in named):
            raise AccessDenied("this token may not use that namespace")
        scratch = Path(tempfile.mkdtemp(prefix="hindsight-export-")) / "export.jsonl"
        memory.export(scratch, with_embeddings=query.with_embeddings, namespaces=named)
        return FileResponse(scratch, media_type=EXPORT_MEDIA_TYPE, filename="hindsight-export.jsonl",
                            background=BackgroundTask(shutil.rmtree, scratch.parent))  # fmt: skip

    return router
