"""Typed records at every boundary of hindsight.

`Episode`, `Entity`, `Decision` and `Session` are what the graph holds; `StoreResult` is what
`store` returns, `MemoryCard` and `Trace` what recall returns. What a caller hands in is
validated by `engine.inputs`. Times inside the stores are epoch seconds (floats); cards show
them as UTC datetimes.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import (
    BaseModel,
    Field,
)

__all__ = [
    "ChannelHit",
    "Decision",
    "Entity",
    "Episode",
    "GraphPath",
    "GraphReads",
    "Kind",
    "Layer",
    "MemoryCard",
    "NamedTime",
    "NumberMention",
    "Outcome",
    "PathNode",
    "RecallLayer",
    "Resolution",
    "Session",
    "Stats",
    "StoreResult",
    "TaskResult",
    "Trace",
    "from_epoch",
    "session_node_id",
]

Kind = Literal["message", "tool_call", "task", "observation", "document"]
# A card is an episode's, a fact's (kind "observation", layer "semantic") or a session
# digest's (kind "digest").
CardKind = Literal["message", "tool_call", "task", "observation", "document", "digest"]
# An episode's layer: "semantic" is a lesson the agent stated itself (`store(layer="semantic")`).
Layer = Literal["working", "episodic", "semantic"]
# How a tool call or a task ended; None where the caller did not say (a chat turn).
Outcome = Literal["success", "failure"]
# Recall may also ask for semantic memory: facts written by reflection.
RecallLayer = Literal["working", "episodic", "semantic"]

def from_epoch(value: float) -> datetime:
    return datetime.fromtimestamp(value, tz=UTC)


def session_node_id(namespace: str, session_id: str) -> str:
    """Session ids are chosen by callers, so the Session node's id is scoped by namespace."""
    return f"{namespace}/{session_id}"


class NumberMention(BaseModel):
    """A number found in an episode: `预算改成50万` -> value 500000, unit CNY, context 预算."""

    value: float
    unit: str | None = None
    text: str
    context: str


class Episode(BaseModel):
    """An episode node: one turn, tool call, task outcome, observation or document."""

    id: str
    namespace: str
    content: str
    summary: str = ""
    kind: Kind = "message"
    session_id: str | None = None
    role: str | None = None
    agent: str | None = None
    importance: float = 0.5
    layer: Layer = "episodic"
    token_count: int = 0
    content_hash: str = ""
    occurred_at: float
    created_at: float
    last_accessed_at: float | None = None
    access_count: int = 0
    expires_at: float | None = None
    deleted_at: float | None = None
    archived_at: float | None = None
    redactions: int = 0
    metadata: dict[str, Any] = Field(default_factory=dict)
    numbers: list[NumberMention] = Field(default_factory=list)
    todos: list[str] = Field(default_factory=list)
    related_ids: list[str] = Field(default_factory=list)
    last_seen: float | None = None
    sources: list[str] = Field(default_factory=list)
    outcome: Outcome | None = None


class Entity(BaseModel):
    """A person, organisation, place, product or thing that episodes mention."""

    id: str
    namespace: str
    name: str
    canonical: str
    type: str
    aliases: list[str] = Field(default_factory=list)
    first_seen: float
    last_seen: float
    mention_count: int = 1
    created_at: float


class Decision(BaseModel):
    """Something decided in an episode ("we decided to go with Postgres")."""

    id: str
    namespace: str
    text: str
    status: Literal["active", "superseded"] = "active"
    decided_at: float
    created_at: float
    subjects: list[str] = Field(default_factory=list)


class Resolution(BaseModel):
    """A failure and the step that fixed it: `(failure)-[:RESOLVED_BY]->(fix)` in the graph."""

    failure_id: str
    fix_id: str
    at: float  # when the fix was made
    # "caller": the fix named the failure (`resolves`); "run": found in its task run or session.
    derived_by: Literal["caller", "run"]
    # The later step that showed the fix got past the error, if another: a success, or a
    # failure of another error on the same tool.
    confirmed_by: str | None = None
    held: bool = True  # false once the same error came back after it in the run
    recurred_by: str | None = None  # the failure that showed it did not hold


class Session(BaseModel):
    """A conversation or task run; its node id is namespace-scoped."""

    id: str
    namespace: str
    name: str
    started_at: float
    created_at: float


