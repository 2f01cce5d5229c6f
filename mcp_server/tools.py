"""The memory tools: each one a thin call into `engine.Memory`, described for an LLM.

Every tool takes the namespace from the connection (see `mcp_server.namespaces`), never from
its arguments, so an agent cannot wander into another agent's memory by a typo. Engine errors
become tool errors that name the field; the server keeps serving.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, cast

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from engine.errors import HindsightError, InvalidInput
from engine.inputs import MAX_OFFSET
from engine.models import Episode, MemoryCard, StoreResult, TaskResult
from engine.views import (
    CypherResult,
    EntityProfile,
    EpisodeExplanation,
    FactExplanation,
    ReflectionSummary,
    SessionView,
)
from mcp_server.namespaces import namespace_of

if TYPE_CHECKING:
    from engine.memory import Memory

__all__ = ["ForgetResult", "ListResult", "RecallResult", "SessionsResult", "memory_tools"]

log = logging.getLogger("hindsight.mcp")

_T = TypeVar("_T")

Importance = Annotated[float, Field(ge=0, le=1)] | Literal["high", "medium", "low"]
TopK = Annotated[int, Field(ge=1, le=50)]
Limit = Annotated[int, Field(ge=1, le=200)]


class Step(BaseModel):
    """One step of a task run, as `store_task` takes it."""

    model_config = ConfigDict(extra="forbid")

    content: str = Field(description="What was run and what it printed, or what was done")
    outcome: Literal["success", "failure"] | None = None
    role: str | None = Field(None, description="The tool (pip, git, kubectl...)")
    kind: Literal["tool_call", "task", "message", "observation", "document"] = "tool_call"
    importance: Importance | None = None
    metadata: dict[str, Any] | None = None
    resolves: list[str] | None = Field(None, description="Ids of earlier failures this step fixed")


class RecallResult(BaseModel):
    namespace: str
    cards: list[MemoryCard]


class ListResult(BaseModel):
    namespace: str
    episodes: list[Episode]


class SessionsResult(BaseModel):
    namespace: str
    sessions: list[SessionView]


class ForgetResult(BaseModel):
    id: str
    status: Literal["forgotten"] = "forgotten"
    deleted_at: float


def _engine_errors(fn: Callable[..., _T]) -> Callable[..., _T]:
    """Engine errors as tool errors the agent can read and correct."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> _T:
        try:
            return fn(*args, **kwargs)
        except InvalidInput as exc:
            raise ToolError(f"invalid {exc.field}: {exc.reason}") from exc
        except HindsightError as exc:
            raise ToolError(str(exc)) from exc
        except ToolError:
            raise
        except Exception as exc:  # a bug: the agent learns that, the log learns the rest
            log.exception("tool %s failed", fn.__name__)
            raise ToolError("internal error: the server could not answer (see its log)") from exc

    return wrapper