class StoreResult(BaseModel):
    """What `store` returns: the episode id and what was extracted from it."""

    id: str
    # stored: a new episode. duplicate: `id` is the episode it repeats, now seen again.
    # skipped: kept in working memory only (`reason` says why). working: stored in working
    # memory, as asked.
    status: Literal["stored", "duplicate", "skipped", "working"] = "stored"
    reason: Literal["low_importance"] | None = None
    namespace: str
    importance: float
    entities: list[str] = Field(default_factory=list)
    decisions: list[str] = Field(default_factory=list)
    # Personal data replaced by placeholders before storing, by type ({"PHONE": 2}).
    redacted: dict[str, int] = Field(default_factory=dict)
    # Long content is stored whole and as chunks, each an episode linked PART_OF to this one.
    chunk_ids: list[str] = Field(default_factory=list)
    # Earlier decisions this episode's decisions superseded.
    superseded: list[str] = Field(default_factory=list)


class TaskResult(BaseModel):
    """What `store_task` returns: the task's own result and each step's, in order."""

    task: StoreResult
    steps: list[StoreResult]


class ChannelHit(BaseModel):
    """One recall channel's view of a card: its rank (1 = best) and raw score."""

    channel: Literal[
        "vector", "keyword", "entity", "graph", "reply", "side", "recency", "working", "fact", "session", "fix"
    ]
    rank: int
    score: float


class PathNode(BaseModel):
    id: str
    label: Literal["Episode", "Entity", "Decision"]
    name: str = ""


class GraphPath(BaseModel):
    """How the graph linked a card to the query: nodes and the relationships between them.

    `relationships[i]` joins `nodes[i]` and `nodes[i + 1]`.
    """

    nodes: list[PathNode]
    relationships: list[str]


# How a store reads a namespace's mentions: its in-process index, or Cypher statements.
GraphReads = Literal["index", "statements"]


class Trace(BaseModel):
    """Why a card was recalled: every channel that found it, the graph path, each factor."""

    channels: list[ChannelHit]
    path: GraphPath | None = None
    fused: float
    decay: float
    age_days: float
    importance: float
    # Role and capability awareness: 1.0 when the request named no role or capabilities.
    role_factor: float = 1.0
    capability_factor: float = 1.0
    # The query names the memory's author; the query asks "when" or names a date (rerank.py).
    author_factor: float = 1.0
    time_factor: float = 1.0
    # A question that gathers ("how many times ..."): a later card of the same session.
    session_factor: float = 1.0
    # A fact card of the one-valued predicate the question asks of the entity it names
    # ("where does Sam work?": Sam's works_at), recall/facts.py.
    answer_factor: float = 1.0
    # A fact card: (its similarity / the best episode's)^fact_relevance_power, at most 1.
    relevance_factor: float = 1.0
    final: float
    # A knowledge update (recall/updates.py), or a newer fix of the same error
    # (recall/fixes.py): the older cards this one replaces, or the newer card that replaced it.
    supersedes: list[str] = Field(default_factory=list)
    superseded_by: str | None = None
    # A fix reached through RESOLVED_BY (recall/fixes.py): the failures it fixed, and whether it
    # held (false once the same error came back after it in its run).
    resolves: list[str] = Field(default_factory=list)
    held: bool | None = None
    # The [start, end) the query names ("on May 2", "上周三"), as recall applied it: episodes in
    # it were listed by the recency channel and boosted by time_factor.
    time_window: tuple[datetime, datetime] | None = None
    # How the graph's mentions were read for an episode card: from the embedded store's
    # in-process index, or by statements (Neo4j always; the embedded store for a namespace
    # over `graph_index_episodes`, or with the index off). Same answers, slower reads.
    graph_reads: GraphReads | None = None


class NamedTime(BaseModel):
    """A relative time a memory's words name, resolved against when they were said."""

    phrase: str  # as written: "yesterday", "last week", "下个月"
    start: datetime  # the span it names, [start, end), UTC
    end: datetime
    text: str  # in calendar words: "20 June 2023", "the week before 21 June 2023", "2023年7月"


class MemoryCard(BaseModel):
    """A recalled memory, citing its episode id, with the trace of how it was found."""

    id: str
    namespace: str
    content: str
    score: float
    occurred_at: datetime
    created_at: datetime
    session_id: str | None
    role: str | None
    kind: CardKind
    layer: RecallLayer
    importance: float
    entities: list[str]
    related_ids: list[str] = Field(default_factory=list)
    metadata: dict[str, Any]
    trace: Trace | None = None  # None when the caller asked for no explanation
    # What "yesterday" or "next month" in its words meant when they were said (`engine.time_text`).
    times: list[NamedTime] = Field(default_factory=list)


class Stats(BaseModel):
    """Counts of live records, for one namespace or all; for one, how its graph is read."""

    namespace: str | None
    episodes: int
    entities: int
    decisions: int
    facts: int
    graph_reads: GraphReads | None = None  # as in `Trace.graph_reads`