def memory_tools(memory: Memory, default_namespace: str) -> list[Tool]:
    """The memory tools over `memory`, with strict input schemas."""

    def scope(ctx: Context) -> str:
        return namespace_of(ctx, default_namespace)

    @_engine_errors
    def store_memory(
        content: str,
        ctx: Context,
        importance: Importance | None = None,
        layer: Literal["episodic", "working", "semantic"] = "episodic",
        kind: Literal["message", "tool_call", "task", "observation", "document"] = "message",
        session_id: str | None = None,
        role: str | None = None,
        metadata: dict[str, Any] | None = None,
        related_ids: list[str] | None = None,
        outcome: Literal["success", "failure"] | None = None,
        resolves: list[str] | None = None,
        task_id: str | None = None,
    ) -> StoreResult:
        return memory.store(
            content,
            namespace=scope(ctx),
            importance=importance,
            layer=layer,
            kind=kind,
            session_id=session_id,
            role=role,
            metadata=metadata,
            related_ids=related_ids,
            outcome=outcome,
            resolves=resolves,
            task_id=task_id,
        )

    @_engine_errors
    def store_task(
        task: str,
        steps: list[Step],
        ctx: Context,
        outcome: Literal["success", "failure"] | None = None,
        session_id: str | None = None,
        role: str | None = None,
        importance: Importance | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> TaskResult:
        return memory.store_task(
            task,
            [step.model_dump(exclude_none=True) for step in steps],
            outcome=outcome,
            namespace=scope(ctx),
            session_id=session_id,
            role=role,
            importance=importance,
            metadata=metadata,
        )

    @_engine_errors
    def retrieve_memory(
        query: str,
        ctx: Context,
        layer: Literal["working", "episodic", "semantic"] | None = None,
        top_k: TopK = 5,
        min_score: Annotated[float, Field(ge=0)] | None = None,
        session_id: str | None = None,
        role: str | None = None,
        capabilities: list[str] | None = None,
        explain: bool = True,
        max_tokens: Annotated[int, Field(ge=1)] | None = None,
    ) -> RecallResult:
        namespace = scope(ctx)
        cards = memory.recall(
            query,
            namespace=namespace,
            layer=layer,
            top_k=top_k,
            min_score=min_score,
            session_id=session_id,
            role=role,
            capabilities=capabilities,
            max_tokens=max_tokens,
        )
        if not explain:
            cards = [card.model_copy(update={"trace": None}) for card in cards]
        return RecallResult(namespace=namespace, cards=cards)

    @_engine_errors
    def list_memories(
        ctx: Context,
        layer: Literal["working", "episodic", "semantic"] | None = None,
        limit: Limit = 20,
        offset: Annotated[int, Field(ge=0, le=MAX_OFFSET)] = 0,
        session_id: str | None = None,
    ) -> ListResult:
        namespace = scope(ctx)
        episodes = memory.list(
            namespace=namespace, layer=layer, limit=limit, offset=offset, session_id=session_id
        )
        return ListResult(namespace=namespace, episodes=episodes)

    @_engine_errors
    def list_sessions(
        ctx: Context, limit: Limit = 20, offset: Annotated[int, Field(ge=0, le=MAX_OFFSET)] = 0
    ) -> SessionsResult:
        namespace = scope(ctx)
        return SessionsResult(namespace=namespace, sessions=memory.sessions(namespace=namespace, limit=limit,
                                                                           offset=offset))  # fmt: skip

    @_engine_errors
    def get_session(session_id: str, ctx: Context) -> SessionView:
        return memory.session(session_id, namespace=scope(ctx))

    @_engine_errors
    def forget_memory(memory_id: str, ctx: Context) -> ForgetResult:
        episode = memory.forget(memory_id, namespace=scope(ctx))
        return ForgetResult(id=episode.id, deleted_at=episode.deleted_at or 0.0)

    @_engine_errors
    def reflect(ctx: Context, force: bool = False) -> ReflectionSummary:
        return memory.reflect(namespace=scope(ctx), force=force)

    @_engine_errors
    def explain_memory(memory_id: str, ctx: Context) -> EpisodeExplanation:
        return memory.explain(memory_id, namespace=scope(ctx))

    @_engine_errors
    def explain_fact(fact_id: str, ctx: Context) -> FactExplanation:
        return memory.explain_fact(fact_id, namespace=scope(ctx))

    @_engine_errors
    def get_entity(name: str, ctx: Context) -> EntityProfile:
        return memory.entity(name, namespace=scope(ctx))

    @_engine_errors
    def query_graph(
        cypher: str, ctx: Context, params: dict[str, Any] | None = None
    ) -> CypherResult:
        try:
            return memory.cypher(cypher, params, namespace=scope(ctx))
        except InvalidInput as exc:  # the engine's `query` is this tool's `cypher`
            raise InvalidInput("cypher" if exc.field == "query" else exc.field, exc.reason) from None

    reading = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
    specs: list[tuple[Callable[..., Any], str, ToolAnnotations]] = [
        (store_memory, STORE, ToolAnnotations(readOnlyHint=False, destructiveHint=False)),
        (store_task, STORE_TASK, ToolAnnotations(readOnlyHint=False, destructiveHint=False)),
        (retrieve_memory, RETRIEVE, reading),
        (list_memories, LIST, reading),
        (list_sessions, LIST_SESSIONS, reading),
        (get_session, GET_SESSION, reading),
        (forget_memory, FORGET, ToolAnnotations(readOnlyHint=False, destructiveHint=True)),
        (reflect, REFLECT, ToolAnnotations(readOnlyHint=False, destructiveHint=False)),
        (explain_memory, EXPLAIN, reading),
        (explain_fact, EXPLAIN_FACT, reading),
        (get_entity, GET_ENTITY, reading),
        (query_graph, QUERY_GRAPH, reading),
    ]
    return [_strict(Tool.from_function(fn, description=text, annotations=a)) for fn, text, a in specs]


def _strict(tool: Tool) -> Tool:
    """Reject unknown arguments (a misspelt `topk` is an error, not silently ignored) and say
    so in the input schema (`additionalProperties: false`)."""
    loose = tool.fn_metadata.arg_model
    strict = cast(
        type[ArgModelBase],
        type(loose.__name__, (loose,), {"model_config": ConfigDict(extra="forbid")}),
    )
    tool.fn_metadata.arg_model = strict
    tool.parameters = strict.model_json_schema(by_alias=True)
    return tool


# -- descriptions, written for the model that calls the tools ---------------------------------

STORE = """Store one episode in long-term memory: a user turn, your answer, a tool call, a task
outcome, an observation or a document. Call it when something is worth remembering later:
facts about the user or project, decisions, preferences, numbers, todos, what worked and what
failed. Do not store greetings or acknowledgements. Entities and decisions are extracted
automatically and linked in the memory graph.
Example: {"content": "We decided to use Postgres for Atlas; budget is 500k CNY.",
"importance": "high", "session_id": "chat-42", "role": "user"}
A tool call: {"content": "pip install -r requirements.txt\nERROR: No matching distribution found
for torch==9.9", "kind": "tool_call", "role": "pip", "outcome": "failure", "session_id": "task-7"}.
outcome (success or failure) says how a tool call or task ended: a failure's error becomes a
signature that the next occurrence meets, and a later success in the same session or task on
the same tool is linked as its fix (or name the failures a step fixed in resolves); task_id makes
the episode a step of a stored task (store_task stores a whole run at once).
importance is 0..1 or high/medium/low (scored from the content when omitted); kind is message,
tool_call, task, observation or document; layer is episodic (default), working, or semantic for
a lesson you state yourself ("On HTTP 429 from the embeddings API, back off and retry"), kept
beside the lessons memory learns from your failures; related_ids cite earlier episodes this one
follows from. Returns the episode id and a status:
stored; duplicate (already remembered: the id is the existing episode's); skipped with reason
low_importance (kept in this session's working memory only; pass importance to keep it);
working (stored in working memory, as asked with layer=working). Phone numbers, e-mail
addresses, ID and bank card numbers are replaced by placeholders such as [PHONE_1]."""

RETRIEVE = """Recall memories that answer a question, best first. Call it before answering
anything that may depend on earlier sessions: what the user prefers, what was decided, what
happened last time, what a tool returned before, and when an error comes back: paste it and ask
"how did we fix this last time?" to get the fix (the newest first, above the failure, with
trace.resolves naming the failures it fixed) and the lesson learned. Each card cites its episode
id (and related_ids) and, with explain=true, carries a trace: which channels found it (vector,
keyword, entity, graph, reply, side, recency, fix), the graph path, and each score factor.
Example: {"query": "Which database did we pick for Atlas?", "top_k": 5}
Optional: layer (working, episodic, semantic), min_score, session_id (prefer this session's
latest), role (rank memories by or for this role higher), capabilities (your tool names; memories
about tools you lack rank lower)."""

LIST = """List stored episodes newest first, optionally of one session or layer, with paging.
Call it to browse what is in memory, not to answer a question (use retrieve_memory for that).
Example: {"session_id": "chat-42", "limit": 20, "offset": 0}"""

LIST_SESSIONS = """List the conversations (sessions) in memory, the latest first, each with its digest:
when it ran, who took part, its topics, decisions and central sentences. Call it to see what
was talked about and when; retrieve_memory also answers "what did we talk about last time?".
Example: {"limit": 10}"""

STORE_TASK = """Store a task run in one call: the task, its steps in the order they ran (each a
tool call unless its kind says otherwise, with its outcome), and how the task ended. Steps are
linked to the task in the graph; a failing step's error becomes a signature, and the step that
got past it is linked as its fix, so that "how did we fix this last time?" finds it.
Example: {"task": "Deploy billing-api to staging", "outcome": "success", "steps": [
{"content": "kubectl apply -f billing.yaml\nerror: You must be logged in to the server (Unauthorized)",
"role": "kubectl", "outcome": "failure"}, {"content": "aws eks update-kubeconfig --name staging",
"role": "aws", "outcome": "success"}, {"content": "kubectl apply -f billing.yaml\ndeployment.apps/billing
configured", "role": "kubectl", "outcome": "success"}]}"""

GET_SESSION = """One session and its digest, by the session id given when storing.
Example: {"session_id": "chat-42"}"""

FORGET = """Forget one episode by id: it is soft-deleted (kept for audit with deleted_at) and
never recalled again. Call it when the user asks you to forget something or a memory is wrong.
Example: {"memory_id": "3f0c9c1e-..."}"""

REFLECT = """Reflect: derive semantic facts (relations between entities stated across
episodes, decisions, stated preferences) and lessons (an error, the fix that held, how often)
from the episodes stored since the last reflection, and write them with confidence. A
contradicting newer fact, or a newer fix that held, closes
the old one; nothing is deleted. The server also reflects on a schedule; call it after a burst
of new information. One call reads a bounded run of episodes (100 by default): call again while
status is "done", until it is "nothing_new". force=true starts again from the first episode.
Facts then appear in retrieve_memory (layer semantic) and get_entity. Example: {"force": false}"""

EXPLAIN = """Explain one memory: why it exists (kind, role, session, time, importance, source),
the entities it mentions, the decisions it made, and its neighbours (the episodes before and
after it in its session, and episodes sharing its entities). Call it to justify or check a
recalled card. Example: {"memory_id": "3f0c9c1e-..."}"""

EXPLAIN_FACT = """Explain one fact (a semantic card of retrieve_memory, or a fact of get_entity): why
memory believes it. Gives the rule that read it and what that rule reads, and for each episode
the fact stands on, the sentence the rule read and the words it took (the subject and the
object), with the confidence and whether it still holds. Call it when a fact looks wrong or
when you must say where it came from. Example: {"fact_id": "9b2d..."}"""

GET_ENTITY = """Everything memory knows about one entity (a person, project, product, place, or
an error signature): the entity with its aliases, its facts, the lessons of the errors its
episodes show, the decisions about it and its latest episodes. Call it when the question is
about a named thing. Example: {"name": "Atlas"}"""

QUERY_GRAPH = """Run a read-only Cypher query on the memory graph, for analysis. $namespace is
bound to your namespace, and every pattern (in subqueries, COUNT {} and EXISTS {} too) needs a
node pinned by WHERE v.namespace = $namespace or reached from one; other queries, writes and
procedures other than the schema ones are refused with the reason. Labels: Episode, Entity, Decision, Session, Digest; relationships: MENTIONS, DECIDED, ABOUT,
IN_SESSION, NEXT, SUPERSEDES, PART_OF, STEP_OF, RESOLVED_BY, FACT, DIGEST_OF, DRAWS_ON. Nodes come
back as property maps.
Example: {"cypher": "MATCH (e:Entity) WHERE e.namespace = $namespace RETURN e.name,
e.mention_count ORDER BY e.mention_count DESC LIMIT $n", "params": {"n": 5}}"""
